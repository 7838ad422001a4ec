"""Answers Riverse writes itself, from the tool outcomes: never guessed by a model.

- :func:`compose`: what the tools returned (most return a readable sentence), then which tool failed,
  why (the outcome's error) and what the user can do, in the user's language.
- :func:`failure_lines`: the failures alone, added after a model's answer about the successes.
- :func:`live_data_answer`: why something only a tool could know now was not looked up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from agent.i18n import detect_language, pick
from agent.toolkit.runtime import ToolOutcome

#: the most of one result a composed answer repeats (a page or a file is cut, at a line or sentence end)
RESULT_CHARS = 700

ALL_FAILED = {
    "en": "I could not get an answer from the tools this time.",
    "zh": "这次没能从工具得到结果。",
    "ja": "今回はツールから結果を得られませんでした。",
}

#: before a result that is not written in the user's language (a calculation, a unit conversion)
RESULT_LEAD = {
    "en": "{tool} returned: ",
    "zh": "{tool} 的结果：",
    "ja": "{tool} の結果：",
}

NO_OUTPUT = {
    "en": "{tool} finished without output.",
    "zh": "{tool} 已完成，但没有输出。",
    "ja": "{tool} は完了しましたが、出力はありませんでした。",
}

#: per outcome status: which tool failed, why, and what the user can do
FAILED = {
    "failed": {
        "en": "The {tool} tool failed: {error}",
        "zh": "工具 {tool} 失败了：{error}",
        "ja": "ツール {tool} が失敗しました：{error}",
    },
    "timeout": {
        "en": "The {tool} tool did not finish in time and was stopped ({error}). Try again later, or give it more "
              "time with tools.{tool}.timeout in settings.yaml.",
        "zh": "工具 {tool} 没有按时完成，已被停止（{error}）。请稍后再试，或在 settings.yaml 中用 tools.{tool}.timeout 给它更多时间。",
        "ja": "ツール {tool} が時間内に終わらなかったため止めました（{error}）。しばらくしてから試すか、settings.yaml の "
              "tools.{tool}.timeout で時間を延ばしてください。",
    },
    "error": {
        "en": "The {tool} tool broke down ({error}). Try again; if it keeps failing, `riverse logs --tool {tool}` "
              "shows the details for the tool's author.",
        "zh": "工具 {tool} 出错了（{error}）。请再试一次；如果一直出错，可以用 `riverse logs --tool {tool}` 查看详情，交给工具作者。",
        "ja": "ツール {tool} でエラーが起きました（{error}）。もう一度試してください。続く場合は `riverse logs --tool {tool}` "
              "で詳細を確認し、ツールの作者に伝えてください。",
    },
    "refused": {
        "en": "The {tool} tool was not run ({error}). Ask again and allow it when asked if you want it to run.",
        "zh": "工具 {tool} 没有运行（{error}）。如果需要它运行，请再问一次，并在询问时允许。",
        "ja": "ツール {tool} は実行されませんでした（{error}）。実行したい場合は、もう一度聞いて確認のときに許可してください。",
    },
    "invalid": {
        "en": "The {tool} tool could not run with the values it was given ({error}). Ask again and say the value "
              "it needs more plainly.",
        "zh": "工具 {tool} 无法用给定的参数运行（{error}）。请再问一次，把需要的值说得更明确些。",
        "ja": "ツール {tool} は渡された値では実行できませんでした（{error}）。必要な値をもっとはっきり書いて、もう一度聞いてください。",
    },
    "unknown": {
        "en": "There is no tool named {tool} ({error}). Ask again in other words.",
        "zh": "没有名为 {tool} 的工具（{error}）。请换个说法再问。",
        "ja": "{tool} という名前のツールはありません（{error}）。言い方を変えてもう一度聞いてください。",
    },
}

FULL_STOP = {"en": ".", "zh": "。", "ja": "。"}

#: after a tool's own error that says nothing of what to do
TRY_AGAIN = {
    "en": " Try again later, or ask in another way.",
    "zh": "请稍后再试，或换个说法。",
    "ja": "しばらくしてから試すか、別の言い方で聞いてください。",
}

LIVE_DATA = {
    "off": {
        "en": "I can't look that up: the {tool} tool is not available ({detail}). Turn it on and ask again; "
              "I won't guess information only a tool can know.",
        "zh": "我查不了这个：工具 {tool} 目前不可用（{detail}）。请启用它后再问；只有工具才知道的信息，我不会去猜。",
        "ja": "調べられません：ツール {tool} が使えない状態です（{detail}）。有効にしてからもう一度聞いてください。"
              "ツールでしか分からない情報を推測で答えることはしません。",
    },
    "failed": {
        "en": "I can't look that up: the {tool} tool failed when I last tried ({detail}). I won't guess information "
              "only a tool can know; ask again once the problem is fixed.",
        "zh": "我查不了这个：上次调用工具 {tool} 失败了（{detail}）。只有工具才知道的信息，我不会去猜；问题解决后请再问一次。",
        "ja": "調べられません：前回ツール {tool} が失敗しました（{detail}）。ツールでしか分からない情報を推測で答えることはしません。"
              "問題が解決したらもう一度聞いてください。",
    },
    "missing": {
        "en": "I can't look that up yet: the {tool} tool needs {detail}, and your message does not say it. "
              "Ask again with it, for example: \"{example}\"",
        "zh": "我还查不了：工具 {tool} 需要{detail}，但你的消息里没有说。请带上它再问一次，例如：“{example}”",
        "ja": "まだ調べられません：ツール {tool} には{detail}が必要ですが、メッセージに書かれていません。"
              "それを添えてもう一度聞いてください。例：「{example}」",
    },
    "declined": {
        "en": "I did not look that up, and I won't guess information only a tool can know. If you want the "
              "{tool} tool to check it, ask like this: \"{example}\"",
        "zh": "我没有去查询，也不会去猜只有工具才知道的信息。如果想让工具 {tool} 查一下，可以这样问：“{example}”",
        "ja": "調べていないので、ツールでしか分からない情報を推測で答えることはしません。ツール {tool} で調べたい場合は、"
              "次のように聞いてください：「{example}」",
    },
}


@dataclass
class LiveData:
    """A message that asks for something only a tool could know now, which no tool looked up.

    ``reason``: ``off`` (the tool is not available; ``detail`` says why), ``failed`` (its last call
    in this conversation failed; ``detail`` is the error), ``missing`` (a value it needs is not in
    the message; ``detail`` names it) or ``declined`` (no call was made). ``example`` is one of the
    tool's own example messages."""

    tool: str
    reason: str
    detail: str = ""
    example: str = ""
    #: the evidence is strong enough to answer without the model (else its answer is checked)
    certain: bool = True


