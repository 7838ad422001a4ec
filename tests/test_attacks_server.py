"""Attacks on ``riverse serve``: other clients' approvals and conversations, oversized and malformed
bodies, requests from other sites, and a token on a loopback server."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import agent.server
from agent.app import App
from agent.cli import cli
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.server import ServerAccessError, create_app
from agent.server.access import token_from_file
from agent.server.errors import MAX_JSON_DEPTH
from agent.server.owners import CLIENT_COOKIE
from tests.helpers.live_server import serving
from tests.helpers.waiting import wait_until
from tests.test_server_api import BASE, TOKEN, WRITE_TOOL, chat, page_events

NOTE = ToolCall("save_note", {"text": "tea"})


def write_tool(home: Path) -> None:
    (home / "tools").mkdir(exist_ok=True)
    (home / "tools" / "note.py").write_text(WRITE_TOOL, encoding="utf-8")


@contextmanager
def clients(app: App, count: int, **headers: str) -> Iterator[list[TestClient]]:
    """``count`` clients of one server, each with its own cookies (its own session)."""
    api = create_app(app)
    with ExitStack() as stack:
        yield [stack.enter_context(TestClient(api, base_url=BASE, headers=headers)) for _ in range(count)]


@contextmanager
def streaming_turn(client: TestClient, body: dict[str, Any]) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Run a page turn in the background; the events are in the yielded list once the block ends."""
    events: list[tuple[str, dict[str, Any]]] = []

    def run() -> None:
        with client.stream("POST", "/api/chat", json=body) as response:
            events.extend(page_events(response))

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield events
    finally:
        thread.join(20)


def pending(client: TestClient) -> list[dict[str, Any]]:
    return client.get("/api/approvals").json()["approvals"]


def conversation_count(app: App) -> int:
    return len(app.store.conversations(limit=100_000))


# ------------------------------------------------------------------ row 11: owners
def intrusions(intruder: TestClient, approval: dict[str, Any]) -> list[bool]:
    """Everything a second client tries against the owner's turn; True for each that got through."""
    aid, cid = approval["id"], approval["conversation_id"]
    missing = intruder.post("/api/approvals/000000000000", json={"answer": "yes"})
    escaped = [bool(pending(intruder)),
               bool(intruder.get(f"/api/approvals?conversation_id={cid}").json()["approvals"])]
    for answer in ("yes", "always", "no"):
        reply = intruder.post(f"/api/approvals/{aid}", json={"answer": answer})
        # Indistinguishable from an approval that does not exist.
        message = reply.json().get("error", {}).get("message", "")
        same = (reply.status_code, message.replace(aid, "X")) == (
            missing.status_code, missing.json()["error"]["message"].replace("000000000000", "X"))
        escaped.append(reply.status_code != 404 or not same)
    listed = [c["id"] for c in intruder.get("/api/conversations").json()["conversations"]]
    escaped.append(cid in listed)
    escaped.append(intruder.get(f"/api/conversations/{cid}").status_code != 404)
    escaped.append(intruder.delete(f"/api/conversations/{cid}").status_code != 404)
    escaped.append(intruder.post("/api/chat", json={"message": "hi", "conversation_id": cid}).status_code != 404)
    escaped.append(intruder.post("/v1/chat/completions", json=chat(),
                                 headers={"X-Riverse-Conversation": cid}).status_code != 404)
    return escaped


