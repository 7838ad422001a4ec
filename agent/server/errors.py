"""Errors of the HTTP server, all in OpenAI's shape so any OpenAI client can read them.

``{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}`` is what the official clients
parse into their exceptions; the Riverse endpoints answer in the same shape so there is one format.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from agent.errors import RiverseError
from agent.storage.base import StorageError

log = logging.getLogger("riverse.server")

#: how deep a request's JSON may nest; Riverse's own requests need fewer than ten levels
MAX_JSON_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


class ApiError(RiverseError):
    """A request the server refuses; the message says what is wrong and how to fix it."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.type = type
        self.code = code
        self.param = param

    def response(self, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse(error_body(str(self), self.type, self.code, self.param), self.status, headers=headers)


def error_body(message: str, type: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


async def read_json_object(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, or an :class:`ApiError` that says what is wrong with it.

    Nothing that could not be stored gets through: JSON nested deeper than :data:`MAX_JSON_DEPTH` and
    text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``) are refused here, before
    any conversation is opened.
    """
    raw = await request.body()
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send a JSON object", code="invalid_json")
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        detail = f" ({exc.msg} at line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise ApiError(400, f"the request body is not valid JSON{detail}; send a JSON object", code="invalid_json") from None
    except RecursionError:
        raise _too_deep() from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the request body must be a JSON object, not {type(body).__name__}", code="invalid_json")
    check_json_value(body)
    return body


def _too_deep() -> ApiError:
    return ApiError(400, f"the request body's JSON nests more than {MAX_JSON_DEPTH} levels deep; send it flatter",
                    code="invalid_json")


def _shown(key: str) -> str:
    """A key as an error message may quote it: surrogates escaped, at most 40 characters."""
    text = key.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 40 else text[:39] + "…"


def check_json_value(value: Any, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than ``max_depth`` or holding a lone surrogate (in a key or a value).

    Walks the value with a list, not recursion, so any depth json.loads accepts is safe to check."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item, where)
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                raise _too_deep()
            if isinstance(item, dict):
                for key, child in item.items():
                    _check_text(key, f"a key of {where}" if where else "a top-level key")
                    stack.append((child, f"{where}.{_shown(key)}" if where else _shown(key), depth + 1))
            else:
                stack.extend((child, f"{where}[{n}]", depth + 1) for n, child in enumerate(item))


def _check_text(text: str, where: str) -> None:
    found = _SURROGATE.search(text)
    if found:
        code = f"\\u{ord(found.group()):04x}"
        raise ApiError(400, f"the request body holds {code} in {where or 'the body'}: half of a surrogate pair, "
                            "which is not valid Unicode text; send the text as UTF-8, or escape both halves of the "
                            "pair", code="invalid_unicode")


def storage_unavailable(exc: StorageError) -> ApiError:
    """503 for a database that cannot be reached: the message names it (never its password) and what to check."""
    log.warning("storage unavailable: %s", exc)
    return ApiError(503, str(exc), type="server_error", code="storage_unavailable")


def install_error_handlers(api: FastAPI) -> None:
    """Every error, including unknown routes and crashes, answers in the OpenAI error shape."""

    @api.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @api.exception_handler(StorageError)
    async def on_storage_error(request: Request, exc: StorageError) -> JSONResponse:
        return storage_unavailable(exc).response()

    @api.exception_handler(HTTPException)
    async def on_http_error(request: Request, exc: HTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        message = f"{request.method} {request.url.path}: {exc.detail}"
        return JSONResponse(error_body(message, kind), exc.status_code, headers=exc.headers)

    @api.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse(error_body("internal server error; see the server's log", "server_error"), 500)
