"""Errors of the HTTP server, all in OpenAI's shape so any OpenAI client can read them.

``{"error": {"message": ..., "type": ..., "param": ..., "code": ...}}`` is what the official clients
parse into their exceptions; the Riverse endpoints answer in the same shape so there is one format.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from agent.errors import RiverseError

log = logging.getLogger("riverse.server")


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
    """The request body as a JSON object, or an :class:`ApiError` that says what is wrong with it."""
    raw = await request.body()
    if not raw.strip():
        raise ApiError(400, "the request body is empty; send a JSON object", code="invalid_json")
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        detail = f" ({exc.msg} at line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise ApiError(400, f"the request body is not valid JSON{detail}; send a JSON object", code="invalid_json") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the request body must be a JSON object, not {type(body).__name__}", code="invalid_json")
    return body


def install_error_handlers(api: FastAPI) -> None:
    """Every error, including unknown routes and crashes, answers in the OpenAI error shape."""

    @api.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @api.exception_handler(HTTPException)
    async def on_http_error(request: Request, exc: HTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        message = f"{request.method} {request.url.path}: {exc.detail}"
        return JSONResponse(error_body(message, kind), exc.status_code, headers=exc.headers)

    @api.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in %s %s", request.method, request.url.path)
        return JSONResponse(error_body("internal server error; see the server's log", "server_error"), 500)
