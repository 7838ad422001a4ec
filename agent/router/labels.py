"""Numbers a parameter's description names in words: "0 = fully closed, 100 = fully open", "0 means off",
"1 = urgent, 4 = low". A message that says the words of one of them, and no number, states that number:
"close the office blinds" is a position of 0, and so is "把办公室的百叶窗关上" (through its English gloss)."""

from __future__ import annotations

import re

from agent.router.candidates import CJK, terms
from agent.router.forms import ones_said
from agent.router.glossary import gloss
from agent.router.prompt import value_schema
from agent.router.spoken import as_percent, percent_scale, with_digits
from agent.toolkit.base import ToolManifest
from agent.toolkit.dates import without_dates

#: a number, then the words it stands for: "0 = fully closed", "3: high", "0 means off", "0 is off", "0 for non-stop only"
_NAMED = re.compile(r"(?<![\w.])(-?[0-9]+(?:\.[0-9]+)?)\s*(?:=|:|means\b|is\b|for\b)\s*([^\W\d_][^,;.()\n]*)", re.IGNORECASE)
#: words of how much, not of which: "fully closed" is said by "close the blinds"
_DEGREE = frozenset(terms("fully completely totally entirely all the way only just"))


def named_numbers(manifest: ToolManifest, key: str) -> list[tuple[str, frozenset[str]]]:
    """The numbers the description of the number parameter ``key`` names, each with its own words
    ("0 = fully closed" -> ``("0", {"close"})``); [] for a parameter that takes no number or names none."""
    if value_schema(manifest, key).get("type") not in ("number", "integer"):
        return []
    named = [(number, frozenset(terms(words)) - _DEGREE) for number, words in _NAMED.findall(str(manifest.parameters.get(key) or ""))]
    return [(number, words) for number, words in named if words]


def number_named(manifest: ToolManifest, key: str, message: str) -> str | None:
    """The one number of :func:`named_numbers` whose words ``message`` says (in English, or through the gloss of a
    Chinese or Japanese message when the description is English); None when it says none, or the words of two."""
    named = named_numbers(manifest, key)
    if not named:
        return None
    heard = set(terms(message))
    if CJK.search(message) and not CJK.search(str(manifest.parameters.get(key) or "")):
        heard |= set(terms(gloss(message) or ""))
    said = {number for number, words in named if words <= heard}
    return said.pop() if len(said) == 1 else None


def numbers_read(manifest: ToolManifest, key: str, message: str) -> str:
    """``message`` as the number parameter ``key`` reads it: its number words in digits, a share of a whole said
    in words as its percentage when the parameter is one ("halfway" 50%), one of a currency or a unit as 1 ("a
    dollar"), and, when it states no number at all, the number the description names by the words it says
    ("close the office blinds" states 0 of "0 = fully closed", written after it: "close the office blinds (0)")."""
    return read_value(manifest, key, "", message)[0]


def read_value(manifest: ToolManifest, key: str, value: str, message: str) -> tuple[str, str]:
    """:func:`numbers_read` of ``message``, and ``value`` written for the number parameter ``key``, or the number its
    description names by the words of the message when it states no number of its own: copying "(100)", the model
    may stop at "1". An optional value left empty stays empty."""
    read, number = _read(manifest, key, message)
    if number is None:
        return read, value
    return f"{read} ({number})", number if value or key in manifest.required else value


def _read(manifest: ToolManifest, key: str, message: str) -> tuple[str, str | None]:
    read = ones_said(with_digits(as_percent(message) if percent_scale(manifest, key) else message))
    if re.search(r"[0-9]", without_dates(read)) is not None:
        return read, None
    return read, number_named(manifest, key, message)
