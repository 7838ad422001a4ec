"""Airports and airlines by the names people use for them, for parameters that ask for an IATA code.

Airports come from ``airportsdata`` (every airport with an IATA code, its name and its city): an
airport is known by its code, its name with or without "International Airport" ("London Heathrow"),
that name without its city ("Heathrow"), and its city when the city has no other airport ("Denver";
not "London", which has nine). Everyday and Chinese/Japanese names of the busiest airports, which the
data does not hold ("Haneda", "浦东", "成田"), are listed here, and so are the two-letter codes of the
larger airlines ("Lufthansa" -> ``LH``, "日航" -> ``JL``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from functools import lru_cache

import airportsdata

#: everyday names of the busiest airports that their official names lack, in English, Chinese and Japanese
_AIRPORT_ALIASES: dict[str, tuple[str, ...]] = {
    "HND": ("haneda", "tokyo haneda", "羽田", "东京羽田", "東京羽田"),
    "NRT": ("narita", "tokyo narita", "成田", "东京成田", "東京成田"),
    "KIX": ("kansai", "osaka kansai", "关西", "関西", "関空"),
    "ITM": ("itami", "osaka itami", "伊丹"),
    "NGO": ("centrair", "chubu", "中部国際", "セントレア"),
    "CTS": ("new chitose", "chitose", "新千歳", "新千岁"),
    "FUK": ("福岡空港", "福冈机场"),
    "OKA": ("naha", "那覇", "那霸"),
    "PEK": ("beijing capital", "北京首都", "首都机场", "首都国际机场"),
    "PKX": ("daxing", "beijing daxing", "北京大兴", "大兴机场", "大興"),
    "PVG": ("pudong", "shanghai pudong", "上海浦东", "浦东", "浦東"),
    "SHA": ("hongqiao", "shanghai hongqiao", "上海虹桥", "虹桥", "虹橋"),
    "CAN": ("baiyun", "guangzhou baiyun", "广州白云", "白云机场", "広州白雲"),
    "SZX": ("shenzhen", "bao'an", "深圳宝安", "宝安机场", "深圳"),
    "CTU": ("shuangliu", "成都双流", "双流机场"),
    "TFU": ("tianfu", "成都天府", "天府机场"),
    "HKG": ("hong kong", "chek lap kok", "香港", "香港机场", "香港國際機場", "香港国际机场", "香港空港"),
    "TPE": ("taoyuan", "taipei taoyuan", "桃园", "桃園"),
    "TSA": ("songshan", "taipei songshan", "台北松山", "松山机场"),
    "ICN": ("incheon", "seoul incheon", "仁川", "インチョン"),
    "GMP": ("gimpo", "seoul gimpo", "金浦"),
    "SIN": ("changi", "singapore changi", "樟宜", "チャンギ", "新加坡樟宜", "新加坡", "シンガポール"),
    "BKK": ("suvarnabhumi", "bangkok", "bangkok suvarnabhumi", "素万那普", "スワンナプーム"),
    "DMK": ("don mueang", "廊曼", "ドンムアン"),
    "LHR": ("heathrow", "london heathrow", "希思罗", "希斯罗", "ヒースロー"),
    "LGW": ("gatwick", "london gatwick", "盖特威克", "ガトウィック"),
    "CDG": ("charles de gaulle", "paris charles de gaulle", "roissy", "戴高乐", "シャルル・ド・ゴール", "シャルルドゴール"),
    "ORY": ("orly", "paris orly", "奥利", "オルリー"),
    "FRA": ("frankfurt", "法兰克福", "フランクフルト"),
    "MUC": ("munich", "慕尼黑", "ミュンヘン"),
    "AMS": ("schiphol", "amsterdam schiphol", "史基浦", "阿姆斯特丹", "スキポール", "アムステルダム"),
    "JFK": ("jfk", "kennedy", "john f kennedy", "肯尼迪", "ケネディ"),
    "LGA": ("laguardia", "la guardia", "拉瓜迪亚", "ラガーディア"),
    "EWR": ("newark", "纽瓦克", "ニューアーク"),
    "LAX": ("lax", "los angeles", "洛杉矶", "ロサンゼルス"),
    "SFO": ("旧金山", "サンフランシスコ"),
    "ORD": ("o'hare", "ohare", "chicago o'hare", "奥黑尔", "オヘア"),
    "SEA": ("sea-tac", "seatac", "seattle", "seattle tacoma", "西雅图", "シアトル"),
    "DXB": ("dubai", "迪拜", "ドバイ"),
    "SYD": ("sydney", "悉尼", "シドニー"),
    "YVR": ("vancouver", "温哥华", "バンクーバー"),
    "YYZ": ("pearson", "toronto", "toronto pearson", "多伦多", "トロント"),
    "BER": ("berlin", "berlin brandenburg", "柏林", "ベルリン"),
    "DUB": ("dublin", "都柏林", "ダブリン"),
    "DEL": ("delhi", "new delhi", "indira gandhi", "新德里", "デリー"),
    "FCO": ("rome", "fiumicino", "rome fiumicino", "罗马", "ローマ"),
    "IST": ("istanbul", "伊斯坦布尔", "イスタンブール"),
    "KBP": ("kyiv", "kiev", "boryspil", "基辅", "キーウ"),
}

#: two-letter IATA codes of the larger airlines, by their names in English, Chinese and Japanese
_AIRLINES: dict[str, tuple[str, ...]] = {
    "LH": ("lufthansa", "汉莎", "汉莎航空", "ルフトハンザ"),
    "BA": ("british airways", "英航", "英国航空", "ブリティッシュ・エアウェイズ"),
    "AF": ("air france", "法航", "法国航空", "エールフランス"),
    "KL": ("klm", "荷航", "荷兰皇家航空", "klmオランダ航空"),
    "JL": ("japan airlines", "jal", "日航", "日本航空"),
    "NH": ("all nippon airways", "ana", "全日空", "全日本空輸"),
    "CA": ("air china", "国航", "中国国际航空", "中国国際航空"),
    "MU": ("china eastern", "东航", "东方航空", "中国東方航空"),
    "CZ": ("china southern", "南航", "南方航空", "中国南方航空"),
    "HU": ("hainan airlines", "海航", "海南航空"),
    "CX": ("cathay pacific", "cathay", "国泰", "国泰航空", "キャセイパシフィック", "キャセイ"),
    "SQ": ("singapore airlines", "新航", "新加坡航空", "シンガポール航空"),
    "KE": ("korean air", "大韩航空", "大韓航空"),
    "OZ": ("asiana", "韩亚航空", "アシアナ航空"),
    "BR": ("eva air", "长荣航空", "長榮航空", "エバー航空"),
    "CI": ("china airlines", "中华航空", "華航", "チャイナエアライン"),
    "TG": ("thai airways", "泰航", "泰国国际航空", "タイ国際航空"),
    "EK": ("emirates", "阿联酋航空", "エミレーツ航空"),
    "QR": ("qatar airways", "卡塔尔航空", "カタール航空"),
    "EY": ("etihad", "阿提哈德航空", "エティハド航空"),
    "TK": ("turkish airlines", "土耳其航空", "ターキッシュ エアラインズ", "トルコ航空"),
    "AA": ("american airlines", "美国航空", "美國航空", "アメリカン航空"),
    "UA": ("united airlines", "united", "美联航", "联合航空", "ユナイテッド航空"),
    "DL": ("delta", "delta air lines", "达美航空", "デルタ航空"),
    "AC": ("air canada", "加航", "加拿大航空", "エア・カナダ"),
    "QF": ("qantas", "澳航", "澳洲航空", "カンタス航空"),
    "LX": ("swiss", "swiss international air lines", "瑞士航空", "スイス航空", "スイス インターナショナル エアラインズ"),
    "IB": ("iberia", "西班牙国家航空", "イベリア航空"),
    "AY": ("finnair", "芬兰航空", "フィンエアー"),
    "SK": ("sas", "scandinavian airlines", "北欧航空", "スカンジナビア航空"),
    "FR": ("ryanair", "瑞安航空", "ライアンエアー"),
    "U2": ("easyjet", "易捷航空", "イージージェット"),
    "WN": ("southwest", "southwest airlines", "西南航空", "サウスウエスト航空"),
    "B6": ("jetblue", "捷蓝航空", "ジェットブルー"),
    "AS": ("alaska airlines", "阿拉斯加航空", "アラスカ航空"),
    "VN": ("vietnam airlines", "越南航空", "ベトナム航空"),
    "MH": ("malaysia airlines", "马来西亚航空", "マレーシア航空"),
    "GA": ("garuda", "garuda indonesia", "印尼鹰航", "ガルーダ・インドネシア航空"),
    "AI": ("air india", "印度航空", "エア・インディア"),
    "ET": ("ethiopian airlines", "埃塞俄比亚航空", "エチオピア航空"),
    "MM": ("peach", "peach aviation", "乐桃航空", "ピーチ"),
    "9C": ("spring airlines", "春秋航空"),
    "HO": ("juneyao", "吉祥航空"),
    "3U": ("sichuan airlines", "四川航空"),
    "ZH": ("shenzhen airlines", "深圳航空"),
}

#: words that say "airport" and add nothing to its name
_AIRPORT_WORDS = re.compile(
    r"\b(?:international|intl|regional|municipal|airport|airfield|aerodrome|air base)\b"
    r"|国际机场|國際機場|机场|機場|国際空港|空港|飞机场",
)


#: words that describe an airport or a place and name none alone: "Regional Business Airport" of Elk
#: City leaves "business", which is no name of it; "North", "Central", "Station" name nothing either
_GENERIC = frozenset(
    "business county executive field memorial national airpark heliport station central city downtown metro "
    "metropolitan state army naval air force base north south east west northeast northwest southeast southwest "
    "island valley port harbour harbor lake river bay park new old saint st fort mount general jetport "
    "international regional municipal airport airfield the".split()
)


def key(text: str) -> str:
    """How names are compared: NFKC, case-folded, dashes and dots as spaces, single spaces."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[-‐–—・·./]", " ", text).replace("'", "").replace("’", "")
    text = re.sub(r"(?<=[^\x00-\x7f])\s+(?=[^\x00-\x7f])", "", text)  # "ロンドン・ヒースロー" is one name
    return re.sub(r"\s+", " ", text).strip(" ,;:!?()[]\"「」")