def test_without_a_token_another_client_cannot_see_or_answer_the_owners_approvals(riverse_home, attack_report):
    write_tool(riverse_home)
    provider = ScriptedProvider([NOTE, "Saved your note."])
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 3) as (owner, intruder, forger):
        owner.get("/api/info")
        forger.cookies.set(CLIENT_COOKIE, "A" * 32)  # a session it made up
        with streaming_turn(owner, {"message": "note that I like tea"}) as events:
            wait_until(lambda: pending(owner), "the owner's approval request")
            [approval] = pending(owner)
            escaped = intrusions(intruder, approval) + intrusions(forger, approval)
            escaped.append(not pending(owner))  # the owner's request is still waiting, unanswered
            answered = owner.post(f"/api/approvals/{approval['id']}", json={"answer": "yes"})
        detail = owner.get(f"/api/conversations/{approval['conversation_id']}")
    attack_report.record("server: another client answers or reads the owner's turn (no token)", len(escaped),
                         sum(escaped))
    assert sum(escaped) == 0, escaped
    assert answered.status_code == 200 and detail.status_code == 200
    assert "owner" not in detail.json()  # the owner's key stays on the server
    tool_end = next(d for k, d in events if k == "tool_end")
    assert (tool_end["success"], tool_end["approval"]) == (True, "approved")
    assert len(provider.requests) == 2  # the owner's turn only: nothing the intruders sent reached the model


def test_always_lasts_for_the_client_that_said_it(riverse_home, attack_report):
    """A conversation from the command line has no owner; one client's "always" there is not another's."""
    write_tool(riverse_home)
    provider = ScriptedProvider([NOTE, "Saved.", NOTE, "Not saved."])
    app = App(home=str(riverse_home), provider=provider, overrides={"server.approval_timeout": 0.3})
    cid = app.store.new_conversation("from the command line")
    with clients(app, 2) as (owner, other):
        owner.get("/api/info")
        with streaming_turn(owner, {"message": "note tea", "conversation_id": cid}):
            wait_until(lambda: pending(owner), "the owner's approval request")
            owner.post(f"/api/approvals/{pending(owner)[0]['id']}", json={"answer": "always"})
        with other.stream("POST", "/api/chat", json={"message": "note tea", "conversation_id": cid}) as response:
            events = page_events(response)
    tool_end = next(d for k, d in events if k == "tool_end")
    escaped = int(tool_end["approval"] != "refused")
    attack_report.record("server: another client's 'always' runs a write tool", 1, escaped)
    assert escaped == 0 and [k for k, _ in events][:2] == ["tool_start", "approval_request"]


def test_a_conversation_stays_its_clients_after_a_restart(riverse_home, attack_report):
    provider = ScriptedProvider(default="noted")
    with clients(App(home=str(riverse_home), provider=provider), 1) as (owner,):
        cid = owner.post("/v1/chat/completions", json=chat()).headers["X-Riverse-Conversation"]
        session = owner.cookies[CLIENT_COOKIE]
    cli_cid = App(home=str(riverse_home), provider=provider).agent().ask("from the command line").conversation_id
    with clients(App(home=str(riverse_home), provider=provider), 2) as (owner, stranger):
        owner.cookies.set(CLIENT_COOKIE, session)
        mine = {c["id"] for c in owner.get("/api/conversations").json()["conversations"]}
        theirs = {c["id"] for c in stranger.get("/api/conversations").json()["conversations"]}
        again = owner.post("/v1/chat/completions", json=chat(), headers={"X-Riverse-Conversation": cid})
        refused = stranger.post("/v1/chat/completions", json=chat(), headers={"X-Riverse-Conversation": cid})
    escaped = int(cid in theirs) + int(refused.status_code != 404)
    attack_report.record("server: another client reads or continues a conversation after a restart", 2, escaped)
    assert escaped == 0
    assert mine == {cid, cli_cid} and theirs == {cli_cid}  # the command line's conversation has no owner
    assert again.status_code == 200 and again.headers["X-Riverse-Conversation"] == cid
    assert "no conversation" in refused.json()["error"]["message"]


