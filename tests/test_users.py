"""Users on one server: ``riverse users``, tokens kept hashed, each user's data that user's alone, the
admin API, and ``riverse db copy`` (SQLite here; into PostgreSQL too when it is installed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from agent.app import App
from agent.cli import cli
from agent.providers.fake import ScriptedProvider
from agent.server import create_app
from agent.server.access import ServerAccessError, check_bind
from agent.storage import open_store
from agent.storage.note_store import NoteStore
from agent.toolkit.runtime import ToolOutcome
from agent.users import add_user, hash_token, owner_key
from tests.helpers.replica import route

BASE = "http://127.0.0.1:8787"


def server(home: Path, isolation: str = "thread") -> TestClient:
    app = App(home=str(home), provider=ScriptedProvider([], default=route), overrides={"runtime.isolation": isolation})
    return TestClient(create_app(app), base_url=BASE)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def chat(client: TestClient, token: str, text: str, cid: str) -> dict:
    reply = client.post("/v1/chat/completions", headers={**bearer(token), "X-Riverse-Conversation": cid},
                        json={"model": "riverse", "messages": [{"role": "user", "content": text}]})
    return {"status": reply.status_code, "answer": reply.json().get("choices", [{}])[0].get("message", {}).get("content")}


def test_users_add_list_remove_from_the_command_line(riverse_home):
    runner = CliRunner()
    added = runner.invoke(cli, ["users", "add", "alice", "--admin"])
    assert added.exit_code == 0, added.output
    token = re.search(r"^([A-Za-z0-9_-]{40,})$", added.output, re.M).group(1)
    listed = runner.invoke(cli, ["users", "list", "--json"])
    assert '"name": "alice"' in listed.output and '"admin": true' in listed.output and token not in listed.output
    store = open_store(riverse_home / "riverse.db")
    assert store.user_by_hash(token_hash=hash_token(token))["name"] == "alice"
    assert token not in (riverse_home / "riverse.db").read_bytes().decode("latin-1")
    again = runner.invoke(cli, ["users", "add", "alice"])
    assert again.exit_code == 1 and "already a user named 'alice'" in again.output
    bad = runner.invoke(cli, ["-l", "ja", "users", "add", "a b"])
    assert bad.exit_code == 1 and "ユーザー名として使えません" in bad.output
    assert runner.invoke(cli, ["users", "remove", "alice"]).exit_code == 0
    gone = runner.invoke(cli, ["users", "remove", "alice"])
    assert gone.exit_code == 1 and "no user named 'alice'" in gone.output
    assert "No users" in runner.invoke(cli, ["users", "list"]).output


def test_logs_of_one_user(riverse_home):
    store = open_store(riverse_home / "riverse.db")
    add_user(store, "alice")
    cid = store.new_conversation(owner=owner_key(store.user_named("alice")))
    store.add_tool_call(cid, ToolOutcome("calculator", {"expression": "1+1"}, True, data="2"))
    store.add_tool_call(None, ToolOutcome("shell_exec", {"command": "ls"}, True, data="x"))
    runner = CliRunner()
    mine = runner.invoke(cli, ["logs", "--user", "alice", "--json"])
    assert mine.exit_code == 0 and '"calculator"' in mine.output and "shell_exec" not in mine.output
    assert "shell_exec" in runner.invoke(cli, ["logs", "--json"]).output
    nobody = runner.invoke(cli, ["logs", "--user", "zed"])
    assert nobody.exit_code == 1 and "no user named 'zed'" in nobody.output


def test_without_users_a_loopback_server_answers_as_before(riverse_home):
    with server(riverse_home) as client:
        assert client.get("/api/conversations").status_code == 200
        assert client.post("/v1/chat/completions", json={"model": "riverse", "messages": [
            {"role": "user", "content": "hello"}]}).json()["choices"][0]["message"]["content"].startswith("I have seen")


def test_with_users_the_single_server_token_opens_nothing(riverse_home):
    add_user(open_store(riverse_home / "riverse.db"), "alice")
    token = "the-old-shared-token-0123456789"
    app = App(home=str(riverse_home), provider=ScriptedProvider([], default=route), overrides={"server.token": token})
    with TestClient(create_app(app), base_url=BASE) as client:
        assert client.get("/api/conversations", headers=bearer(token)).status_code == 401
        assert client.post("/login", data={"token": token}).status_code == 401


def test_with_users_every_request_is_one_users_and_sees_only_theirs(riverse_home, attack_report):
    store = open_store(riverse_home / "riverse.db")
    machine = store.new_conversation(title="the command line's")  # no owner: not a user's
    NoteStore(store).add("the machine's own note about the passport")
    alice, bob = add_user(store, "alice"), add_user(store, "bob")
    NoteStore(store, owner_key(store.user_named("alice"))).add("alice's passport is in the drawer")
    attempts = escapes = 0
    with server(riverse_home, isolation="process") as client:  # the notes tool runs in a worker process
        assert client.get("/api/conversations").status_code == 401  # loopback no longer opens it
        assert chat(client, alice, "hello", "alice-1")["answer"] == "I have seen 1 messages: hello"
        assert "in the drawer" in chat(client, alice, "find passport", "alice-2")["answer"]
        mine = {c["id"] for c in client.get("/api/conversations", headers=bearer(alice)).json()["conversations"]}
        assert mine == {"alice-1", "alice-2"}  # not the command line's
        tries = [
            client.get(f"/api/conversations/{machine}", headers=bearer(alice)).status_code == 404,
            client.get("/api/conversations/alice-1", headers=bearer(bob)).status_code == 404,
            client.delete("/api/conversations/alice-1", headers=bearer(bob)).status_code == 404,
            chat(client, bob, "continue", "alice-1")["status"] == 404,
            client.get("/api/conversations", headers=bearer(bob)).json()["conversations"] == [],
            client.get("/api/logs", headers=bearer(bob)).json()["tool_calls"] == [],
            client.get("/api/users", headers=bearer(bob)).status_code == 403,
            client.post("/api/users", headers=bearer(bob), json={"name": "mallory", "admin": True}).status_code == 403,
        ]
        attempts, escapes = len(tries), tries.count(False)
        found = chat(client, bob, "find passport", "bob-1")["answer"]
        assert found.startswith("Done: ")  # the notes tool ran, for bob
        attempts += 1
        escapes += "drawer" in found or "machine's own" in found
    attack_report.record("server: one user against another's and the machine's data (SQLite)", attempts, escapes)
    assert escapes == 0


def test_an_admin_manages_users_over_http_and_a_signed_in_browser_is_its_user(riverse_home):
    store = open_store(riverse_home / "riverse.db")
    admin = add_user(store, "root-admin", admin=True)
    with server(riverse_home) as client:
        assert client.get("/api/info", headers=bearer(admin)).json()["token_required"] is True
        made = client.post("/api/users", headers=bearer(admin), json={"name": "carol"}).json()
        assert made["name"] == "carol" and made["admin"] is False
        assert client.get("/api/conversations", headers=bearer(made["token"])).status_code == 200
        assert [u["name"] for u in client.get("/api/users", headers=bearer(admin)).json()["users"]] == \
            ["carol", "root-admin"]
        assert client.post("/login", data={"token": "wrong"}).status_code == 401
        signed = client.post("/login", data={"token": made["token"]}, follow_redirects=False)
        cookie = signed.cookies.get("riverse_session")
        assert signed.status_code == 303 and cookie and made["token"] not in cookie
        assert client.get("/api/conversations").status_code == 200  # the cookie is carol's
        client.cookies.clear()
        assert client.delete("/api/users/carol", headers=bearer(admin)).json()["removed"] is True
        assert client.get("/api/conversations", headers=bearer(made["token"])).status_code == 401


def test_a_server_with_users_may_listen_beyond_loopback_without_a_server_token():
    with pytest.raises(ServerAccessError):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", None, has_users=True)


def _fill(store) -> None:
    cid = store.new_conversation(owner="user:1")
    store.add_message(cid, "user", "hello")
    store.add_message(cid, "assistant", "hi")
    NoteStore(store, "user:1").add("a note")
    add_user(store, "alice", admin=True)


def test_db_copy_copies_everything_and_says_what(riverse_home, tmp_path):
    _fill(open_store(riverse_home / "riverse.db"))
    target = f"sqlite://{tmp_path}/copy.db"
    result = CliRunner().invoke(cli, ["db", "copy", "--to", target])
    assert result.exit_code == 0, result.output
    assert "1 conversations, 2 messages, 0 tool_calls, 1 notes, 1 users" in result.output
    copied = open_store(target)
    [conversation] = copied.conversations()
    assert [m.content for m in copied.messages(conversation["id"])] == ["hello", "hi"]
    assert copied.add_message(conversation["id"], "user", "next") == 3  # new ids follow the copied ones
    again = CliRunner().invoke(cli, ["db", "copy", "--to", target])
    assert again.exit_code == 1 and "already holds data" in again.output


@pytest.mark.postgres
def test_db_copy_into_postgresql(riverse_home, pg_url):
    _fill(open_store(riverse_home / "riverse.db"))
    result = CliRunner().invoke(cli, ["db", "copy", "--to", pg_url])
    assert result.exit_code == 0, result.output
    assert "1 conversations, 2 messages, 0 tool_calls, 1 notes, 1 users" in result.output
    assert "***@127.0.0.1" in result.output and pg_url.split(":")[2].split("@")[0] not in result.output
    copied = open_store(pg_url)
    [conversation] = copied.conversations()
    assert copied.add_message(conversation["id"], "user", "next") == 3
    assert NoteStore(copied, "user:1").add("another").id == 2
    assert copied.user_named("alice")["admin"] is True


@pytest.mark.postgres
def test_a_database_that_goes_away_is_a_clear_503_without_its_password(riverse_home, pg_cluster, pg_url):
    import psycopg

    store = open_store(pg_url)
    token = add_user(store, "alice")
    store.close()
    app = App(home=str(riverse_home), provider=ScriptedProvider([], default=route),
              overrides={"storage.url": pg_url, "runtime.isolation": "thread"})
    admin_url = pg_cluster.url_for("postgres")
    with TestClient(create_app(app), base_url=BASE) as client:
        assert client.get("/api/conversations", headers=bearer(token)).status_code == 200
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute("ALTER DATABASE riverse_test ALLOW_CONNECTIONS false")
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'riverse_test'")
        try:
            replies = [client.get("/api/conversations", headers=bearer(token)) for _ in range(2)]
        finally:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute("ALTER DATABASE riverse_test ALLOW_CONNECTIONS true")
        for reply in replies:
            assert reply.status_code == 503
            error = reply.json()["error"]
            assert error["code"] == "storage_unavailable" and "PostgreSQL database" in error["message"]
            assert pg_cluster.password not in reply.text
        assert client.get("/api/conversations", headers=bearer(token)).status_code == 200  # back again
    app.store.close()


PEEK_TOOL = '''
import json

from agent.tools import BaseTool, ToolManifest, ToolResult


class Peek(BaseTool):
    def manifest(self):
        return ToolManifest(name="peek", description="Show my config", parameters={}, examples=["peek", "peek now"])

    def execute(self, params):
        return ToolResult(success=True, data=json.dumps(self.config))
'''


def test_only_the_notes_tool_is_handed_the_database_address(riverse_home, attack_report):
    from agent.config import load_settings
    from agent.tools import ToolRegistry

    (riverse_home / "settings.yaml").write_text(
        "storage:\n  url: postgresql://riverse:pg-secret-9@db.example/riverse\nruntime:\n  isolation: thread\n")
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "peek.py").write_text(PEEK_TOOL)
    settings = load_settings()
    registry = ToolRegistry(settings.config_for_tools(), user_folder=settings.user_tools_dir, packages=False)
    seen = registry.get("peek").execute({}).data
    notes = registry.get("notes").tool_config("notes")
    attack_report.record("tools: another tool reads the database's address", 1, int("pg-secret-9" in seen))
    assert "pg-secret-9" not in seen and "storage_url" not in seen
    assert notes["storage_url"] == "postgresql://riverse:pg-secret-9@db.example/riverse"