def _bare(name: str) -> str:
    """A name without the words that say it is an airport."""
    return re.sub(r"\s+", " ", _AIRPORT_WORDS.sub(" ", key(name))).strip()


@lru_cache(maxsize=1)
def _airports() -> tuple[dict[str, str], frozenset[str]]:
    """Every known airport name (by :func:`key`) -> IATA code, and the set of codes. A city is a name
    of its airport only when it has one; a name that is a city's ("Boston Regional" without its city
    "Manchester") is never another airport's."""
    data = airportsdata.load("IATA")
    by_city: dict[str, set[str]] = defaultdict(set)
    for code, airport in data.items():
        if city := key(airport.get("city") or ""):
            by_city[city].add(code)
    table: dict[str, str] = {}
    for city, codes in by_city.items():  # the city's only airport, or its only international one
        main = codes if len(codes) == 1 else {c for c in codes if "international" in key(data[c].get("name") or "")}
        if len(main) == 1 and len(city) > 3 and city not in _GENERIC:
            table[city] = next(iter(main))
    for code, airport in data.items():
        name, city = airport.get("name") or "", key(airport.get("city") or "")
        bare = _bare(name)
        without_city = re.sub(rf"^{re.escape(city)}\s+|\s+{re.escape(city)}$", "", bare).strip() if city else bare
        for spelling in {key(name), bare, without_city}:
            if len(spelling) > 3 and spelling not in by_city and not set(spelling.split()) <= _GENERIC:
                table.setdefault(spelling, code)
    for code, aliases in _AIRPORT_ALIASES.items():
        for alias in aliases:
            table[_bare(alias) or key(alias)] = code
    return table, frozenset(data)


