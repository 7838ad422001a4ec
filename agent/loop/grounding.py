"""The grounding check: is an answer made only of what this turn's tool results and the question say?

Pure functions on text, cheap enough to run on every answer given after a tool ran:

- :func:`figures`: the numbers, times, dates (and temperatures, amounts: numbers with a unit) of a
  text, after :func:`normalize` (full-width digits, thousands separators, ``−``), so that ``31°C``,
  ``31 度`` and ``31 degrees`` are one figure, and ``2026年11月30日`` and ``2026-11-30`` one date;
  a number said with a unit must have been stated with that unit (``391 mph`` is not ``= 391``).
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
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Iterable, Sequence

# ------------------------------------------------------------------------------- normalising
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MINUS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-"})


def normalize(text: str) -> str:
    """``text`` with one spelling per figure: NFKC (full-width digits, letters and colons become
    ASCII, ``℃`` becomes ``°C``), dashes and minus signs as ``-``, no thousands separators."""
    text = unicodedata.normalize("NFKC", text).translate(_MINUS)
    return _THOUSANDS.sub("", text)


# ------------------------------------------------------------------------------------ figures
@dataclass(frozen=True)
class Figure:
    """A figure as stated: ``kind`` is ``number`` (value: a Decimal, its sign dropped), ``time``
    (hour, minute or None, second or None, whether a.m./p.m. was said) or ``date`` (year or None,
    month, day); ``text`` is how it was written; ``unit``: a number's unit, when it has a known one
    (one spelling per unit: ``°C`` for ``℃``, ``度``... see :data:`UNITS`)."""

    kind: str
    value: tuple
    text: str
    unit: str = ""


#: unit -> its spellings after a number (a 0.5B model writes 31°C as "31 degrees" or "31度")
UNITS = {
    "°C": ("°c", "degrees celsius", "degree celsius", "celsius", "摄氏度", "攝氏度"),
    "°F": ("°f", "degrees fahrenheit", "degree fahrenheit", "fahrenheit", "华氏度", "華氏度", "華氏"),
    "deg": ("degrees", "degree", "度"),
    "%": ("%", "percent", "per cent", "パーセント"),
    "km/h": ("km/h", "kph", "kmh", "kilometers per hour", "kilometres per hour", "公里/小时", "公里每小时", "キロ毎時"),
    "mph": ("mph", "miles per hour", "英里/小时", "英里每小时", "マイル毎時"),
    "m/s": ("m/s", "meters per second", "米/秒", "米每秒"),
    "kg": ("kg", "kilograms", "kilogram", "公斤", "千克", "キログラム"),
    "g": ("grams", "gram", "克", "グラム"),
    "lb": ("lbs", "lb", "pounds", "pound", "磅", "ポンド"),
    "km": ("km", "kilometers", "kilometres", "kilometer", "kilometre", "公里", "千米", "キロメートル"),
    "cm": ("cm", "centimeters", "centimetres", "厘米", "センチメートル", "センチ"),
    "mm": ("mm", "millimeters", "millimetres", "毫米", "ミリメートル"),
    "m": ("m", "meters", "metres", "meter", "metre", "米", "メートル"),
    "mi": ("mi", "miles", "mile", "英里", "マイル"),
    "ft": ("ft", "feet", "foot", "英尺", "フィート"),
    "in": ("inches", "inch", "英寸", "インチ"),
    "TB": ("tb", "terabytes"), "GB": ("gb", "gigabytes"), "MB": ("mb", "megabytes"), "KB": ("kb", "kilobytes"),
    "JPY": ("jpy", "yen", "日元", "日圆", "円"),
    "EUR": ("eur", "euros", "euro", "欧元", "ユーロ"),
    "USD": ("usd", "dollars", "dollar", "美元", "ドル"),
    "CNY": ("cny", "rmb", "yuan", "人民币", "元"),
}
_UNIT_OF = {spelling: unit for unit, spellings in UNITS.items() for spelling in spellings}
_UNIT_AFTER = re.compile(
    r"[ \t]*(" + "|".join(re.escape(u) for u in sorted(_UNIT_OF, key=len, reverse=True)) + r")(?![A-Za-z])",
    re.IGNORECASE,
)
_UNIT_BEFORE = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "yen"}
#: units that stand for others: "degrees" for either scale, "¥" for yen or yuan
_STANDS_FOR = {"deg": {"°C", "°F", "deg"}, "yen": {"JPY", "CNY", "yen"}}


def _unit(text: str, start: int, end: int) -> str:
    before = text[start - 1] if start > 0 else ""
    if before in _UNIT_BEFORE:
        return _UNIT_BEFORE[before]
    after = _UNIT_AFTER.match(text, end)
    return _UNIT_OF[after.group(1).lower()] if after else ""


def _same_unit(said: str, known: str) -> bool:
    """Whether a number said with unit ``said`` can be one stated with ``known`` (no unit said: any)."""
    if not said or said == known:
        return True
    return known in _STANDS_FOR.get(said, ()) or said in _STANDS_FOR.get(known, ())


_MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
         ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        start=1,
    )
    for name in names
}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATES = [
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(?<!\d)(\d{4})[ \t]*年[ \t]*(\d{1,2})[ \t]*月[ \t]*(\d{1,2})[ \t]*[日号號]?"), "ymd"),
    (re.compile(r"(?<!\d)(\d{1,2})[ \t]*月[ \t]*(\d{1,2})[ \t]*[日号號]"), "md"),
    (re.compile(rf"\b{_MONTH}\.?[ \t]+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?[ \t]+(\d{{4}})\b)?", re.IGNORECASE), "Mdy"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTH}\b\.?(?:,?[ \t]+(\d{{4}})\b)?", re.IGNORECASE), "dMy"),
]
_EVENING = ("pm", "p", "下午", "晚上", "傍晚", "午後", "夜", "夕方", "中午")
_MORNING = ("am", "a", "上午", "早上", "凌晨", "午前", "早晨", "朝")
_TIMES = [
    re.compile(r"(?<![\d.])(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)(?:[ \t]*([ap])\.?[ \t]*m\b)?", re.IGNORECASE),
    re.compile(r"(?<![\d.])(\d{1,2})()()[ \t]*([ap])\.?[ \t]*m\b", re.IGNORECASE),
]
_CJK_TIME = re.compile(
    r"(上午|下午|早上|晚上|凌晨|中午|傍晚|早晨|午前|午後|夕方|夜|朝)?[ \t]*(\d{1,2})[ \t]*[点點时時](?!间|間)"
    r"(?:[ \t]*(\d{1,2}|半)[ \t]*分?)?(?:[ \t]*(\d{1,2})[ \t]*秒)?"
)
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])-?(\d+(?:\.\d+)?)")
_LIST_MARK = re.compile(r"^\s*\d{1,2}[.)](?=\s)", re.MULTILINE)


def _hour(hour: int, meridiem: str | None) -> int:
    if meridiem:
        word = meridiem.lower()
        if word in _EVENING and hour < 12 and not (word == "中午" and hour > 3):
            return hour + 12
        if word in _MORNING and hour == 12:
            return 0
    return hour


def _blank(text: str, span: tuple[int, int]) -> str:
    return text[: span[0]] + " " * (span[1] - span[0]) + text[span[1] :]


def _dates(text: str) -> tuple[list[Figure], str]:
    found: list[Figure] = []
    for pattern, order in _DATES:
        for match in pattern.finditer(text):
            groups = match.groups()
            if order == "ymd":
                year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
            elif order == "md":
                year, month, day = None, int(groups[0]), int(groups[1])
            elif order == "Mdy":
                year, month, day = (int(groups[2]) if groups[2] else None), _MONTHS[groups[0].lower()], int(groups[1])
            else:
                year, month, day = (int(groups[2]) if groups[2] else None), _MONTHS[groups[1].lower()], int(groups[0])
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.append(Figure("date", (year, month, day), match.group(0)))
                text = _blank(text, match.span())
    return found, text


def _times(text: str) -> tuple[list[Figure], str]:
    found: list[Figure] = []
    for pattern in _TIMES:
        for match in pattern.finditer(text):
            hour, minute, second, meridiem = match.groups()
            minute_value = int(minute) if minute else None
            if int(hour) <= 24 and (minute_value is None or minute_value < 60):
                said = bool(meridiem)
                value = (_hour(int(hour), meridiem and meridiem + "m"), minute_value, int(second) if second else None, said)
                found.append(Figure("time", value, match.group(0)))
                text = _blank(text, match.span())
    for match in _CJK_TIME.finditer(text):
        meridiem, hour, minute, second = match.groups()
        minute_value = 30 if minute == "半" else (int(minute) if minute else None)
        if int(hour) <= 24 and (minute_value is None or minute_value < 60):
            value = (_hour(int(hour), meridiem), minute_value, int(second) if second else None, bool(meridiem))
            found.append(Figure("time", value, match.group(0).strip()))
            text = _blank(text, match.span())
    return found, text


def figures(text: str) -> list[Figure]:
    """The figures of ``text``: dates, then times, then the numbers left (a list number at the start
    of a line, ``1.`` or ``2)``, is a list mark and no figure)."""
    text = _LIST_MARK.sub(lambda m: " " * len(m.group(0)), normalize(text))
    dates, text = _dates(text)
    times, text = _times(text)
    numbers = []
    for match in _NUMBER.finditer(text):
        try:
            value = Decimal(match.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern only matches decimals
            continue
        numbers.append(Figure("number", (value,), match.group(0), _unit(text, match.start(), match.end())))
    return dates + times + numbers


@dataclass
class _Known:
    """What the sources state, ready for lookups."""

    numbers: list[tuple[Decimal, str]] = field(default_factory=list)  # value and unit
    times: list[tuple] = field(default_factory=list)
    dates: list[tuple] = field(default_factory=list)

    @classmethod
    def of(cls, texts: Iterable[str]) -> "_Known":
        known = cls()
        for text in texts:
            for figure in figures(text):
                known.add(figure)
        return known

    def add(self, figure: Figure) -> None:
        if figure.kind == "number":
            self.numbers.append((figure.value[0], figure.unit))
        elif figure.kind == "time":
            self.times.append(figure.value)
            hour, minute, second, _ = figure.value
            self.numbers.extend((Decimal(v), "") for v in (hour, hour % 12 or 12, minute, second) if v is not None)
        else:
            self.dates.append(figure.value)
            self.numbers.extend((Decimal(v), "") for v in figure.value if v is not None)

    def supports(self, figure: Figure) -> bool:
        if figure.kind == "number":
            return any(
                _same_number(figure.value[0], known) and _same_unit(figure.unit, unit) for known, unit in self.numbers
            )
        if figure.kind == "time":
            return any(_same_time(figure.value, known) for known in self.times) or (
                figure.value[1] is None and self.supports(Figure("number", (Decimal(figure.value[0]),), figure.text))
            )
        year, month, day = figure.value
        return any(month == m and day == d and year in (None, y) for y, m, d in self.dates)


def _same_number(said: Decimal, known: Decimal) -> bool:
    """Equal, or ``known`` rounded (or cut) to as many decimals as ``said`` has."""
    if said == known:
        return True
    exponent = said.as_tuple().exponent
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    step = Decimal(1).scaleb(-places)
    try:
        return said in (known.quantize(step, ROUND_HALF_UP), known.quantize(step, ROUND_DOWN))
    except InvalidOperation:  # too many digits to round: only equal numbers are the same
        return False


def _same_time(said: tuple, known: tuple) -> bool:
    hour, minute, second, meridiem = said
    known_hour, known_minute, known_second, _ = known
    if hour != known_hour and (meridiem or hour % 12 != known_hour % 12):
        return False
    if minute is not None and known_minute is not None and minute != known_minute:
        return False
    return second is None or known_second is None or second == known_second


def unsupported_figures(answer: str, sources: Sequence[str]) -> list[Figure]:
    """The figures of ``answer`` that none of ``sources`` states."""
    known = _Known.of(sources)
    return [figure for figure in figures(answer) if not known.supports(figure)]


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
            text = _blank(text, match.span())
    for match in _CAPITALISED.finditer(text):
        word = match.group(0)
        if word.lower() in _COMMON or word.lower() in _MONTHS or word.lower() in _WEEKDAYS:
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


_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*\s*|\n+")
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
    asked = _Known.of([question])
    keys = [f for f in figures(result) if not asked.supports(f)]
    own = [n for n in names(result) if _fold(n) not in _fold(question)]
    if not keys and not own:
        return True
    known = _Known.of([result])
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
) -> Verdict:
    """Check an answer against this turn's ``results`` (tool name, the text the model was shown) and
    the question: every figure and named value must come from them (or from ``context``: other text
    the model was shown, such as failed calls); it must not repeat the question, the prompt's
    ``instructions`` or itself; it must mention every result; and it may say that something failed
    only when a failure was shown to the model (``failures_shown``)."""
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
    return verdict
