"""What Riverse keeps: the interface every storage backend implements.

A store holds conversations, their messages and every tool call (the audit log that ``riverse logs``
reads). SQLite (:class:`~agent.storage.sqlite.SQLiteStore`) is the embedded default; another
backend implements :class:`Store` and is chosen by :func:`agent.storage.open_store`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent.toolkit.runtime import ToolOutcome


@dataclass
class StoredMessage:
    id: int
    conversation_id: str
    role: str
    content: str
    created_at: float


class Store(Protocol):
    """Conversations, messages and tool calls."""

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

    def conversations(self, limit: int = 50, owner: str | None = None) -> list[dict[str, Any]]:
        """The most recently updated conversations first; with ``owner``, only those without an owner or
        with this one."""
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

    def tool_calls(self, limit: int = 20, tool: str | None = None, conversation: str | None = None) -> list[dict[str, Any]]:
        """Recent tool calls, newest first: each as the outcome's fields (``traceback`` when the tool
        raised), with ``id``, ``conversation_id`` and ``created_at``."""
        ...
