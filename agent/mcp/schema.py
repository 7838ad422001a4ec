"""From an MCP tool's ``inputSchema`` to a Riverse manifest's parameters, types and required names.

Each property becomes a parameter: its ``description`` (else its title, else its name) says what to
fill in; a plain ``string``, ``integer``, ``number`` or ``boolean`` keeps that type, an ``enum`` its
allowed values, and anything else (nested objects, arrays, ``anyOf``) its JSON-schema fragment as it
is. A property name that is not a Riverse parameter name (``start-date``) gets one (``start_date``);
:class:`Translated` remembers the way back. A schema Riverse cannot read raises
:class:`SchemaError`, which says what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SIMPLE = ("string", "integer", "number", "boolean")
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]+")


class SchemaError(ValueError):
    """An ``inputSchema`` that is not a JSON schema of an object."""


def riverse_name(name: str, prefix: str = "") -> str:
    """``name`` as a Riverse name: letters, digits and ``_``, starting with a letter, at most 64."""
    text = _NOT_NAME.sub("_", f"{prefix}_{name}" if prefix else name).strip("_")
    if not text or not text[0].isalpha():
        text = f"t_{text}"
    return text[:64]


@dataclass
class Translated:
    parameters: dict[str, str] = field(default_factory=dict)
    parameter_types: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    original: dict[str, str] = field(default_factory=dict)  # Riverse name -> the server's name

    def arguments(self, params: dict[str, Any]) -> dict[str, Any]:
        """The call's parameters under the names the server gave them."""
        return {self.original.get(key, key): value for key, value in params.items()}


def translate(schema: Any) -> Translated:
    """The parameters of a tool whose ``inputSchema`` is ``schema``; SchemaError when it cannot be read."""
    if not isinstance(schema, dict):
        raise SchemaError(f"its inputSchema is not an object but {type(schema).__name__}")
    kind = schema.get("type", "object")
    if kind != "object":
        raise SchemaError(f"its inputSchema has type {kind!r}; a tool's arguments must be an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, dict):
        raise SchemaError("its inputSchema's 'properties' is not an object")
    required = schema.get("required") or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError("its inputSchema's 'required' is not a list of names")
    out = Translated()
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            raise SchemaError(f"property {name!r} of its inputSchema is not an object")
        key = riverse_name(str(name))
        if key in out.parameters:
            raise SchemaError(f"properties {out.original[key]!r} and {name!r} have the same Riverse name {key!r}")
        out.original[key] = str(name)
        out.parameters[key] = _description(name, prop)
        out.parameter_types[key] = _type_of(name, prop)
    missing = [r for r in required if riverse_name(r) not in out.parameters]
    if missing:
        raise SchemaError(f"its inputSchema requires {missing}, which it does not describe in 'properties'")
    out.required = [riverse_name(r) for r in required]
    return out


def _description(name: str, prop: dict[str, Any]) -> str:
    for key in ("description", "title"):
        text = prop.get(key)
        if isinstance(text, str) and text.strip():
            return " ".join(text.split())[:500]
    return str(name).replace("_", " ")


def _type_of(name: str, prop: dict[str, Any]) -> Any:
    enum = prop.get("enum")
    if enum is not None:
        if not isinstance(enum, list) or not enum:
            raise SchemaError(f"property {name!r}: 'enum' must be a non-empty list")
        return list(enum)
    kind = prop.get("type")
    if isinstance(kind, str) and kind in SIMPLE:
        return kind
    if kind is not None and not isinstance(kind, (str, list)):
        raise SchemaError(f"property {name!r}: 'type' must be a type name, got {kind!r}")
    return {k: v for k, v in prop.items() if k not in ("title",)}
