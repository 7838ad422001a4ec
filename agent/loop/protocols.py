"""How the loop talks tools with a model: native function calling or JSON in the prompt.

A protocol turns the conversation and the manifests into the model's next move (:class:`Reply`) and
injects the tool results back into the conversation. ``PROTOCOLS`` maps each name of the setting
``llm.tool_protocol`` to its class; the router (``agent.router``) is the third.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from agent.i18n import pick
import agent.loop.prompts as prompts
from agent.loop.events import Event, EventCallback, Reply
from agent.loop.replies import parse_reply
from agent.plugins import load_object
from agent.toolkit.base import ToolManifest
from agent.toolkit.runtime import ToolOutcome

if TYPE_CHECKING:
    from agent.loop.agent import Agent
    from agent.router.written import Progress


class ToolProtocol(Protocol):
    """How one agent loop puts tools to its model."""

    #: the value of ``llm.tool_protocol`` that chooses it
    name: str
    #: whether :meth:`prepare` does anything (a fixed tool prompt kept by the provider)
    prepares_prompts: bool

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        """The system message that opens a turn."""
        ...

    def next(self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        """The model's next move: tool calls, or the answer (streamed to ``emit`` as ``text`` events)."""
        ...

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[ToolOutcome], language: str) -> None:
        """Append the calls of ``reply`` and their outcomes to ``messages``."""
        ...

    def prepare(self, agent: "Agent", languages: list[str], progress: Progress | None = None) -> dict[str, bool]:
        """Ready the tool prompt of each language ahead of the first message (``progress(done, total)``
        hears of long work: examples written for tools without any); per language, whether there was
        work to do."""
        ...


class _PromptInEveryRequest:
    """A protocol whose whole prompt travels with every request: nothing to prepare ahead."""

    prepares_prompts = False
    #: the wording of its prompts, which an answer must not repeat
    answer_instructions = prompts.instruction_pieces(prompts.SYSTEM, prompts.FINAL_ONLY)

    def prepare(self, agent: "Agent", languages: list[str], progress: Progress | None = None) -> dict[str, bool]:
        return {}


class NativeProtocol(_PromptInEveryRequest):
    """OpenAI-style function calling: manifests go in ``tools``, calls come back structured."""

    name = "native"

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        return pick(prompts.SYSTEM, language)

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
                "content": reply.text or "",  # not null: some servers answer 500 to a null content
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


class JsonProtocol(_PromptInEveryRequest):
    """Manifests in the prompt; the model answers with a JSON object to call tools, or with text."""

    name = "json"
    answer_instructions = prompts.instruction_pieces(prompts.SYSTEM, prompts.JSON_PROTOCOL, prompts.TOOL_RESULTS, prompts.FINAL_ONLY)

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        base = pick(prompts.SYSTEM, language)
        if not manifests:
            return base
        return base + "\n\n" + pick(prompts.JSON_PROTOCOL, language).format(tools=prompts.describe_tools(manifests))

    def next(self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        language = agent.language
        attempt_messages = list(messages)
        for attempt in range(2):
            guard = _HoldJson(emit)
            completion = agent.provider.complete(attempt_messages, on_text=guard)
            if not manifests:
                held = parse_reply(completion.text) if guard.mode == "hold" else None
                if held is not None and held.kind == "calls":  # not an answer: the loop says so
                    return Reply(calls=held.calls, raw=completion)
                text = held.text if held is not None and held.kind == "text" and held.text else completion.text
                if guard.mode == "hold" and text:
                    emit(Event("text", text=text))
                return Reply(text=text, raw=completion, streamed=True)
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
                    {"role": "user", "content": pick(prompts.REPAIR, language).format(error=parsed.error)},
                ]
        message = _GARBAGE.get(language, _GARBAGE["en"]).format(error=parsed.error)
        emit(Event("notice", text=message))
        emit(Event("text", text=message))
        return Reply(text=message, raw=completion, streamed=True)

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[ToolOutcome], language: str) -> None:
        # The calls as one compact JSON object, not the model's own text: a server that escapes what it is
        # sent (llama-cpp-python's chatml-function-calling) shows the model a shorter line to copy back.
        calls = [{"name": o.name, "params": o.params} for o in outcomes]
        messages.append({"role": "assistant", "content": json.dumps({"tool_calls": calls}, ensure_ascii=False, default=str)})
        messages.append(
            {
                "role": "user",
                "content": pick(prompts.TOOL_RESULTS, language).format(results=prompts.format_results(outcomes)),
            }
        )


_GARBAGE = {
    "en": "Sorry, the model answered with a tool call that could not be read, even after a repair attempt ({error}).",
    "zh": "抱歉，模型返回的工具调用无法解析，重试一次后仍然失败（{error}）。",
    "ja": "すみません、モデルの返したツール呼び出しが読めず、修正を頼んでも読めませんでした（{error}）。",
}

# name -> protocol class, or "module:Class" imported when first used.
PROTOCOLS: dict[str, type[ToolProtocol] | str] = {
    "native": NativeProtocol,
    "json": JsonProtocol,
    "router": "agent.router:RouterProtocol",
}


def make_protocol(name: str) -> ToolProtocol:
    target = PROTOCOLS[name]
    if isinstance(target, str):
        target = load_object(target)
    return target()
