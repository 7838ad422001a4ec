"""Write ``agent/providers/llama/data/default-model-vectors.npz``: the default model's sentence vectors of every text
the router compares messages with for the built-in tools (their examples in English, Chinese and
Japanese, and the built-in messages that need no tool).

With them, a new Riverse home on the default model does not compute about 250 vectors per language
(0.1 s each) before its first decision. Run this after changing a built-in tool's examples or the
router's no-tool messages; ``tests/test_routing.py`` fails until the file covers them again.

    .venv/bin/python bench/routing/shipped_vectors.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from agent.config import load_settings  # noqa: E402
from agent.providers.llama.model_files import ensure_default_model  # noqa: E402
from agent.providers.llama import SHIPPED_VECTORS, LocalProvider, SentenceVectorContext  # noqa: E402
from agent.router import DecisionPrompt, RouterOptions  # noqa: E402
from run import manifests_for  # noqa: E402

LANGUAGES = ("en", "zh", "ja")


def builtin_texts() -> list[str]:
    """Every text the router embeds for the built-in tools (all enabled), in every language, once."""
    texts: dict[str, None] = {}
    for language in LANGUAGES:
        texts.update(dict.fromkeys(DecisionPrompt(manifests_for(language), language, RouterOptions()).examples.texts))
    return list(texts)


def main() -> None:
    settings = load_settings()
    # by its path, so that the vectors are computed, not read from the file this writes
    provider = LocalProvider(ensure_default_model(settings.models_dir, progress=True), n_ctx=settings.llm.n_ctx)
    texts = builtin_texts()
    print(f"computing {len(texts)} vectors with the default model…", file=sys.stderr)
    matrix = provider.embed(texts)
    SHIPPED_VECTORS.parent.mkdir(parents=True, exist_ok=True)
    keys = np.array([SentenceVectorContext.key(t) for t in texts])
    np.savez_compressed(SHIPPED_VECTORS, keys=keys, matrix=matrix.astype(np.float16))
    print(f"wrote {SHIPPED_VECTORS.relative_to(ROOT)} ({SHIPPED_VECTORS.stat().st_size:,} bytes, {len(texts)} texts)")


if __name__ == "__main__":
    main()
