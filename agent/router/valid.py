"""Whether a written call's values are ones its tool can take.

A value the router wrote is converted as the runtime converts it (:func:`agent.toolkit.schema.coerce_value`)
and then checked against its parameter's JSON schema: type, enum, an array's items, an object's required
members, a pattern, bounds (formats such as ``date`` are left to :mod:`agent.router.forms`). An optional
value that fails is left out ("amenities": "non" of "non-stop only"); a required one that fails makes the
call one the message gives no value for, as a required value the message does not state at all
("travelers": "long-haul" where the tool takes a list of people with their names): the router then tries
a close tool, or declines and the user is asked. Parameters without a declared type take any text, but a
parameter that asks for e-mail addresses (``"format": "email"``, or a description such as "Email addresses of the
attendees") takes addresses only: "2026-12-01" is no attendee, "mom" no address to share a calendar with.
"""

from __future__ import annotations

from functools import lru_cache
import json
import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agent.router.values import ADDRESS
from agent.toolkit.base import ToolManifest
from agent.toolkit.schema import ParameterError, coerce_value, parameter_schema


def checked(manifest: ToolManifest, params: dict[str, Any], missing: str, on: bool = True) -> tuple[dict[str, Any], str]:
    """``params`` without the optional values ``manifest``'s tool cannot take, and the first required
    parameter whose value it cannot take (``missing`` as it was when one was missing already; both as
    they are when not ``on``)."""
    if missing or not on:
        return params, missing
    kept: dict[str, Any] = {}
    for key, value in params.items():
        if takes(manifest, key, value):
            kept[key] = value
        elif key in (manifest.required or []):
            return params, key
    return kept, ""


def takes(manifest: ToolManifest, key: str, value: Any) -> bool:
    """Whether the tool of ``manifest`` can take ``value`` for its parameter ``key`` (see the module docstring)."""
    spec = (manifest.parameter_types or {}).get(key)
    described = str((manifest.parameters or {}).get(key, ""))
    try:
        converted = coerce_value(manifest, key, value) if spec is not None else value
    except ParameterError:
        return False
    schema = parameter_schema(spec, described)
    if _asks_address(schema, described) and not _addresses(converted):
        return False
    if spec is None:
        return True
    validator = _validator(json.dumps(schema, sort_keys=True))
    return validator is None or validator.is_valid(converted)


#: a description that asks for e-mail addresses, and one that also takes something else ("User name or email address")
_ASKS_ADDRESS = re.compile(r"\be-?mail[ -]?address(?:es)?\b", re.IGNORECASE)
_OR_ELSE = re.compile(r"\bor\b|/", re.IGNORECASE)


def _asks_address(schema: dict[str, Any], described: str) -> bool:
    items = schema.get("items")
    formats = {schema.get("format"), items.get("format") if isinstance(items, dict) else None}
    return bool(formats & {"email", "idn-email"}) or bool(_ASKS_ADDRESS.search(described)) and not _OR_ELSE.search(described)


def _addresses(value: Any) -> bool:
    """Whether ``value`` is one e-mail address, or a list of them (as text: separated by commas)."""
    items = value if isinstance(value, list) else re.split(r"\s*[,;，、]\s*", str(value).strip())
    return bool(items) and all(isinstance(item, str) and ADDRESS.fullmatch(item.strip()) for item in items)


@lru_cache(maxsize=1024)
def _validator(schema: str) -> Draft202012Validator | None:
    """A validator of ``schema`` (its JSON text, the cache's key); None for a schema that is not one
    (a tool's own mistake, reported where its manifest is checked, not a reason to refuse its values)."""
    loaded = json.loads(schema)
    try:
        Draft202012Validator.check_schema(loaded)
    except SchemaError:
        return None
    return Draft202012Validator(loaded)
