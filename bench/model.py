"""The embedded model as the benchmarks use it: the home's settings, greedy decoding, loaded."""

from __future__ import annotations

from agent.config import Settings, load_settings
from agent.providers.llama import LocalProvider


def decision_model(settings: Settings | None = None) -> LocalProvider:
    """The configured embedded model at temperature 0 (decisions are compared run to run), loaded."""
    settings = settings or load_settings()
    provider = LocalProvider(models_dir=settings.models_dir, cache_dir=settings.home / "cache", n_ctx=settings.llm.n_ctx,
                             n_threads=settings.llm.n_threads, temperature=0.0, language="en")
    provider.load()
    return provider
