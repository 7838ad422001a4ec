"""Getting the model ready when the server starts, so that no first message waits for it.

The embedded model's router keeps one prepared tool prompt per language (see ``riverse model
--prepare``); preparing one takes seconds. With ``server.prepare_at_start`` (the default) the server
prepares those of the page's languages in a background thread as soon as it starts, through the
model's fair queue like any turn, and ``GET /api/status`` reports the progress the page shows:
``state`` is ``starting``, ``loading`` (the model file), ``preparing`` (``current`` names the language),
``ready``, ``failed`` (``error`` says why; the first message then prepares as before) or ``off``;
while examples are written for tools that came without any, ``examples`` is ``[written, of]``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from agent.app import App
from agent.loop import Agent
from agent.providers.base import capabilities_of, prefix_cache
from agent.server.turns import FairGate, QueuedProvider

log = logging.getLogger("riverse.server")

#: the languages of the page, the ones prepared
LANGUAGES = ("en", "zh", "ja")


class Readiness:
    """The model's state for the page, and the thread that prepares it."""

    def __init__(self, app: App, gate: FairGate):
        self.app = app
        self.gate = gate
        self.state = "starting"
        self.current = ""
        self.error = ""
        self.languages = sorted(LANGUAGES, key=lambda language: language != app.language)  # its own first
        self.prepared: list[str] = []
        self.examples: tuple[int, int] | None = None  # (written, of) while examples are written for tools without any
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Prepare in the background (nothing to do: ``ready`` at once)."""
        if not self.app.settings.server.prepare_at_start:
            self._set("off")
            return
        self._thread = threading.Thread(target=self._run, name="riverse-prepare", daemon=True)
        self._thread.start()

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": self.state,
                "model": self.app.model_label(),
                "languages": list(self.languages),
                "prepared": list(self.prepared),
                "current": self.current,
                "examples": list(self.examples) if self.examples else None,
                "error": self.error,
            }

    def _set(self, state: str, current: str = "", error: str = "") -> None:
        with self._lock:
            self.state, self.current, self.error = state, current, error

    def _run(self) -> None:
        try:
            self.run(self._preparer())
        except Exception as exc:  # noqa: BLE001 - the first message prepares as before; the page says so
            log.warning("preparing the tool prompts at start failed: %s", exc)
            self._set("failed", error=str(exc))

    def _preparer(self) -> Callable[[str], None] | None:
        """What prepares one language, or None when this model keeps no prepared prompt."""
        provider = self.app.provider
        if prefix_cache(provider) is None:  # a model that keeps no prepared prompt: nothing to wait for
            return None
        if capabilities_of(provider).concurrency == 1:
            provider = QueuedProvider(provider, self.gate, lambda waited_ms: None)
        agent = Agent.from_settings(self.app.settings, provider, self.app.registry, self.app.store)
        if not self.app.can_prepare(agent):
            return None
        cache = prefix_cache(agent.provider)
        self._set("loading")
        if cache is not None:
            cache.load()

        def progress(done: int, total: int) -> None:
            with self._lock:
                self.examples = (done, total) if done < total else None

        def prepare_one(language: str) -> None:
            self.app.prepare(agent, [language], progress)

        return prepare_one

    def run(self, prepare_one: Callable[[str], None] | None) -> None:
        """Prepare every language with ``prepare_one``, keeping the state up to date (None: nothing to do)."""
        if prepare_one is not None:
            for language in self.languages:
                self._set("preparing", current=language)
                prepare_one(language)
                with self._lock:
                    self.prepared.append(language)
        self._set("ready")
