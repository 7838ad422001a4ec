"""``riverse db copy``: everything one store holds, into another (SQLite to PostgreSQL, or back).

Conversations, messages, tool calls, notes and users are copied with their ids, so links between
them, and the numbers users know their notes by, stay as they were. Pending approvals are not:
they belong to turns running in the old server. The target must hold nothing yet.
"""

from __future__ import annotations

from typing import Any

from agent.errors import RiverseError
from agent.i18n import pick
from agent.storage.sql import rows_iter

TABLES: dict[str, list[str]] = {
    "conversations": ["id", "title", "created_at", "updated_at", "owner"],
    "messages": ["id", "conversation_id", "role", "content", "created_at"],
    "tool_calls": ["id", "conversation_id", "name", "params", "success", "status", "data", "error", "duration_ms",
                   "approval", "created_at", "traceback"],
    "notes": ["id", "text", "folded", "created_at", "owner"],
    "users": ["id", "name", "token_hash", "session_hash", "admin", "created_at"],
}
NUMBERED = ("messages", "tool_calls", "notes")  # ids the engine hands out

NOT_EMPTY = {
    "en": "{target} already holds data ({counts}); copy into an empty database, e.g. a new one made with "
          "createdb, so nothing is mixed or overwritten",
    "zh": "{target} 中已经有数据（{counts}）；请复制到一个空数据库（例如用 createdb 新建的），以免混合或覆盖数据",
    "ja": "{target} にはすでにデータがあります（{counts}）。混ざったり上書きされたりしないよう、空のデータベース"
          "（createdb で新しく作ったものなど）にコピーしてください",
}
SAME = {
    "en": "the source and the target are the same database ({target}); name another one with --to",
    "zh": "源数据库与目标数据库相同（{target}）；请用 --to 指定另一个数据库",
    "ja": "コピー元とコピー先が同じデータベースです（{target}）。--to で別のデータベースを指定してください",
}


class CopyError(RiverseError):
    """The copy cannot be made as asked."""


def counts(store: Any) -> dict[str, int]:
    return {table: int(store.query(f"SELECT count(*) AS n FROM {table}")[0]["n"]) for table in TABLES}


def copy_store(source: Any, target: Any, language: str = "en") -> dict[str, int]:
    """Copy every row of :data:`TABLES` from ``source`` to the empty ``target``; rows copied per table."""
    if source.location == target.location:
        raise CopyError(pick(SAME, language, target=target.location))
    held = {table: n for table, n in counts(target).items() if n}
    if held:
        shown = ", ".join(f"{n} {table}" for table, n in held.items())
        raise CopyError(pick(NOT_EMPTY, language, target=target.location, counts=shown))
    copied: dict[str, int] = {}
    for table, columns in TABLES.items():
        insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        copied[table] = 0
        for batch in rows_iter(source, table, columns):
            with target.transaction() as run:
                for row in batch:
                    run(insert, tuple(row[c] for c in columns))
            copied[table] += len(batch)
    target.after_copy(NUMBERED)
    return copied
