"""Riverse's SQLite store: conversations, messages and every tool call.

Each write is its own committed transaction (WAL journal), so a process killed in the middle of a
turn leaves the database readable with everything written before it.

A new database file is created ``0600`` in a folder created ``0700``; SQLite gives the ``-wal`` and
``-shm`` files it keeps beside it the database file's mode, so they are private too.

A conversation may have an ``owner``: the key of the server client that started it (see
``agent/server/owners.py``). Conversations started anywhere else have none.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.home import private_file, private_folder
from agent.storage.base import StoredMessage
from agent.storage.migrations import migrate

if TYPE_CHECKING:
    from agent.toolkit.runtime import ToolOutcome


class SQLiteStore:
    """The :class:`~agent.storage.base.Store` in one SQLite file (or ``:memory:``)."""

    def __init__(self, path: str | Path = ":memory:"):
        self.path = str(path)
        if self.path != ":memory:":
            private_folder(Path(self.path).parent)
            private_file(Path(self.path))
        self._lock = threading.RLock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
        with self._lock:
            migrate(self.db)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def _execute(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            return self.db.execute(sql, args)

    def _rows(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self.db.execute(sql, args))

    # ------------------------------------------------------------ conversations
    def new_conversation(self, title: str = "", owner: str | None = None) -> str:
        return self._insert_conversation(uuid.uuid4().hex[:12], title, owner)

    def ensure_conversation(self, cid: str | None, title: str = "", owner: str | None = None) -> str:
        if cid and self.get_conversation(cid):
            return cid
        if cid:
            return self._insert_conversation(cid, title, owner)
        return self.new_conversation(title, owner)

    def _insert_conversation(self, cid: str, title: str, owner: str | None) -> str:
        now = time.time()
        self._execute(
            "INSERT INTO conversations (id, title, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?)",
            (cid, title, now, now, owner),
        )
        return cid

    def get_conversation(self, cid: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM conversations WHERE id = ?", (cid,))
        return dict(rows[0]) if rows else None

    def conversations(self, limit: int = 50, owner: str | None = None) -> list[dict[str, Any]]:
        if owner is None:
            rows = self._rows("SELECT * FROM conversations ORDER BY updated_at DESC LIMIT ?", (limit,))
        else:
            rows = self._rows(
                "SELECT * FROM conversations WHERE owner IS NULL OR owner = ? ORDER BY updated_at DESC LIMIT ?",
                (owner, limit),
            )
        return [dict(r) for r in rows]

    def latest_conversation(self) -> str | None:
        rows = self._rows("SELECT id FROM conversations ORDER BY updated_at DESC LIMIT 1")
        return rows[0]["id"] if rows else None

    def delete_conversation(self, cid: str) -> bool:
        return self._execute("DELETE FROM conversations WHERE id = ?", (cid,)).rowcount > 0

    # ----------------------------------------------------------------- messages
    def add_message(self, cid: str, role: str, content: str) -> int:
        now = time.time()
        with self._lock:
            cur = self.db.execute(
                "INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, ?, ?, ?)",
                (cid, role, content, now),
            )
            if role == "user":
                self.db.execute(
                    "UPDATE conversations SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?",
                    (now, content[:60], cid),
                )
            else:
                self.db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, cid))
            return int(cur.lastrowid)

    def messages(self, cid: str) -> list[StoredMessage]:
        return [
            StoredMessage(r["id"], r["conversation_id"], r["role"], r["content"], r["created_at"])
            for r in self._rows("SELECT * FROM messages WHERE conversation_id = ? ORDER BY id", (cid,))
        ]

    def history(self, cid: str, turns: int) -> list[dict[str, str]]:
        """The last ``turns`` user/assistant exchanges, as chat messages."""
        if turns <= 0:
            return []
        rows = self._rows(
            "SELECT role, content FROM messages WHERE conversation_id = ? AND role IN ('user', 'assistant') "
            "ORDER BY id DESC LIMIT ?",
            (cid, turns * 2),
        )
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def drop_messages_from(self, cid: str, message_id: int) -> int:
        with self._lock:
            row = self.db.execute("SELECT created_at FROM messages WHERE conversation_id = ? AND id = ?",
                                  (cid, message_id)).fetchone()
            if row is None:
                return 0
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("UPDATE tool_calls SET conversation_id = NULL WHERE conversation_id = ? AND created_at >= ?",
                                (cid, row["created_at"]))
                removed = self.db.execute("DELETE FROM messages WHERE conversation_id = ? AND id >= ?",
                                          (cid, message_id)).rowcount
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            return removed

    # --------------------------------------------------------------- tool calls
    def add_tool_call(self, cid: str | None, outcome: ToolOutcome) -> int:
        cur = self._execute(
            "INSERT INTO tool_calls (conversation_id, name, params, success, status, data, error, duration_ms, approval, "
            "created_at, traceback, caller) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cid,
                outcome.name,
                json.dumps(outcome.params, ensure_ascii=False, default=str),
                int(bool(outcome.success)),
                outcome.status,
                outcome.data,
                outcome.error,
                int(outcome.duration_ms),
                outcome.approval,
                time.time(),
                getattr(outcome, "traceback", "") or "",
                getattr(outcome, "caller", "") or "",
            ),
        )
        return int(cur.lastrowid)

    def tool_calls(self, limit: int = 20, tool: str | None = None, conversation: str | None = None) -> list[dict[str, Any]]:
        where, args = [], []
        if tool:
            where.append("name = ?")
            args.append(tool)
        if conversation:
            where.append("conversation_id = ?")
            args.append(conversation)
        sql = "SELECT * FROM tool_calls" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id DESC LIMIT ?"
        out = []
        for row in self._rows(sql, (*args, limit)):
            item = dict(row)
            item["params"] = json.loads(item["params"])
            item["success"] = bool(item["success"])
            out.append(item)
        return out
