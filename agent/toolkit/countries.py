"""Countries by the names people use for them, for parameters that ask for an ISO 3166-1 code: the
names, common names and official names of ``pycountry`` (ISO's own list) in English, and their
Chinese and Japanese translations from the iso-codes catalogues it ships, plus a few everyday short
names ("USA", "UK", "アメリカ", "韩国") that the standard does not use."""

from __future__ import annotations

import gettext
import re
import unicodedata
from functools import lru_cache

import pycountry

#: everyday names the standard's names and their translations lack
_ALIASES: dict[str, tuple[str, ...]] = {
    "US": ("usa", "u.s.", "u.s.a.", "america", "the us", "the states", "美国", "美國", "アメリカ"),
    "GB": ("uk", "u.k.", "britain", "great britain", "england", "英国", "英國", "イギリス"),
    "RU": ("russia", "俄罗斯", "ロシア"),
    "KR": ("korea", "south korea", "韩国", "韓国", "南韩"),
    "KP": ("north korea", "朝鲜", "北朝鮮"),
    "TW": ("taiwan", "台湾", "臺灣", "台灣"),
    "NL": ("holland", "the netherlands", "荷兰", "オランダ"),
    "AE": ("uae", "emirates", "阿联酋", "ドバイ"),
    "CZ": ("czech republic", "捷克"),
    "VN": ("vietnam", "越南", "ベトナム"),
}


def key(text: str) -> str:
    """How names are compared: NFKC, case-folded, single spaces, no surrounding punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"\s+", " ", text).strip(" .,;:!?()[]'\"")


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    """Every known name (by :func:`key`) -> alpha-2 code."""
    catalogues = []
    for language in ("zh_CN", "zh_TW", "ja"):
        try:
            catalogues.append(gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language]))
        except OSError:
            continue  # a catalogue this pycountry lacks: those names are not known
    table: dict[str, str] = {}
    for country in pycountry.countries:
        names = [getattr(country, field, "") or "" for field in ("name", "common_name", "official_name")]
        for name in [n for n in names if n]:
            spellings = [name, *(catalogue.gettext(name) for catalogue in catalogues)]
            for spelling in spellings:
                # "大韓民国 (韓国)": the name and what the brackets hold
                for part in re.split(r"\s*[(（]\s*|\s*[)）]\s*", spelling):
                    if part:
                        table.setdefault(key(part), country.alpha_2)
    for code, aliases in _ALIASES.items():
        for alias in aliases:
            table[key(alias)] = code
    return table


def country_code(text: str, alpha: int = 2) -> str | None:
    """The ISO 3166-1 alpha-2 (or alpha-3) code of a country named by its code or a name in English,
    Chinese or Japanese ("Japan", "日本", "JPN" -> ``JP``); None when unknown."""
    folded = key(text)
    found = None
    if re.fullmatch(r"[a-z]{2,3}", folded):
        found = pycountry.countries.get(**{f"alpha_{len(folded)}": folded.upper()})
    if found is None and folded in _table():
        found = pycountry.countries.get(alpha_2=_table()[folded])
    if found is None:
        return None
    return found.alpha_3 if alpha == 3 else found.alpha_2


def names() -> list[str]:
    """Every name :func:`country_code` knows (keyed), for finding them in a message."""
    return list(_table())
