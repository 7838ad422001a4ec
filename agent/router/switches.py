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
from agent.router.prompt import enum_values, value_schema
from agent.toolkit.base import ToolManifest, members
from agent.toolkit.dates import without_dates

#: words any switch's or object's description may use, which say nothing of what it is
_GENERIC = frozenset(terms("whether true false set use used default if when also only flag option enable enabled "
                           "disable include including new number date time name id value type"))


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
    said = without_dates(message)  # "12月" is no month a repeat rule speaks of
    heard = set(terms(said))
    if CJK.search(said) and not CJK.search(described):  # English words: the message's gloss says them
        english = gloss(said)
        if not english:
            return True
        heard |= set(terms(english))
    own = set(terms(described)) - set(terms(f"{manifest.name} {manifest.description}")) - _GENERIC
    return not own or bool(own & heard)
