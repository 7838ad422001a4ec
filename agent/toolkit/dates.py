"""Calendar dates as people say them, for parameters that ask for an ISO 8601 date (``YYYY-MM-DD``):
written dates ("2027-02-11", "2027年2月11日", "May 2, 2027", "2 May", "3月4日", "3/14/2027",
"14.03.2027"), and dates said
relative to today in English, Chinese and Japanese ("tomorrow", "后天", "明後日", "next Friday",
"下周五", "来週の金曜日", "in 3 days", "三天后", "3日後", "this weekend", "下周末", "来週末", "下个月5号",
"来月5日"). A date without a year is the next such day from today. A month named as a whole ("2026年10月",
"October 2026", "last month") is the span of its days (:func:`month_named`); so are months from one to
another ("2026年1月から3月まで", "January to March 2026") and a year ("all my 2026 transactions", "去年",
:func:`span_named`). "Today" is the
local date of the machine Riverse runs on (:func:`today`, which tests replace)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

_MONTHS = {name: i for i, names in enumerate((
    (), ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"),
)) for name in names}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: days from today
_RELATIVE = {
    "today": 0, "tonight": 0, "tomorrow": 1, "day after tomorrow": 2, "yesterday": -1,
    "今天": 0, "今日": 0, "今晚": 0, "明天": 1, "明日": 1, "后天": 2, "後天": 2, "大后天": 3, "大後天": 3, "昨天": -1,
    "明後日": 2, "あさって": 2, "しあさって": 3, "昨日": -1, "今夜": 0, "今晩": 0, "あした": 1, "きょう": 0,
}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = "一二三四五六日"  # 周一 … 周日 (天 too)
_WEEKDAYS_JA = "月火水木金土日"  # 月曜日 … 日曜日

_EN_WEEKDAY = re.compile(rf"\b(?:(next|this|coming)\s+)?({'|'.join(_WEEKDAYS_EN)})\b")
_ZH_WEEKDAY = re.compile(r"(下下|下|这|這|本|上)?(?:个|個)?(?:周|週|星期|礼拜|禮拜)([一二三四五六日天])")
_JA_WEEKDAY = re.compile(r"(再来週|来週|今週|先週)?の?([月火水木金土日])曜日?")
_ISO = re.compile(r"(?<![0-9])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![0-9])")
_US = re.compile(r"(?<![0-9/])(\d{1,2})/(\d{1,2})/(\d{4})(?![0-9])")  # 3/14/2027: month first
_DOTTED = re.compile(r"(?<![0-9.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![0-9])")  # 14.03.2027: day first
_CJK = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]")
_EN_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b")
_EN_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?(?:,?\s+(\d{{4}}))?\b")
#: the end of a range that says only its day: "到 14 号", "から14日", "to 7, 2026", "- 9th"
_RANGE_END = re.compile(r"\s*(?:到|至|~|～|〜|-|–|から|to|through|until|till|thru)\s*(\d{1,2})(?:\s*(?:号|號|日)|(?:st|nd|rd|th)?)"
                        r"(?:,?\s*(\d{4}))?(?![0-9]|\s*(?:月|/|:|時|点|年|\.))")
#: counts said in words before a span of days or weeks ("in three days", "三天后", "二週間後")
_COUNTS = {word: i for i, words in enumerate((
    (), ("one", "a", "一"), ("two", "二", "两", "兩"), ("three", "三"), ("four", "四"), ("five", "五"), ("six", "六"),
    ("seven", "七"), ("eight", "八"), ("nine", "九"), ("ten", "十"),
)) for word in words}
_COUNT = rf"(\d{{1,3}}|{'|'.join(sorted((w for w in _COUNTS if w.isascii()), key=len, reverse=True))})"
_CJK_COUNT = rf"(\d{{1,3}}|[{''.join(w for w in _COUNTS if not w.isascii())}])"
_EN_LATER = re.compile(rf"\b(?:in\s+{_COUNT}\s+(day|week)s?\b|{_COUNT}\s+(day|week)s?\s+(?:from\s+(?:now|today)|later)\b)")
_CJK_LATER = re.compile(rf"(?<![0-9一二两兩三四五六七八九十百千]){_CJK_COUNT}\s*(?:个|個)?\s*(天|日|周|週|星期|礼拜|週間)\s*(?:以后|之后|后|後|以後)")
#: the Saturday of a weekend said: "this weekend", "next weekend", "周末", "下周末", "今週末", "来週末"
_WEEKEND = re.compile(r"\b(?:(this|next|coming)\s+)?weekend\b|(下|这|這|本)?(?:个|個)?(?:周末|週末)|(来|今)週末")
#: a day of this month or the next: "下个月5号", "这个月20号", "来月5日", "今月20日"
_MONTH_DAY = re.compile(r"(下个月|下個月|下月|这个月|這個月|本月|来月|今月)\s*的?\s*(\d{1,2})\s*(?:号|號|日)(?!\s*(?:間|间))")
_RELATIVE_WORDS = re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w)
                                      for w in sorted(_RELATIVE, key=len, reverse=True)))


def today() -> dt.date:
    return dt.date.today()


def dates_in(text: str) -> list[tuple[int, str]]:
    """Every date ``text`` names: (where it starts, ``YYYY-MM-DD``), in the order they are named."""
    return [(span.start, date) for span, date in _found(text)]


#: a time of day written with digits: 8:30, 8時, 8点半, 8am, 8 o'clock
_TIME = re.compile(r"(?<![0-9])\d{1,2}(?::\d{2}(?::\d{2})?|\s*(?:時|点|點)(?:\s*\d{1,2}\s*分|半)?"
                   r"|\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)\b)", re.IGNORECASE)
#: a time of day said around its hour: "half past 9", "a quarter to 10", "9 in the morning", "7 tonight" (not "10 to 5",
#: which may be two numbers)
_SAID_TIME = re.compile(r"\b(?:half|(?:a\s+)?quarter)\s+(?:past|after|to)\s+\d{1,2}(?![0-9])"
                        r"|(?<![0-9.,])\d{1,2}\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)\b", re.IGNORECASE)


#: a day of every month written with digits: the "1 号" of "每月 1 号", the "15日" of "毎月15日"
_MONTHLY_DAY = re.compile(r"(?:每(?:个|個)?月|毎月)\s*的?\s*(\d{1,2}\s*(?:号|號|日))")


def without_dates(text: str) -> str:
    """``text`` with the dates and times of day it writes in digits blanked out (the 8 and 3 of
    "8月3日", the 8 of "朝8時", the "1 号" of "每月 1 号" count nothing)."""
    text = unicodedata.normalize("NFKC", text)  # as _found reads it, so that the places agree
    spans = [span for span, _ in _found(text) if any(ch.isdigit() for ch in text[span.start:span.stop])]
    spans += [range(m.start(), m.end()) for pattern in (_TIME, _SAID_TIME) for m in pattern.finditer(text)]
    spans += [range(*m.span(1)) for m in _MONTHLY_DAY.finditer(text)]
    return "".join(" " if any(i in span for span in spans) else ch for i, ch in enumerate(text))


def _found(text: str) -> list[tuple[range, str]]:
    text = unicodedata.normalize("NFKC", text).casefold()
    now = today()
    found: list[tuple[range, dt.date | None]] = []
    written: list[list] = []  # [span, year or None, month, day]: years are read once every date is found

    def free(match: re.Match | range) -> bool:  # not a part of a date already read ("2 may" inside "may 2 2027")
        span = match if isinstance(match, range) else range(match.start(), match.end())
        return not any(span.start in other or span.stop - 1 in other for other in
                       [s for s, _ in found] + [w[0] for w in written])

    def add(match: re.Match, date: dt.date | None) -> None:
        if free(match):
            found.append((range(match.start(), match.end()), date))

    def write(match: re.Match, year: str | None, month: int, day: str) -> None:
        if free(match):
            written.append([range(match.start(), match.end()), int(year) if year else None, month, int(day)])

    for m in _ISO.finditer(text):
        write(m, m.group(1), int(m.group(2)), m.group(3))
    for m in _US.finditer(text):
        write(m, m.group(3), int(m.group(1)), m.group(2))
    for m in _DOTTED.finditer(text):
        write(m, m.group(3), int(m.group(2)), m.group(1))
    for m in _CJK.finditer(text):
        write(m, m.group(1), int(m.group(2)), m.group(3))
    for m in _EN_MONTH_DAY.finditer(text):
        write(m, m.group(3), _MONTHS[m.group(1)], m.group(2))
    for m in _EN_DAY_MONTH.finditer(text):
        write(m, m.group(3), _MONTHS[m.group(2)], m.group(1))
    for entry in sorted(written, key=lambda w: w[0].start):  # "8 号到 14 号", "December 1 to 7, 2026": the end of a range
        end = _RANGE_END.match(text, entry[0].stop)
        if end and free(range(end.start(1), end.end())):
            if end.group(2) and entry[1] is None:
                entry[1] = int(end.group(2))
            written.append([range(end.start(1), end.end()), int(end.group(2)) if end.group(2) else entry[1], entry[2],
                            int(end.group(1))])
    dated = [w for w in written if w[1] is not None]
    for span, year, month, day in written:  # a date without a year takes the nearest one said, else the next such day
        if year is None and dated:
            near = min(dated, key=lambda w: abs(w[0].start - span.start))
            year = near[1]
            if span.start < near[0].start and (month, day) > (near[2], near[3]):
                year -= 1  # "Dec 30 to Jan 2, 2027"
            elif span.start > near[0].start and (month, day) < (near[2], near[3]):
                year += 1  # "2027年12月28日から1月3日まで"
        found.append((span, _date(year, month, day) if year is not None else _upcoming(now, month, day)))
    for m in _RELATIVE_WORDS.finditer(text):
        if not (m.group(0) == "明日" and text[m.end():m.end() + 1] == "香"):  # 明日香 is a name
            add(m, now + dt.timedelta(days=_RELATIVE[m.group(0)]))
    for m in _MONTH_DAY.finditer(text):
        ahead = 0 if m.group(1) in ("这个月", "這個月", "本月", "今月") else 1
        first = (now.replace(day=1) + dt.timedelta(days=31 * ahead)).replace(day=1)
        add(m, _date(first.year, first.month, int(m.group(2))))
    for m in [*_EN_LATER.finditer(text), *_CJK_LATER.finditer(text)]:
        count = m.group(1) or m.group(3)
        unit = m.group(2) or m.group(4)
        days = int(count) if count.isdigit() else _COUNTS[count]
        add(m, now + dt.timedelta(days=days * (1 if unit in ("day", "天", "日") else 7)))
    for m in _WEEKEND.finditer(text):
        later = (m.group(1) or m.group(2) or m.group(3) or "") in ("next", "下", "来")
        add(m, _weekday(now, 5, 1) if later else (now if now.weekday() == 6 else _weekday(now, 5, None)))
    for m in _EN_WEEKDAY.finditer(text):
        add(m, _weekday(now, _WEEKDAYS_EN.index(m.group(2)), {"next": 1}.get(m.group(1) or "", None)))
    for m in _ZH_WEEKDAY.finditer(text):
        weeks = {"下下": 2, "下": 1, "这": 0, "這": 0, "本": 0, "上": -1}.get(m.group(1) or "", None)
        add(m, _weekday(now, _WEEKDAYS_ZH.index("日" if m.group(2) == "天" else m.group(2)), weeks))
    for m in _JA_WEEKDAY.finditer(text):
        weeks = {"再来週": 2, "来週": 1, "今週": 0, "先週": -1}.get(m.group(1) or "", None)
        if m.group(1) or m.group(0).endswith(("曜日", "曜")):
            add(m, _weekday(now, _WEEKDAYS_JA.index(m.group(2)), weeks))
    return [(span, date.isoformat()) for span, date in sorted(found, key=lambda pair: pair[0].start) if date is not None]


def iso_date(text: str) -> str | None:
    """The ``YYYY-MM-DD`` of a value that is one date ("2027年2月11日", "tomorrow", "2027-2-11"; a
    date-time keeps its date); None when it names none, or several."""
    found = {date for _, date in dates_in(text)}
    return found.pop() if len(found) == 1 else None


def _date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _upcoming(now: dt.date, month: int, day: int) -> dt.date | None:
    """The next ``month``/``day`` from ``now`` (today included)."""
    this_year = _date(now.year, month, day)
    if this_year is None:
        return _date(now.year + 1, month, day)
    return this_year if this_year >= now else _date(now.year + 1, month, day)


def _weekday(now: dt.date, weekday: int, weeks: int | None) -> dt.date:
    """The day ``weekday`` (Monday 0) of the week ``weeks`` from this one (next week: 1); with no week
    said, the next such day from today (today included)."""
    if weeks is None:
        return now + dt.timedelta(days=(weekday - now.weekday()) % 7)
    monday = now - dt.timedelta(days=now.weekday())
    return monday + dt.timedelta(weeks=weeks, days=weekday)


#: a month named with its year and no day: "2026年10月", "2026 年 10 月", "October 2026", "2026-10"
_CJK_MONTH = re.compile(r"(?<![0-9])(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d{1,2}\s*[日号號])(?!\s*(?:份|分)?\s*\d)")
_EN_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b")
_ISO_MONTH = re.compile(r"(?<![0-9])(\d{4})-(\d{2})(?![0-9]|-\d)")
#: this month, last month, next month
_RELATIVE_MONTH = re.compile(r"\b(this|last|next|previous)\s+month\b|(这个月|這個月|本月|上个月|上個月|上月|下个月|下個月|下月|今月|先月|来月)"
                             r"(?!\s*的?\s*\d{1,2}\s*(?:号|號|日))")


def month_named(text: str) -> tuple[str, str] | None:
    """The first and last day (``YYYY-MM-DD``) of the one month ``text`` names as a whole, with no day
    of it ("2026年10月の取引", "spending in October 2026", "上个月的支出"); None when it names no such
    month, several, or a date (whose day says more)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if dates_in(text):
        return None
    months = {(int(m.group(1)), int(m.group(2))) for m in [*_CJK_MONTH.finditer(text), *_ISO_MONTH.finditer(text)]}
    months |= {(int(m.group(2)), _MONTHS[m.group(1)]) for m in _EN_MONTH_YEAR.finditer(text)}
    now = today()
    for m in _RELATIVE_MONTH.finditer(text):
        word = m.group(1) or m.group(2)
        ahead = -1 if word in ("last", "previous", "上个月", "上個月", "上月", "先月") else 1 if word in (
            "next", "下个月", "下個月", "下月", "来月") else 0
        month = now.month - 1 + ahead
        months.add((now.year + month // 12, month % 12 + 1))
    if len(months) != 1:
        return None
    year, month = months.pop()
    if not (1 <= month <= 12 and dt.MINYEAR <= year < dt.MAXYEAR):  # "2026年13月", "0000-05": no month
        return None
    return dt.date(year, month, 1).isoformat(), _last_day(year, month)


def _last_day(year: int, month: int) -> str:
    """The last day of ``month`` of ``year``, ``YYYY-MM-DD``."""
    return (dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)).isoformat()


# months from one to another: "2026年1月から3月まで", "2026 年 1 月到 6 月", "2026年1月至2027年2月"
_CJK_MONTHS = re.compile(r"(?<![0-9])(\d{4})\s*年\s*(\d{1,2})\s*月\s*份?\s*(?:から|到|至|~|〜|～|-|－|—|–)\s*"
                         r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?!\s*\d)")
# "January to March 2026", "from Jan 2026 through Mar 2026", "between January and March 2026"
_EN_MONTHS = re.compile(rf"\b(?:between\s+({_MONTH})\.?(?:\s+(\d{{4}}))?\s+and|({_MONTH})\.?(?:\s+(\d{{4}}))?\s*"
                        rf"(?:to|through|thru|until|till|-|–))\s*({_MONTH})\.?,?\s+(\d{{4}})\b")
_YEAR = re.compile(r"(?<![0-9.\-/:])((?:19|20)\d{2})(?![0-9.\-/:])(?!\s*年\s*\d)")
_RELATIVE_YEAR = {"this year": 0, "last year": -1, "next year": 1, "今年": 0, "本年": 0, "去年": -1, "昨年": -1,
                  "明年": 1, "来年": 1}
# a month named in any way: then a year alone is no span ("12月的支出 2026" is not the year)
_ANY_MONTH = re.compile(rf"\b(?:{_MONTH})\b|\d\s*月|month|月份|今月|先月|来月", re.IGNORECASE)


def span_named(text: str) -> tuple[str, str] | None:
    """The first and last day (``YYYY-MM-DD``) of the one span ``text`` names as a whole, with no day of it:
    a month (:func:`month_named`), the months from one to another ("2026 年 1 月到 6 月", "January to March
    2026"), or a year ("all my 2026 transactions", "2026年の取引", "last year"); None otherwise."""
    said = unicodedata.normalize("NFKC", text).casefold()
    if dates_in(said):
        return None
    spans = [((int(m[1]), int(m[2])), (int(m[3] or m[1]), int(m[4]))) for m in _CJK_MONTHS.finditer(said)]
    for m in _EN_MONTHS.finditer(said):
        end_year = int(m[6])
        first = _MONTHS[m[1] or m[3]]
        spans.append(((int(m[2] or m[4] or end_year), first), (end_year, _MONTHS[m[5]])))
    if spans:
        (year, month), (last_year, last_month) = spans[0]
        if len(spans) > 1 or not (1 <= month <= 12 and 1 <= last_month <= 12) or (year, month) > (last_year, last_month):
            return None
        return dt.date(year, month, 1).isoformat(), _last_day(last_year, last_month)
    month = month_named(text)
    if month is not None or _ANY_MONTH.search(said):
        return month
    years = {int(y) for y in _YEAR.findall(said)} | {today().year + ahead for word, ahead in _RELATIVE_YEAR.items() if word in said}
    if len(years) != 1:
        return None
    year = years.pop()
    return f"{year:04d}-01-01", f"{year:04d}-12-31"

