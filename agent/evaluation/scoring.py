"""Scoring a decision's parameters against the expected ones, leniently.

``riverse tools eval`` and ``bench/routing`` score with this one function. A case names the expected
tool (or none) and the *key* parameter values. Every chosen value is first coerced as the runtime
would coerce it (the manifest's types); then, for each expected value:

1. the tool's own rule decides, when it has one (:meth:`BaseTool.same_value`: the calculator compares
   expressions by value, the unit converter units by the unit they name);
2. numbers (``number``/``integer`` parameters) are compared as numbers;
3. anything else matches when, after normalisation (NFKC, case-folded, whitespace collapsed), one
   text contains the other. An expected empty value (``timezone: ""``, the user's local time)
   matches an empty or missing one.

An expected list for a parameter that is not an array lists acceptable alternatives.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from agent.toolkit.base import BaseTool, ToolManifest, members
from agent.toolkit.schema import ParameterError, coerce_value, parameter_schema


def params_match(
    manifest: ToolManifest, expected: dict[str, Any] | None, chosen: dict[str, Any], tool: BaseTool | None = None
) -> bool:
    """True when every expected parameter was chosen with an acceptable value (extra keys are ignored;
    a parameter left out counts as its schema's default, which the tool gets)."""
    for name, want in (expected or {}).items():
        array = _type_of(manifest, name) == "array"
        alternatives = want if isinstance(want, list) and not array else [want]
        got = _coerced(manifest, name, chosen.get(name, _default(manifest, name)))
        if not any(value_matches(manifest, name, _coerced(manifest, name, alt), got, tool) for alt in alternatives):
            return False
    return True


def value_matches(manifest: ToolManifest, key: str, expected: Any, got: Any, tool: BaseTool | None = None) -> bool:
    """Whether ``got`` is an acceptable value of ``manifest``'s parameter ``key`` when ``expected`` was wanted."""
    if got is None:
        got = ""
    if tool is not None:
        verdict = tool.same_value(key, expected, got)
        if verdict is not None:
            return bool(verdict)
    inner = members(manifest, key)
    if inner is not None and isinstance(expected, dict):  # each member named, as a parameter of its own
        return isinstance(got, dict) and params_match(inner, expected, got)
    if _type_of(manifest, key) in ("number", "integer"):
        a, b = _number(expected), _number(got)
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return _contains(expected, got)


def _default(manifest: ToolManifest, key: str) -> Any:
    """The default of ``manifest``'s parameter ``key`` (None when its schema names none)."""
    spec = (manifest.parameter_types or {}).get(key)
    return spec.get("default") if isinstance(spec, dict) else None


def _type_of(manifest: ToolManifest, key: str) -> str | None:
    described = (manifest.parameters or {}).get(key, "")
    schema = parameter_schema((manifest.parameter_types or {}).get(key), str(described))
    kind = schema.get("type")
    return kind if isinstance(kind, str) else None


def _coerced(manifest: ToolManifest, name: str, value: Any) -> Any:
    """``value`` as the runtime would pass it to the tool; unchanged when it would be refused."""
    if value is None:
        return None
    if name not in (manifest.parameters or {}):
        return value
    try:  # this value alone: the call's other required values are judged by their own expectations
        return coerce_value(manifest, name, value)
    except ParameterError:
        return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(unicodedata.normalize("NFKC", str(value)).replace(",", "").strip())
    except ValueError:
        return None


def _text(value: Any) -> str:
    return " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split())


def _contains(expected: Any, got: Any) -> bool:
    a, b = _text(expected), _text(got)
    if not a:
        return not b
    return bool(b) and (a in b or b in a)
