"""Append-only, named migrations of Riverse's SQLite database (PostgreSQL has the same names in
:mod:`agent.storage.pg_migrations`: a new migration is added to both).

Add a new function at the end and never edit one that has shipped: each runs once per database,
in order, and its name is recorded in ``_migrations``.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Callable

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    db.executescript(
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX messages_conversation ON messages(conversation_id, id);
        CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT REFERENCES conversations(id) ON DELETE SET NULL,
            name TEXT NOT NULL,
            params TEXT NOT NULL,
            success INTEGER NOT NULL,
            status TEXT NOT NULL,
            data TEXT NOT NULL DEFAULT '',
            error TEXT NOT NULL DEFAULT '',
            duration_ms INTEGER NOT NULL DEFAULT 0,
            approval TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL
        );
        CREATE INDEX tool_calls_name ON tool_calls(name, id);
        """
    )


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations this database has not had yet; return their names."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        with db:
            fn(db)
            db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (fn.__name__, time.time()))
        applied.append(fn.__name__)
    return applied


@migration
def m002_notes(db: sqlite3.Connection) -> None:
    """The user's notes (the ``notes`` tool). ``folded`` is the text NFKC-normalised and case-folded,
    so that search is one ``instr`` per keyword; it also finds two-character Chinese and Japanese
    words, which a trigram full-text index cannot match."""
    db.execute(
        """
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL,
            folded TEXT NOT NULL,
            created_at REAL NOT NULL
        )
        """
    )


@migration
def m003_conversation_owner(db: sqlite3.Connection) -> None:
    """Who started a conversation through the server (a client's key); NULL for every other conversation."""
    db.execute("ALTER TABLE conversations ADD COLUMN owner TEXT")


@migration
def m004_tool_call_traceback(db: sqlite3.Connection) -> None:
    """The traceback of a tool call that raised (``riverse logs --verbose``); empty for every other call."""
    db.execute("ALTER TABLE tool_calls ADD COLUMN traceback TEXT NOT NULL DEFAULT ''")


@migration
def m005_users(db: sqlite3.Connection) -> None:
    """The people who share one Riverse (``riverse users``): a token, kept as a hash, and an admin flag.
    ``session_hash`` is the hash of the browser cookie the sign-in form gives for the same token."""
    db.execute(
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            session_hash TEXT NOT NULL UNIQUE,
            admin INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        )
        """
    )


@migration
def m006_note_owner(db: sqlite3.Connection) -> None:
    """Whose note it is (a user's key); NULL for the notes of the machine's own user."""
    db.execute("ALTER TABLE notes ADD COLUMN owner TEXT")
    db.execute("CREATE INDEX notes_owner ON notes(owner, id)")


@migration
def m007_approvals(db: sqlite3.Connection) -> None:
    """Tool calls waiting for their owner's yes, no or always: in the store, so that any server process
    lists and answers them (the waiting turn learns of the answer from the store)."""
    db.executescript(
        """
        CREATE TABLE approvals (
            id TEXT PRIMARY KEY,
            conversation_id TEXT REFERENCES conversations(id) ON DELETE CASCADE,
            owner TEXT,
            request TEXT NOT NULL,
            answer TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX approvals_owner ON approvals(owner, expires_at);
        """
    )


@migration
def m008_tool_call_caller(db: sqlite3.Connection) -> None:
    """Who asked for a tool call from outside (``mcp:<client>`` for an MCP client); empty for Riverse's own calls."""
    db.execute("ALTER TABLE tool_calls ADD COLUMN caller TEXT NOT NULL DEFAULT ''")
