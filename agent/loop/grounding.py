"""The grounding check: is an answer made only of what this turn's tool results and the question say?

Pure functions on text, cheap enough to run on every answer given after a tool ran:

- :func:`figures` (from :mod:`agent.loop.figures`): the numbers, times, dates (and temperatures,
  amounts: numbers with a unit) of a text, after :func:`normalize` (full-width digits, thousands
  separators, ``−``), so that ``31°C``, ``31 度`` and ``31 degrees`` are one figure, and
  ``2026年11月30日`` and ``2026-11-30`` one date; a number said with a unit must have been stated
  with that unit (``391 mph`` is not ``= 391``).
- :func:`names`: the named values of a text: capitalised words inside a sentence, quoted or
  back-quoted text, file names, paths and links, weekdays.
- :func:`unsupported_figures` / :func:`unsupported_names`: what an answer states that its sources
  (the results and the question) do not.
- :func:`is_echo` (the answer repeats the question), :func:`leaked` (it repeats the prompt's own
  instructions), :func:`loop_start` / :func:`cut_loop` (it repeats itself), :func:`claims_failure`,
  :func:`mentions` (it says something of a given result).
- :func:`check`: all of them at once, as a :class:`Verdict`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from agent.i18n import detect_language
from agent.loop.figures import MONTHS, UNITS, Figure, KnownFigures, blank, figures, normalize, unsupported_figures

__all__ = [
    "UNITS", "Figure", "Verdict", "check", "claims_failure", "cut_loop", "figures", "is_echo", "leaked", "loop_start",
    "mentions", "names", "normalize", "unsupported_figures", "unsupported_names",
]

# -------------------------------------------------------------------------------------- names
_WEEKDAYS: dict[str, int] = {}
for _index, _spellings in enumerate(
    [("monday", "星期一", "周一", "週一", "礼拜一", "月曜日", "月曜"), ("tuesday", "星期二", "周二", "週二", "礼拜二", "火曜日", "火曜"),
     ("wednesday", "星期三", "周三", "週三", "礼拜三", "水曜日", "水曜"), ("thursday", "星期四", "周四", "週四", "礼拜四", "木曜日", "木曜"),
     ("friday", "星期五", "周五", "週五", "礼拜五", "金曜日", "金曜"), ("saturday", "星期六", "周六", "週六", "礼拜六", "土曜日", "土曜"),
     ("sunday", "星期日", "星期天", "周日", "週日", "礼拜天", "礼拜日", "日曜日", "日曜")]
):
    for _word in _spellings:
        _WEEKDAYS[_word] = _index
_WEEKDAY = re.compile("|".join(sorted((re.escape(w) for w in _WEEKDAYS), key=len, reverse=True)), re.IGNORECASE)
_QUOTED = re.compile(r"`([^`\n]{1,80})`|\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|「([^」\n]{1,80})」|『([^』\n]{1,80})』|‘([^’\n]{1,80})’")
_LINK = re.compile(r"https?://[^\s)\]>\"'`，。、）]*[^\s)\]>\"'`，。、）.,;:!?]", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[A-Za-z0-9_.\-/]*[A-Za-z0-9_]")
_FILE = re.compile(r"(?<![\w.])[\w\-]{2,}\.[A-Za-z][A-Za-z0-9]{0,4}(?![\w.])")
_CAPITALISED = re.compile(r"(?<![A-Za-z'’])[A-Z][a-z]+(?:[ \-][A-Z][a-z]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;。！？：；\n\-*•(（\"“「『'‘])\s*$")
#: capitalised words that name nothing a tool could have returned
_COMMON = {"i", "i'm", "riverse", "ok", "okay", "yes", "no", "sorry", "please"}


def names(text: str) -> list[str]:
    """The named values of ``text``: quoted and back-quoted text, links, paths, file names,
    capitalised words inside a sentence (``Tokyo`` in "It is sunny in Tokyo"), weekdays. Month names
    belong to dates (see :func:`figures`)."""
    text = normalize(text)
    found: list[str] = []
    for match in _QUOTED.finditer(text):
        found.append(next(g for g in match.groups() if g is not None).strip())
    for pattern in (_LINK, _PATH, _FILE):
        for match in pattern.finditer(text):
            found.append(match.group(0))
            text = blank(text, match.span())
    for match in _CAPITALISED.finditer(text):
        word = match.group(0)
        if word.lower() in _COMMON or word.lower() in MONTHS or word.lower() in _WEEKDAYS:
            continue
        if _SENTENCE_START.search(text[: match.start()]):
            continue
        found.append(word)
    found.extend(match.group(0) for match in _WEEKDAY.finditer(text))
    return [name for name in found if name]


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", normalize(text).casefold()).strip()


def unsupported_names(answer: str, sources: Sequence[str]) -> list[str]:
    """The named values of ``answer`` that none of ``sources`` contains (case and width ignored; a
    weekday counts in any language)."""
    folded = " ".join(_fold(source) for source in sources)
    days = {_WEEKDAYS[m.group(0).lower()] for source in sources for m in _WEEKDAY.finditer(normalize(source))}
    out = []
    for name in names(answer):
        day = _WEEKDAYS.get(name.lower())
        if day is not None:
            if day not in days:
                out.append(name)
        elif _fold(name) not in folded:
            out.append(name)
    return out


# ----------------------------------------------------------------------- echoes, leaks, loops
_SKIP = re.compile(r"[\W_]+", re.UNICODE)


def _bare(text: str) -> str:
    return _SKIP.sub("", normalize(text).casefold())


def is_echo(answer: str, question: str) -> bool:
    """Whether ``answer`` is the question again: the same characters, or nearly (a short answer
    that is mostly the question)."""
    said, asked = _bare(answer), _bare(question)
    if not said or not asked:
        return False
    if said == asked or (asked in said and len(said) <= len(asked) * 1.3 + 6):
        return True
    return difflib.SequenceMatcher(None, said, asked, autojunk=False).ratio() >= 0.8


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[a-z0-9']+")


def _fragments(text: str) -> set[str]:
    """Overlapping pieces of ``text`` long enough to be a quotation: four Latin words, six CJK characters."""
    text = normalize(text).casefold()
    words = _WORD.findall(text)
    pieces = {" ".join(words[i : i + 4]) for i in range(len(words) - 3)}
    for run in _CJK.findall(text):
        pieces.update(run[i : i + 6] for i in range(len(run) - 5))
    return pieces


def leaked(answer: str, instructions: Iterable[str]) -> str:
    """A piece of ``instructions`` (the prompt's own wording) that ``answer`` repeats, or ""."""
    said = _fragments(answer)
    common: set[str] = set()
    for instruction in instructions:
        common |= said & _fragments(instruction)
    if not common:
        return ""
    text = normalize(answer).casefold()
    return min(common, key=lambda piece: (text.find(piece) if piece in text else len(text), piece))


_SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?![\s.!?]|$))+(?:[.!?]+(?=\s|$)|[。！？]+)?\s*|\n+")
_PERIODIC = re.compile(r"(.{2,40}?)\1{2,}", re.DOTALL)


