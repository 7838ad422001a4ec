"""The agent loop: the model sees the manifests, calls tools, gets their results, answers.

One turn: store the user's message → the model decides (native function calling, or the JSON
protocol in the prompt) → the tool calls run (in parallel, each with a timeout) → their results are
injected into the context → the model answers or calls more tools, for at most ``max_steps`` rounds;
then it must answer. Everything that goes wrong with a tool or with the model's output becomes a
failed result the model sees, or a notice; only an unreachable model stops a turn.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from agent import prompts
from agent.protocol import parse_reply
from agent.providers.base import Completion, Provider, ToolCallRequest, ToolsUnsupportedError
from agent.runtime import ToolOutcome, ToolRunner
from agent.storage import Store
from agent.tools._base import ToolManifest, answering_in


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


class NativeProtocol:
    """OpenAI-style function calling: manifests go in ``tools``, calls come back structured."""

    name = "native"

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        return prompts.pick(prompts.SYSTEM, language)

    def next(self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        tools = [m.openai_tool() for m in manifests] or None
        sent = {"any": False}

        def on_text(piece: str) -> None:
            sent["any"] = True
            emit(Event("text", text=piece))

        completion = agent.provider.complete(messages, tools=tools, on_text=on_text)
        return Reply(text=completion.text, calls=list(completion.tool_calls), raw=completion, streamed=sent["any"])

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[ToolOutcome], language: str) -> None:
        messages.append(
            {
                "role": "assistant",
                "content": reply.text or None,
                "tool_calls": [
                    {
                        "id": o.call_id,
                        "type": "function",
                        "function": {
                            "name": o.name,
                            "arguments": json.dumps(o.params, ensure_ascii=False, default=str),
                        },
                    }
                    for o in outcomes
                ],
            }
        )
        for o in outcomes:
            messages.append({"role": "tool", "tool_call_id": o.call_id, "content": o.for_model()})


class _HoldJson:
    """Streams text through unless the reply starts like JSON (then it is held until parsed)."""

    def __init__(self, emit: EventCallback):
        self.emit = emit
        self.buffer = ""
        self.mode = ""  # "" undecided, "pass", "hold"

    def __call__(self, piece: str) -> None:
        if self.mode == "pass":
            self.emit(Event("text", text=piece))
            return
        self.buffer += piece
        if self.mode == "hold":
            return
        head = self.buffer.lstrip()
        if head:
            self.mode = "hold" if head[0] in "{[`" else "pass"
            if self.mode == "pass":
                self.emit(Event("text", text=self.buffer))
                self.buffer = ""


class JsonProtocol:
    """Manifests in the prompt; the model answers with a JSON object to call tools, or with text."""

    name = "json"

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        base = prompts.pick(prompts.SYSTEM, language)
        if not manifests:
            return base
        return base + "\n\n" + prompts.pick(prompts.JSON_PROTOCOL, language).format(tools=prompts.describe_tools(manifests))

    def next(self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        language = agent.language
        attempt_messages = list(messages)
        for attempt in range(2):
            guard = _HoldJson(emit)
            completion = agent.provider.complete(attempt_messages, on_text=guard)
            if not manifests:
                if guard.mode == "hold" and completion.text:
                    emit(Event("text", text=completion.text))
                return Reply(text=completion.text, raw=completion, streamed=True)
            if completion.tool_calls:  # a provider may return structured calls even here
                return Reply(text=completion.text, calls=list(completion.tool_calls), raw=completion)
            parsed = parse_reply(completion.text)
            if parsed.kind == "calls":
                return Reply(text=completion.text, calls=parsed.calls, raw=completion)
            if parsed.kind == "text":
                streamed = guard.mode == "pass"
                if not streamed and parsed.text:
                    emit(Event("text", text=parsed.text))
                return Reply(text=parsed.text, raw=completion, streamed=True)
            # malformed: one repair attempt
            emit(Event("notice", text=f"the model's tool call could not be read ({parsed.error}); asking it to repair"))
            if attempt == 0:
                attempt_messages = attempt_messages + [
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": prompts.pick(prompts.REPAIR, language).format(error=parsed.error)},
                ]
        message = _GARBAGE.get(language, _GARBAGE["en"]).format(error=parsed.error)
        emit(Event("notice", text=message))
        emit(Event("text", text=message))
        return Reply(text=message, raw=completion, streamed=True)

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[ToolOutcome], language: str) -> None:
        messages.append({"role": "assistant", "content": reply.raw.text if reply.raw else reply.text})
        messages.append(
            {
                "role": "user",
                "content": prompts.pick(prompts.TOOL_RESULTS, language).format(results=prompts.format_results(outcomes)),
            }
        )


_GARBAGE = {
    "en": "Sorry, the model answered with a tool call that could not be read, even after a repair attempt ({error}).",
    "zh": "抱歉，模型返回的工具调用无法解析，重试一次后仍然失败（{error}）。",
    "ja": "すみません、モデルの返したツール呼び出しが読めず、修正を頼んでも読めませんでした（{error}）。",
}

# name -> protocol class, or "module:Class" imported when first used.
PROTOCOLS: dict[str, Any] = {
    "native": NativeProtocol,
    "json": JsonProtocol,
    "router": "agent.routing:RouterProtocol",
}


def make_protocol(name: str) -> Any:
    target = PROTOCOLS[name]
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        target = getattr(importlib.import_module(module), attr)
    return target()


class Agent:
    """One user's agent: a provider, a tool registry, a runner and a store."""

    def __init__(
        self,
        provider: Provider,
        registry: Any,
        *,
        runner: ToolRunner | None = None,
        store: Store | None = None,
        language: str = "en",
        tool_protocol: str = "auto",
        max_steps: int = 4,
        history_turns: int = 8,
        parallel_tools: bool = True,
    ):
        self.provider = provider
        self.registry = registry
        self.runner = runner or ToolRunner(registry)
        self.store = store or Store(":memory:")
        self.language = language
        self.tool_protocol = tool_protocol
        self.max_steps = max_steps
        self.history_turns = history_turns
        self.parallel_tools = parallel_tools
        self._protocol: Any = None

    @classmethod
    def from_settings(cls, settings: Any, provider: Provider, registry: Any, store: Store, approver=None) -> "Agent":
        return cls(
            provider,
            registry,
            runner=ToolRunner.from_settings(registry, settings, approver),
            store=store,
            language=settings.language,
            tool_protocol=settings.llm.tool_protocol,
            max_steps=settings.llm.max_steps,
            history_turns=settings.llm.history_turns,
            parallel_tools=settings.runtime.parallel_tools,
        )

    @property
    def protocol(self) -> Any:
        if self._protocol is None:
            name = self.tool_protocol
            if name == "auto":
                name = getattr(self.provider, "preferred_protocol", None) or (
                    "native" if self.provider.supports_native_tools else "json"
                )
            self._protocol = make_protocol(name)
        return self._protocol

    def ask(self, text: str, conversation_id: str | None = None, on_event: EventCallback | None = None) -> TurnResult:
        with answering_in(prompts.detect_language(text, self.language)):
            return self._ask(text, conversation_id, on_event)

    def _ask(self, text: str, conversation_id: str | None, on_event: EventCallback | None) -> TurnResult:
        emit = on_event or (lambda event: None)
        cid = self.store.ensure_conversation(conversation_id)
        history = self.store.history(cid, self.history_turns)
        self.store.add_message(cid, "user", text)
        manifests = self.registry.manifests()
        messages = self.opening_messages(text, manifests, history)
        outcomes: list[ToolOutcome] = []
        reply = Reply()
        step = 0
        for step in range(1, self.max_steps + 2):
            final = step > self.max_steps
            if final:
                messages.append({"role": "user", "content": prompts.pick(prompts.FINAL_ONLY, self.language)})
            reply = self._next(messages, [] if final else manifests, emit)
            if not reply.calls or final:
                break
            calls = [(c.name, c.arguments, c.id or f"call_{step}_{i}") for i, c in enumerate(reply.calls)]
            for name, params, _ in calls:
                emit(Event("tool_start", name=name, params=params if isinstance(params, dict) else {"_raw": params}))
            results = self.runner.run_many(calls, parallel=self.parallel_tools)
            for outcome in results:
                self.store.add_tool_call(cid, outcome)
                emit(Event("tool_end", name=outcome.name, params=outcome.params, outcome=outcome))
            outcomes.extend(results)
            self.protocol.inject(messages, reply, results, self.language)
        answer = reply.text or ""
        if reply.calls and not answer:  # still calling tools after the budget: say so instead of nothing
            answer = prompts.pick(prompts.BUDGET_EXHAUSTED, self.language).format(steps=self.max_steps)
            emit(Event("notice", text=answer))
            emit(Event("text", text=answer))
        self.store.add_message(cid, "assistant", answer)
        return TurnResult(answer, outcomes, cid, self.protocol.name, step)

    def opening_messages(self, text: str, manifests: list[ToolManifest], history: list[dict] | None = None) -> list[dict]:
        """What the model is sent first in a turn (also what ``riverse tools eval`` asks it)."""
        return [
            {"role": "system", "content": self.protocol.system_prompt(self.language, manifests)},
            *(history or []),
            {"role": "user", "content": text},
        ]

    def _next(self, messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        try:
            return self.protocol.next(self, messages, manifests, emit)
        except ToolsUnsupportedError as exc:
            if self.tool_protocol != "auto" or self.protocol.name != "native":
                raise
            emit(Event("notice", text=f"{exc}; switching to the JSON tool protocol"))
            self._protocol = JsonProtocol()
            messages[0] = {"role": "system", "content": self._protocol.system_prompt(self.language, manifests)}
            return self._protocol.next(self, messages, manifests, emit)
