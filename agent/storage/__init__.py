"""Storage: conversations, messages, tool calls, notes, users and pending approvals.

- :mod:`agent.storage.base`: the :class:`Store` interface every backend implements.
- :mod:`agent.storage.sql`: the queries both backends share.
- :mod:`agent.storage.sqlite`: the SQLite backend (the default, one file in the Riverse home).
- :mod:`agent.storage.postgres`: the PostgreSQL backend (``storage.url: postgresql://…``), for several
  server replicas.
- :mod:`agent.storage.migrations`, :mod:`agent.storage.pg_migrations`: the schema, as the same
  append-only named migrations for both.
- :mod:`agent.storage.note_store`: the user's notes, kept in the same database.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from agent.storage.base import StorageError, Store, StoredMessage
from agent.storage.sqlite import SQLiteStore
from agent.storage.texts import text

__all__ = ["Store", "StoredMessage", "SQLiteStore", "StorageError", "open_store", "check_url"]

POSTGRES_SCHEMES = ("postgresql", "postgres")


def check_url(url: str, language: str = "en") -> str:
    """``url`` when it names a database Riverse can open: ``sqlite:///PATH``, ``sqlite:///:memory:`` or
    ``postgresql://…``; a :class:`StorageError` that says what to write otherwise."""
    parts = urllib.parse.urlsplit(url)
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return url
    if parts.scheme in POSTGRES_SCHEMES and (parts.hostname or parts.path.strip("/")):
        return url
    from agent.storage.postgres import redacted  # psycopg itself is not imported

    raise StorageError(text("bad_url", language, url=redacted(url)))


def open_store(location: str | Path = ":memory:", *, pool_size: int = 10, language: str = "en",
               setting: str = "storage.url") -> Store:
    """The store at ``location``: a ``sqlite:///…`` or ``postgresql://…`` address, a SQLite file path,
    or ``:memory:``. ``setting`` names where the address came from, in error messages."""
    raw = str(location)
    if isinstance(location, Path) or "://" not in raw:
        return SQLiteStore(raw)
    check_url(raw, language)
    parts = urllib.parse.urlsplit(raw)
    if parts.scheme == "sqlite":
        path = urllib.parse.unquote(parts.path)
        return SQLiteStore(":memory:" if path == "/:memory:" else path)
    from agent.storage.postgres import PostgresStore  # psycopg is imported only for PostgreSQL

    return PostgresStore(raw, pool_size=pool_size, language=language, setting=setting)
