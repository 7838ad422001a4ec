"""Reading tool calls out of a model's text (the JSON protocol), tolerantly.

Accepted shapes (anywhere in the reply, in a code fence or not)::

    {"tool_calls": [{"name": "weather", "params": {"city": "Tokyo"}}]}
    {"tool": "weather", "params": {"city": "Tokyo"}}
    {"name": "weather", "arguments": {"city": "Tokyo"}}          # arguments may be a JSON string
    [{"tool": "weather", ...}, {"tool": "current_time", ...}]
    {"answer": "plain answer"} / {"tool": null} / {"tool": "none"}   # no tool

Common slips are repaired: single quotes, trailing commas, Python's True/False/None. A reply that
looks like JSON but cannot be read is ``malformed`` and the loop asks the model once to repair it.
"""

from __future__ import annotations

import ast
import html
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from agent.providers.base import ToolCallRequest

NAME_KEYS = ("name", "tool", "tool_name", "function")
ARG_KEYS = ("params", "parameters", "arguments", "args", "input")
NO_TOOL = {"", "none", "null", "no_tool", "answer"}

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
# HTML entities: llama-cpp-python's chatml-function-calling format escapes the messages it is sent,
# and a model copies what it saw ({&#34;tool&#34;: ...}).
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|quot|amp|lt|gt|apos);")


@dataclass
class ParsedReply:
    kind: str  # "text" | "calls" | "malformed"
    text: str = ""
    calls: list[ToolCallRequest] = field(default_factory=list)
    error: str = ""


def _literal(text: str) -> Any:
    """``ast.literal_eval`` without the SyntaxWarnings that model text full of backslashes provokes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(text)


def _loads_lenient(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        pass
    fixed = _TRAILING_COMMA.sub(r"\1", text)
    try:
        return json.loads(fixed)
    except (json.JSONDecodeError, RecursionError):
        pass
    try:
        return _literal(fixed)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    py = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", fixed)))
    try:
        return _literal(py)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError("not valid JSON") from None


_CLOSERS = {"{": "}", "[": "]"}


def json_end(text: str, start: int = 0) -> int | None:
    """Where the JSON object or array opened at ``text[start]`` ends (the index after its closing
    brace or bracket), or None when it is not closed. Brackets inside strings do not count."""
    opener = text[start] if start < len(text) else ""
    closer = _CLOSERS.get(opener)
    if closer is None:
        return None
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _candidates(text: str) -> list[str]:
    """JSON-looking spans: fenced blocks first, then from the first brace or bracket to its match."""
    spans = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for opener in _CLOSERS:
        start = text.find(opener)
        if start == -1:
            continue
        end = json_end(text, start)
        spans.append(text[start:end] if end is not None else text[start:])  # unterminated: let the parser say so
    return spans


def _one_call(obj: Any) -> ToolCallRequest | None | str:
    """A call, None for an explicit "no tool", or an error string."""
    if not isinstance(obj, dict):
        return f"a tool call must be an object, got {type(obj).__name__}"
    name = next((obj[k] for k in NAME_KEYS if k in obj), None)
    if isinstance(name, dict):  # {"function": {"name": ..., "arguments": ...}}
        obj, name = name, name.get("name")
    if name is None or (isinstance(name, str) and name.strip().lower() in NO_TOOL):
        return None
    if not isinstance(name, str):
        return f"the tool name must be a string, got {name!r}"
    args: Any = next((obj[k] for k in ARG_KEYS if k in obj), {})
    if isinstance(args, str):
        stripped = args.strip()
        if not stripped:
            args = {}
        else:
            try:
                args = _loads_lenient(stripped)
            except ValueError:
                return ToolCallRequest(name=name.strip(), arguments=args)
    if args is None:
        args = {}
    return ToolCallRequest(name=name.strip(), arguments=args if isinstance(args, dict) else str(args))


def interpret(value: Any) -> ParsedReply | None:
    """Turn a decoded JSON value into a reply, or None when it is not a tool-call shape."""
    if isinstance(value, dict) and "tool_calls" in value:
        items = value["tool_calls"]
        if items is None:
            items = []
        if not isinstance(items, list):
            return ParsedReply("malformed", error="tool_calls must be a list")
    elif isinstance(value, list):
        items = value
    elif isinstance(value, dict) and any(k in value for k in NAME_KEYS):
        items = [value]
    elif isinstance(value, dict) and isinstance(value.get("answer"), str):
        return ParsedReply("text", text=value["answer"])
    else:
        return None
    calls: list[ToolCallRequest] = []
    for item in items:
        call = _one_call(item)
        if isinstance(call, str):
            return ParsedReply("malformed", error=call)
        if call is not None:
            calls.append(call)
    if not calls:
        answer = value.get("answer") if isinstance(value, dict) else None
        return ParsedReply("text", text=answer if isinstance(answer, str) else "")
    return ParsedReply("calls", calls=calls)


def parse_reply(text: Any) -> ParsedReply:
    """Read a model's reply under the JSON protocol. Never raises. A reply whose JSON came back
    entity-escaped (``{&#34;tool&#34;: ...}``) is read as the JSON it stands for."""
    if not isinstance(text, str):
        return ParsedReply("malformed", error=f"the reply is {type(text).__name__}, not text")
    reply = _parse(text)
    unescaped_text = text
    for _ in range(3):  # escaped again each time it went round: &amp;#34;
        if reply.kind == "calls" or not _ENTITY.search(unescaped_text):
            break
        unescaped_text = html.unescape(unescaped_text)
        unescaped = _parse(unescaped_text)
        if unescaped.kind == "calls" or (reply.kind == "malformed" and unescaped.kind != "malformed"):
            reply = unescaped
    return reply


def _parse(text: str) -> ParsedReply:
    stripped = text.strip()
    looks_like_json = stripped.startswith(("{", "[", "```"))
    first_error = ""
    for span in _candidates(stripped):
        try:
            value = _loads_lenient(span)
        except ValueError as exc:
            first_error = first_error or str(exc)
            continue
        reply = interpret(value)
        if reply is not None:
            return reply
    if looks_like_json:
        return ParsedReply("malformed", text=text, error=first_error or "the JSON is not a tool call")
    return ParsedReply("text", text=text)
