"""What one ``execute()`` came to, as plain data, by the same rules in the agent's process and in a
tool worker process: the status, whether it succeeded, its data as text (capped) and its error."""

from __future__ import annotations

import json
from typing import Any

from agent.toolkit.base import ToolResult

__all__ = ["settle", "stringify", "capped", "describe_exception"]


def stringify(data: Any) -> str:
    """Turn a tool's ``data`` (or ``error``) into text: JSON for structures, ``str`` otherwise."""
    if isinstance(data, str):
        return data
    if data is None:
        return ""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf-8", errors="replace")
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except Exception:  # noqa: BLE001 - a tool's object may refuse to be printed in any way
        try:
            return repr(data)
        except Exception as exc:  # noqa: BLE001 - a hostile __repr__, or nesting too deep to print
            return f"<{type(data).__name__} that cannot be shown as text: {type(exc).__name__}>"


def capped(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were."""
    if limit is None or len(text) <= limit:
        return text
    cut = len(text) - limit
    return text[:limit] + f"\n[... {cut} more characters cut]"


def describe_exception(exc: BaseException) -> str:
    """``TypeName: message``, even when the exception's own ``__str__`` fails."""
    try:
        detail = str(exc).strip()
    except Exception:  # noqa: BLE001 - an exception class written to be unprintable
        detail = ""
    return type(exc).__name__ + (f": {detail}" if detail else "")


def settle(name: str, result: Any, exc: BaseException | None, max_chars: int | None) -> dict[str, Any]:
    """The outcome of tool ``name``'s call that returned ``result`` or raised ``exc``:
    ``{"status", "success", "data", "error"}`` with status ``ok``, ``failed`` or ``error``."""
    if exc is not None:
        return {"status": "error", "success": False, "data": "", "error": f"tool '{name}' raised {describe_exception(exc)}"}
    if not isinstance(result, ToolResult):
        return {"status": "error", "success": False, "data": "",
                "error": f"tool '{name}' returned {type(result).__name__}, not a ToolResult"}
    try:
        data = capped(stringify(result.data), max_chars)
        if result.success is True:
            return {"status": "ok", "success": True, "data": data, "error": ""}
        error = capped(stringify(result.error).strip(), max_chars)
    except Exception as err:  # noqa: BLE001 - a ToolResult subclass whose fields raise when read
        return {"status": "error", "success": False, "data": "",
                "error": f"tool '{name}' returned a ToolResult that cannot be read: {describe_exception(err)}"}
    error = error or f"tool '{name}' reported failure without an error message"
    return {"status": "failed", "success": False, "data": data, "error": error}
