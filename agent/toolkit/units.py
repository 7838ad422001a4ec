"""Units of length, mass, temperature, volume, speed and data size, with their symbols and names in
English, Chinese and Japanese: what ``unit_convert`` converts, and how the router writes a value whose
parameter asks for a unit symbol (:mod:`agent.router.forms`).

Unit names are matched exactly first (so ``B`` is a byte and ``b`` a bit), then case-insensitively,
then without a plural ``s``. Volumes are US customary (cup = 8 US fl oz, gallon = 231 in³); ``KB``
(any case) is 1000 bytes and ``KiB`` 1024 bytes.
"""

from __future__ import annotations

import unicodedata
from fractions import Fraction
from typing import NamedTuple


class Unit(NamedTuple):
    symbol: str
    dimension: str
    scale: Fraction  # base = value * scale + offset
    offset: Fraction = Fraction(0)


_INCH = Fraction("0.0254")  # metres
_POUND = Fraction("0.45359237")  # kilograms
_FL_OZ = Fraction("3.785411784") / 128  # litres (US)
_CELSIUS_ZERO = Fraction("273.15")  # kelvin

# (symbol, dimension, scale to the base unit, offset, aliases). Bases: m, kg, K, L, m/s, byte.
_TABLE: list[tuple[str, str, Fraction, Fraction, tuple[str, ...]]] = [
    ("mm", "length", Fraction(1, 1000), Fraction(0), ("millimeter", "millimetre", "毫米", "ミリ", "ミリメートル")),
    ("cm", "length", Fraction(1, 100), Fraction(0), ("centimeter", "centimetre", "厘米", "公分", "センチ", "センチメートル")),
    ("m", "length", Fraction(1), Fraction(0), ("meter", "metre", "米", "公尺", "メートル")),
    ("km", "length", Fraction(1000), Fraction(0), ("kilometer", "kilometre", "公里", "千米", "キロ", "キロメートル")),
    ("in", "length", _INCH, Fraction(0), ("inch", "inches", '"', "英寸", "吋", "インチ")),
    ("ft", "length", _INCH * 12, Fraction(0), ("foot", "feet", "'", "英尺", "呎", "フィート")),
    ("yd", "length", _INCH * 36, Fraction(0), ("yard", "码", "碼", "ヤード")),
    ("mi", "length", _INCH * 63360, Fraction(0), ("mile", "英里", "哩", "マイル")),
    ("nmi", "length", Fraction(1852), Fraction(0), ("nautical mile", "海里", "浬", "かいり")),
    ("mg", "mass", Fraction(1, 10**6), Fraction(0), ("milligram", "毫克", "ミリグラム")),
    ("g", "mass", Fraction(1, 1000), Fraction(0), ("gram", "gramme", "克", "グラム")),
    ("kg", "mass", Fraction(1), Fraction(0), ("kilogram", "kilo", "千克", "公斤", "キログラム")),
    ("t", "mass", Fraction(1000), Fraction(0), ("tonne", "metric ton", "吨", "公吨", "噸", "トン")),
    ("oz", "mass", _POUND / 16, Fraction(0), ("ounce", "盎司", "安士", "オンス")),
    ("lb", "mass", _POUND, Fraction(0), ("lbs", "pound", "磅", "ポンド")),
    ("st", "mass", _POUND * 14, Fraction(0), ("stone", "英石", "ストーン")),
    ("斤", "mass", Fraction(1, 2), Fraction(0), ("jin", "市斤")),
    ("°C", "temperature", Fraction(1), _CELSIUS_ZERO, ("C", "celsius", "centigrade", "degC", "摄氏度", "摄氏", "攝氏", "摂氏", "摂氏度", "セ氏", "セルシウス")),
    ("°F", "temperature", Fraction(5, 9), _CELSIUS_ZERO - Fraction(160, 9), ("F", "fahrenheit", "degF", "华氏度", "华氏", "華氏", "華氏度", "カ氏")),
    ("K", "temperature", Fraction(1), Fraction(0), ("kelvin", "开", "开尔文", "開爾文", "ケルビン")),
    ("mL", "volume", Fraction(1, 1000), Fraction(0), ("milliliter", "millilitre", "cc", "毫升", "ミリリットル")),
    ("L", "volume", Fraction(1), Fraction(0), ("liter", "litre", "升", "公升", "リットル")),
    ("m3", "volume", Fraction(1000), Fraction(0), ("cubic meter", "cubic metre", "立方米", "立方メートル")),
    ("tsp", "volume", _FL_OZ / 6, Fraction(0), ("teaspoon", "茶匙", "ティースプーン", "小さじ")),
    ("tbsp", "volume", _FL_OZ / 2, Fraction(0), ("tablespoon", "汤匙", "湯匙", "テーブルスプーン", "大さじ")),
    ("fl oz", "volume", _FL_OZ, Fraction(0), ("floz", "fluid ounce", "液量盎司", "液量オンス")),
    ("cup", "volume", _FL_OZ * 8, Fraction(0), ("US cup", "杯", "美制杯", "米カップ")),
    ("pint", "volume", _FL_OZ * 16, Fraction(0), ("pt", "品脱", "パイント")),
    ("quart", "volume", _FL_OZ * 32, Fraction(0), ("qt", "夸脱", "クォート")),
    ("gal", "volume", _FL_OZ * 128, Fraction(0), ("gallon", "US gallon", "加仑", "加侖", "ガロン")),
    ("m/s", "speed", Fraction(1), Fraction(0), ("mps", "meter per second", "metres per second", "米每秒", "米/秒", "メートル毎秒")),
    ("km/h", "speed", Fraction(1000, 3600), Fraction(0), ("kmh", "kph", "km per hour", "kilometer per hour", "公里每小时", "公里/小时", "千米每小时", "キロメートル毎時", "キロ毎時")),
    ("mph", "speed", _INCH * 63360 / 3600, Fraction(0), ("mi/h", "mile per hour", "英里每小时", "英里/小时", "マイル毎時")),
    ("knot", "speed", Fraction(1852, 3600), Fraction(0), ("kn", "kt", "节", "節", "ノット")),
    ("ft/s", "speed", _INCH * 12, Fraction(0), ("fps", "foot per second", "feet per second", "英尺每秒", "英尺/秒", "フィート毎秒")),
    ("bit", "data", Fraction(1, 8), Fraction(0), ("b", "比特", "ビット")),
    ("B", "data", Fraction(1), Fraction(0), ("byte", "字节", "位元组", "バイト")),
    *[
        (f"{prefix}B", "data", Fraction(1000) ** power, Fraction(0), (f"{word}byte", f"{prefix}字节", f"{prefix}バイト", *names))
        for power, (prefix, word, names) in enumerate([
            ("K", "kilo", ("千字节", "キロバイト")), ("M", "mega", ("兆字节", "メガバイト", "メガ")),
            ("G", "giga", ("吉字节", "ギガバイト", "ギガ")), ("T", "tera", ("太字节", "テラバイト", "テラ")),
        ], start=1)
    ],
    *[
        (f"{prefix}iB", "data", Fraction(1024) ** power, Fraction(0), (f"{word}byte",))
        for power, (prefix, word) in enumerate([("K", "kibi"), ("M", "mebi"), ("G", "gibi"), ("T", "tebi")], start=1)
    ],
]

