"""Model providers, looked up by name.

Built-in providers register in :data:`PROVIDERS` exactly like third-party ones do through the
``riverse.providers`` entry-point group: a name mapped to a factory ``(settings) -> Provider``.
"""

from __future__ import annotations

from importlib import metadata
from typing import Callable

from agent.config import Settings
from agent.providers.base import Capabilities, Completion, Provider, ProviderError, ToolCallRequest
from agent.providers.openai_compat import PRESETS
from agent.plugins import load_object

__all__ = ["Capabilities", "Completion", "Provider", "ProviderError", "ToolCallRequest", "PROVIDERS", "create_provider", "provider_names"]

ENTRY_POINT_GROUP = "riverse.providers"

# name -> "module:factory", imported only when that provider is used (llama.cpp is heavy).
PROVIDERS: dict[str, str] = {
    "local": "agent.providers.llama:from_settings",
    "fake": "agent.providers.fake:from_settings",
    **{name: "agent.providers.openai_compat:from_settings" for name in PRESETS},
}


def _factories() -> dict[str, Callable[[Settings], Provider] | str]:
    found: dict[str, Callable[[Settings], Provider] | str] = dict(PROVIDERS)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def provider_names() -> list[str]:
    return sorted(_factories())


def create_provider(settings: Settings) -> Provider:
    """Build the provider that ``settings.llm.provider`` names."""
    name = settings.llm.provider
    factories = _factories()
    target = factories.get(name)
    if target is None:
        raise ProviderError(f"unknown provider {name!r}; use one of: {', '.join(sorted(factories))}")
    if isinstance(target, str):
        target = load_object(target)
    return target(settings)
