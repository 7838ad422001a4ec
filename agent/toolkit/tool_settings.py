"""Reading limits and switches from a built-in tool's own settings section (``tools.<name>``), and the
short forms of those sections (:func:`tool_sections`).

A value of the wrong type or out of range falls back to the default instead of breaking the tool:
the limits exist to keep the agent safe, so a typo must never remove one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def tool_sections(tools: Mapping[str, Any]) -> dict[str, Any]:
    """The ``tools:`` mapping with its short forms written out: ``name:`` (empty) is ``{}``, and
    ``name: true`` / ``name: false`` is ``{enabled: true}`` / ``{enabled: false}``. Any other section
    is returned as it is (settings validation refuses it)."""
    out: dict[str, Any] = {}
    for name, section in tools.items():
        if section is None:
            out[name] = {}
        elif isinstance(section, bool):
            out[name] = {"enabled": section}
        else:
            out[name] = section
    return out


def positive(section: Mapping, key: str, default: float) -> float:
    """``section[key]`` when it is a positive number, else ``default``."""
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return default
    return value


def positive_int(section: Mapping, key: str, default: int) -> int:
    """``section[key]`` as a positive integer, else ``default``."""
    return int(positive(section, key, default))


def switch(section: Mapping, key: str, default: bool = False) -> bool:
    """``section[key]`` when it is exactly true or false (YAML booleans), else ``default``."""
    value = section.get(key)
    return value if isinstance(value, bool) else default
