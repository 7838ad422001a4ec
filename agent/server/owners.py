"""Who owns what on the server: a conversation and its pending approvals belong to the client that
started them.

- **With users** (``riverse users add``) each request is one user's (:mod:`agent.server.access` found
  the user by token): the user owns what they start, and sees nothing else, not even the
  conversations of the command line. Their notes are theirs too (the notes tool keeps them under the
  user's key), and so are the tool calls made in their conversations.
- **With a token** there is one owner: whoever holds the token (``Authorization: Bearer``, or the
  cookie of the sign-in form) owns every conversation and every pending approval, including those of
  the command line. A request without the token never gets this far (:mod:`agent.server.access`).
- **Without a token** the server cannot tell its owner from another user of this machine, but it can
  tell clients apart: it gives each client a random session cookie (``riverse_client``, ``HttpOnly``,
  ``SameSite=Strict``) on its first response. A conversation started through the server belongs to
  the session that started it: only that session lists, reads, continues or deletes it, and only that
  session lists and answers the approvals its turns wait for. Conversations started elsewhere (the
  command line) have no owner and every session sees them.

The cookie's value is a secret only its browser (or HTTP client) knows; the database keeps a hash of it.
A client that sends no cookie is a new session on every request.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.users import owner_key

CLIENT_COOKIE = "riverse_client"
SCOPE_KEY = "riverse.client"
USER_SCOPE_KEY = "riverse.user"  # set by agent.server.access for a request carrying a user's token
SESSION_DAYS = 365
_SESSION = re.compile(r"[A-Za-z0-9_-]{32}")


@dataclass(frozen=True)
class Client:
    """The client of one request. ``key`` is None for the token's holder, who owns everything;
    ``user`` is the user's name on a server with users (``key`` is then the user's key)."""

    key: str | None
    user: str | None = None
    admin: bool = False

    @property
    def shared(self) -> bool:
        """Whether conversations without an owner (the command line's) are this client's too."""
        return self.user is None

    @property
    def notes_owner(self) -> str | None:
        """Whose notes this client's turns keep: a user's own; otherwise the machine's user's."""
        return self.key if self.user is not None else None

    def may_see(self, conversation: Mapping[str, Any]) -> bool:
        """Whether this client may list, read, continue or delete ``conversation``."""
        owner = conversation.get("owner")
        if self.user is not None:
            return owner == self.key
        return self.key is None or owner is None or owner == self.key


def session_key(session: str) -> str:
    """What the server keeps of a session cookie: a hash, so the database never holds the cookie itself."""
    return hashlib.sha256(f"riverse client {session}".encode()).hexdigest()[:32]


def client_of(connection: HTTPConnection) -> Client:
    """The client that sent this request (set by :class:`ClientSessions`; a fresh stranger otherwise)."""
    client = connection.scope.get(SCOPE_KEY)
    return client if isinstance(client, Client) else Client(session_key(secrets.token_urlsafe(24)))


class ClientSessions:
    """ASGI middleware that tells clients apart as this module's docstring says, behind the access guard."""

    def __init__(self, app: ASGIApp, *, token: str | None):
        self.app = app
        self.single_owner = bool(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        user = scope.get(USER_SCOPE_KEY)
        if isinstance(user, dict):  # the access guard found the user's token
            scope[SCOPE_KEY] = Client(owner_key(user), user["name"], bool(user["admin"]))
            await self.app(scope, receive, send)
            return
        if self.single_owner:
            scope[SCOPE_KEY] = Client(None)
            await self.app(scope, receive, send)
            return
        session = HTTPConnection(scope).cookies.get(CLIENT_COOKIE, "")
        if _SESSION.fullmatch(session):
            scope[SCOPE_KEY] = Client(session_key(session))
            await self.app(scope, receive, send)
            return
        session = secrets.token_urlsafe(24)
        scope[SCOPE_KEY] = Client(session_key(session))
        cookie = (f"{CLIENT_COOKIE}={session}; Max-Age={SESSION_DAYS * 86400}; Path=/; HttpOnly; "
                  "SameSite=Strict").encode("latin-1")

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