UNITS: dict[str, Unit] = {row[0]: Unit(*row[:4]) for row in _TABLE}


def _clean(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).split()).replace("° ", "°")


_EXACT: dict[str, Unit] = {}
_FOLDED: dict[str, Unit] = {}
for _symbol, *_, _aliases in _TABLE:
    for _name in (_symbol, *_aliases):
        _EXACT.setdefault(_clean(_name), UNITS[_symbol])
        _FOLDED.setdefault(_clean(_name).casefold(), UNITS[_symbol])


#: a name that says only "kilo": a kilometre or a kilogram, as the other unit of the conversion tells
#: ("10キロは何ポンド" weighs, "時速100キロ" runs)
_KILO = {"キロ": ("km", "kg"), "kilo": ("kg", "km"), "kilos": ("kg", "km"), "千": ("km", "kg")}


def find_unit(name: str, like: Unit | None = None) -> Unit | None:
    """The unit called ``name``: exact match, then case-insensitive, then without a plural 's'. A name
    that is only "kilo" (``キロ``) is read in the dimension of ``like`` when one of its readings has it."""
    text = _clean(name)
    readings = _KILO.get(text.casefold(), ())
    if like is not None and (same := next((UNITS[r] for r in readings if UNITS[r].dimension == like.dimension), None)):
        return same
    singular = text.replace("s per ", " per ").removeprefix("degrees ").removeprefix("degree ")
    for candidate in (text, singular):
        folded = candidate.casefold()
        unit = _EXACT.get(candidate) or _FOLDED.get(folded) or (_FOLDED.get(folded[:-1]) if folded.endswith("s") else None)
        if unit:
            return unit
    return None


def names() -> list[str]:
    """Every symbol and name of a unit, as written in the table."""
    return [name for symbol, *_, aliases in _TABLE for name in (symbol, *aliases)]