def test_with_a_token_its_holder_owns_everything_and_nobody_else_gets_anything(riverse_home, attack_report):
    write_tool(riverse_home)
    provider = ScriptedProvider([NOTE, "Saved your note."])
    app = App(home=str(riverse_home), provider=provider, overrides={"server.token": TOKEN})
    with clients(app, 3) as (api_client, page, intruder):
        api_client.headers["Authorization"] = f"Bearer {TOKEN}"
        page.post("/login", content=f"token={TOKEN}".encode(),
                  headers={"Content-Type": "application/x-www-form-urlencoded"})
        with streaming_turn(api_client, {"message": "note that I like tea"}) as events:
            wait_until(lambda: pending(page), "the approval request, seen by the signed-in page")
            [approval] = pending(page)
            aid, cid = approval["id"], approval["conversation_id"]
            tries = [("GET", "/api/approvals", {}), ("POST", f"/api/approvals/{aid}", {"answer": "always"}),
                     ("GET", "/api/conversations", None), ("GET", f"/api/conversations/{cid}", None),
                     ("DELETE", f"/api/conversations/{cid}", None)]
            escaped = []
            for auth in ({}, {"Authorization": "Bearer wrong-token-0123456789"},
                         {"Cookie": "riverse_session=" + "0" * 64}, {"Cookie": f"{CLIENT_COOKIE}={'A' * 32}"}):
                for method, path, body in tries:
                    reply = intruder.request(method, path, json=body, headers=auth)
                    escaped.append(reply.status_code != 401)
            assert page.post(f"/api/approvals/{aid}", json={"answer": "yes"}).status_code == 200
    attack_report.record("server: a client without the token reaches a turn", len(escaped), sum(escaped))
    assert sum(escaped) == 0
    assert next(d for k, d in events if k == "tool_end")["approval"] == "approved"


# --------------------------------------------------------------- row 13: big bodies
def call_asgi(api: Any, path: str, headers: list[tuple[bytes, bytes]], body_size: int,
              chunk: int = 65536) -> tuple[int, dict[str, Any], int]:
    """POST ``body_size`` bytes to ``path``, handing out the body only when the app asks for it.
    Returns the status, the JSON answer and how many body bytes the app pulled."""
    pulled = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        size = min(chunk, body_size - pulled)
        pulled += size
        return {"type": "http.request", "body": b" " * size, "more_body": pulled < body_size}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
             "headers": [(b"host", b"127.0.0.1:8787"), (b"content-type", b"application/json"), *headers],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8787)}
    asyncio.run(api(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body), pulled


@pytest.mark.parametrize("token", [None, TOKEN])
def test_big_bodies_are_refused_before_they_are_read(riverse_home, attack_report, token):
    provider = ScriptedProvider(default="unused")
    app = App(home=str(riverse_home), provider=provider, overrides={"server.token": token})
    api = create_app(app)
    limit = app.settings.server.max_body_bytes
    auth = [(b"authorization", f"Bearer {TOKEN}".encode())] if token else []
    attempts = escapes = 0
    for size in (10 * 2**20, 50 * 2**20):
        # Every path that reads a body (the sign-in form exists with a token only).
        for path in ("/v1/chat/completions", "/api/chat", "/api/approvals/abc", *(["/login"] if token else [])):
            declared = call_asgi(api, path, [(b"content-length", str(size).encode()), *auth], size)
            chunked = call_asgi(api, path, [(b"transfer-encoding", b"chunked"), *auth], size)
            for status, body, pulled, most in ((*declared, 0), (*chunked, limit + 65536)):
                attempts += 1
                escapes += status != 413 or pulled > most
                assert body["error"]["code"] == "request_too_large"
                assert f"at most {limit} bytes (server.max_body_bytes)" in body["error"]["message"]
    attack_report.record("server: request bodies of 10 and 50 MB", attempts, escapes)
    assert escapes == 0
    assert provider.requests == [] and conversation_count(app) == 0


def test_a_body_under_the_limit_is_read_as_before(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="fine"),
              overrides={"server.max_body_bytes": 4096})
    with clients(app, 1) as (client,):
        small = client.post("/v1/chat/completions", json=chat())
        big = client.post("/v1/chat/completions", json=chat(messages=[{"role": "user", "content": "x" * 5000}]))
    assert small.status_code == 200 and small.json()["choices"][0]["message"]["content"] == "fine"
    assert big.status_code == 413 and "at most 4096 bytes" in big.json()["error"]["message"]


def test_a_declared_50_mb_body_is_refused_by_the_live_server_before_it_is_sent(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="unused"))
    with serving(app) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}:{port}\r\n"
                         "Content-Type: application/json\r\nContent-Length: 52428800\r\n\r\n".encode())
            answer = b""
            while b"\r\n\r\n" not in answer:  # no body byte was sent; the answer comes all the same
                answer += conn.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413 ")


