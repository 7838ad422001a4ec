"""What Riverse keeps: the interface every storage backend implements.

A store holds conversations, their messages and every tool call (the audit log that ``riverse logs``
reads), the users who share a server, their notes, and the tool calls waiting for approval. SQLite
(:class:`~agent.storage.sqlite.SQLiteStore`) is the embedded default; PostgreSQL
(:class:`~agent.storage.postgres.PostgresStore`) serves a team. Both share their queries
(:class:`~agent.storage.sql.SQLStore`); :func:`agent.storage.open_store` chooses one from ``storage.url``.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent.errors import RiverseError

if TYPE_CHECKING:
    from agent.toolkit.runtime import ToolOutcome


class StorageError(RiverseError):
    """The store cannot be opened or used: a bad ``storage.url``, a database that is down, a missing driver."""


@dataclass
class StoredMessage:
    id: int
    conversation_id: str
    role: str
    content: str
    created_at: float


class Store(Protocol):
    """Conversations, messages, tool calls, users, pending approvals (notes: :mod:`agent.storage.note_store`)."""

    def close(self) -> None: ...

    def new_conversation(self, title: str = "", owner: str | None = None) -> str:
        """A new conversation's id; ``owner`` is the key of the server client that started it, if any."""
        ...

    def ensure_conversation(self, cid: str | None, title: str = "", owner: str | None = None) -> str:
        """``cid`` when that conversation exists (or can be made under that id), else a new one's id."""
        ...

    def get_conversation(self, cid: str) -> dict[str, Any] | None:
        """The conversation's ``id``, ``title``, ``created_at``, ``updated_at`` and ``owner`` (None: no owner)."""
        ...

    def conversations(self, limit: int = 50, owner: str | None = None, shared: bool = True) -> list[dict[str, Any]]:
        """The most recently updated conversations first; with ``owner``, only this owner's and (when
        ``shared``) those without an owner."""
        ...

    def latest_conversation(self) -> str | None: ...

    def delete_conversation(self, cid: str) -> bool: ...

    def add_message(self, cid: str, role: str, content: str) -> int: ...

    def messages(self, cid: str) -> list[StoredMessage]: ...

    def history(self, cid: str, turns: int) -> list[dict[str, str]]:
        """The last ``turns`` user/assistant exchanges, as chat messages."""
        ...

    def drop_messages_from(self, cid: str, message_id: int) -> int:
        """Remove message ``message_id`` of ``cid`` and every later one (to answer again, or to send an
        edited message in its place); the tool calls made for them leave the conversation but stay in
        the log. How many messages were removed."""
        ...

    def add_tool_call(self, cid: str | None, outcome: "ToolOutcome") -> int: ...

    def tool_calls(self, limit: int = 20, tool: str | None = None, conversation: str | None = None,
                   owner: str | None = None) -> list[dict[str, Any]]:
        """Recent tool calls, newest first: each as the outcome's fields (``traceback`` when the tool
        raised), with ``id``, ``conversation_id`` and ``created_at``; ``owner``: only in that owner's
        conversations."""
        ...

    # users (``riverse users``): tokens are kept as hashes only
    def add_user(self, name: str, token_hash: str, session_hash: str, admin: bool = False) -> dict[str, Any]: ...

    def users(self) -> list[dict[str, Any]]: ...

    def user_named(self, name: str) -> dict[str, Any] | None: ...

    def user_by_hash(self, token_hash: str = "", session_hash: str = "") -> dict[str, Any] | None: ...

    def remove_user(self, name: str) -> bool: ...

    def count_users(self) -> int: ...

    # approvals: a tool call waiting for its owner's answer, visible to every server process
    def add_approval(self, approval_id: str, conversation_id: str, owner: str | None, request: dict[str, Any],
                     expires_at: float) -> None: ...

    def answer_approval(self, approval_id: str, owner: str | None, answer: str) -> bool: ...

    def approval_answer(self, approval_id: str) -> str | None: ...

    def pending_approvals(self, owner: str | None, conversation_id: str | None = None) -> list[dict[str, Any]]: ...

    def drop_approval(self, approval_id: str) -> None: ...

    def on_notify(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(approval_id)`` when an approval is answered (on PostgreSQL: by any process)."""
        ...

    # low level, for the notes and for ``riverse db copy``
    def query(self, sql: str, args: tuple | list = ()) -> list[dict[str, Any]]: ...

    def migrations(self) -> list[str]: ...
