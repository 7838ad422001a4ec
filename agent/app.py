"""Wiring: settings → registry, store, provider, agent. Shared by the CLI and the server.

Everything is built lazily: listing tools does not load a model, and nothing opens the database
until it is needed. Only the Riverse home is made at once, private to its user, before anything is
written into it (:func:`agent.home.make_home_private`).
"""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any, Mapping

from agent.config import Settings, load_settings
from agent.home import Tightened, make_home_private
from agent.loop import Agent
from agent.providers import create_provider
from agent.providers.base import Provider, prefix_cache
from agent.router.written import Progress
from agent.toolkit.runtime import Approver
from agent.storage import Store, open_store
from agent.tools import ToolRegistry


class App:
    def __init__(
        self,
        *,
        config: str | None = None,
        home: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        settings: Settings | None = None,
        provider: Provider | None = None,
    ):
        self.settings = settings or load_settings(config, home=home, overrides=overrides)
        # What was made private at start; the command line reports it (``privacy.notices``).
        self.privacy: Tightened = make_home_private(self.settings.home)
        self._injected = provider
        if provider is not None:
            self.__dict__["provider"] = provider

    @cached_property
    def registry(self) -> ToolRegistry:
        return ToolRegistry.from_settings(self.settings)

    @cached_property
    def store(self) -> Store:
        settings = self.settings
        if settings.storage.url is None:
            return open_store(settings.db_path)
        return open_store(settings.storage.url, pool_size=settings.storage.pool_size, language=settings.language)

    @cached_property
    def provider(self) -> Provider:
        return create_provider(self.settings)

    @property
    def language(self) -> str:
        return self.settings.language

    def model_label(self) -> str:
        llm = self.settings.llm
        if self._injected is not None:  # a provider handed in by code (tests, embedding) names itself
            return self._injected.name
        if llm.provider == "local":
            return f"local ({llm.model_path or 'Qwen2.5-Coder-0.5B-Instruct Q4_K_M'})"
        return f"{llm.provider}" + (f" · {llm.model}" if llm.model else "")

    def agent(self, approver: Approver | None = None) -> Agent:
        return Agent.from_settings(self.settings, self.provider, self.registry, self.store, approver)

    def can_prepare(self, agent: Agent) -> bool:
        """Whether the agent's protocol keeps a prepared prompt in its provider (the embedded model's router)."""
        return agent.protocol.prepares_prompts and prefix_cache(agent.provider) is not None

    def prepare(self, agent: Agent, languages: list[str], progress: Progress | None = None) -> dict[str, float | None]:
        """Load the model and prepare the tool prompt of each language now rather than at the first
        message (``progress(done, total)``: examples written for tools without any). Per language: the
        seconds it took, or None when it was already prepared."""
        cache = prefix_cache(agent.provider)
        if cache is None or not agent.protocol.prepares_prompts:
            return {}
        cache.load()  # assembles the default model on first use
        out: dict[str, float | None] = {}
        for language in languages:
            started = time.perf_counter()
            did = agent.protocol.prepare(agent, [language], progress)[language]
            out[language] = time.perf_counter() - started if did else None
        return out