# ------------------------------------------------------- row 14: deep JSON, surrogates
def deep(depth: int, kind: str) -> bytes:
    opening, closing = ("[", "]") if kind == "array" else ('{"a":', "}")
    return opening.encode() * depth + b"1" + closing.encode() * depth


MALFORMED = {
    "array nested 100k deep": b'{"model": "riverse", "messages": ' + deep(100_000, "array") + b"}",
    "object nested 100k deep": b'{"model": "riverse", "messages": [{"role": "user", "content": "hi", "x": '
                               + deep(100_000, "object") + b"}]}",
    "one level too deep": b'{"model": "riverse", "x": ' + deep(MAX_JSON_DEPTH, "array") + b"}",
    "a lone high surrogate": json.dumps(chat(messages=[{"role": "user", "content": "tea \ud800"}])).encode(),
    "a lone low surrogate": json.dumps(chat(messages=[{"role": "user", "content": "\udfff"}])).encode(),
    "a reversed pair": json.dumps(chat(messages=[{"role": "user", "content": "\ude00\ud83d"}])).encode(),
    "a surrogate in the history": json.dumps(chat(messages=[{"role": "user", "content": "\ud800"},
                                                            {"role": "user", "content": "hi"}])).encode(),
    "a surrogate in a key": json.dumps({**chat(), "\ud800": 1}).encode(),
    "a surrogate in UTF-8 bytes": b'{"model": "riverse", "messages": [{"role": "user", "content": "\xed\xa0\x80"}]}',
}


def test_deep_json_and_lone_surrogates_get_400_and_leave_nothing_behind(riverse_home, attack_report):
    provider = ScriptedProvider(default="fine")
    app = App(home=str(riverse_home), provider=provider)
    escaped = []
    with clients(app, 1) as (client,):
        for name, body in MALFORMED.items():
            for path in ("/v1/chat/completions", "/api/chat"):
                payload = body.replace(b'"messages"', b'"message"', 1) if path == "/api/chat" else body
                reply = client.post(path, content=payload, headers={"Content-Type": "application/json"})
                error = reply.json()["error"]
                ok = reply.status_code == 400 and error["code"] in ("invalid_json", "invalid_unicode")
                escaped.append((name, path) if not ok or conversation_count(app) else None)
        fine = client.post("/v1/chat/completions", json=chat(messages=[{"role": "user", "content": "tea 😀"}]))
    attack_report.record("server: JSON nested deep, lone surrogates", len(escaped), sum(e is not None for e in escaped))
    assert [e for e in escaped if e] == []
    assert provider.requests[0]["messages"][-1]["content"] == "tea 😀" and len(provider.requests) == 1
    assert fine.status_code == 200 and conversation_count(app) == 1


def test_the_400_says_what_is_wrong_and_how_to_fix_it(riverse_home):
    with clients(App(home=str(riverse_home), provider=ScriptedProvider()), 1) as (client,):
        surrogate = client.post("/v1/chat/completions", content=MALFORMED["a lone high surrogate"],
                                headers={"Content-Type": "application/json"}).json()["error"]
        nested = client.post("/api/chat", content=MALFORMED["array nested 100k deep"],
                             headers={"Content-Type": "application/json"}).json()["error"]
    assert surrogate["code"] == "invalid_unicode"
    assert "\\ud800 in messages[0].content" in surrogate["message"] and "send the text as UTF-8" in surrogate["message"]
    assert nested["code"] == "invalid_json"
    assert f"more than {MAX_JSON_DEPTH} levels deep; send it flatter" in nested["message"]


