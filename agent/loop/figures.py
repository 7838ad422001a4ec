"""The figures of a text: numbers (with their units), times and dates, in one spelling each, and
whether the figures of an answer are among those of its sources.

``31°C``, ``31 度`` and ``31 degrees`` are one figure; ``2026年11月30日``, ``2026-11-30`` and
``November 30, 2026`` one date; ``下午4点07分`` and ``4:07 pm`` one time. A number said with a unit
must have been stated with that unit (``391 mph`` is not ``= 391``); a rounded or cut number is the
one it was rounded from (``1.41`` of ``1.41421356237``). See :mod:`agent.loop.grounding`.
"""

from __future__ import annotations

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


MONTHS = {
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


def blank(text: str, span: tuple[int, int]) -> str:
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
                year, month, day = (int(groups[2]) if groups[2] else None), MONTHS[groups[0].lower()], int(groups[1])
            else:
                year, month, day = (int(groups[2]) if groups[2] else None), MONTHS[groups[1].lower()], int(groups[0])
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.append(Figure("date", (year, month, day), match.group(0)))
                text = blank(text, match.span())
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
                text = blank(text, match.span())
    for match in _CJK_TIME.finditer(text):
        meridiem, hour, minute, second = match.groups()
        minute_value = 30 if minute == "半" else (int(minute) if minute else None)
        if int(hour) <= 24 and (minute_value is None or minute_value < 60):
            value = (_hour(int(hour), meridiem), minute_value, int(second) if second else None, bool(meridiem))
            found.append(Figure("time", value, match.group(0).strip()))
            text = blank(text, match.span())
    return found, text


def figures(text: str, list_marks: bool = True) -> list[Figure]:
    """The figures of ``text``: dates, then times, then the numbers left (with ``list_marks``, a list
    number at the start of a line, ``1.`` or ``2)``, is a list mark and no figure)."""
    text = normalize(text)
    if list_marks:
        text = _LIST_MARK.sub(lambda m: " " * len(m.group(0)), text)
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
class KnownFigures:
    """What the sources state, ready for lookups."""

    numbers: list[tuple[Decimal, str]] = field(default_factory=list)  # value and unit
    times: list[tuple] = field(default_factory=list)
    dates: list[tuple] = field(default_factory=list)

    @classmethod
    def of(cls, texts: Iterable[str]) -> "KnownFigures":
        known = cls()
        for text in texts:
            for figure in figures(text, list_marks=False):  # what a source states counts, list numbers too
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
    known = KnownFigures.of(sources)
    return [figure for figure in figures(answer) if not known.supports(figure)]
