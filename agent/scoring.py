"""Scoring one routing decision against an expected one, leniently (``riverse tools eval`` and
``bench/routing`` share it).

A case names the expected tool (or none) and the *key* parameter values. A prediction matches a key
value when, after normalisation (NFKC, case-folded, whitespace collapsed), one contains the other;
``calculator.expression`` is compared by value and ``unit_convert``'s units by the unit they name,
using the calculator's and the converter's own parsers. An expected empty value (``timezone: ""``,
the user's local time) matches an empty or missing one.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from agent.tools.calculator import evaluate, normalize
from agent.tools.unit_convert import find_unit


def _text(value: Any) -> str:
    return " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split())


def _number(value: Any) -> float | None:
    try:
        return float(evaluate(normalize(str(value))))
    except Exception:  # noqa: BLE001 - anything unreadable simply does not match
        return None


def _same_number(expected: Any, got: Any) -> bool:
    a, b = _number(expected), _number(got)
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _same_unit(expected: Any, got: Any) -> bool:
    a, b = find_unit(str(expected)), find_unit(str(got))
    return a is not None and a == b


def _contains(expected: Any, got: Any) -> bool:
    a, b = _text(expected), _text(got)
    if not a:
        return not b
    return bool(b) and (a in b or b in a)


def value_matches(tool: str, key: str, expected: Any, got: Any) -> bool:
    """Whether the predicted ``got`` is an acceptable value for ``tool``'s parameter ``key``."""
    if got is None:
        got = ""
    if (tool, key) == ("calculator", "expression") or key in ("value", "id"):
        return _same_number(expected, got)
    if tool == "unit_convert" and key in ("from_unit", "to_unit"):
        return _same_unit(expected, got)
    return _contains(expected, got)


def params_match(tool: str, expected: dict[str, Any], got: dict[str, Any]) -> bool:
    """Every expected key parameter is present with an acceptable value (extra keys are ignored)."""
    return all(value_matches(tool, key, value, got.get(key)) for key, value in (expected or {}).items())
