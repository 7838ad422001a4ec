"""``current_time``: the current date and time in a time zone or city.

The zone may be an IANA name (``Asia/Tokyo``, any case), a common city or country name in en/zh/ja
(``Tokyo``/``东京``/``東京``), a fixed offset (``UTC+8``, ``GMT-05:30``) or empty for the machine's zone.
Tests inject a clock by setting ``tool.now = lambda tz: datetime(...)`` on the instance.
"""

from __future__ import annotations

import os
import re
import unicodedata
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.zones import iana_names, name_key, zone_name

_WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "zh": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
    "ja": ("月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"),
}

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Get the current date, weekday and time, here or in another city or time zone.",
        "timezone": "City, country or IANA time zone, e.g. Tokyo, London, America/New_York; leave empty for local time",
        "examples": ["What time is it in New York?", "What's today's date?", "Is it night in Tokyo right now?"],
        "extra_examples": [
            "What time is it in Dubai at the moment?",
            "What day of the week is it today?",
            "Is it still morning in Los Angeles?",
            "Current time in Berlin, please",
            "Can I still call my colleague in Toronto, or is it the middle of the night there?",
            "Is it too late to call my brother in Sydney?",
            "time in London rn?",
            "Could you tell me the current time in Mumbai, please?",
            "Is it already Friday in Auckland?",
            "What's the time in America/Chicago?",
            "My mom lives in Lagos, would she be awake right now?",
        ],
    },
    "zh": {
        "description": "查询现在的日期、星期和时间（本地或其他城市、时区）。",
        "timezone": "城市、国家或 IANA 时区，例如 东京、伦敦、America/New_York；留空表示本地时间",
        "examples": ["纽约现在几点？", "今天是几月几号星期几？", "伦敦现在是晚上吗？"],
        "extra_examples": [
            "迪拜现在是几点？",
            "今天星期几？",
            "洛杉矶那边现在是早上还是晚上？",
            "现在给柏林的同事打电话会不会太晚？",
            "现在是几点几分？",
            "伦敦那边现在是白天还是晚上？",
            "我想给在温哥华的朋友打电话，现在打会不会太晚？",
            "请问巴黎当地时间现在几点了？",
            "现在 Sydney 几点啊",
        ],
    },
    "ja": {
        "description": "現在の日付・曜日・時刻を調べる（ここ、または他の都市やタイムゾーン）。",
        "timezone": "都市名・国名または IANA タイムゾーン。例: 東京、ロンドン、America/New_York。空欄ならローカル時刻",
        "examples": ["ニューヨークは今何時？", "今日は何月何日何曜日？", "ロンドンは今夜ですか？"],
        "extra_examples": [
            "ドバイは今何時？",
            "今日の日付を教えて",
            "ロサンゼルスは今朝ですか夜ですか？",
            "今ベルリンの同僚に電話しても大丈夫な時間？",
            "今何時何分？",
            "今の London の時間は？",
            "シドニーにいる姉に電話したいけど、今かけても大丈夫な時間かな？",
            "今日の日付を教えて",
            "ロサンゼルスってもう夜？",
            "パリの現地時間を教えていただけますか。",
        ],
    },
}

_TEXT = {
    "report": {
        "en": "{place}: {weekday}, {date:%Y-%m-%d} {date:%H:%M:%S} ({offset}{abbr})",
        "zh": "{place}：{date.year}年{date.month}月{date.day}日 {weekday} {date:%H:%M:%S}（{offset}{abbr}）",
        "ja": "{place}: {date.year}年{date.month}月{date.day}日 {weekday} {date:%H:%M:%S}（{offset}{abbr}）",
    },
    "unknown_zone": {
        "en": "Unknown time zone \"{zone}\". Use an IANA name such as Asia/Tokyo or Europe/London, a major city name, or an offset like UTC+8.",
        "zh": "未知的时区“{zone}”。请使用 IANA 时区名（如 Asia/Shanghai、Europe/London）、主要城市名，或 UTC+8 这样的偏移。",
        "ja": "「{zone}」というタイムゾーンは見つかりません。Asia/Tokyo や Europe/London のような IANA 名、主要都市名、または UTC+9 のようなオフセットを指定してください。",
    },
}

_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$")


def _local_zone() -> tuple[tzinfo, str]:
    """The machine's zone: from $TZ or /etc/localtime when they name an IANA zone, else the OS offset."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        candidates.append(str(localtime.resolve()).partition("zoneinfo/")[2])
    for name in candidates:
        if name and name.casefold() in iana_names():
            zone = iana_names()[name.casefold()]
            return ZoneInfo(zone), zone
    local = datetime.now().astimezone().tzinfo or timezone.utc
    return local, local.tzname(None) or "local"


def resolve_zone(text: str) -> tuple[tzinfo, str] | None:
    """``(tzinfo, display name)`` for a zone, city or offset; None when unknown; local when empty."""
    if not text.strip():
        return _local_zone()
    offset = _OFFSET.match(unicodedata.normalize("NFKC", text).casefold().strip())
    if offset:
        sign, hours, minutes = offset.group(1), int(offset.group(2)), int(offset.group(3) or 0)
        if hours > 14 or minutes >= 60:
            return None
        delta = timedelta(hours=hours, minutes=minutes) * (-1 if sign == "-" else 1)
        return timezone(delta), f"UTC{sign}{hours:02d}:{minutes:02d}"
    name = zone_name(text)
    if name is None:
        return None
    try:
        return ZoneInfo(name), name
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _offset_text(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(offset) // timedelta(minutes=1)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


class CurrentTimeTool(BaseTool):
    """The current date and time in a zone."""

    now: Callable[[tzinfo], datetime] | None = None  # set on the instance to fix the clock


    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="current_time",
            parameter_types={"timezone": "string"},
            required=[],
            risk="read",
        )


    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        given = str(params.get("timezone") or "").strip()
        resolved = resolve_zone(given)
        if resolved is None:
            return failure(_TEXT["unknown_zone"], lang, zone=given)
        zone, name = resolved
        moment = self.now(zone) if self.now is not None else datetime.now(zone)
        offset = _offset_text(moment)
        abbr = moment.tzname() or ""
        abbr = f", {abbr}" if abbr.isalpha() and abbr not in ("UTC", name) else ""
        place = f"{given} ({name})" if given and name_key(given) != name_key(name) else name
        weekday = _WEEKDAYS[lang][moment.weekday()]
        report = pick(_TEXT["report"], lang, place=place, weekday=weekday, date=moment, offset=offset, abbr=abbr)
        return ToolResult(success=True, data=report)
