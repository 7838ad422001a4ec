"""What one ``execute()`` came to, as plain data, by the same rules in the agent's process and in a
tool worker process: the status, whether it succeeded, its data as text (capped), its error and, when
it raised, the traceback. The error of a tool that raised names the file and line where it raised: the
innermost frame in the tool's own file."""

from __future__ import annotations

import json
import traceback
import types
from pathlib import Path
from typing import Any

from agent.toolkit.base import ToolResult
from agent.toolkit.install_hint import install_hint

__all__ = ["settle", "stringify", "capped", "describe_exception", "raised_at", "tool_traceback"]

TOOLKIT_DIR = Path(__file__).resolve().parent  # the runner's own frames, left out of a tool's traceback
TRACEBACK_CHARS = 16_000  # the end of a longer traceback is kept: the innermost frames
DETAIL_CHARS = 2_000  # of an exception's message in the error, so that where it raised stays in sight


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


def _tool_frames(exc: BaseException) -> types.TracebackType | None:
    """``exc``'s traceback from the first frame that is not the runner's (in this process or a worker)."""
    tb = exc.__traceback__
    while tb is not None and Path(tb.tb_frame.f_code.co_filename).parent == TOOLKIT_DIR:
        tb = tb.tb_next
    return tb


def raised_at(exc: BaseException, path: str | None) -> str:
    """``file:line, in Class.method``: where ``exc`` was raised, as the innermost frame in the tool's
    own file ``path`` (else the innermost frame of the tool's code); empty when there is none."""
    try:
        frames = list(traceback.walk_tb(_tool_frames(exc)))
        own = Path(path).resolve() if path and not path.startswith("<") else None
        files = {f.f_code.co_filename for f, _ in frames} if own is not None else set()
        own_names = {name for name in files if Path(name).resolve() == own}
        mine = [(f, n) for f, n in frames if f.f_code.co_filename in own_names]
        frame, line = (mine or frames or [(None, 0)])[-1]
        if frame is None:
            return ""
        code = frame.f_code
        return f"{code.co_filename}:{line}, in {getattr(code, 'co_qualname', code.co_name)}"
    except Exception:  # noqa: BLE001 - a traceback that cannot be read leaves the error without a place
        return ""


def tool_traceback(exc: BaseException) -> str:
    """The traceback of an exception a tool raised, without the runner's frames (the end of a long one)."""
    try:
        text = "".join(traceback.format_exception(type(exc), exc, _tool_frames(exc)))
    except Exception as err:  # noqa: BLE001 - an exception whose traceback cannot be formatted
        return f"(the traceback could not be formatted: {describe_exception(err)})"
    if len(text) > TRACEBACK_CHARS:
        cut = len(text) - TRACEBACK_CHARS
        text = f"[... {cut} characters of the traceback cut]\n" + text[cut:]
    return text


def raised_error(name: str, exc: BaseException, path: str | None) -> str:
    """The error of tool ``name``'s call that raised ``exc``: what, where, and what to install when an
    import failed."""
    error = f"tool '{name}' raised {capped(describe_exception(exc), DETAIL_CHARS)}"
    where = raised_at(exc, path)
    if where:
        error += f" (at {where})"
    if isinstance(exc, ModuleNotFoundError) and isinstance(exc.name, str) and exc.name:
        error += f"; {install_hint(exc.name)}"
    return error


def settle(name: str, result: Any, exc: BaseException | None, max_chars: int | None,
           path: str | None = None) -> dict[str, Any]:
    """The outcome of tool ``name`` (defined in the file ``path``)'s call that returned ``result`` or
    raised ``exc``: ``{"status", "success", "data", "error", "traceback"}`` with status ``ok``, ``failed``
    or ``error``; ``traceback`` is the tool's traceback when it raised, else empty."""
    if exc is not None:
        return {"status": "error", "success": False, "data": "", "error": raised_error(name, exc, path),
                "traceback": tool_traceback(exc)}
    return {**_returned(name, result, max_chars), "traceback": ""}


def _returned(name: str, result: Any, max_chars: int | None) -> dict[str, Any]:
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
