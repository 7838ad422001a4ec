"""``unit_convert``: convert a value between units of length, mass, temperature, volume, speed and
data size. Factors are exact (``Fraction``); results are shown with 6 significant digits. The units
and their names are :mod:`agent.toolkit.units`.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from typing import Any

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, format_number, manifest_from, pick

from agent.toolkit.units import find_unit

SIGNIFICANT_DIGITS = 6

_DIMENSIONS = {
    "length": {"en": "length", "zh": "长度", "ja": "長さ"},
    "mass": {"en": "mass", "zh": "质量", "ja": "質量"},
    "temperature": {"en": "temperature", "zh": "温度", "ja": "温度"},
    "volume": {"en": "volume", "zh": "体积", "ja": "体積"},
    "speed": {"en": "speed", "zh": "速度", "ja": "速度"},
    "data": {"en": "data size", "zh": "数据量", "ja": "データ量"},
}

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Convert a quantity between units of length, weight, temperature, volume, speed or data size.",
        "value": "The number to convert, e.g. 10",
        "from_unit": "The unit of the value, e.g. km, lb, °F, cup, mph, GB",
        "to_unit": "The unit to convert to, e.g. mi, kg, °C, ml, km/h, MiB",
        "examples": ["How many miles is 10 km?", "Convert 72 °F to Celsius", "What's 5 pounds in kilograms?"],
        "extra_examples": [
            "How many inches is 45 centimeters?",
            "Convert 100 km/h to mph",
            "My suitcase is 23 kg, how many pounds is that?",
            "How many ounces are in 250 grams?",
            "30 degrees Celsius in Fahrenheit?",
            "How many kilometers is a 26.2 mile marathon?",
            "What's 2 cups in milliliters?",
            "Convert 500 GB to GiB",
            "60 mph in km/h?",
            "My desk is 1.6 meters wide, how many feet is that?",
        ],
    },
    "zh": {
        "description": "在长度、重量、温度、体积、速度或数据量的单位之间换算。",
        "value": "要换算的数值，例如 10",
        "from_unit": "原单位，例如 公里、磅、华氏度、杯、mph、GB",
        "to_unit": "目标单位，例如 英里、千克、摄氏度、毫升、km/h、MiB",
        "examples": ["10 公里是多少英里？", "把 72 华氏度换算成摄氏度", "5 磅等于多少千克？"],
        "extra_examples": [
            "3 米等于多少英尺？",
            "时速 100 公里换算成英里是多少",
            "我体重 70 公斤，是多少磅？",
            "250 克等于多少盎司",
            "把 30 摄氏度换算成华氏度",
            "100 华氏度是多少摄氏度？",
            "帮我把 180 磅换算成公斤",
            "6 英尺是多少厘米？",
            "120 km/h 换成 mph 是多少",
            "1 加仑等于多少升？",
            "这个硬盘 2 TB，换算成 GiB 是多少？",
            "菜谱上写 3 cups 面粉，是多少毫升？",
        ],
    },
    "ja": {
        "description": "長さ・重さ・温度・体積・速度・データ量の単位を換算する。",
        "value": "換算する数値。例: 10",
        "from_unit": "元の単位。例: キロメートル、ポンド、華氏、ガロン、mph、GB",
        "to_unit": "換算先の単位。例: マイル、キログラム、摂氏、リットル、km/h、MiB",
        "examples": ["10キロメートルは何マイル？", "華氏72度を摂氏に換算して", "5ポンドは何キログラム？"],
        "extra_examples": [
            "3メートルは何フィート？",
            "時速100キロは時速何マイル？",
            "体重70キロってポンドだといくつ？",
            "250グラムは何オンス？",
            "30℃を華氏に変換して",
            "150 ポンドを kg に換算して",
            "5 フィートは何センチ？",
            "2 ガロンは何リットルになりますか？",
            "レシピに 12 oz って書いてあるけど、グラムだと何グラム？",
            "64 GB を MiB に変換してください",
        ],
    },
}

_TEXT = {
    "missing": {
        "en": "Missing {param}. Give value, from_unit and to_unit, e.g. value=10, from_unit=\"km\", to_unit=\"mi\".",
        "zh": "缺少 {param}。请提供 value、from_unit 和 to_unit，例如 value=10, from_unit=\"公里\", to_unit=\"英里\"。",
        "ja": "{param} がありません。value、from_unit、to_unit を指定してください。例: value=10, from_unit=\"km\", to_unit=\"マイル\"。",
    },
    "bad_value": {
        "en": "\"{value}\" is not a number. Pass the quantity as a number such as 10 or 2.5.",
        "zh": "“{value}”不是数字。请把数量写成 10 或 2.5 这样的数字。",
        "ja": "「{value}」は数値ではありません。10 や 2.5 のような数値で指定してください。",
    },
    "unknown_unit": {
        "en": "Unknown unit \"{unit}\". Use a unit of length, mass, temperature, volume, speed or data size, such as km, lb, °C, l, mph or GB.",
        "zh": "未知的单位“{unit}”。请使用长度、质量、温度、体积、速度或数据量的单位，例如 公里、磅、摄氏度、升、mph、GB。",
        "ja": "「{unit}」という単位はわかりません。長さ・質量・温度・体積・速度・データ量の単位（km、ポンド、摂氏、リットル、mph、GB など）を使ってください。",
    },
    "mismatch": {
        "en": "Cannot convert {from_dim} ({from_unit}) to {to_dim} ({to_unit}): both units must measure the same kind of quantity.",
        "zh": "无法把{from_dim}（{from_unit}）换算成{to_dim}（{to_unit}）：两个单位必须属于同一种量。",
        "ja": "{from_dim}（{from_unit}）を{to_dim}（{to_unit}）に換算することはできません。同じ種類の量の単位を指定してください。",
    },
    "below_zero": {
        "en": "{value} {unit} is below absolute zero (0 K = -273.15 °C = -459.67 °F); check the value.",
        "zh": "{value} {unit} 低于绝对零度（0 K = -273.15 °C = -459.67 °F），请检查数值。",
        "ja": "{value} {unit} は絶対零度（0 K = -273.15 °C = -459.67 °F）を下回っています。数値を確認してください。",
    },
}


def _number(value: object) -> Fraction | None:
    """``value`` as an exact number (floats by their shortest repr), or None."""
    if isinstance(value, bool):
        return None
    text = repr(value) if isinstance(value, float) else unicodedata.normalize("NFKC", str(value)).strip()
    if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?", text):  # 1,000.5; but "1,5" stays invalid
        text = text.replace(",", "")
    try:
        number = Fraction(text.replace("_", ""))
    except (ValueError, ZeroDivisionError):
        return None
    return number if abs(number) < 10**100 else None


class UnitConvertTool(BaseTool):
    """Unit conversion with exact factors."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="unit_convert",
            parameter_types={"value": "number", "from_unit": "string", "to_unit": "string"},
            required=["value", "from_unit", "to_unit"],
            risk="read",
        )


    def same_value(self, param: str, expected: object, got: object) -> bool | None:
        """Units are the same when they name the same unit (``km``, ``kilometres``, ``公里``)."""
        if param not in ("from_unit", "to_unit"):
            return None
        unit = find_unit(str(expected))
        return unit is not None and unit == find_unit(str(got), like=unit)

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        for param in ("value", "from_unit", "to_unit"):
            raw = params.get(param)
            if raw is None or str(raw).strip() == "":
                return failure(_TEXT["missing"], lang, param=param)
        value = _number(params["value"])
        if value is None:
            return failure(_TEXT["bad_value"], lang, value=params["value"])
        units = []
        for param in ("from_unit", "to_unit"):
            unit = find_unit(str(params[param]))
            if unit is None:
                return failure(_TEXT["unknown_unit"], lang, unit=str(params[param]).strip())
            units.append(unit)
        source, target = units
        if source.dimension != target.dimension:  # "キロ" to pounds is kilograms, "キロ" to miles kilometres
            source = find_unit(str(params["from_unit"]), like=target) or source
            target = find_unit(str(params["to_unit"]), like=source) or target
        if source.dimension != target.dimension:
            return failure(
                _TEXT["mismatch"], lang,
                from_dim=pick(_DIMENSIONS[source.dimension], lang), from_unit=source.symbol,
                to_dim=pick(_DIMENSIONS[target.dimension], lang), to_unit=target.symbol,
            )
        base = value * source.scale + source.offset
        shown = format_number(value, 15)
        if source.dimension == "temperature" and base < 0:
            return failure(_TEXT["below_zero"], lang, value=shown, unit=source.symbol)
        result = (base - target.offset) / target.scale
        return ToolResult(success=True, data=f"{shown} {source.symbol} = {format_number(result, SIGNIFICANT_DIGITS)} {target.symbol}")
