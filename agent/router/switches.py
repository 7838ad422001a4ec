"""Optional choices the message does not speak of: the small model, once the frame has written a key,
fills it; an optional boolean comes out on ("all_day": true for "a dentist appointment at 15:00",
"private": true for a repository the message calls nothing), an optional object with a required
choice gets one ("recurrence": {"frequency": "daily"} for a one-off event). Such a value is kept only
when the message speaks of it: it says a word of the parameter's own (its name, its description, an
object's members and the members it chose; not the tool's words), in English or, for a Chinese or
Japanese message, in its word-by-word English gloss (:mod:`agent.router.glossary`).
"""

from __future__ import annotations

from typing import Any

from agent.router.candidates import CJK, terms
from agent.router.glossary import gloss
from agent.router.lists import held
from agent.router.prompt import enum_values, value_schema
from agent.toolkit.base import ToolManifest, members
from agent.toolkit.dates import without_dates

#: words any switch's or object's description may use, which say nothing of what it is
_GENERIC = frozenset(terms("whether true false set use used default if when also only flag option enable enabled "
                           "disable include including new number date time name id value type"))


#: how many characters around a value may say whose it is ("with the bug label")
AROUND = 12


def said_choice(manifest: ToolManifest, key: str, value: Any, message: str) -> bool:
    """Whether ``message`` speaks of the optional parameter ``key`` that the model wrote as ``value``:
    a boolean set against its default, or an object (any other value: always). Also always when
    there is nothing to judge by (a Chinese or Japanese message without the glossary, a parameter of
    no words of its own)."""
    if isinstance(value, dict) and (inner := members(manifest, key)) is not None:
        chosen = " ".join(str(v) for k, v in value.items() if enum_values(inner, k))
        described = " ".join([key, str(manifest.parameters.get(key, "")), chosen,
                              *(f"{k} {d}" for k, d in inner.parameters.items())])
    elif enum_values(manifest, key) == ["true", "false"]:
        default = value_schema(manifest, key).get("default", False)
        if isinstance(default, bool) and value == ("true" if default else "false"):
            return True  # the default changes nothing
        described = f"{key} {manifest.parameters.get(key, '')}"
    else:
        return True
    own, heard = _own(manifest, key, described), _heard(without_dates(message), described)  # "12月" is no month a repeat rule speaks of
    return not own or heard is None or bool(own & heard)


def stated_for_another(manifest: ToolManifest, params: dict[str, Any], message: str | None = None) -> dict[str, Any]:
    """``params`` without an optional free-text value that is where the message states another
    parameter's value: "body": "ラベルは ui と bug で" beside "labels": "ui, bug" (ラベル, "label", is a word of
    the labels' own), "body": "指派给 zhangsan" beside "assignees": "zhangsan", and "body": "bug" beside
    "labels": "bug" of "… with the bug label" (the words around the value in ``message`` say whose it is)."""
    kept = dict(params)
    for key, value in params.items():
        if key in manifest.required or not isinstance(value, str) or enum_values(manifest, key) \
                or value_schema(manifest, key).get("type", "string") != "string":
            continue
        mine = _own(manifest, key, f"{key} {manifest.parameters.get(key, '')}")
        around = _around(value, message)
        heard = _heard(around, "") or set(terms(around))  # without the glossary: its own words
        for other, stated in params.items():
            if other == key or not isinstance(stated, (str, int, float)) or not held(str(stated), [value]):
                continue
            if (_own(manifest, other, f"{other} {manifest.parameters.get(other, '')}") - mine) & heard:
                kept.pop(key, None)
                break
    return kept


def _around(value: str, message: str | None, reach: int = AROUND) -> str:
    """``value`` with what ``message`` says just before and after it (``value`` alone when it is not found there)."""
    at = message.casefold().find(value.casefold()) if message and value else -1
    return value if at < 0 else message[max(0, at - reach):at + len(value) + reach]


def _own(manifest: ToolManifest, key: str, described: str) -> set[str]:
    """The words of a parameter ``described`` so that are its own: not its tool's name's or description's, not generic ones."""
    return set(terms(described)) - set(terms(f"{manifest.name} {manifest.description}")) - _GENERIC


def _heard(said: str, described: str) -> set[str] | None:
    """The words of ``said``; with its English gloss when it is Chinese or Japanese and ``described`` is not
    (None: no glossary to say them in English)."""
    heard = set(terms(said))
    if CJK.search(said) and not CJK.search(described):
        english = gloss(said)
        if not english:
            return None
        heard |= set(terms(english))
    return heard
