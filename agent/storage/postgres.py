"""Riverse's PostgreSQL store: for a household or a team, shared by any number of ``riverse serve``
replicas.

psycopg 3 with a connection pool (``pip install 'riverse[postgres]'``), imported only when a
``postgresql://`` address is used, so SQLite users never need it. Each write is its own committed
transaction: a replica that dies in the middle of a turn loses nothing it had stored.

An answered approval is announced with ``NOTIFY riverse_approvals`` (its id as the payload) in the
answering transaction; every replica ``LISTEN``s on one connection of its own and wakes the turn that
waits for it, whichever replica it runs on.
"""

from __future__ import annotations

import logging
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent.storage.base import StorageError
from agent.storage.pg_migrations import migrate
from agent.storage.sql import Run, SQLStore
from agent.storage.texts import text

log = logging.getLogger("riverse.storage")
CHANNEL = "riverse_approvals"
CONNECT_TIMEOUT_S = 10
POOL_WAIT_S = 15  # how long a query waits for a free connection (or for a database that went away)


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = urllib.parse.unquote(parts.username or "")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def _reason(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


class PostgresStore(SQLStore):
    """The :class:`~agent.storage.base.Store` in a PostgreSQL database."""

    IS_SAME = "IS NOT DISTINCT FROM"
    INSTR = "strpos"
    backend = "postgresql"

    def __init__(self, url: str, *, pool_size: int = 10, language: str = "en", setting: str = "storage.url"):
        super().__init__()
        try:
            import psycopg
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StorageError(text("no_driver", language)) from None
        self.url = url
        self.language = language
        self.setting = setting  # where the address came from, for messages
        self._psycopg = psycopg
        self._stop = threading.Event()
        self.listening = threading.Event()  # set while this process LISTENs for answered approvals
        self._listener: threading.Thread | None = None
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S) as connection:
                self.applied = migrate(connection)
        except psycopg.Error as exc:
            raise self._error("unreachable", exc) from None
        self.pool = ConnectionPool(url, min_size=1, max_size=max(1, pool_size), open=True, timeout=POOL_WAIT_S,
                                   kwargs={"row_factory": dict_row, "connect_timeout": CONNECT_TIMEOUT_S, "autocommit": True},
                                   name="riverse")

    @property
    def location(self) -> str:
        return redacted(self.url)

    def _error(self, key: str, exc: BaseException) -> StorageError:
        return StorageError(text(key, self.language, where=redacted(self.url), reason=_reason(exc), setting=self.setting))

    def close(self) -> None:
        self._stop.set()
        self.pool.close()
        if self._listener is not None:
            self._listener.join(5)

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection of the pool (in autocommit mode); a database that went away is a StorageError."""
        psycopg = self._psycopg
        try:
            with self.pool.connection() as connection:
                yield connection
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise self._error("lost", exc) from None
        except Exception as exc:
            if type(exc).__name__ == "PoolTimeout":
                raise self._error("lost", exc) from None
            raise

    @staticmethod
    def _run_on(connection: Any) -> Run:
        def run(sql: str, args: tuple = ()) -> list[dict[str, Any]]:
            cursor = connection.execute(sql.replace("%", "%%").replace("?", "%s"), args)
            return list(cursor.fetchall()) if cursor.description else []

        return run

    @contextmanager
    def transaction(self) -> Iterator[Run]:
        with self._connection() as connection, connection.transaction():
            yield self._run_on(connection)

    def query(self, sql: str, args: tuple | list = ()) -> list[dict[str, Any]]:
        """One statement, committed by itself (autocommit: one round trip, no BEGIN and COMMIT)."""
        with self._connection() as connection:
            return self._run_on(connection)(sql, tuple(args))

    def after_copy(self, tables: tuple[str, ...]) -> None:
        with self.transaction() as run:
            for table in tables:
                run(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(max(id), 1), max(id) IS NOT NULL) "
                    f"FROM {table}")

    def migrations(self) -> list[str]:
        return [r["name"] for r in self.query("SELECT name FROM _migrations ORDER BY applied_at, name")]

    # -------------------------------------------------------------- notifications
    def _notify_others(self, run: Run, payload: str) -> None:
        run("SELECT pg_notify(?, ?)", (CHANNEL, payload))

    def on_notify(self, callback: Any) -> None:
        super().on_notify(callback)
        if self._listener is None:
            self._listener = threading.Thread(target=self._listen, name="riverse-pg-listen", daemon=True)
            self._listener.start()

    def _listen(self) -> None:
        """Deliver every ``NOTIFY riverse_approvals`` to this process's listeners; reconnect when the
        connection drops (waiting turns also look at the store every second, so nothing is lost)."""
        psycopg = self._psycopg
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    while not self._stop.is_set():
                        for notice in connection.notifies(timeout=0.5):
                            self._notify_here(notice.payload)
            except psycopg.Error as exc:
                self.listening.clear()
                log.warning("listening for approvals on %s failed (%s); trying again", redacted(self.url), _reason(exc))
                self._stop.wait(1.0)
