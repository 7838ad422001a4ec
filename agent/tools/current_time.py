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
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick

# IANA zone -> names people use for it (matched case-insensitively, spaces/underscores/hyphens alike).
_ZONE_NAMES: dict[str, tuple[str, ...]] = {
    "UTC": ("utc", "gmt", "z", "zulu", "协调世界时", "世界標準時", "協定世界時"),
    "Asia/Tokyo": ("tokyo", "osaka", "kyoto", "japan", "jst", "东京", "東京", "大阪", "京都", "日本", "とうきょう"),
    "Asia/Shanghai": ("beijing", "shanghai", "china", "peking", "北京", "上海", "中国", "北京時間", "北京时间", "广州", "深圳", "重庆", "成都"),
    "Asia/Hong_Kong": ("hong kong", "hongkong", "香港"),
    "Asia/Taipei": ("taipei", "taiwan", "台北", "臺北", "台湾", "臺灣"),
    "Asia/Seoul": ("seoul", "korea", "south korea", "kst", "首尔", "首爾", "ソウル", "韩国", "韓国"),
    "Asia/Singapore": ("singapore", "新加坡", "シンガポール"),
    "Asia/Bangkok": ("bangkok", "thailand", "曼谷", "バンコク", "泰国", "タイ"),
    "Asia/Ho_Chi_Minh": ("hanoi", "ho chi minh city", "saigon", "vietnam", "河内", "胡志明市", "越南", "ハノイ", "ベトナム"),
    "Asia/Jakarta": ("jakarta", "indonesia", "雅加达", "ジャカルタ"),
    "Asia/Manila": ("manila", "philippines", "马尼拉", "マニラ"),
    "Asia/Kolkata": ("mumbai", "delhi", "new delhi", "bangalore", "kolkata", "india", "孟买", "新德里", "德里", "印度", "ムンバイ", "デリー", "インド"),
    "Asia/Dubai": ("dubai", "abu dhabi", "uae", "迪拜", "ドバイ"),
    "Europe/Istanbul": ("istanbul", "turkey", "伊斯坦布尔", "イスタンブール"),
    "Europe/Moscow": ("moscow", "russia", "莫斯科", "モスクワ"),
    "Europe/London": ("london", "uk", "england", "britain", "伦敦", "倫敦", "ロンドン", "英国", "イギリス"),
    "Europe/Dublin": ("dublin", "ireland", "都柏林", "ダブリン"),
    "Europe/Paris": ("paris", "france", "巴黎", "パリ", "法国", "フランス"),
    "Europe/Berlin": ("berlin", "germany", "munich", "柏林", "ベルリン", "德国", "ドイツ"),
    "Europe/Madrid": ("madrid", "spain", "马德里", "マドリード"),
    "Europe/Rome": ("rome", "italy", "罗马", "ローマ"),
    "Europe/Amsterdam": ("amsterdam", "netherlands", "阿姆斯特丹", "アムステルダム"),
    "Europe/Zurich": ("zurich", "geneva", "switzerland", "苏黎世", "チューリッヒ"),
    "Europe/Stockholm": ("stockholm", "sweden", "斯德哥尔摩", "ストックホルム"),
    "Africa/Cairo": ("cairo", "egypt", "开罗", "カイロ"),
    "Africa/Johannesburg": ("johannesburg", "south africa", "约翰内斯堡", "ヨハネスブルグ"),
    "America/New_York": ("new york", "nyc", "boston", "washington", "miami", "est", "edt", "纽约", "紐約", "ニューヨーク", "华盛顿", "ワシントン"),
    "America/Toronto": ("toronto", "montreal", "多伦多", "トロント"),
    "America/Chicago": ("chicago", "houston", "dallas", "芝加哥", "シカゴ"),
    "America/Denver": ("denver", "丹佛", "デンバー"),
    "America/Vancouver": ("vancouver", "温哥华", "バンクーバー"),
    "America/Los_Angeles": ("los angeles", "la", "san francisco", "seattle", "pst", "pdt", "洛杉矶", "洛杉磯", "ロサンゼルス", "旧金山", "舊金山", "サンフランシスコ", "西雅图", "シアトル"),
    "America/Mexico_City": ("mexico city", "墨西哥城", "メキシコシティ"),
    "America/Sao_Paulo": ("sao paulo", "são paulo", "rio de janeiro", "brazil", "圣保罗", "サンパウロ"),
    "America/Argentina/Buenos_Aires": ("buenos aires", "argentina", "布宜诺斯艾利斯", "ブエノスアイレス"),
    "Australia/Sydney": ("sydney", "melbourne", "悉尼", "雪梨", "墨尔本", "シドニー", "メルボルン"),
    "Pacific/Auckland": ("auckland", "new zealand", "奥克兰", "オークランド"),
    "Pacific/Honolulu": ("honolulu", "hawaii", "檀香山", "夏威夷", "ホノルル", "ハワイ"),
}


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


ALIASES: dict[str, str] = {
    _key(name): zone for zone, names in _ZONE_NAMES.items() for name in names
}

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


@lru_cache(maxsize=1)
def _iana_names() -> dict[str, str]:
    return {name.casefold(): name for name in available_timezones()}


def _local_zone() -> tuple[tzinfo, str]:
    """The machine's zone: from $TZ or /etc/localtime when they name an IANA zone, else the OS offset."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        candidates.append(str(localtime.resolve()).partition("zoneinfo/")[2])
    for name in candidates:
        if name and name.casefold() in _iana_names():
            zone = _iana_names()[name.casefold()]
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
    name = ALIASES.get(_key(text)) or _iana_names().get(text.strip().replace(" ", "_").casefold())
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
        place = f"{given} ({name})" if given and _key(given) != _key(name) else name
        weekday = _WEEKDAYS[lang][moment.weekday()]
        report = pick(_TEXT["report"], lang, place=place, weekday=weekday, date=moment, offset=offset, abbr=abbr)
        return ToolResult(success=True, data=report)
