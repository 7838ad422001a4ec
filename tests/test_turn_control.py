"""Controlling a turn from the page: Stop (only by its owner), answering again and editing a message,
and the model's readiness at start (``/api/status``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from starlette.testclient import TestClient

from agent.app import App
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.server import create_app
from agent.server.owners import CLIENT_COOKIE
from agent.server.readiness import Readiness
from agent.server.stopping import StoppableCursor, StoppableProvider, TurnStopped
from agent.server.turns import FairGate
from tests.helpers.slow import BLOCKING_TOOL, SlowProvider
from tests.helpers.waiting import wait_until
from tests.test_server_api import BASE, TOKEN

LONG = "This answer goes on and on. " * 40


@contextmanager
def clients(app: App, count: int, **headers: str) -> Iterator[list[TestClient]]:
    api = create_app(app)
    with ExitStack() as stack:
        yield [stack.enter_context(TestClient(api, base_url=BASE, headers=headers)) for _ in range(count)]


@contextmanager
def turn_in_background(client: TestClient, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Run a page turn in a thread; ``run["turn"]`` is its id once the headers came, ``run["events"]``
    its events once the block ends."""
    run: dict[str, Any] = {"events": []}
    headers_came = threading.Event()

    def go() -> None:
        with client.stream("POST", "/api/chat", json=body) as response:
            run["status"] = response.status_code
            run["turn"] = response.headers.get("X-Riverse-Turn")
            run["conversation"] = response.headers.get("X-Riverse-Conversation")
            headers_came.set()
            kind = ""
            for line in response.iter_lines():  # each event as it comes
                if line.startswith("event: "):
                    kind = line[len("event: "):]
                elif line.startswith("data: "):
                    run["events"].append((kind, json.loads(line[len("data: "):])))

    thread = threading.Thread(target=go)
    thread.start()
    try:
        assert headers_came.wait(20), "the turn's response did not start"
        yield run
    finally:
        thread.join(30)
    assert not thread.is_alive(), "the turn did not end"


def done_of(run: dict[str, Any]) -> dict[str, Any]:
    return next(d for kind, d in run["events"] if kind == "done")


# ---------------------------------------------------------------------------------- stop
def test_stop_mid_answer_stops_the_model_and_keeps_what_was_said(riverse_home):
    provider = SlowProvider([LONG])
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 1) as (client,):
        with turn_in_background(client, {"message": "tell me a long story"}) as run:
            wait_until(lambda: provider.written >= 3, "the answer to start streaming")
            stopped = client.post(f"/api/turns/{run['turn']}/stop")
        assert stopped.status_code == 200 and stopped.json() == {"id": run["turn"], "stopping": True}
        done = done_of(run)
        said = "".join(d["text"] for kind, d in run["events"] if kind == "text")
        assert done["stopped"] is True and done["answer"] == said
        assert 0 < len(said) < len(LONG) and LONG.startswith(said)
        assert provider.cut.is_set() and provider.written < len(LONG) // provider.piece
        detail = client.get(f"/api/conversations/{run['conversation']}").json()
        assert [(m["role"], m["content"]) for m in detail["messages"]] == [
            ("user", "tell me a long story"), ("assistant", said)]
        # The turn is over: stopping it again is refused like a turn that never was.
        assert client.post(f"/api/turns/{run['turn']}/stop").status_code == 404


def test_stop_abandons_a_running_tool_and_records_it_as_stopped(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "slow.py").write_text(BLOCKING_TOOL, encoding="utf-8")
    provider = ScriptedProvider([ToolCall("slow_job", {"what": "backup"}), "never said"])
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 1) as (client,):
        with turn_in_background(client, {"message": "run the long job"}) as run:
            wait_until(lambda: any(k == "tool_start" for k, _ in list(run["events"])), "the tool to start",
                       deadline_s=20)
            began = time.monotonic()
            assert client.post(f"/api/turns/{run['turn']}/stop").status_code == 200
        ended_within = time.monotonic() - began
    assert ended_within < 10  # the tool sleeps 30 s; the turn did not wait for it
    tool_end = next(d for kind, d in run["events"] if kind == "tool_end")
    assert (tool_end["status"], tool_end["success"]) == ("stopped", False)
    assert done_of(run)["stopped"] is True
    [stored] = app.store.tool_calls(tool="slow_job")
    assert (stored["status"], stored["success"], stored["conversation_id"]) == ("stopped", False, run["conversation"])
    assert len(provider.requests) == 1  # the model was not asked to answer after the stop


