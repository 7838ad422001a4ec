"""Colours by the names people use for them, for parameters that ask for a CSS colour name or a hex
code: the CSS names (from ``webcolors``, made for HTML and CSS colours), hex codes, and the everyday
Chinese and Japanese colour words ("蓝色", "赤", "ピンク")."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import webcolors

#: Chinese and Japanese colour words -> the CSS name
_WORDS: dict[str, tuple[str, ...]] = {
    "red": ("红", "红色", "紅", "紅色", "赤", "赤い", "赤色", "レッド"),
    "orange": ("橙", "橙色", "橘色", "橘黄色", "オレンジ", "オレンジ色", "だいだい色", "橙色い"),
    "yellow": ("黄", "黄色", "黃", "黃色", "黄色い", "イエロー"),
    "green": ("绿", "绿色", "綠", "綠色", "緑", "緑色", "グリーン"),
    "blue": ("蓝", "蓝色", "藍", "藍色", "青", "青色", "青い", "ブルー"),
    "purple": ("紫", "紫色", "パープル"),
    "violet": ("紫罗兰色", "すみれ色", "バイオレット"),
    "pink": ("粉", "粉色", "粉红", "粉红色", "粉紅", "粉紅色", "桃色", "ピンク", "ピンク色"),
    "white": ("白", "白色", "白い", "ホワイト"),
    "black": ("黑", "黑色", "黒", "黒色", "黒い", "ブラック"),
    "gray": ("灰", "灰色", "グレー", "グレイ", "ねずみ色"),
    "brown": ("棕", "棕色", "褐色", "咖啡色", "茶色", "ブラウン"),
    "gold": ("金色", "金黄色", "ゴールド"),
    "silver": ("银色", "銀色", "シルバー"),
    "cyan": ("青色光", "シアン"),
    "navy": ("藏青", "藏青色", "海军蓝", "紺", "紺色", "ネイビー"),
    "turquoise": ("绿松石色", "ターコイズ"),
    "lightblue": ("浅蓝", "浅蓝色", "淺藍色", "水色"),
    "skyblue": ("天蓝", "天蓝色", "天藍色", "空色"),
    "darkblue": ("深蓝", "深蓝色", "深藍色"),
    "lightgreen": ("浅绿", "浅绿色", "黄緑", "黄緑色"),
    "darkgreen": ("深绿", "深绿色", "深緑", "深緑色"),
}
_HEX = re.compile(r"#?(?:[0-9a-f]{6}|[0-9a-f]{3})", re.IGNORECASE)


def key(text: str) -> str:
    """How names are compared: NFKC, case-folded, without spaces, hyphens and surrounding punctuation
    ("Light Blue" is ``lightblue``, as CSS writes it)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s_-]+", "", text).strip(".,;:!?()[]'\"")


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    table = {key(name): name for name in webcolors.names("css3")}
    table.update({key(word): name for name, words in _WORDS.items() for word in words})
    table.update({key(f"{name} colour"): name for name in webcolors.names("css3")})
    return table


def colour_name(text: str) -> str | None:
    """The CSS name for a colour word in English, Chinese or Japanese ("Light Blue" -> ``lightblue``,
    "蓝色" -> ``blue``), or the hex code as written with its ``#`` ("ffaa00" -> ``#FFAA00``); None
    when the text names no colour."""
    if _HEX.fullmatch(text.strip()) and (text.strip().startswith("#") or re.search(r"[0-9]", text)):
        return "#" + text.strip().lstrip("#").upper()
    found = key(text)
    return _table().get(found) or _table().get(re.sub(r"(?:colou?r|色の?)$", "", found) or found)


def names() -> list[str]:
    """Every colour word, as :func:`key` writes it, and the CSS names with their words apart ("light blue")."""
    spaced = [re.sub(r"^(light|dark|medium|pale|deep|hot|sky|sea|forest|lime|navy)(?=\w)", r"\1 ", n)
              for n in webcolors.names("css3")]
    return sorted(set(_table()) | set(spaced))
