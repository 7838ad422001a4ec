"""Stopping a turn that is running: the model stops writing, a running tool is abandoned.

A turn has a stop flag (a ``threading.Event``). The turn's provider is seen through
:class:`StoppableProvider`, which checks the flag before every request and between streamed pieces of
text and steps of a decision, and raises :class:`TurnStopped` once it is set; the provider's own
``finally`` blocks free the model. The turn's :class:`~agent.toolkit.runtime.ToolRunner` watches the
same flag and reports a tool still running as ``stopped`` (it is recorded so). The worker thread
catches :class:`TurnStopped`, keeps what was said so far as the answer, and ends the turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from agent.providers.base import (
    Completion,
    Mark,
    PrefixCache,
    Provider,
    ProviderError,
    ReplyCursor,
    SentenceVectors,
    TextCallback,
    capabilities_of,
    needed_prefix_cache,
    needed_vectors,
    scored_decoding,
)


class TurnStopped(Exception):
    """The user stopped the turn."""


def check(stop: threading.Event) -> None:
    """Raise :class:`TurnStopped` when ``stop`` is set."""
    if stop.is_set():
        raise TurnStopped("the turn was stopped")


class StoppableCursor:
    """A :class:`ReplyCursor` that raises :class:`TurnStopped` between steps once the turn is stopped."""

    def __init__(self, cursor: ReplyCursor, stop: threading.Event):
        self._cursor = cursor
        self._stop = stop

    def mark(self) -> Mark:
        return self._cursor.mark()

    def rewind(self, mark: Mark) -> None:
        self._cursor.rewind(mark)

    def extend(self, text: str) -> None:
        check(self._stop)
        self._cursor.extend(text)

    def option_logprobs(self, options: list[str]) -> dict[str, float]:
        check(self._stop)
        return self._cursor.option_logprobs(options)

    def until(self, stop: str, max_tokens: int = 48, **kwargs: Any) -> str:
        check(self._stop)
        return self._cursor.until(stop, max_tokens, **kwargs)


class StoppableProvider:
    """A provider that stops when the turn's stop flag is set. It declares the capabilities of the
    provider it wraps, no more."""

    def __init__(self, provider: Provider, stop: threading.Event):
        self._provider = provider
        self._stop = stop
        self.name = provider.name
        self.capabilities = capabilities_of(provider)

    def complete(self, messages: list[dict[str, Any]], *, on_text: TextCallback | None = None, **kwargs: Any) -> Completion:
        check(self._stop)
        completion = self._provider.complete(messages, on_text=self._watch(on_text), **kwargs)
        check(self._stop)  # a provider that does not stream is stopped when it returns
        return completion

    def _watch(self, on_text: TextCallback | None) -> Callable[[str], None] | None:
        if on_text is None:  # not streamed: stopped when it returns
            return None

        def piece(text: str) -> None:
            check(self._stop)
            on_text(text)

        return piece

    @contextmanager
    def open_reply(self, messages: list[dict[str, Any]], *, keep: int = 0) -> Iterator[ReplyCursor]:
        scored = scored_decoding(self._provider)
        if scored is None:
            raise ProviderError(f"provider {self.name} has no scored decoding")
        check(self._stop)
        with scored.open_reply(messages, keep=keep) as cursor:
            yield StoppableCursor(cursor, self._stop)

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        check(self._stop)
        return self._vectors().embed(texts, keep=keep)

    def has_embedded(self, texts: list[str]) -> bool:
        return self._vectors().has_embedded(texts)

    def load(self) -> None:
        self._cache().load()

    def has_prefix(self, messages: list[dict[str, Any]]) -> bool:
        return self._cache().has_prefix(messages)

    def prepare_prefix(self, messages: list[dict[str, Any]]) -> None:
        check(self._stop)
        self._cache().prepare_prefix(messages)

    def leaves_room(self, messages: list[dict[str, Any]], room: int) -> bool:
        return self._cache().leaves_room(messages, room)

    def _vectors(self) -> SentenceVectors:
        return needed_vectors(self._provider, self.name)

    def _cache(self) -> PrefixCache:
        return needed_prefix_cache(self._provider, self.name)
