"""The provider interface: what every model offers, and the capabilities some models add.

Every provider turns a conversation into a completion (:class:`Provider`). Messages use the OpenAI
chat format (``{"role": ..., "content": ...}``, assistant ``tool_calls`` and ``tool`` messages). A
provider that supports native function calling receives ``tools`` (OpenAI tool schemas) and returns
structured ``tool_calls``; one that does not returns text, which the JSON protocol parses.

A provider declares what more it can do in :attr:`Provider.capabilities` (a :class:`Capabilities`):
scored decoding with a :class:`ReplyCursor`, sentence vectors, a kept prompt prefix. Code that needs
a capability asks for it through :func:`scored_decoding`, :func:`sentence_vectors` or
:func:`prefix_cache`, which check the declaration in one place and return the provider typed as that
capability, or None.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, cast, runtime_checkable

from agent.errors import RiverseError

TextCallback = Callable[[str], None]


class ProviderError(RiverseError):
    """The model could not be reached or refused the request. The message says what to do, on one
    line; ``detail`` keeps what the server said at length (shown with ``--verbose``)."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail


class ToolsUnsupportedError(ProviderError):
    """The endpoint rejected a request because it carried native ``tools``. ``reason`` says how; the
    message adds which setting avoids it."""

    HINT = (
        "; set llm.tool_protocol to json (tools described in the prompt) or auto (which falls back to it), "
        "or run riverse model --check to find what this server does best"
    )

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason + self.HINT, detail)
        self.reason = reason


@dataclass
class ToolCallRequest:
    """A tool call the model asked for. ``arguments`` is a dict, or the raw text when it did not parse."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str = ""


@dataclass
class Completion:
    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    # tokens or other figures the provider wants to report (optional)
    usage: dict[str, Any] = field(default_factory=dict)
    #: why the reply ended, as the server said: "stop", "tool_calls", "length" (cut at max_tokens), ...
    finish_reason: str = ""


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do beyond :meth:`Provider.complete`."""

    #: ``complete`` understands ``tools`` and returns structured tool calls
    native_tools: bool = False
    #: :class:`ScoredDecoding`: ``open_reply`` gives a :class:`ReplyCursor` (the router's decisions)
    scored_decoding: bool = False
    #: :class:`SentenceVectors`: ``embed`` and ``has_embedded``
    sentence_vectors: bool = False
    #: :class:`PrefixCache`: ``load``, ``has_prefix`` and ``prepare_prefix`` (a fixed prompt evaluated once)
    prefix_cache: bool = False
    #: how many requests the model serves at once (None: as many as come); the server queues the rest
    concurrency: int | None = None
    #: the tool protocol ``tool_protocol: auto`` chooses for this provider (None: native or json)
    preferred_protocol: str | None = None


@runtime_checkable
class Provider(Protocol):
    """What the agent loop needs of a model."""

    name: str
    capabilities: Capabilities

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_text: TextCallback | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """Return the model's next message.

        ``on_text`` receives text as it is generated (streaming). ``json_schema``, when the provider can
        honour it, constrains the output to JSON matching that schema; providers that cannot ignore it.
        """
        ...


Mark = Any  # a point in a reply, from ReplyCursor.mark


class ReplyCursor(Protocol):
    """The assistant's reply being written: score what may come next, or write it greedily."""

    def mark(self) -> Mark:
        """A point in the reply to :meth:`rewind` to."""
        ...

    def rewind(self, mark: Mark) -> None:
        """Forget what was written after ``mark``."""
        ...

    def extend(self, text: str) -> None:
        """Append ``text`` to the reply."""
        ...

    def option_logprobs(self, options: list[str]) -> dict[str, float]:
        """Log-probability of each option as the reply's continuation, normalised over the options."""
        ...

    def until(
        self,
        stop: str,
        max_tokens: int = 48,
        *,
        allowed: Callable[[bytes], bool] | None = None,
        copy_from: str | None = None,
        opening: str = "",
        hint: str = "",
    ) -> str:
        """Write greedily until ``stop``; return what was written before it (``hint``: what it likely
        is, one per line, which may make it faster to write, never different)."""
        ...


class ScoredDecoding(Protocol):
    """A provider that opens the assistant's reply as a :class:`ReplyCursor`."""

    def open_reply(self, messages: list[dict[str, Any]], *, keep: int = 0) -> AbstractContextManager[ReplyCursor]:
        """A cursor at the start of the reply to ``messages``, valid inside the ``with`` block. ``keep``:
        the first ``keep`` messages are a prefix that comes back (kept, not evaluated again)."""
        ...


class SentenceVectors(Protocol):
    """A provider that turns texts into unit-length sentence vectors."""

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        """One row per text (a numpy array); ``keep`` remembers them for texts that come back."""
        ...

    def has_embedded(self, texts: list[str]) -> bool:
        """Whether the vectors of all ``texts`` are kept."""
        ...


class PrefixCache(Protocol):
    """A provider that evaluates a fixed prompt once and keeps it (in memory and on disk)."""

    def load(self) -> None:
        """Load the model now rather than on first use."""
        ...

    def has_prefix(self, messages: list[dict[str, Any]]) -> bool:
        """Whether the state of ``messages`` is kept already."""
        ...

    def prepare_prefix(self, messages: list[dict[str, Any]]) -> None:
        """Evaluate ``messages`` and keep their state, unless that was done before."""
        ...

    def leaves_room(self, messages: list[dict[str, Any]], room: int) -> bool:
        """Whether ``messages`` leave at least ``room`` tokens of the model's context free."""
        ...


def capabilities_of(provider: Any) -> Capabilities:
    """What ``provider`` declares it can do. A provider written before capabilities were declared
    (with only a ``supports_native_tools`` flag) can do plain completion, natively or not."""
    declared = getattr(provider, "capabilities", None)
    if isinstance(declared, Capabilities):
        return declared
    return Capabilities(native_tools=bool(getattr(provider, "supports_native_tools", False)))


def scored_decoding(provider: Provider) -> ScoredDecoding | None:
    """``provider`` as a :class:`ScoredDecoding`, or None when it does not declare it."""
    return cast(ScoredDecoding, provider) if capabilities_of(provider).scored_decoding else None


def sentence_vectors(provider: Provider) -> SentenceVectors | None:
    """``provider`` as a :class:`SentenceVectors`, or None when it does not declare it."""
    return cast(SentenceVectors, provider) if capabilities_of(provider).sentence_vectors else None


def prefix_cache(provider: Provider) -> PrefixCache | None:
    """``provider`` as a :class:`PrefixCache`, or None when it does not declare it."""
    return cast(PrefixCache, provider) if capabilities_of(provider).prefix_cache else None


def needed_vectors(provider: Provider, name: str) -> SentenceVectors:
    """``provider``'s sentence vectors, for a wrapper that was asked for them (an error when it has none)."""
    vectors = sentence_vectors(provider)
    if vectors is None:
        raise ProviderError(f"provider {name} has no sentence vectors")
    return vectors


def needed_prefix_cache(provider: Provider, name: str) -> PrefixCache:
    """``provider``'s prompt-prefix cache, for a wrapper that was asked for it (an error when it has none)."""
    cache = prefix_cache(provider)
    if cache is None:
        raise ProviderError(f"provider {name} keeps no prompt prefix")
    return cache
