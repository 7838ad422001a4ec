"""Storage: conversations, messages, tool calls and notes.

- :mod:`agent.storage.base`: the :class:`Store` interface every backend implements.
- :mod:`agent.storage.sqlite`: the SQLite backend (the default, one file in the Riverse home).
- :mod:`agent.storage.migrations`: the SQLite schema, as append-only named migrations.
- :mod:`agent.storage.note_store`: the user's notes, kept in the same database.
"""

from __future__ import annotations

from pathlib import Path

from agent.storage.base import Store, StoredMessage
from agent.storage.sqlite import SQLiteStore

__all__ = ["Store", "StoredMessage", "SQLiteStore", "open_store"]


def open_store(location: str | Path = ":memory:") -> Store:
    """The store at ``location``: a SQLite file path, or ``:memory:``."""
    return SQLiteStore(location)