def test_stop_waiting_for_an_approval_refuses_it_and_ends_the_turn(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(_WRITE_TOOL, encoding="utf-8")
    app = App(home=str(riverse_home), provider=ScriptedProvider([ToolCall("save_note", {"text": "tea"}), "no"]))
    with clients(app, 1) as (client,):
        with turn_in_background(client, {"message": "note tea"}) as run:
            wait_until(lambda: client.get("/api/approvals").json()["approvals"], "the approval request")
            assert client.post(f"/api/turns/{run['turn']}/stop").status_code == 200
        assert client.get("/api/approvals").json()["approvals"] == []
    assert done_of(run)["stopped"] is True
    assert [c["status"] for c in app.store.tool_calls(tool="save_note")] == ["refused"]


_WRITE_TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class NoteTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="save_note", description="Save a note", parameters={"text": "the note"}, risk="write")

    def execute(self, params):
        return ToolResult(success=True, data="saved")
'''


def test_only_the_owner_of_a_turn_can_stop_it(riverse_home, attack_report):
    provider = SlowProvider([LONG], pause=0.01)
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 3) as (owner, intruder, forger):
        owner.get("/api/info")
        forger.cookies.set(CLIENT_COOKIE, "B" * 32)  # a session it made up
        with turn_in_background(owner, {"message": "a long story"}) as run:
            wait_until(lambda: provider.written >= 1, "the answer to start streaming")
            missing = intruder.post("/api/turns/0123456789abcdef0123456789abcdef/stop")
            escaped = []
            for client in (intruder, forger):
                for turn_id in (run["turn"], run["turn"].upper(), run["turn"] + "x", f"..%2F{run['turn']}"):
                    reply = client.post(f"/api/turns/{turn_id}/stop")
                    escaped.append(reply.status_code != 404)
                reply = client.post(f"/api/turns/{run['turn']}/stop")  # refused exactly like a turn that never was
                escaped.append(reply.json()["error"]["message"].replace(run["turn"], "X")
                               != missing.json()["error"]["message"].replace("0123456789abcdef0123456789abcdef", "X"))
    attack_report.record("server: another client stops the owner's turn (no token)", len(escaped), sum(escaped))
    assert sum(escaped) == 0, escaped
    done = done_of(run)
    assert done["stopped"] is False and done["answer"] == LONG and not provider.cut.is_set()


def test_with_a_token_only_its_holders_can_stop_a_turn(riverse_home, attack_report):
    provider = SlowProvider([LONG, LONG], pause=0.01)
    app = App(home=str(riverse_home), provider=provider, overrides={"server.token": TOKEN})
    api = create_app(app)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(api, base_url=BASE, headers=auth) as owner, TestClient(api, base_url=BASE) as stranger, \
            TestClient(api, base_url=BASE, headers={"Authorization": "Bearer wrong-token-0123456789abc"}) as guesser:
        with turn_in_background(owner, {"message": "a long story"}) as run:
            wait_until(lambda: provider.written >= 1, "the answer to start streaming")
            codes = [c.post(f"/api/turns/{run['turn']}/stop").status_code for c in (stranger, guesser)]
        assert done_of(run)["stopped"] is False
        escaped = [code not in (401, 403) for code in codes]
        attack_report.record("server: a client without the token stops a turn", len(escaped), sum(escaped))
        assert sum(escaped) == 0, codes
        # Every holder of the token is the one owner: another of its clients may stop the turn.
        with TestClient(api, base_url=BASE, headers=auth) as second:
            with turn_in_background(owner, {"message": "another long story"}) as run:
                wait_until(lambda: provider.written >= len(LONG) // provider.piece + 2, "the second answer")
                assert second.post(f"/api/turns/{run['turn']}/stop").status_code == 200
        assert done_of(run)["stopped"] is True


# ------------------------------------------------------------------------ answer again, edit
def chat_turn(client: TestClient, body: dict[str, Any]) -> tuple[int, str]:
    with client.stream("POST", "/api/chat", json=body) as response:
        status = response.status_code
        response.read()
    return status, response.headers.get("X-Riverse-Conversation", "")


def contents(client: TestClient, cid: str) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in client.get(f"/api/conversations/{cid}").json()["messages"]]


def test_answer_again_and_edit_replace_the_later_messages(riverse_home):
    provider = ScriptedProvider(["first answer", ToolCall("calculator", {"expression": "6*7"}), "it is 42",
                                 "a second try", "edited answer"])
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 1) as (client,):
        _, cid = chat_turn(client, {"message": "hello"})
        chat_turn(client, {"message": "what is 6*7?", "conversation_id": cid})
        assert [c["conversation_id"] for c in app.store.tool_calls(tool="calculator")] == [cid]
        status, _ = chat_turn(client, {"message": "what is 6*7?", "conversation_id": cid, "resend_from": 1})
        assert status == 200
        assert contents(client, cid) == [("user", "hello"), ("assistant", "first answer"),
                                         ("user", "what is 6*7?"), ("assistant", "a second try")]
        # The dropped answer's tool call left the conversation but stays in the log.
        assert [c["conversation_id"] for c in app.store.tool_calls(tool="calculator")] == [None]
        assert client.get(f"/api/conversations/{cid}").json()["messages"][3]["tool_calls"] == []
        chat_turn(client, {"message": "hi there", "conversation_id": cid, "resend_from": 0})
        assert contents(client, cid) == [("user", "hi there"), ("assistant", "edited answer")]
        assert provider.last_messages[-1] == {"role": "user", "content": "hi there"}
        assert [m["content"] for m in provider.last_messages if m["role"] != "system"] == ["hi there"]


@pytest.mark.parametrize("resend_from, status", [(-1, 400), (True, 400), ("0", 400), (1.5, 400), (5, 400)])
def test_resend_from_must_name_a_user_message(riverse_home, resend_from, status):
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="ok"))
    with clients(app, 1) as (client,):
        _, cid = chat_turn(client, {"message": "hello"})
        reply = client.post("/api/chat", json={"message": "x", "conversation_id": cid, "resend_from": resend_from})
        assert reply.status_code == status and reply.json()["error"]["param"] == "resend_from"
        assert client.post("/api/chat", json={"message": "x", "resend_from": 0}).status_code == 400
        assert contents(client, cid) == [("user", "hello"), ("assistant", "ok")]


def test_another_client_cannot_rewrite_a_conversation_nor_while_it_runs(riverse_home, attack_report):
    provider = SlowProvider(["ok", LONG], pause=0.01)
    app = App(home=str(riverse_home), provider=provider)
    with clients(app, 2) as (owner, intruder):
        _, cid = chat_turn(owner, {"message": "hello"})
        reply = intruder.post("/api/chat", json={"message": "mine now", "conversation_id": cid, "resend_from": 0})
        escaped = [reply.status_code != 404]
        attack_report.record("server: another client rewrites the owner's conversation", 1, sum(escaped))
        assert sum(escaped) == 0
        with turn_in_background(owner, {"message": "a long story", "conversation_id": cid}) as run:
            wait_until(lambda: provider.written >= 1, "the answer to start streaming")
            busy = owner.post("/api/chat", json={"message": "again", "conversation_id": cid, "resend_from": 0})
            owner.post(f"/api/turns/{run['turn']}/stop")
        assert busy.status_code == 409
        assert [m for m, _ in contents(owner, cid)] == ["user", "assistant", "user", "assistant"]
        assert contents(owner, cid)[0] == ("user", "hello")


# ----------------------------------------------------------------------- stopping, one level down
def test_a_stopped_provider_stops_between_pieces_and_before_each_step():
    stop = threading.Event()
    pieces: list[str] = []

    def listen(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 2:
            stop.set()

    provider = StoppableProvider(ScriptedProvider(["a" * 80]), stop)
    with pytest.raises(TurnStopped):
        provider.complete([{"role": "user", "content": "hi"}], on_text=listen)
    assert len(pieces) == 2
    with pytest.raises(TurnStopped):
        provider.complete([{"role": "user", "content": "hi"}])

    class Cursor:
        def __init__(self) -> None:
            self.steps = 0

        def mark(self) -> int:
            return 0

        def rewind(self, mark: int) -> None:
            pass

        def extend(self, text: str) -> None:
            self.steps += 1

        def option_logprobs(self, options: list[str]) -> dict[str, float]:
            self.steps += 1
            return {o: 0.0 for o in options}

        def until(self, stop: str, max_tokens: int = 48, **kwargs: Any) -> str:
            self.steps += 1
            return ""

    inner = Cursor()
    cursor_stop = threading.Event()
    cursor = StoppableCursor(inner, cursor_stop)
    cursor.extend("x")
    cursor.option_logprobs(["a"])
    cursor_stop.set()
    for step in (lambda: cursor.extend("y"), lambda: cursor.option_logprobs(["a"]), lambda: cursor.until("}")):
        with pytest.raises(TurnStopped):
            step()
    assert inner.steps == 2


# ------------------------------------------------------------------------------- readiness
def test_status_reports_each_language_as_it_is_prepared(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(), overrides={"language": "ja"})
    readiness = Readiness(app, FairGate())
    assert readiness.as_dict()["state"] == "starting"
    release = {lang: threading.Event() for lang in ("en", "zh", "ja")}
    seen: list[dict[str, Any]] = []

    def prepare_one(language: str) -> None:
        seen.append(readiness.as_dict())
        assert release[language].wait(10)

    worker = threading.Thread(target=readiness.run, args=(prepare_one,))
    worker.start()
    for language in ("ja", "en", "zh"):  # the server's own language first
        wait_until(lambda: readiness.as_dict()["current"] == language, f"preparing {language}")
        release[language].set()
    worker.join(10)
    assert [(s["state"], s["current"], s["prepared"]) for s in seen] == [
        ("preparing", "ja", []), ("preparing", "en", ["ja"]), ("preparing", "zh", ["ja", "en"])]
    assert readiness.as_dict()["state"] == "ready" and readiness.as_dict()["prepared"] == ["ja", "en", "zh"]


def test_status_of_a_model_with_nothing_to_prepare_or_preparing_turned_off(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider())
    with clients(app, 1) as (client,):
        wait_until(lambda: client.get("/api/status").json()["state"] == "ready", "the ready state")
        status = client.get("/api/status").json()
        assert status["model"] == "fake" and status["prepared"] == [] and status["error"] == ""
    off = App(home=str(riverse_home), provider=ScriptedProvider(), overrides={"server.prepare_at_start": False})
    with clients(off, 1) as (client,):
        assert client.get("/api/status").json()["state"] == "off"


def test_status_says_why_preparing_failed(riverse_home, monkeypatch):
    def broken(self):
        raise OSError("the model file is unreadable")

    monkeypatch.setattr(Readiness, "_preparer", broken)
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="still answers"))
    with clients(app, 1) as (client,):
        wait_until(lambda: client.get("/api/status").json()["state"] == "failed", "the failed state")
        assert client.get("/api/status").json()["error"] == "the model file is unreadable"
        with client.stream("POST", "/api/chat", json={"message": "hi"}) as response:
            body = response.read().decode()
        assert "still answers" in body  # turns go on; the first message prepares as before
