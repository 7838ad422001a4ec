"""What a decision reads of the conversation: the previous exchange (the user's message, the calls
it led to with their results, and the answer), written as the router's own turns, so that a
follow-up ("and for Lyon?", "那上海呢？", "それを華氏で") is decided with what it refers to.

A call is written as the router writes a decision, with what it returned added::

    user:      What's the weather in Lima?
    assistant: {"tool": "weather", "params": {"city": "Lima"}, "result": "Lima: 18°C, Clear"}

and an exchange without a tool as ``{"tool": "none"}``. The same form carries the requests decided
earlier in the same message (see :mod:`agent.router.requests`), so "the weather in Oslo and in Bergen"
decides "and in Bergen" after ``{"tool": "weather", "params": {"city": "Oslo"}}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.storage import Store

#: the longest result written into a decision's context (the head of a result holds its figures)
RESULT_CHARS = 240


@dataclass
class Call:
    tool: str
    params: dict[str, Any]
    result: str = ""  # what the call returned ("" while it has not run)
    ok: bool = True


@dataclass
class Exchange:
    """One earlier request and what was done for it."""

    message: str
    calls: list[Call] = field(default_factory=list)

    def turns(self, none: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": self.message}, {"role": "assistant", "content": self.decision(none)}]

    def decision(self, none: str) -> str:
        if not self.calls:
            return json.dumps({"tool": none})
        return "\n".join(json.dumps(_written(call), ensure_ascii=False) for call in self.calls)

    def text(self) -> str:
        """Everything a value may be copied from: the message, the calls' values and their results."""
        parts = [self.message]
        for call in self.calls:
            parts.extend(str(v) for v in call.params.values())
            parts.append(call.result)
        return "\n".join(part for part in parts if part)


def _written(call: Call) -> dict[str, Any]:
    written: dict[str, Any] = {"tool": call.tool, "params": call.params}
    if call.result:
        result = call.result if call.ok else f"failed: {call.result}"
        written["result"] = result if len(result) <= RESULT_CHARS else result[:RESULT_CHARS] + "…"
    return written


@dataclass
class Context:
    """The exchanges a decision reads, oldest first."""

    exchanges: list[Exchange] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.exchanges)

    def turns(self, none: str) -> list[dict[str, str]]:
        return [turn for exchange in self.exchanges for turn in exchange.turns(none)]

    def text(self) -> str:
        return "\n".join(exchange.text() for exchange in self.exchanges)

    def then(self, exchange: Exchange) -> "Context":
        return Context([*self.exchanges, exchange])

    @property
    def calls(self) -> list[Call]:
        return [call for exchange in self.exchanges for call in exchange.calls]


def previous_exchange(store: "Store", cid: str | None) -> Context:
    """The conversation's exchange before the message being decided (which is stored already), with
    the calls made for it; an empty context at the start of a conversation or without a store."""
    if not cid:
        return Context()
    try:
        messages = store.messages(cid)
    except Exception:  # noqa: BLE001 - no conversation, no context
        return Context()
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if len(users) < 2:
        return Context()
    start = messages[users[-2]]
    end = messages[users[-1]]
    try:
        logged = store.tool_calls(limit=12, conversation=cid)
    except Exception:  # noqa: BLE001 - a store without the log: the messages alone
        logged = []
    calls = [
        Call(row["name"], row.get("params") or {}, str(row.get("data") or row.get("error") or ""), bool(row.get("success")))
        for row in reversed(logged)
        if start.created_at <= float(row.get("created_at") or 0.0) <= end.created_at
    ]
    return Context([Exchange(start.content, calls)])
