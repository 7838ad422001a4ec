"""The provider interface: one method that turns a conversation into a completion.

Messages use the OpenAI chat format (``{"role": ..., "content": ...}``, assistant ``tool_calls`` and
``tool`` messages). A provider that supports native function calling receives ``tools`` (OpenAI tool
schemas) and returns structured ``tool_calls``; one that does not returns text, which the JSON
protocol parses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from agent.errors import RiverseError

TextCallback = Callable[[str], None]


class ProviderError(RiverseError):
    """The model could not be reached or refused the request. The message says what to do."""


class ToolsUnsupportedError(ProviderError):
    """The endpoint rejected a request because it carried native ``tools``."""


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


@runtime_checkable
class Provider(Protocol):
    """What the agent loop needs of a model."""

    name: str
    #: True when ``complete`` understands ``tools`` and returns structured tool calls.
    supports_native_tools: bool

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
