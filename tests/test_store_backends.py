"""One suite, two backends: every store test runs against SQLite and against a real PostgreSQL
(a throwaway cluster from tests/helpers/postgres.py; skipped with its reason when PostgreSQL is not
installed, which .ci/run does)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from agent.config import SettingsError, load_settings
from agent.storage import StorageError, check_url, open_store
from agent.storage.migrations import MIGRATIONS, migrate
from agent.storage.note_store import NoteStore
from agent.storage.pg_migrations import PG_MIGRATIONS
from agent.toolkit.runtime import ToolOutcome
from agent.users import add_user, hash_session, hash_token, session_of

pytestmark = pytest.mark.postgres


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/store.db"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(store_url):
    opened = open_store(store_url)
    yield opened
    opened.close()


def outcome(name: str, **fields) -> ToolOutcome:
    return ToolOutcome(name, fields.pop("params", {"x": 1}), fields.pop("success", True), **fields)


def test_both_backends_implement_every_method_of_the_store_interface():
    from agent.storage.base import Store
    from agent.storage.postgres import PostgresStore
    from agent.storage.sqlite import SQLiteStore

    wanted = {name for name, value in vars(Store).items() if callable(value) and not name.startswith("_")}
    assert {"add_message", "answer_approval", "pending_approvals", "user_by_hash", "on_notify"} <= wanted
    for backend in (SQLiteStore, PostgresStore):
        assert [name for name in sorted(wanted) if not callable(getattr(backend, name, None))] == []


def test_both_backends_have_the_same_named_migrations_in_the_same_order():
    assert [fn.__name__ for fn in MIGRATIONS] == [name for name, _ in PG_MIGRATIONS]


def test_migrations_run_once_and_are_recorded(store_url):
    first = open_store(store_url)
    names = [name for name, _ in PG_MIGRATIONS]
    assert first.applied == names and first.migrations() == names
    first.close()
    again = open_store(store_url)
    assert again.applied == [] and again.migrations() == names
    again.close()


def test_an_old_sqlite_database_gets_only_the_new_migrations(tmp_path):
    db = sqlite3.connect(tmp_path / "old.db")
    for fn in MIGRATIONS[:4]:  # a database from before users, note owners, stored approvals and callers
        fn(db)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    db.executemany("INSERT INTO _migrations VALUES (?, 0)", [(fn.__name__,) for fn in MIGRATIONS[:4]])
    db.execute("INSERT INTO notes (text, folded, created_at) VALUES ('kept', 'kept', 1)")
    db.commit()
    assert migrate(db) == ["m005_users", "m006_note_owner", "m007_approvals", "m008_tool_call_caller"]
    store = open_store(tmp_path / "old.db")
    assert [n.text for n in NoteStore(store).latest(5)] == ["kept"]


def test_conversations_messages_and_history(store):
    cid = store.new_conversation(owner="alice")
    store.add_message(cid, "user", "first question")
    store.add_message(cid, "assistant", "first answer")
    store.add_message(cid, "user", "second question")
    assert [m.content for m in store.messages(cid)] == ["first question", "first answer", "second question"]
    assert store.history(cid, 1) == [{"role": "assistant", "content": "first answer"},
                                     {"role": "user", "content": "second question"}]
    conversation = store.get_conversation(cid)
    assert conversation["title"] == "first question" and conversation["owner"] == "alice"
    assert store.latest_conversation() == cid
    assert store.ensure_conversation(cid) == cid
    assert store.ensure_conversation("chosen-id", owner="bob") == "chosen-id"
    assert store.get_conversation("chosen-id")["owner"] == "bob"


def test_conversations_listed_by_owner(store):
    mine = store.new_conversation(owner="alice")
    theirs = store.new_conversation(owner="bob")
    shared = store.new_conversation()
    assert {c["id"] for c in store.conversations()} == {mine, theirs, shared}
    assert {c["id"] for c in store.conversations(owner="alice")} == {mine, shared}
    assert {c["id"] for c in store.conversations(owner="alice", shared=False)} == {mine}


def test_deleting_a_conversation_deletes_its_messages_and_keeps_its_tool_calls(store):
    cid = store.new_conversation()
    store.add_message(cid, "user", "hello")
    call = store.add_tool_call(cid, outcome("calculator"))
    assert store.delete_conversation(cid) is True
    assert store.delete_conversation(cid) is False
    assert store.messages(cid) == []
    kept = store.tool_calls()
    assert [c["id"] for c in kept] == [call] and kept[0]["conversation_id"] is None


def test_tool_calls_filtered_and_shaped(store):
    alice = store.new_conversation(owner="alice")
    bob = store.new_conversation(owner="bob")
    store.add_tool_call(alice, outcome("calculator", params={"expression": "2+2"}, data="4"))
    store.add_tool_call(bob, outcome("shell_exec", success=False, error="refused", status="refused",
                                     traceback="Traceback: boom"))
    store.add_tool_call(None, outcome("calculator"))
    calls = store.tool_calls()
    assert [c["name"] for c in calls] == ["calculator", "shell_exec", "calculator"]
    assert calls[2]["params"] == {"expression": "2+2"} and calls[2]["success"] is True and calls[2]["data"] == "4"
    assert calls[1]["success"] is False and calls[1]["traceback"] == "Traceback: boom"
    assert [c["name"] for c in store.tool_calls(tool="calculator")] == ["calculator", "calculator"]
    assert [c["conversation_id"] for c in store.tool_calls(conversation=bob)] == [bob]
    assert [c["name"] for c in store.tool_calls(owner="alice")] == ["calculator"]
    assert store.tool_calls(owner="carol") == []


def test_notes_belong_to_their_owner(store):
    mine, theirs, machine = NoteStore(store, "alice"), NoteStore(store, "bob"), NoteStore(store)
    passport = mine.add("My passport expires in May 2027")
    mine.add("护照放在书房的抽屉里")
    theirs.add("Bob's passport expires in June")
    machine.add("The garage code is 4471")
    assert [n.text for n in mine.search("when does my passport expire?", 5)] == ["My passport expires in May 2027"]
    assert [n.text for n in mine.search("我的护照在哪里？", 5)] == ["护照放在书房的抽屉里"]
    assert [n.text for n in theirs.search("passport", 5)] == ["Bob's passport expires in June"]
    assert [n.text for n in machine.latest(5)] == ["The garage code is 4471"]
    assert (mine.count(), theirs.count(), machine.count()) == (2, 1, 1)
    # Bob cannot read or delete Alice's note by its number.
    assert theirs.get(passport.id) is None and theirs.delete(passport.id) is None
    assert mine.get(passport.id).text == passport.text
    assert mine.delete(passport.id).id == passport.id and mine.count() == 1


def test_users_are_kept_by_the_hash_of_their_token(store):
    token = add_user(store, "alice", admin=True)
    add_user(store, "bob")
    assert [(u["name"], u["admin"]) for u in store.users()] == [("alice", True), ("bob", False)]
    assert store.count_users() == 2
    assert store.user_by_hash(token_hash=hash_token(token))["name"] == "alice"
    assert store.user_by_hash(session_hash=hash_session(session_of(token)))["name"] == "alice"
    assert store.user_by_hash(token_hash=hash_token(token + "x")) is None
    assert store.user_by_hash() is None
    dumped = repr(store.query("SELECT * FROM users"))
    assert token not in dumped and session_of(token) not in dumped  # only hashes are stored
    assert store.remove_user("alice") is True and store.remove_user("alice") is False
    assert store.user_by_hash(token_hash=hash_token(token)) is None


def test_approvals_are_answered_by_their_owner_only(store):
    cid = store.new_conversation(owner="alice")
    request = {"name": "shell_exec", "params": {"command": "ls"}, "risk": "execute"}
    store.add_approval("a1", cid, "alice", request, time.time() + 60)
    store.add_approval("m1", cid, None, request, time.time() + 60)
    assert [p["id"] for p in store.pending_approvals("alice")] == ["a1"]
    assert store.pending_approvals("alice")[0]["request"] == request
    assert [p["id"] for p in store.pending_approvals(None)] == ["m1"]
    assert store.pending_approvals("bob") == [] and store.pending_approvals("alice", "other") == []
    assert store.answer_approval("a1", "bob", "yes") is False
    assert store.answer_approval("a1", None, "yes") is False  # the machine's user is not alice either
    assert store.approval_answer("a1") == ""
    assert store.answer_approval("a1", "alice", "always") is True
    assert store.answer_approval("a1", "alice", "no") is False  # answered once
    assert store.approval_answer("a1") == "always" and store.pending_approvals("alice") == []
    store.drop_approval("a1")
    assert store.approval_answer("a1") is None


def test_an_expired_approval_cannot_be_answered(store):
    cid = store.new_conversation()
    store.add_approval("old", cid, "alice", {"name": "x"}, time.time() - 1)
    assert store.pending_approvals("alice") == []
    assert store.answer_approval("old", "alice", "yes") is False


def test_an_answer_is_announced_to_every_process_using_the_store(store_url, store):
    """On PostgreSQL a second store (another replica) hears it through LISTEN/NOTIFY; on SQLite the
    answering process itself is told."""
    listener = open_store(store_url) if store.backend == "postgresql" else store
    heard: list[str] = []
    got = threading.Event()
    listener.on_notify(lambda approval_id: (heard.append(approval_id), got.set()))
    cid = store.new_conversation()
    store.add_approval("n1", cid, None, {"name": "x"}, time.time() + 60)
    if store.backend == "postgresql":
        assert listener.listening.wait(10), "the listener did not start"
    assert store.answer_approval("n1", None, "yes")
    assert got.wait(10), "no notification arrived"
    assert "n1" in heard
    if listener is not store:
        listener.close()


def test_storage_url_is_checked_with_a_clear_error(tmp_path):
    for bad in ("mysql://x/y", "sqlite:/relative.db", "postgresql://", "not a url://"):
        with pytest.raises(StorageError, match="storage.url .* sqlite:///"):
            check_url(bad)
    (tmp_path / "settings.yaml").write_text("storage:\n  url: mysql://admin:hunter2@db/riverse\n")
    with pytest.raises(SettingsError, match=r"storage.url: .*postgresql://USER:PASSWORD@HOST") as caught:
        load_settings(tmp_path / "settings.yaml", home=tmp_path)
    assert "hunter2" not in str(caught.value) and "mysql://admin:***@db/riverse" in str(caught.value)
    home = tmp_path / "home"
    settings = load_settings(home=home, env={"RIVERSE_DATABASE_URL": "postgresql://u@db.example/riverse"})
    assert settings.storage_url == "postgresql://u@db.example/riverse"
    assert load_settings(home=home, env={}).storage_url == f"sqlite://{home}/riverse.db"


def test_a_postgresql_that_is_down_is_named_without_its_password(pg_cluster):
    url = f"postgresql://riverse:s3cret-pw@127.0.0.1:{_closed_port()}/riverse"
    with pytest.raises(StorageError) as caught:
        open_store(url)
    message = str(caught.value)
    assert "cannot open the PostgreSQL database postgresql://riverse:***@127.0.0.1" in message
    assert "s3cret-pw" not in message and "check that the server runs" in message


def test_a_wrong_password_says_so(pg_cluster):
    with pytest.raises(StorageError) as caught:
        open_store(pg_cluster.url_for("riverse_test", password="wrong-password"))
    assert "password authentication failed" in str(caught.value)
    assert "wrong-password" not in str(caught.value)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
