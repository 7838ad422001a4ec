"""What retrieval and the decision read of a tool, and what a message's values say of themselves.

A tool is read by its name, description, parameters and examples (:func:`tool_text`), for retrieval
also by what its JSON schema names beyond the parameters' descriptions (:func:`indexed`: an enum's
values, an object's members, a list's items); a sentence encoder reads its name and description in
words (:func:`described`), for retrieval with the values its parameters allow. A message's values say
what they are: an identifier's prefix shortens what it identifies ("evt" of ``event_id``), and an
address, a link, a file path or a date is what tools' parameters call them (:func:`kinds_of_values`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from agent.router.examples import examples_of
from agent.toolkit.base import ToolManifest
from agent.toolkit.dates import dates_in


def tool_text(m: ToolManifest, examples: bool = True) -> str:
    """Everything the index knows of a tool; without ``examples``, what its author said of it only."""
    params = " ".join(f"{key} {desc}" for key, desc in (m.parameters or {}).items())
    return " ".join([m.name, m.name, m.description, params, *(examples_of(m) if examples else [])])


def described(m: ToolManifest, choices: bool = False) -> str:
    """A tool's name in words and its description: ``"list transactions: List transactions, ..."``;
    with ``choices``, the values its parameters allow after it (``"(sensor type: temperature, humidity)"``)."""
    said = f"{m.name.replace('_', ' ').replace('-', ' ')}: {m.description}".strip()
    if not choices:
        return said
    allowed = "; ".join(f"{key.replace('_', ' ')}: {', '.join(values[:_CHOICES])}" for key, values in _choices(m).items())
    return f"{said} ({allowed})" if allowed else said


#: the most allowed values of one parameter said in :func:`described` (a list of every country says little more)
_CHOICES = 12


def _choices(m: ToolManifest) -> dict[str, list[str]]:
    """Per parameter, the words its schema allows (an enum's strings, its members' and items' too)."""
    out: dict[str, list[str]] = {}
    for key, schema in m.json_schema()["properties"].items():
        values = [text for kind, text in _schema_texts(schema) if kind == "enum"]
        if values:
            out[key] = list(dict.fromkeys(v.replace("_", " ") for v in values))
    return out


#: how deep in a parameter's schema its words are read (a schema nested deeper says little more, and one
#: nested thousands deep, as a hostile server may send, must not exhaust the stack)
_DEPTH = 8


def _schema_texts(schema: object, depth: int = _DEPTH) -> Iterable[tuple[str, str]]:
    """What one parameter's JSON schema says in words, below its own description: the strings an enum
    allows, and the names and descriptions of an object's members and a list's items, :data:`_DEPTH` deep."""
    if not isinstance(schema, dict) or depth <= 0:
        return
    yield from (("enum", value) for value in schema.get("enum") or [] if isinstance(value, str))
    members = schema.get("properties")
    for name, member in (members.items() if isinstance(members, dict) else []):
        yield "member", str(name)
        if isinstance(member, dict) and isinstance(member.get("description"), str):
            yield "member", member["description"]
        yield from _schema_texts(member, depth - 1)
    for key in ("items", "additionalProperties"):
        yield from _schema_texts(schema.get(key), depth - 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        for option in options if isinstance(options, list) else []:
            yield from _schema_texts(option, depth - 1)


def indexed(m: ToolManifest, examples: bool = True) -> str:
    """What retrieval reads of a tool: :func:`tool_text` and what its schema says beyond the parameters'
    descriptions (``"humidity"`` of an enum finds the sensor tool for "the humidity in the basement")."""
    return " ".join([tool_text(m, examples), *(text for schema in m.json_schema()["properties"].values()
                                               for _, text in _schema_texts(schema))])


#: a parameter that takes an identifier, and what it identifies: ``event_id``, ``accountId``, ``booking_ref``
IDENTIFIED = re.compile(r"([A-Za-z]{3,})(?:_id|Id|ID|_ref)\b")
#: an identifier a message holds, by its letters before a separator and digits: ``evt_4410``, ``acc-002``
_PREFIXED = re.compile(r"(?<![\w/.@-])([a-z]{2,5})[_-](?=[0-9a-z]*[0-9])[0-9a-z]+(?![\w/.@-])")


def prefixes(text: str) -> list[str]:
    """The letters before the separator of each identifier ``text`` holds ("evt" of "evt_4410")."""
    return _PREFIXED.findall(unicodedata.normalize("NFKC", text).casefold())


# each starts only where a run of the characters it is made of starts, and looks no further than an address
# or a path can be long: a long message without one is read once, not once from every character (tests/test_candidates.py)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,190}")
_URL = re.compile(r"\bhttps?://\S+", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w@/.~-])(?:~?/)?(?:[\w.-]{1,255}/){1,32}[\w.-]{0,255}\.\w{1,5}\b"
                   r"|(?<![\w@/.-])[\w-]{1,255}\.(?:py|js|ts|md|txt|json|ya?ml|toml|csv|html|css|go|rs|java|c|h|cpp|sh|pdf|docx?)\b")


def kinds_of_values(text: str) -> list[str]:
    """The words that say what kind of value ``text`` holds (an email address, a link, a file path,
    a date), as a tool's parameters say what they take."""
    rest = _URL.sub(" ", text)
    return [said for said, found in (("email address", _EMAIL.search(text)), ("url link", _URL.search(text)),
                                     ("file path", _PATH.search(_EMAIL.sub(" ", rest))), ("date", dates_in(text)))
            if found]


def abbreviates(prefix: str, word: str) -> bool:
    """Whether ``prefix`` is a shortening of ``word``: its first letter and the rest in order ("evt" of "event")."""
    if len(prefix) >= len(word) or prefix[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in prefix[1:])
