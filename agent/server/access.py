"""Who may talk to the server.

- Bound to a loopback address (the default, 127.0.0.1) the server is reachable from this machine only,
  and needs no token. Requests must name a loopback host (``Host:`` header), which stops a web page on
  another site from reaching it through DNS rebinding. Every user of this machine can reach a loopback
  port, so a token is honoured on loopback too (``riverse serve --token-file FILE``, ``server.token``).
- Bound to any other address it refuses to start without a token (``server.token`` in the settings or
  ``RIVERSE_SERVER_TOKEN``).
- With users (``riverse users add NAME``), every request needs one user's token, on any address: the
  request is that user's, and sees that user's conversations, notes and approvals only
  (:mod:`agent.server.owners`). A server whose store has users may listen beyond loopback without
  ``server.token``, which opens nothing then. Users added while the server runs count within seconds.
- With a token, every request needs it: ``Authorization: Bearer <token>`` (what OpenAI clients send as
  their API key), or the session cookie the browser gets from the sign-in form at ``/login``. Without
  it the answer is 401 (the sign-in form for a browser asking for a page).
- A request that a browser marks as coming from another site is refused, so no other page can make the
  browser run tools here: an ``Origin`` that is not this server, and, on a request that changes
  something (any method but GET, HEAD and OPTIONS), ``Sec-Fetch-Site: cross-site`` or ``same-site``
  (another port of this host is the same site, but not this server) even without an ``Origin``.

The token never appears in a URL, a response or a log line: the cookie holds a keyed hash of it.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import stat
import time
import urllib.parse
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.errors import RiverseError
from agent.i18n import t
from agent.server.errors import ApiError, storage_unavailable
from agent.server.owners import USER_SCOPE_KEY
from agent.storage.base import StorageError
from agent.users import hash_session, hash_token, session_of

COOKIE = "riverse_session"
LOGIN_PATH = "/login"
MIN_TOKEN_CHARS = 16
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FOREIGN_SITES = frozenset({"cross-site", "same-site"})
USERS_RECHECK_S = 2.0  # how long a server goes on without asking the store whether it has users
LOGIN_PAGE = Path(__file__).resolve().parent.parent / "web" / "login.html"


class ServerAccessError(RiverseError):
    """The server cannot start with this address and token."""


def is_loopback(host: str) -> bool:
    """True for addresses that only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None, language: str = "en", has_users: bool = False) -> None:
    """Refuse to serve beyond this machine without a token worth the name (or users, each with one)."""
    if is_loopback(host) or has_users:
        return
    if not token:
        raise ServerAccessError(t("serve.token_required", language, host=host))
    if len(token) < MIN_TOKEN_CHARS:
        raise ServerAccessError(t("serve.token_short", language, count=MIN_TOKEN_CHARS))


def token_from_file(path: Path, language: str = "en") -> tuple[str, bool]:
    """The server token kept in ``path``, and whether it was just made: a missing file is created
    ``0600`` with a new random token. A file other users can read is refused (its token may be known)."""
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ServerAccessError(t("serve.token_file_unreadable", language, path=path, reason=exc.strerror)) from None
    else:
        token = secrets.token_urlsafe(24)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(token + "\n")
        return token, True
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ServerAccessError(t("serve.token_file_unreadable", language, path=path, reason=reason)) from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ServerAccessError(t("serve.token_file_open", language, path=path, mode=mode))
    token = text.strip()
    if not token:
        raise ServerAccessError(t("serve.token_file_empty", language, path=path))
    return token, False


session_value = session_of  # what the browser's cookie holds: a keyed hash, never the token itself


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


