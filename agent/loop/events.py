"""What a turn reports while it runs (``Event``), the model's next move (``Reply``) and a turn's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from agent.providers.base import Completion, ToolCallRequest
from agent.toolkit.runtime import ToolOutcome


@dataclass
class Event:
    """Something a user interface may show while a turn runs.

    kinds: ``text`` (a piece of the answer), ``tool_start`` (name, params), ``tool_end`` (a ToolOutcome),
    ``notice`` (a message about the model's output or the protocol).
    """

    kind: str
    text: str = ""
    name: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    outcome: ToolOutcome | None = None


EventCallback = Callable[[Event], None]


@dataclass
class TurnResult:
    answer: str
    tool_calls: list[ToolOutcome]
    conversation_id: str
    protocol: str
    steps: int

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "tool_calls": [o.as_dict() for o in self.tool_calls]}


@dataclass
class Reply:
    """The model's next move: tool calls, or text (the answer)."""

    text: str = ""
    calls: list[ToolCallRequest] = field(default_factory=list)
    raw: Completion | None = None
    streamed: bool = False  # the text has already gone out as ``text`` events
