"""Prompt texts in English, Chinese and Japanese, and the functions that fill them in."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from agent.toolkit.base import ToolManifest


SYSTEM = {
    "en": (
        "You are Riverse, a helpful personal assistant running on the user's own computer. "
        "Answer briefly, in the language of the user's message. Use a tool when the user asks for "
        "information or an action a tool provides; never invent what a tool would return."
    ),
    "zh": (
        "你是 Riverse，运行在用户自己电脑上的个人助手。请用用户消息所用的语言简洁地回答。"
        "当用户需要某个工具提供的信息或操作时就调用工具；不要编造工具的返回结果。"
    ),
    "ja": (
        "あなたはユーザー自身のコンピューターで動く個人アシスタント Riverse です。"
        "ユーザーのメッセージと同じ言語で簡潔に答えてください。ツールが提供する情報や操作が必要なときはツールを使い、"
        "ツールの結果を作り上げてはいけません。"
    ),
}

JSON_PROTOCOL = {
    "en": (
        "You can use these tools:\n{tools}\n\n"
        "To use tools, reply with ONLY a JSON object, nothing else:\n"
        '{{"tool_calls": [{{"name": "<tool name>", "params": {{"<parameter>": "<value>"}}}}]}}\n'
        "If no tool is needed, reply with the answer as plain text."
    ),
    "zh": (
        "你可以使用以下工具：\n{tools}\n\n"
        "需要使用工具时，只回复一个 JSON 对象，不要有其他内容：\n"
        '{{"tool_calls": [{{"name": "<工具名>", "params": {{"<参数名>": "<值>"}}}}]}}\n'
        "如果不需要工具，直接用纯文本回答。"
    ),
    "ja": (
        "次のツールを使えます：\n{tools}\n\n"
        "ツールを使うときは、JSON オブジェクトだけを返してください（他の文は不要）：\n"
        '{{"tool_calls": [{{"name": "<ツール名>", "params": {{"<パラメータ名>": "<値>"}}}}]}}\n'
        "ツールが不要なら、答えを普通の文章で返してください。"
    ),
}

TOOL_RESULTS = {
    "en": "Tool results:\n{results}\n\nAnswer the user's message using these results. If a tool failed, say so briefly.",
    "zh": "工具结果：\n{results}\n\n请根据这些结果回答用户的消息。如果工具失败了，简要说明。",
    "ja": "ツールの結果：\n{results}\n\nこれらの結果を使ってユーザーのメッセージに答えてください。ツールが失敗した場合は簡潔にそう伝えてください。",
}

REPAIR = {
    "en": (
        "Your previous reply could not be read as a tool call ({error}). Reply again with ONLY the JSON "
        'object {{"tool_calls": [...]}}, or with plain text if no tool is needed.'
    ),
    "zh": "你上一条回复无法解析为工具调用（{error}）。请只回复 JSON 对象 {{\"tool_calls\": [...]}}；如果不需要工具，就用纯文本回答。",
    "ja": "前の返答はツール呼び出しとして読めませんでした（{error}）。JSON オブジェクト {{\"tool_calls\": [...]}} だけを返すか、ツールが不要なら普通の文章で答えてください。",
}

FINAL_ONLY = {
    "en": "The tool budget for this message is used up. Answer now with what you have, without calling tools.",
    "zh": "本条消息可用的工具调用次数已用完。请根据已有信息直接回答，不要再调用工具。",
    "ja": "このメッセージで使えるツール呼び出しの回数を使い切りました。ツールを呼ばずに、今ある情報で答えてください。",
}

NO_ANSWER = {
    "en": "The model returned an empty reply: no text and no tool call. Try again, or run riverse model --check "
          "to see whether this model and server work with the tool protocol in use (llm.tool_protocol).",
    "zh": "模型返回了空回复：既没有文字，也没有工具调用。请重试，或运行 riverse model --check "
          "检查这个模型和服务器能否使用当前的工具协议（llm.tool_protocol）。",
    "ja": "モデルの返答が空でした（テキストもツール呼び出しもありません）。もう一度試すか、riverse model --check で"
          "このモデルとサーバーが今のツールプロトコル（llm.tool_protocol）で動くか確かめてください。",
}

CUT_AT_MAX_TOKENS = {
    "en": "The answer was cut off at the length limit (llm.max_tokens); raise it for longer answers.",
    "zh": "回答在长度上限处被截断（llm.max_tokens）；需要更长的回答请调高它。",
    "ja": "回答が長さの上限（llm.max_tokens）で切れました。長い回答が必要なら上げてください。",
}

BUDGET_EXHAUSTED = {
    "en": "I stopped after {steps} rounds of tool calls without reaching an answer. Try asking more specifically.",
    "zh": "已经进行了 {steps} 轮工具调用仍未得到答案，我先停下了。请换个更具体的问法再试。",
    "ja": "{steps} 回ツールを呼び出しても答えにたどり着けなかったため、止めました。もう少し具体的に聞いてみてください。",
}


def describe_tools(manifests: Iterable[ToolManifest]) -> str:
    """The manifests as the JSON protocol shows them: one block per tool, with its examples."""
    blocks = []
    for m in manifests:
        params = json.dumps(m.parameters or {}, ensure_ascii=False)
        lines = [f"- {m.name}: {m.description}", f"  params: {params}"]
        if m.required:
            lines.append(f"  required: {', '.join(m.required)}")
        if m.examples:
            lines.append("  examples: " + " | ".join(m.examples))
        blocks.append("\n".join(lines))
    return "\n".join(blocks) or "(none)"


def format_results(outcomes: Iterable[Any]) -> str:
    lines = []
    for o in outcomes:
        params = json.dumps(o.params, ensure_ascii=False)
        status = "ok" if o.success else "failed"
        lines.append(f"- {o.name}({params}) [{status}]: {o.for_model()}")
    return "\n".join(lines)


def instruction_pieces(*tables: Mapping[str, str]) -> tuple[str, ...]:
    """The wording of prompt texts in every language, without their placeholders: what an answer
    must not repeat (see :func:`agent.loop.grounding.leaked`)."""
    return tuple(
        piece for table in tables for text in table.values() for piece in re.split(r"\{\w+\}", text) if piece.strip()
    )
