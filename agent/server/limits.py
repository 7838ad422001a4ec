"""How much a request may send: bodies are capped before they are read into memory.

A request whose ``Content-Length`` is over ``server.max_body_bytes`` is answered 413 at once, without
reading any of its body. A body sent without a length (chunked) is counted as it arrives, and the
request is answered 413 as soon as it passes the limit: the rest is never read.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.server.errors import ApiError


class BodyTooLarge(ApiError):
    """A request body over the limit (413)."""

    def __init__(self, limit: int, size: int | None = None):
        given = f"the request body is {size} bytes" if size is not None else "the request body is larger than that"
        super().__init__(
            413,
            f"this server accepts request bodies of at most {limit} bytes (server.max_body_bytes); {given}. "
            "Send less (start a new conversation rather than resending a long history), or raise "
            "server.max_body_bytes in settings.yaml",
            code="request_too_large",
        )


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``, or None when it has none (or one that is not a number)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimit:
    """ASGI middleware that refuses request bodies over ``max_bytes``, as this module's docstring says."""

    def __init__(self, app: ASGIApp, *, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await BodyTooLarge(self.max_bytes, declared).response(headers={"Connection": "close"})(scope, receive, send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge as exc:  # raised outside the routes (the sign-in form), or not answered yet
            if started:
                raise
            await exc.response(headers={"Connection": "close"})(scope, receive, send)
