"""The baseline of the answer benchmark: the answer step as Riverse's router gave it before grounded
answers (a copy of that prompt construction, kept here as it was).

After tools ran, the answer prompt was the system prompt, the earlier turns of the conversation, then
one message with the question, every result (failed ones as ``ERROR: ...``) and an instruction; the
answer was whatever the model wrote, streamed as it came, within the provider's usual bound. When no
tool ran, the model answered the conversation as it was.
"""

from __future__ import annotations

import json
from typing import Any

from agent.i18n import pick
import agent.loop.prompts as prompts
from agent.loop.protocols import NativeProtocol
from agent.providers.base import ToolCallRequest
from agent.loop.events import Reply
from agent.toolkit.runtime import ToolOutcome

ANSWER_LANGUAGE = {
    "en": "Answer in English.",
    "zh": "请用中文回答。",
    "ja": "日本語で答えてください。",
}

GROUNDED = {
    "en": (
        "{question}\n\nTool results:\n{results}\n\n"
        "Answer the question in one or two short sentences, using only these results; quote their numbers as "
        "given and do not add facts they do not contain. If a tool failed, say so. Answer in English."
    ),
    "zh": (
        "{question}\n\n工具结果：\n{results}\n\n"
        "请只根据这些结果，用一两句简短的话回答上面的问题；数字照原样引用，不要添加结果里没有的内容。"
        "如果工具失败了，请说明。请用中文回答。"
    ),
    "ja": (
        "{question}\n\nツールの結果：\n{results}\n\n"
        "これらの結果だけを使って、上の質問に一、二文で短く答えてください。数値はそのまま引用し、結果にないことは"
        "付け加えないでください。ツールが失敗した場合はそう伝えてください。日本語で答えてください。"
    ),
}


def _turn(messages: list[dict]) -> tuple[str, int, bool]:
    position = next((i for i in range(len(messages) - 1, 0, -1) if messages[i].get("tool_calls")), None)
    tools_ran = position is not None
    if position is None:
        position = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), len(messages))
    else:
        position -= 1
    content = messages[position].get("content") if position < len(messages) else ""
    return (content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)), position, tools_ran


def _grounded(messages: list[dict], question: str, position: int, language: str) -> list[dict]:
    calls: dict[str, tuple[str, str]] = {}
    for message in messages[position:]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            calls[call.get("id", "")] = (function.get("name", "?"), function.get("arguments", "{}"))
    lines = []
    for message in messages[position + 1 :]:
        if message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id", ""), ("?", "{}"))
            lines.append(f"- {name}({arguments}): {message.get('content', '')}")
    system = {"role": "system", "content": f"{messages[0]['content']} {pick(ANSWER_LANGUAGE, language)}"}
    user = {
        "role": "user",
        "content": pick(GROUNDED, language).format(question=question, results="\n".join(lines)),
    }
    return [system, *messages[1:position], user]


def answer_messages(question: str, language: str, history: list[dict], outcomes: list[ToolOutcome], agent_language: str = "en") -> list[dict]:
    """What the baseline sent the model for its answer."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": pick(prompts.SYSTEM, agent_language)}, *history,
                                      {"role": "user", "content": question}]
    if not outcomes:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']} {pick(ANSWER_LANGUAGE, language)}"}
        return messages
    calls = [ToolCallRequest(o.name, o.params, f"call_{i}") for i, o in enumerate(outcomes)]
    shown = [ToolOutcome(o.name, o.params, o.success, o.data, o.error, status=o.status, call_id=c.id) for o, c in zip(outcomes, calls)]
    NativeProtocol().inject(messages, Reply(calls=calls), shown, language)
    asked, position, _ = _turn(messages)
    return _grounded(messages, asked, position, language)
