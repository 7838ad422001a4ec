"""How the router writes a parameter value: filters on what may be written, and the checks that
send a value back to be copied from the message."""

from __future__ import annotations

import json
import re
import unicodedata
from difflib import SequenceMatcher
from typing import Any

from agent.i18n import detect_language
from agent.router.candidates import CJK
from agent.router.options import RouterOptions
from agent.router.prompt import LINK, is_link, value_schema
from agent.toolkit.base import ToolManifest


_NUMBER = re.compile(rb"-?[0-9][0-9,]*(\.[0-9]*)?|-?")
_INTEGER = re.compile(rb"-?[0-9][0-9,]*|-?")


def value_filters(manifest: ToolManifest, key: str, message: str, options: RouterOptions) -> dict[str, Any]:
    """How a parameter's value may be written: a number for numeric types, and for an optional
    parameter (with ``copy_optional``) a piece of the message, since it is stated there or left out."""
    filters: dict[str, Any] = {}
    kind = value_schema(manifest, key).get("type")
    numeric = kind in ("number", "integer")
    if numeric:
        pattern = _INTEGER if kind == "integer" else _NUMBER
        filters["allowed"] = lambda text: pattern.fullmatch(text) is not None
    if (options.copy_optional and key not in manifest.required) or (is_link(manifest, key) and LINK.search(message)):
        filters["copy_from"] = message
    elif numeric and options.copy_numbers and re.search(r"[0-9]", message):
        filters["copy_from"] = message  # a number the message states (not one from the examples)
    return filters


def unsaid_left_out(manifest: ToolManifest, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` without the optional values that state nothing: one equal to the parameter's
    default (the tool gets it anyway: "draft": false, "state": "open"), and a piece of the message
    that another parameter already holds (a tag copied again as the release's name and body, an
    attendee's address as a start date). A message's words state one value, not two."""
    kept: dict[str, Any] = {}
    for key, value in params.items():
        if key in manifest.required:
            kept[key] = value
            continue
        schema = value_schema(manifest, key)
        if "default" in schema and _same(value, schema["default"]):
            continue
        free_text = schema.get("type", "string") in ("string", "array") and "enum" not in schema
        if free_text and isinstance(value, str) and _held(value, [
            str(other) for other_key, other in params.items()
            if other_key != key and (other_key in manifest.required or other_key in kept)
        ]):
            continue
        kept[key] = value
    return kept


def _same(value: Any, default: Any) -> bool:
    """Whether a written value (a string: "false", "10", "open") is ``default``."""
    if isinstance(default, bool):
        return str(value).strip().casefold() == ("true" if default else "false")
    if isinstance(default, (int, float)):
        try:
            return float(str(value).replace(",", "")) == float(default)
        except ValueError:
            return False
    return isinstance(default, str) and str(value).strip().casefold() == default.strip().casefold()


def _held(value: str, others: list[str]) -> bool:
    """Whether the other values hold ``value``: each of its words is a whole word of one of them
    ("acme" of "acme/webapp", "acme/webapp" of "acme" and "webapp"); a Chinese or Japanese value,
    which has no spaces, as any part of one."""
    value = _casefold(value)
    folded = [_casefold(other) for other in others]
    if CJK.search(value):
        return any(value in other for other in folded)
    words = re.findall(r"\w+", value)
    return bool(words) and all(any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", other) for other in folded) for word in words)


def _casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().strip()


def foreign(value: str, message: str) -> bool:
    """Whether ``value`` is written in another script than the message (Latin letters vs CJK)."""
    written, said = detect_language(value, default=""), detect_language(message, default="")
    return bool(written and said) and (written == "en") != (said == "en")


def unstated(value: str, message: str) -> bool:
    """Whether a Chinese or Japanese ``value`` is missing from a message in the same script (the
    model wrote a word of its own, e.g. 英寸 for the message's 英尺): copied from the message instead.
    Not done for English, where a value may rightly be rewritten (sqrt(2) for "square root of 2")."""
    return detect_language(value, default="") in ("zh", "ja") and detect_language(message, default="") in ("zh", "ja") \
        and _fold(value) not in _fold(message)


_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{4,}")


def respelled(value: str, message: str) -> str:
    """``value`` with every Latin word that the message lacks but has in a close spelling written as
    the message writes it (Lisboa for the message's Lisbon): a name the model changed, not a value
    it composed (sqrt for "square root" stays)."""
    said = {word.casefold(): word for word in _LATIN_WORD.findall(message)}

    def respell(match: re.Match) -> str:
        word = match.group(0)
        if word.casefold() in said:
            return word
        ratio, closest = max(((SequenceMatcher(None, word.casefold(), key).ratio(), original)
                              for key, original in said.items()), default=(0.0, word))
        return closest if ratio >= 0.8 else word

    return _LATIN_WORD.sub(respell, value) if said else value


def rewrite(cursor: Any, mark: Any, value: str, opening: bool) -> None:
    """Replace what was written for a value since ``mark`` by ``value`` (with its opening quote when
    the model was to write it)."""
    cursor.rewind(mark)
    written = json.dumps(value, ensure_ascii=False)
    cursor.extend(" " + written if opening else written[1:])


def _fold(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def opening(forced: str) -> str:
    """The space and opening quote an option starts with when they were not forced before it."""
    return "" if forced else ' "'


def clean_value(raw: str) -> str:
    """A value the model wrote inside JSON quotes, unescaped when it is valid JSON string content."""
    text = raw.strip()
    try:
        text = json.loads(f'"{text}"')
    except ValueError:
        text = text.rstrip("\\")
    return text.strip()