def loop_start(text: str) -> int | None:
    """Where ``text`` starts repeating itself: the second time a sentence or line of at least four
    letters comes, or a short stretch of text said three times in a row (at least 24 characters in
    all, letters among them); None when it does not."""
    starts = []
    seen: set[str] = set()
    for match in _SENTENCE.finditer(text):
        key = _bare(match.group(0))
        if len(key) < 4:
            continue
        if key in seen:
            starts.append(match.start())
            break
        seen.add(key)
    for match in _PERIODIC.finditer(text):
        unit = match.group(1)
        if len(match.group(0)) >= 24 and re.search(r"[^\W\d_]", unit):
            starts.append(match.start() + len(unit))
            break
    return min(starts, default=None)


def cut_loop(text: str) -> str:
    """``text`` up to where it starts repeating itself, without trailing space."""
    start = loop_start(text)
    return (text if start is None else text[:start]).rstrip()


_FAILURE = re.compile(
    r"\b(?:fail(?:ed|s|ure)?|error|unable|couldn'?t|could not|can ?not|can't|unavailable|unreachable)\b"
    r"|失败|失敗|错误|出错|无法|無法|不能|エラー|できません|できなかった|取得できず",
    re.IGNORECASE,
)


def claims_failure(text: str) -> bool:
    """Whether ``text`` says that something failed or could not be done (in English, Chinese or Japanese)."""
    return bool(_FAILURE.search(normalize(text)))


def mentions(answer: str, result: str, question: str = "") -> bool:
    """Whether ``answer`` says something of ``result``: one of its figures or named values that the
    question does not already hold. A result with nothing of the kind counts as mentioned."""
    asked = KnownFigures.of([question])
    keys = [f for f in figures(result) if not asked.supports(f)]
    own = [n for n in names(result) if _fold(n) not in _fold(question)]
    if not keys and not own:
        return True
    known = KnownFigures.of([result])
    if any(known.supports(f) for f in figures(answer) if not asked.supports(f)):
        return True
    said = _fold(answer)
    return any(_fold(n) in said for n in own)


# --------------------------------------------------------------------------------- the check
@dataclass
class Verdict:
    """What is wrong with an answer (nothing: ``ok``)."""

    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check(
    answer: str,
    question: str,
    results: Sequence[tuple[str, str]],
    *,
    context: Sequence[str] = (),
    instructions: Iterable[str] = (),
    failures_shown: bool = False,
    language: str = "",
) -> Verdict:
    """Check an answer against this turn's ``results`` (tool name, the text the model was shown) and
    the question: every figure and named value must come from them (or from ``context``: other text
    the model was shown, such as failed calls); it must not repeat the question, the prompt's
    ``instructions`` or itself; it must mention every result; it may say that something failed
    only when a failure was shown to the model (``failures_shown``); and it must be written in
    ``language`` (when given; text without letters is in any language)."""
    verdict = Verdict()
    problems = verdict.problems
    if not answer.strip():
        problems.append("the answer is empty")
        return verdict
    sources = [question, *context, *(text for _, text in results)]
    for figure in unsupported_figures(answer, sources):
        problems.append(f"the figure {figure.text!r} is in neither the results nor the question")
    for name in unsupported_names(answer, sources):
        problems.append(f"{name!r} is in neither the results nor the question")
    if is_echo(answer, question):
        problems.append("the answer repeats the question")
    fragment = leaked(answer, instructions)
    if fragment:
        problems.append(f"the answer repeats the prompt's instructions ({fragment!r})")
    if loop_start(answer) is not None:
        problems.append("the answer repeats itself")
    if not failures_shown and claims_failure(answer) and not any(claims_failure(text) for text in sources):
        problems.append("the answer claims a failure that did not happen")
    for name, text in results:
        if not mentions(answer, text, question):
            problems.append(f"the answer does not mention the result of {name}")
    if language and detect_language(answer, language) != language:
        problems.append(f"the answer is not written in {language}")
    return verdict
