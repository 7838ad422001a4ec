"""Parameter types: from manifest declarations to JSON schema, and validation/coercion of the
parameters a model produced before they reach ``execute()``."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

# "1,234,567.5": commas only as thousands separators ("1,5" stays invalid rather than becoming 15).
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")


def _number_text(value: str) -> str:
    text = value.strip().replace("_", "")
    return text.replace(",", "") if _THOUSANDS.match(text) else text

RISK_LEVELS = ("read", "write", "network", "execute")
# From the least to the most a call can do: a call whose parameters name two risks has the later one.
RISK_ORDER = ("read", "network", "write", "execute")

# Canonical JSON-schema types, plus the Python spellings (str, int, float, bool) that tools may use.
TYPE_ALIASES = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "object": "object",
    "dict": "object",
}


class ParameterError(ValueError):
    """A parameter the model gave does not fit the manifest."""

    def __init__(self, param: str, reason: str):
        super().__init__(f"parameter '{param}': {reason}")
        self.param = param
        self.reason = reason


def describe_type_problem(spec: Any) -> str | None:
    """Return why a ``parameter_types`` entry is invalid, or None when it is fine."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec.lower() not in TYPE_ALIASES:
            return f"unknown type {spec!r}; use one of {', '.join(sorted(set(TYPE_ALIASES.values())))}"
        return None
    if isinstance(spec, (list, tuple)):
        if not spec:
            return "an enum needs at least one allowed value"
        return None
    if isinstance(spec, dict):
        return None
    if isinstance(spec, type) and spec in (str, int, float, bool, list, dict):
        return None
    return f"type must be a name such as 'string' or 'integer', a list of allowed values, or a dict, not {type(spec).__name__}"


def _canonical(spec: Any) -> Any:
    if isinstance(spec, type):
        return {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}.get(spec, "string")
    if isinstance(spec, str):
        return TYPE_ALIASES.get(spec.lower(), "string")
    return spec


def parameter_schema(spec: Any, description: str) -> dict[str, Any]:
    """JSON schema for one parameter."""
    spec = _canonical(spec)
    if spec is None:
        return {"type": "string", "description": description}
    if isinstance(spec, str):
        return {"type": spec, "description": description}
    if isinstance(spec, (list, tuple)):
        values = list(spec)
        types = {type(v) for v in values}
        schema: dict[str, Any] = {"enum": values, "description": description}
        if types == {str}:
            schema["type"] = "string"
        return schema
    if isinstance(spec, dict):
        out = dict(spec)
        out.setdefault("description", description)
        return out
    return {"type": "string", "description": description}


def _coerce_one(name: str, value: Any, spec: Any) -> Any:
    spec = _canonical(spec)
    if spec is None:
        return _as_string(name, value)
    if isinstance(spec, (list, tuple)):
        return _as_choice(name, value, list(spec))
    if isinstance(spec, dict):
        spec_type = spec.get("type")
        if "enum" in spec:
            return _coerce_one(name, value, spec["enum"])
        value = _coerce_one(name, value, spec_type) if isinstance(spec_type, str) else value
        items, properties = spec.get("items"), spec.get("properties")
        if isinstance(value, list) and isinstance(items, dict):  # each item to the items' type ("1, 2" of integers)
            value = [_coerce_one(f"{name}[{i}]", item, items) for i, item in enumerate(value)]
        if isinstance(value, dict) and isinstance(properties, dict):  # an object's named members, each to its type
            value = {key: _coerce_one(f"{name}.{key}", member, properties[key]) if key in properties else member
                     for key, member in value.items()}
        return value
    coerce = _COERCERS.get(spec)
    return coerce(name, value) if coerce is not None else value


def _as_string(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _as_choice(name: str, value: Any, values: list[Any]) -> Any:
    if value in values:
        return value
    for candidate in values:  # "3" for 3, "Celsius" for "celsius"
        if str(candidate).lower() == str(value).strip().lower():
            return candidate
    raise ParameterError(name, f"must be one of {values}, got {value!r}")


def _as_integer(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ParameterError(name, f"must be an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = _number_text(value)
        try:
            return int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                number = math.nan
            if math.isfinite(number) and number.is_integer():
                return int(number)
    raise ParameterError(name, f"must be an integer, got {value!r}")


def _as_number(name: str, value: Any) -> int | float:
    if isinstance(value, bool):
        raise ParameterError(name, f"must be a number, got {value!r}")
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    if isinstance(value, str):
        try:
            number = float(_number_text(value))
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return int(number) if number.is_integer() and "." not in value else number
    raise ParameterError(name, f"must be a number, got {value!r}")


def _as_boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "yes", "y", "1", "on"):
            return True
        if text in ("false", "no", "n", "0", "off"):
            return False
    raise ParameterError(name, f"must be true or false, got {value!r}")


def _as_array(name: str, value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                return parsed
        return [part.strip() for part in text.split(",") if part.strip()]
    raise ParameterError(name, f"must be a list, got {value!r}")


def _as_object(name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    raise ParameterError(name, f"must be an object, got {value!r}")


_COERCERS: dict[str, Callable[[str, Any], Any]] = {
    "string": _as_string,
    "integer": _as_integer,
    "number": _as_number,
    "boolean": _as_boolean,
    "array": _as_array,
    "object": _as_object,
}


def coerce_value(manifest: Any, key: str, value: Any) -> Any:
    """One declared parameter's value converted to its declared type, as :func:`coerce_params`
    converts it (raises :class:`ParameterError` when it cannot be)."""
    return _coerce_one(key, value, (manifest.parameter_types or {}).get(key))


def coerce_params(manifest: Any, params: Any) -> dict[str, Any]:
    """Validate and coerce ``params`` against ``manifest``.

    Declared parameters are converted to their declared type (untyped ones to strings). Unknown
    keys are dropped (a small model often adds extras), missing required ones raise
    :class:`ParameterError`, as does a value that cannot be converted.
    """
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ParameterError("*", f"parameters must be an object of name: value, got {type(params).__name__}")
    declared = manifest.parameters or {}
    clean: dict[str, Any] = {}
    for key, value in params.items():
        if key not in declared:
            continue
        if value is None and key not in (manifest.required or []):
            continue
        clean[key] = coerce_value(manifest, key, value)
    for key in manifest.required or []:
        if key in declared and (key not in clean or clean[key] in ("", None)):
            raise ParameterError(key, "is required but was not given")
    return clean
