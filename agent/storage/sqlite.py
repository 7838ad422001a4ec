"""Riverse's SQLite store: the embedded default, one file in the Riverse home.

Each write is its own committed transaction (WAL journal), so a process killed in the middle of a
turn leaves the database readable with everything written before it.

A new database file is created ``0600`` in a folder created ``0700``; SQLite gives the ``-wal`` and
``-shm`` files it keeps beside it the database file's mode, so they are private too.

The queries are :class:`~agent.storage.sql.SQLStore`'s, shared with PostgreSQL. An answered approval
is announced to this process's listeners only: one SQLite file is served by one process.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.home import private_file, private_folder
from agent.storage.base import StorageError
from agent.storage.migrations import migrate
from agent.storage.sql import Run, SQLStore


MIN_SQLITE = (3, 35)


class SQLiteStore(SQLStore):
    """The :class:`~agent.storage.base.Store` in one SQLite file (or ``:memory:``)."""

    backend = "sqlite"

    def __init__(self, path: str | Path = ":memory:"):
        super().__init__()
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise StorageError(f"Riverse needs SQLite {'.'.join(map(str, MIN_SQLITE))} or newer (for RETURNING and "
                               f"ON CONFLICT); this Python has SQLite {sqlite3.sqlite_version}. Use a newer Python, "
                               "or PostgreSQL (storage.url)")
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
            self.applied = migrate(self.db)

    @property
    def location(self) -> str:
        return f"sqlite://{self.path}" if self.path.startswith("/") else f"sqlite:///{self.path}"

    def close(self) -> None:
        with self._lock:
            self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[Run]:
        """One transaction on the one connection; other threads wait for it."""

        def run(sql: str, args: tuple = ()) -> list[dict[str, Any]]:
            cursor = self.db.execute(sql, args)
            return [dict(row) for row in cursor.fetchall()] if cursor.description else []

        with self._lock:
            self.db.execute("BEGIN")
            try:
                yield run
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def migrations(self) -> list[str]:
        """The names of the migrations this database has had, in order."""
        return [r["name"] for r in self.query("SELECT name FROM _migrations ORDER BY rowid")]
