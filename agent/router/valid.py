"""Whether a written call's values are ones its tool can take.

A value the router wrote is converted as the runtime converts it (:func:`agent.toolkit.schema.coerce_value`)
and then checked against its parameter's JSON schema: type, enum, an array's items, an object's required
members, a pattern, bounds (formats such as ``date`` are left to :mod:`agent.router.forms`). An optional
value that fails is left out ("amenities": "non" of "non-stop only"); a required one that fails makes the
call one the message gives no value for, as a required value the message does not state at all
("travelers": "long-haul" where the tool takes a list of people with their names): the router then tries
a close tool, or declines and the user is asked. Parameters without a declared type take any text.
"""

from __future__ import annotations

from functools import lru_cache
import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

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
    if spec is None:
        return True
    try:
        converted = coerce_value(manifest, key, value)
    except ParameterError:
        return False
    validator = _validator(json.dumps(parameter_schema(spec, str((manifest.parameters or {}).get(key, ""))), sort_keys=True))
    return validator is None or validator.is_valid(converted)


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
