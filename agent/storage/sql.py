"""What the SQLite and PostgreSQL stores share: every query Riverse makes, written once.

A backend supplies :meth:`SQLStore.transaction` (a function that runs one statement and returns its
rows as dicts, inside one committed transaction) and two spellings that differ between the engines
(``IS`` for a comparison that treats NULL as a value, and the name of the substring function).
Statements use ``?`` placeholders; the PostgreSQL backend turns them into ``%s``.

Owners: a conversation, a note and a pending approval may have an ``owner``, the key of whoever
started it through the server (``agent/server/owners.py``); None means the machine's own user (the
command line, or the holder of the server's single token).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from agent.storage.base import StoredMessage

if TYPE_CHECKING:
    from agent.toolkit.runtime import ToolOutcome

Run = Callable[..., list[dict[str, Any]]]
USER_COLUMNS = "id, name, admin, created_at"


class SQLStore:
    """The :class:`~agent.storage.base.Store` over any SQL engine; subclasses connect to one."""

    IS_SAME = "IS"  # NULL-safe equality
    INSTR = "instr"  # (text, piece) -> position, 0 when absent
    backend = "sql"

    def __init__(self) -> None:
        self._listeners: list[Callable[[str], None]] = []

    # ---------------------------------------------------------------- plumbing
    def transaction(self) -> AbstractContextManager[Run]:  # pragma: no cover - every backend has its own
        raise NotImplementedError

    def query(self, sql: str, args: tuple | list = ()) -> list[dict[str, Any]]:
        """Run one statement in its own transaction; its rows as dicts."""
        with self.transaction() as run:
            return run(sql, tuple(args))

    def close(self) -> None:  # pragma: no cover - every backend has its own
        raise NotImplementedError

    def after_copy(self, tables: tuple[str, ...]) -> None:
        """After rows were inserted with their own ids: make new ids follow them (SQLite does by itself)."""

    def on_notify(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(approval_id)`` whenever an approval is answered (in this process, and on
        PostgreSQL in any process using the same database)."""
        self._listeners.append(callback)

    def _notify_here(self, payload: str) -> None:
        for callback in list(self._listeners):
            callback(payload)

    def _notify_others(self, run: Run, payload: str) -> None:
        """Tell other processes, once this transaction commits, that ``payload`` (an approval id) was
        answered. One SQLite file has one server process: nothing to do."""

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
        # Two replicas may create the same client-chosen id at once: the first one wins, both go on.
        self.query("INSERT INTO conversations (id, title, created_at, updated_at, owner) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT (id) DO NOTHING", (cid, title, now, now, owner))
        return cid

    def get_conversation(self, cid: str) -> dict[str, Any] | None:
        rows = self.query("SELECT id, title, created_at, updated_at, owner FROM conversations WHERE id = ?", (cid,))
        return rows[0] if rows else None

    def conversations(self, limit: int = 50, owner: str | None = None, shared: bool = True) -> list[dict[str, Any]]:
        """Newest first. With ``owner``: that owner's, and (``shared``) those without an owner."""
        columns = "SELECT id, title, created_at, updated_at, owner FROM conversations"
        if owner is None:
            return self.query(f"{columns} ORDER BY updated_at DESC LIMIT ?", (limit,))
        where = "owner IS NULL OR owner = ?" if shared else "owner = ?"
        return self.query(f"{columns} WHERE {where} ORDER BY updated_at DESC LIMIT ?", (owner, limit))

    def latest_conversation(self) -> str | None:
        rows = self.query("SELECT id FROM conversations ORDER BY updated_at DESC LIMIT 1")
        return rows[0]["id"] if rows else None

    def delete_conversation(self, cid: str) -> bool:
        return bool(self.query("DELETE FROM conversations WHERE id = ? RETURNING id", (cid,)))

    # ----------------------------------------------------------------- messages
    def add_message(self, cid: str, role: str, content: str) -> int:
        now = time.time()
        with self.transaction() as run:
            rows = run("INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, ?, ?, ?) "
                       "RETURNING id", (cid, role, content, now))
            if role == "user":
                run("UPDATE conversations SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END "
                    "WHERE id = ?", (now, content[:60], cid))
            else:
                run("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, cid))
        return int(rows[0]["id"])

    def messages(self, cid: str) -> list[StoredMessage]:
        rows = self.query("SELECT id, conversation_id, role, content, created_at FROM messages "
                          "WHERE conversation_id = ? ORDER BY id", (cid,))
        return [StoredMessage(r["id"], r["conversation_id"], r["role"], r["content"], r["created_at"]) for r in rows]

    def history(self, cid: str, turns: int) -> list[dict[str, str]]:
        """The last ``turns`` user/assistant exchanges, as chat messages."""
        if turns <= 0:
            return []
        rows = self.query("SELECT role, content FROM messages WHERE conversation_id = ? AND role IN ('user', 'assistant') "
                          "ORDER BY id DESC LIMIT ?", (cid, turns * 2))
        return [{"role": r["role"], "content": r["content"]} for r in reversed(rows)]

    def drop_messages_from(self, cid: str, message_id: int) -> int:
        """Remove the conversation's message ``message_id`` and every later one (to answer again or to
        take an edited message); their tool calls leave the conversation but stay in the log."""
        with self.transaction() as run:
            rows = run("SELECT created_at FROM messages WHERE conversation_id = ? AND id = ?", (cid, message_id))
            if not rows:
                return 0
            run("UPDATE tool_calls SET conversation_id = NULL WHERE conversation_id = ? AND created_at >= ?",
                (cid, rows[0]["created_at"]))
            removed = run("DELETE FROM messages WHERE conversation_id = ? AND id >= ? RETURNING id", (cid, message_id))
            return len(removed)

    # --------------------------------------------------------------- tool calls
    def add_tool_call(self, cid: str | None, outcome: ToolOutcome) -> int:
        rows = self.query(
            "INSERT INTO tool_calls (conversation_id, name, params, success, status, data, error, duration_ms, approval, "
            "created_at, traceback, caller) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (cid, outcome.name, json.dumps(outcome.params, ensure_ascii=False, default=str), int(bool(outcome.success)),
             outcome.status, outcome.data, outcome.error, int(outcome.duration_ms), outcome.approval, time.time(),
             getattr(outcome, "traceback", "") or "", getattr(outcome, "caller", "") or ""),
        )
        return int(rows[0]["id"])

    def tool_calls(self, limit: int = 20, tool: str | None = None, conversation: str | None = None,
                   owner: str | None = None) -> list[dict[str, Any]]:
        """Newest first; ``owner``: only calls made in that owner's conversations."""
        where, args = [], []
        if tool:
            where.append("name = ?")
            args.append(tool)
        if conversation:
            where.append("conversation_id = ?")
            args.append(conversation)
        if owner is not None:
            where.append("conversation_id IN (SELECT id FROM conversations WHERE owner = ?)")
            args.append(owner)
        sql = ("SELECT id, conversation_id, name, params, success, status, data, error, duration_ms, approval, "
               "created_at, traceback, caller FROM tool_calls")
        sql += (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id DESC LIMIT ?"
        out = []
        for item in self.query(sql, (*args, limit)):
            item["params"] = json.loads(item["params"])
            item["success"] = bool(item["success"])
            out.append(item)
        return out

    # -------------------------------------------------------------------- users
    def add_user(self, name: str, token_hash: str, session_hash: str, admin: bool = False) -> dict[str, Any]:
        """A new user; the caller checked that ``name`` is free (a race ends in the engine's unique error)."""
        row = {"id": uuid.uuid4().hex, "name": name, "admin": bool(admin), "created_at": time.time()}
        self.query("INSERT INTO users (id, name, token_hash, session_hash, admin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                   (row["id"], name, token_hash, session_hash, int(bool(admin)), row["created_at"]))
        return row

    def users(self) -> list[dict[str, Any]]:
        return [{**r, "admin": bool(r["admin"])} for r in self.query(f"SELECT {USER_COLUMNS} FROM users ORDER BY name")]

    def user_named(self, name: str) -> dict[str, Any] | None:
        rows = self.query(f"SELECT {USER_COLUMNS} FROM users WHERE name = ?", (name,))
        return {**rows[0], "admin": bool(rows[0]["admin"])} if rows else None

    def user_by_hash(self, token_hash: str = "", session_hash: str = "") -> dict[str, Any] | None:
        """The user whose token (or browser session) hashes to this; None for no one."""
        column, value = ("token_hash", token_hash) if token_hash else ("session_hash", session_hash)
        rows = self.query(f"SELECT {USER_COLUMNS} FROM users WHERE {column} = ?", (value,)) if value else []
        return {**rows[0], "admin": bool(rows[0]["admin"])} if rows else None

    def remove_user(self, name: str) -> bool:
        return bool(self.query("DELETE FROM users WHERE name = ? RETURNING id", (name,)))

    def count_users(self) -> int:
        return int(self.query("SELECT count(*) AS n FROM users")[0]["n"])

    # ---------------------------------------------------------------- approvals
    def add_approval(self, approval_id: str, conversation_id: str, owner: str | None, request: dict[str, Any],
                     expires_at: float) -> None:
        self.query("INSERT INTO approvals (id, conversation_id, owner, request, answer, created_at, expires_at) "
                   "VALUES (?, ?, ?, ?, '', ?, ?)",
                   (approval_id, conversation_id, owner, json.dumps(request, ensure_ascii=False, default=str),
                    time.time(), expires_at))

    def answer_approval(self, approval_id: str, owner: str | None, answer: str) -> bool:
        """Answer ``owner``'s pending approval; False when ``owner`` has none with this id (answered,
        expired, gone, or someone else's)."""
        with self.transaction() as run:
            rows = run(f"UPDATE approvals SET answer = ? WHERE id = ? AND owner {self.IS_SAME} ? AND answer = '' "
                       "AND expires_at > ? RETURNING id", (answer, approval_id, owner, time.time()))
            if rows:
                self._notify_others(run, approval_id)
        if rows:
            self._notify_here(approval_id)
        return bool(rows)

    def approval_answer(self, approval_id: str) -> str | None:
        """The answer given ("" while pending); None when there is no such approval."""
        rows = self.query("SELECT answer FROM approvals WHERE id = ?", (approval_id,))
        return rows[0]["answer"] if rows else None

    def pending_approvals(self, owner: str | None, conversation_id: str | None = None) -> list[dict[str, Any]]:
        """``owner``'s unanswered approvals that have not expired, oldest first."""
        sql = (f"SELECT id, conversation_id, owner, request, expires_at FROM approvals WHERE owner {self.IS_SAME} ? "
               "AND answer = '' AND expires_at > ?")
        args: list[Any] = [owner, time.time()]
        if conversation_id is not None:
            sql += " AND conversation_id = ?"
            args.append(conversation_id)
        rows = self.query(sql + " ORDER BY created_at, id", args)
        return [{**r, "request": json.loads(r["request"])} for r in rows]

    def drop_approval(self, approval_id: str) -> None:
        self.query("DELETE FROM approvals WHERE id = ? OR expires_at < ?", (approval_id, time.time() - 3600))


def rows_iter(store: SQLStore, table: str, columns: list[str], batch: int = 500) -> Iterator[list[dict[str, Any]]]:
    """All rows of ``table`` in batches, by their primary key (for ``riverse db copy``)."""
    key = "id"
    last: Any = None
    while True:
        where, args = ("", ()) if last is None else (f" WHERE {key} > ?", (last,))
        rows = store.query(f"SELECT {', '.join(columns)} FROM {table}{where} ORDER BY {key} LIMIT {int(batch)}", args)
        if not rows:
            return
        yield rows
        last = rows[-1][key]
