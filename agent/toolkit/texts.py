"""Shared text helpers of the built-in tools: messages in en/zh/ja and number formatting.

A message table maps a key to ``{"en": ..., "zh": ..., "ja": ...}`` templates (``str.format`` style);
English is the fallback for a missing language.
"""

from __future__ import annotations

from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, Mapping

from agent.i18n import pick
from agent.toolkit.base import ToolManifest, ToolResult

Texts = Mapping[str, str]


def manifest_from(table: Mapping[str, Mapping[str, Any]], language: str, *, name: str,
                  parameter_types: dict[str, Any], **fields: Any) -> ToolManifest:
    """A built-in tool's manifest in ``language`` from its text table, ``{language: {"description",
    "examples", "extra_examples", and each parameter's description under its name}}``. The parameters
    are the keys of ``parameter_types``, in that order; ``fields`` are the manifest's other fields."""
    text = table.get(language) or table["en"]
    return ToolManifest(
        name=name,
        description=text["description"],
        parameters={key: text[key] for key in parameter_types},
        examples=list(text["examples"]),
        extra_examples=list(text.get("extra_examples", ())),
        parameter_types=dict(parameter_types),
        **fields,
    )


def failure(texts: Texts, language: str, **values: object) -> ToolResult:
    """A failed ``ToolResult`` whose error is the localized text."""
    return ToolResult(success=False, data="", error=pick(texts, language, **values))


def format_number(value: Fraction | Decimal | int, digits: int) -> str:
    """``value`` rounded to ``digits`` significant digits, plain decimal unless very large or small.

    >>> format_number(Fraction(1, 3), 6), format_number(1500000, 6), format_number(Fraction(1, 10**9), 6)
    ('0.333333', '1500000', '1e-9')
    """
    ctx = Context(prec=digits)
    if isinstance(value, Fraction):
        rounded = ctx.divide(Decimal(value.numerator), Decimal(value.denominator))
    else:
        rounded = ctx.plus(Decimal(value))
    if rounded == 0:
        return "0"
    rounded = rounded.normalize(ctx)
    if -7 < rounded.adjusted() < 21:
        return format(rounded, "f")
    return format(rounded, "e")
