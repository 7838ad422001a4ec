"""Time zones by the names people use for them: IANA names in any case, the last part of an IANA
name (``Lisbon`` for ``Europe/Lisbon``), and common city and country names in English, Chinese and
Japanese (``Tokyo``/``东京``/``東京``; every zone's city as CLDR names it in Chinese and Japanese, through
Babel). Shared by the ``current_time`` tool and by the router, which
writes an IANA name where a tool's parameter asks for one."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from zoneinfo import available_timezones

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


# The large cities of Japan and China that are no zone of their own (designated cities and provincial
# capitals, without those that are also common surnames or words, as 千葉, 大分 "quite"), in English,
# Chinese and Japanese: each is in its country's one zone.
_DOMESTIC: dict[str, tuple[str, ...]] = {
    "Asia/Tokyo": (
        "sapporo", "札幌", "sendai", "仙台", "yokohama", "横浜", "横滨", "saitama", "さいたま", "nagoya", "名古屋",
        "kobe", "神戸", "神户", "hiroshima", "広島", "广岛", "fukuoka", "福岡", "福冈", "kitakyushu", "北九州",
        "kumamoto", "熊本", "okayama", "岡山", "冈山", "niigata", "新潟", "shizuoka", "静岡", "静冈", "hamamatsu", "浜松",
        "naha", "那覇", "那霸", "kagoshima", "鹿児島", "鹿儿岛", "nagasaki", "長崎", "长崎", "nara", "奈良",
        "kanazawa", "金沢", "金泽", "hakodate", "函館", "函馆", "okinawa", "沖縄", "冲绳", "hokkaido", "北海道",
    ),
    "Asia/Shanghai": (
        "harbin", "哈尔滨", "哈爾濱", "ハルビン", "changchun", "长春", "長春", "shenyang", "沈阳", "瀋陽", "dalian", "大连",
        "大連", "tianjin", "天津", "shijiazhuang", "石家庄", "taiyuan", "太原", "hohhot", "呼和浩特", "jinan", "济南", "済南",
        "qingdao", "青岛", "青島", "zhengzhou", "郑州", "鄭州", "xi'an", "xian", "西安", "lanzhou", "兰州", "蘭州",
        "xining", "西宁", "yinchuan", "银川", "lhasa", "拉萨", "ラサ", "nanjing", "南京", "suzhou", "苏州", "蘇州",
        "hangzhou", "杭州", "ningbo", "宁波", "寧波", "hefei", "合肥", "nanchang", "南昌", "fuzhou", "福州", "xiamen", "厦门",
        "廈門", "アモイ", "changsha", "长沙", "長沙", "wuhan", "武汉", "武漢", "guiyang", "贵阳", "kunming", "昆明",
        "nanning", "南宁", "haikou", "海口", "sanya", "三亚", "zhuhai", "珠海", "guangzhou", "広州", "深セン", "重慶", "chongqing",
        "chengdu",
    ),
}


def name_key(text: str) -> str:
    """A place name as it is compared: case, width, spaces, underscores and hyphens folded."""
    return re.sub(r"[\s_\-]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


ALIASES: dict[str, str] = {
    name_key(name): zone for table in (_DOMESTIC, _ZONE_NAMES) for zone, names in table.items() for name in names
}


@lru_cache(maxsize=1)
def localized() -> dict[str, str]:
    """The city of each zone as CLDR names it in Chinese (simplified and traditional) and Japanese
    (``赫尔辛基``, ``ヘルシンキ`` -> ``Europe/Helsinki``), through Babel; Antarctica's stations left out
    (昭和 is an era before it is Syowa)."""
    from babel import Locale

    found: dict[str, str] = {}
    for locale in ("zh", "zh_Hant", "ja"):
        for zone, names in Locale.parse(locale).time_zones.items():
            city = names.get("city")
            if city and len(city) > 1 and not zone.startswith("Antarctica/"):
                found.setdefault(name_key(city), zone)
    return found


@lru_cache(maxsize=1)
def iana_names() -> dict[str, str]:
    """Every IANA zone name, keyed by its case-folded form."""
    return {name.casefold(): name for name in available_timezones()}


@lru_cache(maxsize=1)
def cities() -> dict[str, str]:
    """The last part of each geographic IANA name (``lisbon`` -> ``Europe/Lisbon``); where two names
    end alike (a zone and its older alias), the shorter."""
    cities: dict[str, str] = {}
    for name in sorted(available_timezones(), key=lambda n: (len(n), n), reverse=True):
        area, _, city = name.rpartition("/")
        if area and area.split("/")[0] not in ("Etc", "SystemV", "US", "Brazil", "Canada", "Chile", "Mexico"):
            cities[name_key(city)] = name
    return cities


def zone_name(text: str) -> str | None:
    """The IANA name for a zone name, city or country (``伦敦`` -> ``Europe/London``); None when unknown."""
    key = name_key(text)
    if not key:
        return None
    return (ALIASES.get(key) or iana_names().get(text.strip().replace(" ", "_").casefold()) or cities().get(key)
            or localized().get(key))