# -------------------------------------------------------- row 15: other sites' POSTs
def test_a_post_from_another_site_is_refused_even_without_an_origin(riverse_home, attack_report):
    write_tool(riverse_home)
    provider = ScriptedProvider(default="fine")
    app = App(home=str(riverse_home), provider=provider)
    cid = app.store.new_conversation("kept")
    attempts = escapes = 0
    with clients(app, 1) as (client,):
        for site in ("cross-site", "same-site", "Cross-Site", " same-site "):
            for method, path, body in (("POST", "/api/chat", {"message": "hi"}), ("POST", "/v1/chat/completions", chat()),
                                       ("POST", "/api/approvals/abc", {"answer": "yes"}),
                                       ("DELETE", f"/api/conversations/{cid}", None), ("PUT", "/api/chat", {}),
                                       ("PATCH", "/api/chat", {})):
                reply = client.request(method, path, json=body, headers={"Sec-Fetch-Site": site})
                attempts += 1
                escapes += reply.status_code != 403 or reply.json()["error"]["code"] != "cross_origin"
        same_origin = client.post("/v1/chat/completions", json=chat(), headers={"Sec-Fetch-Site": "same-origin"})
        typed = client.post("/v1/chat/completions", json=chat(), headers={"Sec-Fetch-Site": "none"})
        read = client.get("/api/info", headers={"Sec-Fetch-Site": "cross-site"})  # the browser hides the answer
    attack_report.record("server: state-changing requests marked Sec-Fetch-Site cross-site or same-site",
                         attempts, escapes)
    assert escapes == 0
    assert same_origin.status_code == 200 and typed.status_code == 200 and read.status_code == 200
    assert len(provider.requests) == 2 and app.store.get_conversation(cid) is not None


# ------------------------------------------------------- a token on a loopback server
def test_a_token_file_is_made_private_with_a_new_token_then_read(tmp_path):
    path = tmp_path / "server-token"
    token, created = token_from_file(path)
    assert created and len(token) >= 32 and path.read_text(encoding="utf-8").strip() == token
    assert path.stat().st_mode & 0o777 == 0o600
    assert token_from_file(path) == (token, False)


@pytest.mark.parametrize("language, expected", [("en", "chmod 600"), ("zh", "请执行 chmod 600"), ("ja", "chmod 600")])
def test_a_token_file_others_can_read_is_refused(tmp_path, language, expected):
    path = tmp_path / "server-token"
    path.write_text("some-token-0123456789abcdef\n", encoding="utf-8")
    path.chmod(0o644)
    with pytest.raises(ServerAccessError, match=expected) as caught:
        token_from_file(path, language)
    assert "0644" in str(caught.value) and "some-token" not in str(caught.value)
    path.chmod(0o600)
    path.write_text("  \n", encoding="utf-8")
    with pytest.raises(ServerAccessError, match="holds no token"):
        token_from_file(path)
    with pytest.raises(ServerAccessError, match="No such file or directory"):
        token_from_file(tmp_path / "missing-folder" / "token")


def test_serve_with_a_token_file_on_loopback_shows_a_new_token_once(riverse_home, monkeypatch, attack_report):
    built: list[App] = []

    class Stopped:
        def run(self) -> None:
            pass

    monkeypatch.setattr(agent.server, "build_server", lambda app: built.append(app) or Stopped())
    path = riverse_home / "server-token"
    runner = CliRunner()
    first = runner.invoke(cli, ["-p", "fake", "serve", "--token-file", str(path)])
    second = runner.invoke(cli, ["-p", "fake", "serve", "--token-file", str(path)])
    token = path.read_text(encoding="utf-8").strip()
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert f"this is the one time it is shown: {token}" in first.output and token not in second.output
    assert [app.settings.server.token for app in built] == [token, token]
    assert built[0].settings.server.host == "127.0.0.1"
    # The loopback server now refuses local clients without the token.
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="hello"), overrides={"server.token": token})
    with serving(app) as base:
        replies = [httpx.get(f"{base}/api/conversations"), httpx.post(f"{base}/v1/chat/completions", json=chat()),
                   httpx.get(f"{base}/api/approvals")]
        good = httpx.get(f"{base}/api/conversations", headers={"Authorization": f"Bearer {token}"})
    escapes = sum(r.status_code != 401 for r in replies)
    attack_report.record("server: a local client without the token on a loopback server with one",
                         len(replies), escapes)
    assert escapes == 0 and good.status_code == 200
