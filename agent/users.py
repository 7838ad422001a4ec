"""The people who share one Riverse server (``riverse users``), and how their tokens are kept.

A user has a name, a random token shown once when the user is added, and an admin flag (admins manage
users through ``/api/users``). The store keeps only hashes: of the token (``Authorization: Bearer``)
and of the browser session the sign-in form gives for it. Tokens are 32 random bytes, so one SHA-256
is enough to keep them from being read back; a slow password hash would add nothing.

What a user stores through the server (conversations, notes, approvals, tool calls in their
conversations) carries the user's key, :func:`owner_key`, and nobody else's requests reach it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from agent.errors import RiverseError
from agent.i18n import pick

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")

TEXTS = {
    "bad_name": {
        "en": "{name!r} is not a user name Riverse accepts: use 1-64 letters, digits and _.@- (starting with a "
              "letter or digit), e.g. riverse users add alice",
        "zh": "{name!r} 不是可用的用户名：请使用 1-64 个字母、数字或 _.@-（以字母或数字开头），例如 riverse users add alice",
        "ja": "{name!r} はユーザー名として使えません。1〜64 文字の英数字と _.@-（英数字で始める）にしてください。"
              "例：riverse users add alice",
    },
    "taken": {
        "en": "there is already a user named {name!r}; choose another name, or remove that user first "
              "(riverse users remove {name})",
        "zh": "已经有名为 {name!r} 的用户；请换一个名字，或先删除该用户（riverse users remove {name}）",
        "ja": "{name!r} という名前のユーザーはすでにいます。別の名前にするか、先にそのユーザーを削除してください"
              "（riverse users remove {name}）",
    },
}


class UserError(RiverseError):
    """A user cannot be added or removed as asked."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(f"riverse user token {token}".encode()).hexdigest()


def session_of(token: str) -> str:
    """What the browser's cookie holds for ``token``: a keyed hash, so the token itself is never stored there."""
    return hmac.new(token.encode(), b"riverse web session", hashlib.sha256).hexdigest()


def hash_session(session: str) -> str:
    return hashlib.sha256(f"riverse user session {session}".encode()).hexdigest()


def owner_key(user: dict[str, Any]) -> str:
    """The key a user's conversations, notes and approvals are stored under: their id, not their name,
    so a user removed and added again under the same name starts afresh."""
    return f"user:{user['id']}"


def check_name(name: str, language: str = "en") -> str:
    if not NAME.fullmatch(name or ""):
        raise UserError(pick(TEXTS["bad_name"], language, name=name))
    return name


def add_user(store: Any, name: str, admin: bool = False, language: str = "en") -> str:
    """Add the user ``name``; return the token (the only time it exists outside the user's hands)."""
    check_name(name, language)
    if store.user_named(name) is not None:
        raise UserError(pick(TEXTS["taken"], language, name=name))
    token = new_token()
    store.add_user(name, hash_token(token), hash_session(session_of(token)), admin)
    return token
