"""The items of a list parameter, and the values one piece of a message states.

The router writes a parameter's value as one piece of text, and the small model mostly stops after the
first item of a list: "reviewers": "wangwu" of "请 lisi 和 wangwu 审查", "labels": "bug" of "ラベルは ui と
bug で". :func:`listed` completes such a value with the items the message joins to it ("A and B", "A, B and
C", "A、B", "A 和 B", "A と B"), item by item of the same kind: addresses, names in Latin letters within a
Chinese or Japanese message, identifiers with digits, numbers. Plain English words are joined only where
a list plainly ends (the end of a sentence, or a word such as "to": "ask alice and bob to review"), so
that "assign bob and close it" stays bob alone.

:func:`held` tells whether other values already hold one (the same words said twice state one value).
"""

from __future__ import annotations

import re
import unicodedata

from agent.router.candidates import CJK
from agent.router.prompt import value_schema
from agent.toolkit.base import ToolManifest

_EMAIL = r"[A-Za-z0-9_.+-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+"
_WORD = r"[A-Za-z0-9][A-Za-z0-9_.#-]*(?<![.-])"
#: one item of a list, as the message writes it
_ITEM = re.compile(rf"(?:{_EMAIL}|{_WORD})")
#: what joins two items of a list
_JOIN = r"\s*(?:,\s*(?:and\s+|&\s*)?|、|，|;\s*|\s+and\s+|\s*&\s*|\s*[和与及跟]\s*|\s*[とや]\s*)"
_NEXT = re.compile(rf"({_JOIN})({_ITEM.pattern})(?![A-Za-z0-9_@])", re.IGNORECASE)
_BEFORE = re.compile(rf"(?<![A-Za-z0-9_@.+-])({_ITEM.pattern})({_JOIN})$", re.IGNORECASE)
#: after the last item of a list of plain English words: the end of a clause, or a word that starts another part
_LIST_END = re.compile(r"\s*(?:$|[.,;:!?)]|(?:to|for|on|in|at|as|from|with|please)\b)", re.IGNORECASE)
#: words that are never an item of a list
_NOT_ITEMS = frozenset("a an the it its me my them this that these those all both also then please and or not "
                       "too now today tomorrow".split())
#: at most this many items in one list
MOST = 12


def listed_value(manifest: ToolManifest, key: str, value: str, message: str) -> str:
    """``value`` of ``manifest``'s parameter ``key`` with the items ``message`` lists with it (:func:`listed`),
    when the parameter takes a list of plain values (text or numbers); else ``value`` as it is."""
    schema = value_schema(manifest, key)
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    kind = items.get("type", "string")
    if schema.get("type") != "array" or kind not in ("string", "integer", "number") or not value:
        return value
    return listed(value, message, numbers=kind != "string")


def listed(value: str, message: str, numbers: bool = False) -> str:
    """``value`` (one item, or items the model wrote with commas) with the items ``message`` joins to
    each of them, in the message's order, joined by ", " (as the runtime reads a list). ``numbers``:
    the list takes numbers, so bare numbers join ("issues 12, 13 and 14")."""
    written = [item.strip() for item in re.split(r"[,，、]", value) if item.strip()]
    if not written or not message:
        return value
    spans: dict[int, str] = {}
    for item in written:
        start = _find(item, message)
        if start < 0:
            return value  # an item the message does not say as written: nothing to join to it
        spans[start] = message[start:start + len(item)]
        for position, found in _joined(message, start, len(item), item, numbers):
            spans.setdefault(position, found)
        if len(spans) >= MOST:
            break
    items = list(dict.fromkeys(spans[p] for p in sorted(spans)))[:MOST]
    return value if len(items) <= len(written) else ", ".join(items)


def _find(item: str, message: str) -> int:
    found = re.search(rf"(?<![\w@.+-]){re.escape(item)}(?![\w@])", message, re.IGNORECASE)
    return found.start() if found else -1


def _joined(message: str, start: int, length: int, item: str, numbers: bool) -> list[tuple[int, str]]:
    """The items joined to the one at ``start``, to its right and then to its left."""
    kind, cjk = _kind(item), bool(CJK.search(message))
    right: list[tuple[int, str, int]] = []
    end = start + length
    while len(right) < MOST and (after := _NEXT.match(message, end)) and _fits(after.group(2), kind, numbers):
        right.append((after.start(2), after.group(2), after.end()))
        end = after.end()
    if kind in ("word", "number") and not cjk:  # plain English words: only a list that plainly ends ("ask alice and bob to review")
        while right and not _LIST_END.match(message, right[-1][2]):
            right.pop()
        end = right[-1][2] if right else start + length
        if not _LIST_END.match(message, end):
            return []
    out = [(position, found) for position, found, _ in right]
    first = start
    while len(out) < MOST and (before := _BEFORE.search(message[:first])) and _fits(before.group(1), kind, numbers):
        out.append((before.start(1), before.group(1)))
        first = before.start(1)
    return out


def _kind(item: str) -> str:
    if re.fullmatch(_EMAIL, item):
        return "address"
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", item):
        return "number"
    if re.fullmatch(_WORD, item):
        return "code" if re.search(r"[0-9_#.]", item) else "word"
    return ""


def _fits(found: str, kind: str, numbers: bool) -> bool:
    """Whether ``found`` may be another item of a list whose first is of ``kind``."""
    if not kind or _kind(found) != kind and {kind, _kind(found)} != {"word", "code"} or found.casefold() in _NOT_ITEMS:
        return False
    return numbers or kind != "number"


def held(value: str, others: list[str]) -> bool:
    """Whether the other values hold ``value``: each of its words is a whole word of one of them
    ("acme" of "acme/webapp", "acme/webapp" of "acme" and "webapp"); a Chinese or Japanese value,
    which has no spaces, as any part of one."""
    value = casefold(value)
    folded = [casefold(other) for other in others]
    if CJK.search(value):
        return any(value in other for other in folded)
    words = re.findall(r"\w+", value)
    return bool(words) and all(any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", other) for other in folded) for word in words)


def casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().strip()