class AccessGuard:
    """ASGI middleware applying the rules in this module's docstring to every HTTP request.

    With ``store`` given and users in it (``riverse users add``), every request needs a user's token
    or the cookie its sign-in gave; the user is put in the request's scope (``riverse.user``) for
    :class:`~agent.server.owners.ClientSessions`. ``server.token`` opens nothing then: a user's data is
    that user's alone."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback_only: bool, store: Any = None):
        self.app = app
        self.token = token or None
        self.session = session_value(token) if token else ""
        self.loopback_only = loopback_only
        self.store = store
        self._users_checked = (time.monotonic(), store.count_users() > 0) if store is not None else (0.0, False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        try:
            users_on = False
            if self.store is not None:
                checked_at, users_on = self._users_checked
                if time.monotonic() - checked_at > USERS_RECHECK_S:
                    users_on = await run_in_threadpool(self._users_on)
            # Looking a user up reads the store: off the event loop.
            refusal = await run_in_threadpool(self._refusal, request, True) if users_on else self._refusal(request, False)
            if refusal is None and (self.token or users_on) and request.url.path == LOGIN_PATH:
                refusal = await self._login(request, users_on)
        except StorageError as exc:
            refusal = storage_unavailable(exc).response()
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _users_on(self) -> bool:
        """Whether the store has users now (asked at most every USERS_RECHECK_S seconds)."""
        on = self.store.count_users() > 0
        self._users_checked = (time.monotonic(), on)
        return on

    def _refusal(self, request: Request, users_on: bool) -> Response | None:
        host = request.headers.get("host", "")
        if _from_another_site(request, host):
            return ApiError(403, "requests that a browser sends from another web site are not accepted; "
                                 "use the page this server serves at /", code="cross_origin").response()
        # Without a token, the Host header is what tells this machine's pages from a rebound name.
        if self.loopback_only and not (self.token or users_on) and \
                not is_loopback(urllib.parse.urlsplit(f"//{host}").hostname or ""):
            return ApiError(
                403, f"this server answers requests for 127.0.0.1 or localhost only, not {host!r}", code="bad_host"
            ).response()
        if users_on:
            user = self._user_of(request)
            if user is not None:
                request.scope[USER_SCOPE_KEY] = user
                return None
        elif not self.token or self._authorized(request):
            return None
        if request.url.path == LOGIN_PATH:
            return None
        if "text/html" in request.headers.get("accept", "") and request.method == "GET":
            return HTMLResponse(_login_page(failed=False), 401)
        what = "a user's token (riverse users add NAME prints one)" if users_on else "its token"
        return ApiError(
            401,
            f"this server needs {what}: send 'Authorization: Bearer <token>' (the API key of an OpenAI client)",
            type="authentication_error",
            code="invalid_api_key",
        ).response(headers={"WWW-Authenticate": "Bearer"})

    def _authorized(self, request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given and self.token and _same(given.strip(), self.token):
            return True
        cookie = request.cookies.get(COOKIE, "")
        return bool(cookie) and _same(cookie, self.session)

    def _user_of(self, request: Request) -> dict[str, Any] | None:
        """The user whose token (or sign-in cookie) the request carries; None for no one."""
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given.strip():
            return self.store.user_by_hash(token_hash=hash_token(given.strip()))
        cookie = request.cookies.get(COOKIE, "")
        return self.store.user_by_hash(session_hash=hash_session(cookie)) if cookie else None

    async def _login(self, request: Request, users_on: bool) -> Response:
        """``GET /login`` shows the sign-in form; ``POST /login`` checks the token and sets the cookie."""
        if request.method != "POST":
            return HTMLResponse(_login_page(failed=False))
        fields = urllib.parse.parse_qs((await request.body()).decode("utf-8", "replace"))
        given = (fields.get("token") or [""])[0].strip()
        if users_on:
            known = bool(given) and await run_in_threadpool(self.store.user_by_hash, hash_token(given)) is not None
        else:
            known = bool(self.token and given and _same(given, self.token))
        if not known:
            return HTMLResponse(_login_page(failed=True), 401)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, session_value(given), httponly=True, samesite="strict", path="/")
        return response


def _from_another_site(request: Request, host: str) -> bool:
    """Whether a browser says the request comes from a page that is not this server's."""
    origin = request.headers.get("origin")
    if origin is not None and urllib.parse.urlsplit(origin).netloc != host:
        return True
    site = request.headers.get("sec-fetch-site", "").strip().lower()
    return request.method not in SAFE_METHODS and site in FOREIGN_SITES


def _login_page(failed: bool) -> str:
    page = LOGIN_PAGE.read_text(encoding="utf-8")
    wrong = '<p class="failed">Wrong token · 令牌不正确 · トークンが違います</p>'
    return page.replace("<!--failed-->", wrong if failed else "")
