"""Times of day as people say them, for parameters that ask for an ISO 8601 date-time
(``YYYY-MM-DDTHH:MM``): "15:00", "3pm", "9:30 a.m.", "noon", "下午3点", "晚上八点半", "19時", "朝8時30分",
"午後2時". A time is put with the date the message names before it (else after it; else today's:
"at 7pm" is today's 7pm), read by :mod:`agent.toolkit.dates`."""

from __future__ import annotations

import re
import unicodedata

from agent.toolkit import dates as _dates  # its today(), which tests replace

#: a part of the day said before the hour, and whether it is after noon
_AFTERNOON = ("下午", "晚上", "傍晚", "夜里", "夜裡", "晚", "午後", "夕方", "夜", "中午", "昼")
_MORNING = ("上午", "早上", "早晨", "清晨", "凌晨", "早", "午前", "朝", "今朝")
_PERIOD = "|".join(sorted(_AFTERNOON + _MORNING, key=len, reverse=True))
_CJK_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
               "九": 9, "十": 10}
_CJK_HOUR = re.compile(rf"(?:({_PERIOD})\s*の?\s*)?(\d{{1,2}}|[〇零一二两兩三四五六七八九十]{{1,3}})\s*(?:点|點|時|时)(?!間|间|候)"
                       rf"(?:\s*(\d{{1,2}}|[〇零一二三四五六七八九十]{{1,3}})\s*分|(半))?")
_CLOCK = re.compile(rf"(?:({_PERIOD})\s*)?(?<![\d:.])(\d{{1,2}}):(\d{{2}})(?::\d{{2}})?(?![\d:])\s*(a\.?m\.?|p\.?m\.?)?(?![a-z])")
_AM_PM = re.compile(r"(?<![\d:.])(\d{1,2})\s*(a\.?m\.?|p\.?m\.?)(?![a-z])")
_WORDS = re.compile(r"\b(noon|midday|midnight)\b|(正午)")
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?")


def _number(said: str) -> int | None:
    if said.isdigit():
        return int(said)
    if not all(ch in _CJK_DIGITS for ch in said):
        return None
    if "十" in said:  # 十, 十二, 二十, 二十三
        tens, _, ones = said.partition("十")
        return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CJK_DIGITS.get(ones, 0) if ones else 0)
    return _CJK_DIGITS[said] if len(said) == 1 else None


def _clock(hour: int, minute: int, period: str | None, am_pm: str | None) -> str | None:
    after = (period in _AFTERNOON and not (period in ("中午", "昼") and hour >= 11)) or (am_pm or "").startswith("p")
    before = period in _MORNING or (am_pm or "").startswith("a")
    if after and hour < 12:
        hour += 12
    elif before and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}" if 0 <= hour < 24 and 0 <= minute < 60 else None


def times_in(text: str) -> list[tuple[int, str]]:
    """Every time of day ``text`` names: (where it starts, ``HH:MM``), in the order they are named."""
    text = unicodedata.normalize("NFKC", text).casefold()
    found: list[tuple[int, int, str]] = []  # start, end, time

    def add(match: re.Match, time: str | None) -> None:
        if time and not any(start < match.end() and match.start() < end for start, end, _ in found):
            found.append((match.start(), match.end(), time))

    for m in _CLOCK.finditer(text):
        add(m, _clock(int(m.group(2)), int(m.group(3)), m.group(1), m.group(4)))
    for m in _CJK_HOUR.finditer(text):
        hour, minute = _number(m.group(2)), 30 if m.group(4) else _number(m.group(3)) if m.group(3) else 0
        add(m, _clock(hour, minute, m.group(1), None) if hour is not None and minute is not None else None)
    for m in _AM_PM.finditer(text):
        add(m, _clock(int(m.group(1)), 0, None, m.group(2)))
    for m in _WORDS.finditer(text):
        add(m, "00:00" if m.group(1) == "midnight" else "12:00")
    return [(start, time) for start, _, time in sorted(found)]


def datetimes_in(text: str) -> list[tuple[int, str]]:
    """Every date-time ``text`` names, each time with its date (``YYYY-MM-DDTHH:MM``), or its dates
    alone (``YYYY-MM-DD``) when it names no time."""
    dates, times = _dates.dates_in(text), times_in(text)
    if not times:
        return dates
    out = []
    for at, time in times:
        before = [date for start, date in dates if start <= at]
        after = [date for start, date in dates if start > at]
        date = before[-1] if before else after[0] if after else _dates.today().isoformat()
        out.append((at, f"{date}T{time}"))
    return out


def iso_datetime(text: str) -> str | None:
    """``YYYY-MM-DDTHH:MM`` of a value that is one date-time ("2026-12-09 15:00", "2026-12-09T15:00:00Z",
    "Dec 3 at noon"), or ``YYYY-MM-DD`` of one that is a date alone; None when it names none, or several."""
    written = unicodedata.normalize("NFKC", text).strip().casefold()
    if m := _ISO.fullmatch(written):
        date = f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}"
        return f"{date}T{int(m.group(4)):02d}:{m.group(5)}" if m.group(4) else date
    found = {value for _, value in datetimes_in(text)}
    return found.pop() if len(found) == 1 else None
