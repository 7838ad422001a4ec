"""The answer step of a turn when grounding is on (``llm.grounding``): what the user sees of an answer
and what it is replaced by.

- No tool ran: the answer is shown a sentence at a time (:class:`SentenceStream`); a sentence said
  a second time ends the generation and is not shown.
- Tools ran: the answer is held until it is checked (:class:`HeldAnswer`, which also ends a
  generation that repeats itself). Every call failed: Riverse says so itself (:func:`compose`), and a
  protocol that decides once (the router) does not even ask the model. Otherwise the model's answer
  goes through :func:`agent.loop.grounding.check`; one that fails is replaced by an answer composed
  from the results, and the failed calls are stated after the answer about the successful ones.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence

from agent.i18n import pick
from agent.loop.answers import compose, with_failures
from agent.loop.events import Event, EventCallback, Reply
from agent.loop.grounding import (
    Verdict,
    check,
    claims_failure,
    cut_loop,
    is_echo,
    loop_start,
    unsupported_figures,
    unsupported_names,
)
from agent.providers.base import Provider, capabilities_of
from agent.toolkit.runtime import ToolOutcome

GROUNDING = ("auto", "on", "off")
#: the longest answer shown (characters): a generation past it is ended
MAX_ANSWER_CHARS = 1600

ECHOED = {
    "en": "the model only repeated the question; that is not shown as an answer",
    "zh": "模型只是把问题重复了一遍，不作为回答显示",
    "ja": "モデルは質問を繰り返しただけだったので、回答として表示しません",
}
NO_ANSWER_OF_ITS_OWN = {
    "en": "I have no answer to that. If it needs current information, none of my tools looked it up, and I "
          "won't guess it.",
    "zh": "这个问题我答不上来。如果需要最新的信息，我的工具都没有查到，我也不会去猜。",
    "ja": "その質問には答えられません。最新の情報が必要なものなら、ツールでは調べておらず、推測で答えることもしません。",
}

CALLED_AGAIN = {
    "en": "the model asked for its tools again instead of answering; the answer is made of the tool results",
    "zh": "模型没有回答，而是再次要求调用工具；回答改由工具结果组成",
    "ja": "モデルは回答せずにもう一度ツールを呼ぼうとしました。回答はツールの結果から作りました",
}

REPLACED = {
    "en": "the model's answer was not used ({problem}); the answer is made of the tool results",
    "zh": "没有采用模型的回答（{problem}），回答改由工具结果组成",
    "ja": "モデルの回答は使いませんでした（{problem}）。回答はツールの結果から作りました",
}


def grounding_on(mode: str, protocol: str, provider: Provider) -> bool:
    """Whether answers are checked: ``on``/``off`` as set; ``auto``: for small local models (the
    router protocol, or a provider with scored decoding, as the embedded model has)."""
    if mode in ("on", "off"):
        return mode == "on"
    return protocol == "router" or capabilities_of(provider).scored_decoding


class StopAnswer(Exception):
    """Raised from a text callback to end a generation early."""


_BOUNDARY = re.compile(r"[.!?](?=\s)|[。！？]|\n")


class HeldAnswer:
    """An answer's text, kept from the user until it is checked; other events pass. The generation
    is ended once the text repeats itself, grows past ``limit`` characters, or, at the end of a
    sentence, ``fails`` (it states what no result does: it will be replaced, so it need not go on)."""

    def __init__(self, emit: EventCallback, fails: Callable[[str], bool] = lambda text: False, limit: int = MAX_ANSWER_CHARS):
        self.emit = emit
        self.fails = fails
        self.limit = limit
        self.text = ""

    def __call__(self, event: Event) -> None:
        if event.kind != "text":
            self.emit(event)
            return
        self.text += event.text
        if len(self.text) > self.limit:
            raise StopAnswer
        ended = _BOUNDARY.search(self.text, max(0, len(self.text) - len(event.text) - 1))
        if ended and (loop_start(self.text) is not None or self.fails(self.text)):
            raise StopAnswer

    @property
    def kept(self) -> str:
        return cut_loop(self.text[: self.limit])


class SentenceStream:
    """An answer shown a sentence at a time, each sentence once: a sentence that repeats an earlier
    one, or text past ``limit`` characters, ends the generation unshown."""

    def __init__(self, emit: EventCallback, limit: int = MAX_ANSWER_CHARS, question: str = ""):
        self.emit = emit
        self.limit = limit
        # a first sentence that only repeats a question is not shown ("Hello there." to "hello there" is
        # a greeting answered, "JL915便って今日遅れてる？" to the same question is no answer)
        self.question = question if question.rstrip().endswith(("?", "？")) else ""
        self.text = ""
        self.shown = 0  # how much of ``text`` was dealt with
        self.out = ""  # what was shown of it
        self.echoed = False

    def __call__(self, event: Event) -> None:
        if event.kind != "text":
            self.emit(event)
            return
        self.text += event.text
        ends = [m.end() for m in _BOUNDARY.finditer(self.text, self.shown)]
        if ends:
            start = loop_start(self.text[: ends[-1]])
            if start is not None:
                self._show(start)
                raise StopAnswer
            self._show(ends[-1])
        if len(self.text) > self.limit:
            self._show(self.limit)
            raise StopAnswer

    def _show(self, end: int) -> None:
        piece = self.text[self.shown : end]
        if end > self.shown and piece:
            self.shown = end
            if not self.out.strip() and self.question and is_echo(piece, self.question):
                self.echoed = True  # the question said back: not an answer
                return
            self.emit(Event("text", text=piece))
            self.out += piece

    def flush(self) -> str:
        """Show the rest (unless it repeats); return all that was shown."""
        if self.shown < len(self.text) and self.shown < self.limit:
            start = loop_start(self.text)
            self._show(min(len(self.text) if start is None else start, self.limit))
        return self.out.strip()

    @property
    def kept(self) -> str:
        return self.flush()


def shown(outcome: ToolOutcome) -> str:
    """A call and its result as the model was shown them."""
    return f"{outcome.name}({json.dumps(outcome.params, ensure_ascii=False, default=str)}): {outcome.for_model()}"


class AnswerGuard:
    """The answer step of one turn: see the module docstring. ``protocol`` may declare
    ``decides_once`` (no second round of tools: an all-failed turn is answered without the model),
    ``shows_failures`` (whether failed results are put to the model) and ``answer_instructions``
    (the wording of its answer prompt, which an answer must not repeat)."""

    def __init__(self, on: bool, question: str, language: str, protocol: Any, notice_language: str = "en"):
        self.on = on
        self.question = question
        self.language = language
        self.notice_language = notice_language
        self.decides_once = bool(getattr(protocol, "decides_once", False))
        self.shows_failures = bool(getattr(protocol, "shows_failures", True))
        self.instructions: Sequence[str] = tuple(getattr(protocol, "answer_instructions", ()))
        self.watcher: HeldAnswer | SentenceStream | None = None

    def watch(self, emit: EventCallback, outcomes: Sequence[ToolOutcome]) -> EventCallback:
        """The event callback for the model's next move: held once tools ran, by sentence before."""
        if not self.on:
            return emit
        self.watcher = (HeldAnswer(emit, lambda text: self._invents(text, outcomes)) if outcomes
                        else SentenceStream(emit, question=self.question))
        return self.watcher

    def _invents(self, text: str, outcomes: Sequence[ToolOutcome]) -> bool:
        """Whether ``text`` already states a figure or a name that nothing the model was shown holds."""
        sources = [self.question, *(shown(o) for o in outcomes if o.success or self.shows_failures)]
        return bool(unsupported_figures(text, sources) or unsupported_names(text, sources))

    def compose_now(self, outcomes: Sequence[ToolOutcome]) -> bool:
        """Whether the answer is Riverse's own without asking the model: every call failed and the
        protocol will not try other tools."""
        return self.on and self.decides_once and bool(outcomes) and not any(o.success for o in outcomes)

    def stopped(self) -> Reply:
        """The reply of a generation ended early by the watcher."""
        text = self.watcher.kept if self.watcher is not None else ""
        return Reply(text=text, streamed=isinstance(self.watcher, SentenceStream))

    def verdict(self, answer: str, outcomes: Sequence[ToolOutcome]) -> Verdict:
        """The grounding check of ``answer`` against what the model was shown of ``outcomes``."""
        successes = [(o.name, shown(o)) for o in outcomes if o.success]
        failures = [shown(o) for o in outcomes if not o.success] if self.shows_failures else []
        return check(
            answer, self.question, successes, context=failures,
            instructions=self.instructions, failures_shown=bool(failures), language=self.language,
        )

    def _catch_up(self, reply: Reply) -> None:
        """A provider that returned its text without streaming it (a server asked again without a
        stream): the text goes through the watcher now, as if it had streamed."""
        if self.watcher is not None and not self.watcher.text and (reply.text or "").strip():
            try:
                self.watcher(Event("text", text=reply.text))
            except StopAnswer:
                pass

    def from_results(self, outcomes: Sequence[ToolOutcome], emit: EventCallback) -> str:
        """The answer made of the results, when the model kept asking for tools where it was asked
        to answer from them (some succeeded)."""
        emit(Event("notice", text=pick(CALLED_AGAIN, self.notice_language)))
        answer = with_failures(compose([o for o in outcomes if o.success], self.language), outcomes, self.language)
        emit(Event("text", text=answer))
        return answer

    def finish(self, reply: Reply, outcomes: Sequence[ToolOutcome], emit: EventCallback) -> str:
        """The turn's answer, shown to the user unless it was shown already."""
        if not self.on:
            return reply.text or ""
        self._catch_up(reply)
        if not outcomes:
            if isinstance(self.watcher, SentenceStream):
                shown = self.watcher.flush()
                if not shown and self.watcher.echoed:  # the model only said the question back
                    emit(Event("notice", text=pick(ECHOED, self.notice_language)))
                    shown = pick(NO_ANSWER_OF_ITS_OWN, self.language)
                    emit(Event("text", text=shown))
                return shown
            return reply.text or ""
        successes = [o for o in outcomes if o.success]
        if not successes:
            answer = compose(outcomes, self.language)
        else:
            text = self.watcher.kept if isinstance(self.watcher, HeldAnswer) else cut_loop(reply.text or "")
            verdict = self.verdict(text, outcomes)
            if verdict.ok:
                answer = text
            else:
                emit(Event("notice", text=pick(REPLACED, self.notice_language, problem="; ".join(verdict.problems))))
                answer = compose(successes, self.language)
            said_failures = verdict.ok and self.shows_failures and claims_failure(text)
            if not said_failures:
                answer = with_failures(answer, outcomes, self.language)
        emit(Event("text", text=answer))
        return answer