def live_data_answer(live: LiveData, language: str) -> str:
    """Why ``live`` was not looked up, in ``language``: never a value."""
    return pick(LIVE_DATA[live.reason], language, tool=live.tool, detail=live.detail, example=live.example)


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？]")


def _has_advice(error: str) -> bool:
    """Whether a tool's error goes on after saying what went wrong (two sentences or more)."""
    return len(_SENTENCE_END.findall(error.strip())) >= 2


def failure_line(outcome: ToolOutcome, language: str) -> str:
    """Which tool failed, why and what to do, for one failed outcome."""
    error = outcome.error.strip() or outcome.status
    status = outcome.status if outcome.status in FAILED else "failed"
    line = pick(FAILED[status], language, tool=outcome.name, error=error).rstrip()
    if status == "failed":
        if not _SENTENCE_END.search(line[-1:]):
            line += pick(FULL_STOP, language)
        if not _has_advice(error):
            line += pick(TRY_AGAIN, language)
    return line


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?=\s)|(?<=[。！？])")


def failure_lines(outcomes: Sequence[ToolOutcome], language: str) -> str:
    """The failed outcomes, one line each; a sentence said in an earlier line (the same advice) is
    not said again ("" when none failed)."""
    said: set[str] = set()
    lines = []
    for outcome in outcomes:
        if outcome.success:
            continue
        kept = []
        for sentence in _SENTENCE_BREAK.split(failure_line(outcome, language)):
            if sentence.strip() and sentence.strip() not in said:
                said.add(sentence.strip())
                kept.append(sentence)
        if kept:
            lines.append("".join(kept).strip())
    return "\n".join(lines)


def cap(text: str, limit: int = RESULT_CHARS) -> str:
    """``text`` cut to about ``limit`` characters, at the last line or sentence end before it."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max(head.rfind("\n"), *(head.rfind(mark) + 1 for mark in ("。", ". ", "！", "? ")))
    return (head[:cut] if cut > limit // 2 else head).rstrip() + " …"


def result_text(outcome: ToolOutcome, language: str) -> str:
    """A successful outcome as an answer says it: the tool's own text (cut when long), led by a few
    words in ``language`` when the text itself is not in it."""
    if not outcome.data.strip():
        return pick(NO_OUTPUT, language, tool=outcome.name)
    text = cap(outcome.data)
    if detect_language(text, "") != language:
        return pick(RESULT_LEAD, language, tool=outcome.name) + text
    return text


def compose(outcomes: Sequence[ToolOutcome], language: str) -> str:
    """An answer made of the outcomes alone: what succeeded, then what failed and why. When every
    call failed, it first says that no answer came of them."""
    successes = [result_text(o, language) for o in outcomes if o.success]
    failures = failure_lines(outcomes, language)
    if not successes:
        head = pick(ALL_FAILED, language)
        return f"{head}\n{failures}" if failures else head
    return "\n".join([*successes, *([failures] if failures else [])])


def with_failures(answer: str, outcomes: Sequence[ToolOutcome], language: str) -> str:
    """``answer`` (about the successes) followed by the failed outcomes' lines."""
    failures = failure_lines(outcomes, language)
    return f"{answer.rstrip()}\n{failures}" if failures else answer