@lru_cache(maxsize=1)
def _airlines() -> dict[str, str]:
    return {key(name): code for code, names in _AIRLINES.items() for name in names}


def airport_code(text: str) -> str | None:
    """The IATA code of an airport named by its code or a name ("London Heathrow", "羽田空港",
    "Denver" -> ``LHR``, ``HND``, ``DEN``); None when unknown or when the city has several airports."""
    table, codes = _airports()
    raw = unicodedata.normalize("NFKC", text).strip()
    if re.fullmatch(r"[A-Z]{3}", raw) and raw in codes:  # a code is written in capitals ("the" is no THE)
        return raw
    found = table.get(key(raw)) or table.get(_bare(raw))
    if found is None and not raw.isascii():  # "ロンドン・ヒースロー空港": the longest known name it holds
        held = [name for name in table if not name.isascii() and name in key(raw)]
        found = table[max(held, key=len)] if held else None
    return found


def airline_code(text: str) -> str | None:
    """The two-letter IATA code of an airline named by its code or name ("Lufthansa", "日航" ->
    ``LH``, ``JL``); None when unknown."""
    raw = unicodedata.normalize("NFKC", text).strip()
    known = set(_AIRLINES)
    if raw.upper() in known and (raw.isupper() or len(raw) == 2):
        return raw.upper()
    return _airlines().get(key(raw))


def airport_names() -> list[str]:
    """Every name :func:`airport_code` knows (keyed), for finding them in a message."""
    return list(_airports()[0])


def airline_names() -> list[str]:
    return list(_airlines())
