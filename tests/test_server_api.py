"""The server's HTTP API against the running application, with the scripted fake provider."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agent.app import App
from agent.providers.base import Capabilities
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.server import create_app
from agent.server.turns import FairGate
from tests.helpers.waiting import wait_until

BASE = "http://127.0.0.1:8787"
TOKEN = "test-token-0123456789abcdef"

WRITE_TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class NoteTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="save_note", description="Save a note", parameters={"text": "the note"},
                            examples=["note that I like tea", "remember to call Bob"], risk="write")

    def execute(self, params):
        return ToolResult(success=True, data="saved: " + params.get("text", ""))
'''

HIDDEN_TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class HiddenTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="hidden", description="Never available", parameters={},
                            examples=["hidden one", "hidden two"])

    def execute(self, params):
        return ToolResult(success=True, data="")

    def is_available(self):
        return False
'''


def client_for(provider: ScriptedProvider, home: Path, **overrides: Any) -> TestClient:
    app = App(home=str(home), provider=provider, overrides=overrides)
    return TestClient(create_app(app), base_url=BASE)


@pytest.fixture
def calc_client(riverse_home) -> Iterator[tuple[TestClient, ScriptedProvider]]:
    provider = ScriptedProvider([ToolCall("calculator", {"expression": "6*7"}), "6 times 7 is 42."])
    with client_for(provider, riverse_home) as client:
        yield client, provider


def chat(**extra: Any) -> dict[str, Any]:
    return {"model": "riverse", "messages": [{"role": "user", "content": "what is 6*7?"}], **extra}


def sse_data(lines: Iterator[str]) -> list[str]:
    return [line[len("data: "):] for line in lines if line.startswith("data: ")]


def page_events(response: Any) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of a /api/chat stream."""
    events: list[tuple[str, dict[str, Any]]] = []
    kind = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            kind = line[len("event: "):]
        elif line.startswith("data: "):
            events.append((kind, json.loads(line[len("data: "):])))
    return events


# --------------------------------------------------------------- chat completions
def test_tool_call_happens_and_is_reported(calc_client):
    client, provider = calc_client
    response = client.post("/v1/chat/completions", json=chat())
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "chat.completion"
    message = body["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert message["content"] == "6 times 7 is 42."
    assert body["choices"][0]["finish_reason"] == "stop"
    [call] = message["riverse_tool_calls"]
    assert (call["name"], call["params"], call["success"], call["data"], call["status"]) == (
        "calculator", {"expression": "6*7"}, True, "6*7 = 42", "ok")
    # The model saw the tool's result before answering.
    tool_messages = [m for m in provider.last_messages if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "6*7 = 42"
    cid = response.headers["X-Riverse-Conversation"]
    assert body["riverse_conversation_id"] == cid
    assert response.headers["X-Riverse-Queue-Wait-Ms"] == "0"
    # ... and the call was stored with the conversation.
    detail = client.get(f"/api/conversations/{cid}").json()
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
    assert [c["name"] for c in detail["messages"][1]["tool_calls"]] == ["calculator"]


def test_streaming_chunks_arrive_in_order_and_end_with_done(calc_client):
    client, _ = calc_client
    with client.stream("POST", "/v1/chat/completions", json=chat(stream=True)) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        data = sse_data(response.iter_lines())
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and len({c["id"] for c in chunks}) == 1 for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    steps = []
    for c in chunks[1:]:
        if "riverse_event" in c:
            steps.append(c["riverse_event"]["type"])
        elif c["choices"][0]["delta"].get("content"):
            steps.append("text")
        elif c["choices"][0]["finish_reason"] == "stop":
            steps.append("stop")
    assert steps[:2] == ["tool_start", "tool_end"]
    assert steps[-1] == "stop" and set(steps[2:-1]) == {"text"}
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "6 times 7 is 42."
    end = chunks[-1]
    assert [t["name"] for t in end["riverse_tool_calls"]] == ["calculator"]
    tool_end = next(c["riverse_event"] for c in chunks if c.get("riverse_event", {}).get("type") == "tool_end")
    assert tool_end["data"] == "6*7 = 42" and tool_end["duration_ms"] >= 0


@pytest.mark.parametrize(
    "body, status, code, param, message",
    [
        (b'{"model": "riverse", "messages": [', 400, "invalid_json", None, "not valid JSON"),
        (b"[1, 2]", 400, "invalid_json", None, "must be a JSON object"),
        (json.dumps(chat(model="gpt-9")).encode(), 404, "model_not_found", "model", "'gpt-9' does not exist"),
        (json.dumps({"model": "riverse"}).encode(), 400, "missing_required_parameter", "messages", "'messages' is required"),
        (json.dumps({"model": "riverse", "messages": []}).encode(), 400, "invalid_value", "messages", "non-empty list"),
        (json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(), 400, "missing_required_parameter",
         "model", "'model' is required"),
        (json.dumps({"model": "riverse", "messages": [{"role": "assistant", "content": "hi"}]}).encode(), 400,
         "invalid_value", "messages", "last message must be the user's"),
        (json.dumps({"model": "riverse", "messages": [{"role": "wizard", "content": "hi"}]}).encode(), 400,
         "invalid_value", "messages[0]", "role is one of"),
        (json.dumps(chat(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])).encode(),
         400, "unsupported_content", "messages[0].content", "only text parts"),
    ],
)
def test_bad_requests_get_openai_shaped_errors(calc_client, body, status, code, param, message):
    client, provider = calc_client
    response = client.post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", code, param)
    assert message in error["message"]
    assert provider.requests == []  # nothing reached the model


def test_over_long_input_is_refused(riverse_home):
    provider = ScriptedProvider(default="unused")
    with client_for(provider, riverse_home, **{"server.max_input_chars": 100}) as client:
        response = client.post("/v1/chat/completions", json=chat(messages=[{"role": "user", "content": "x" * 101}]))
        page = client.post("/api/chat", json={"message": "y" * 101})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
    assert "101 characters" in error["message"] and "at most 100" in error["message"]
    assert page.status_code == 400 and page.json()["error"]["code"] == "context_length_exceeded"
    assert provider.requests == []


def test_models_list_riverse_and_the_configured_model(riverse_home):
    with client_for(ScriptedProvider(), riverse_home, **{"llm.model": "qwen2.5:7b"}) as client:
        body = client.get("/v1/models").json()
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == ["riverse", "qwen2.5:7b"]


def test_unknown_routes_and_failed_turns_answer_in_the_same_shape(riverse_home):
    # An exhausted script is a provider error: the turn fails with a message that says why.
    with client_for(ScriptedProvider([]), riverse_home) as client:
        missing = client.get("/v1/nothing-here")
        failed = client.post("/v1/chat/completions", json=chat())
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
    assert failed.status_code == 502
    assert failed.json()["error"]["type"] == "model_error"
    assert "no response left" in failed.json()["error"]["message"]


# ----------------------------------------------------------------- conversations
def test_stateless_clients_keep_their_context_and_named_conversations_keep_theirs(riverse_home):
    provider = ScriptedProvider(["Your name is Ann.", "Still Ann.", "Noted."])
    with client_for(provider, riverse_home) as client:
        history = [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "My name is Ann."},
            {"role": "assistant", "content": "Hello Ann."},
            {"role": "user", "content": "What is my name?"},
        ]
        first = client.post("/v1/chat/completions", json=chat(messages=history))
        seen = [(m["role"], m["content"]) for m in provider.last_messages[1:]]
        assert seen == [("user", "My name is Ann."), ("assistant", "Hello Ann."), ("user", "What is my name?")]
        cid = first.headers["X-Riverse-Conversation"]
        # Naming the conversation: the server's history is used, the client sends only the new message.
        second = client.post("/v1/chat/completions", json=chat(messages=[{"role": "user", "content": "Sure?"}]),
                             headers={"X-Riverse-Conversation": cid})
        assert second.headers["X-Riverse-Conversation"] == cid
        assert [m["content"] for m in provider.last_messages[1:]][-3:] == ["What is my name?", "Your name is Ann.", "Sure?"]
        # A client-chosen id starts a conversation of that name.
        third = client.post("/v1/chat/completions", json=chat(conversation_id="my-notes.1"))
        assert third.json()["riverse_conversation_id"] == "my-notes.1"
        bad = client.post("/v1/chat/completions", json=chat(conversation_id="no spaces/please"))
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_conversation_id"
        listed = [c["id"] for c in client.get("/api/conversations").json()["conversations"]]
        assert set(listed) == {cid, "my-notes.1"}
        assert client.delete(f"/api/conversations/{cid}").json() == {"id": cid, "deleted": True}
        gone = client.get(f"/api/conversations/{cid}")
        assert gone.status_code == 404 and "GET /api/conversations lists them" in gone.json()["error"]["message"]
        assert client.delete(f"/api/conversations/{cid}").status_code == 404


def test_tools_endpoint_lists_manifests_availability_and_risk(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(WRITE_TOOL, encoding="utf-8")
    (riverse_home / "tools" / "hidden.py").write_text(HIDDEN_TOOL, encoding="utf-8")
    with client_for(ScriptedProvider(), riverse_home) as client:
        body = client.get("/api/tools").json()
        info = client.get("/api/info").json()
    tools = {t["name"]: t for t in body["tools"]}
    assert tools["calculator"]["available"] and tools["calculator"]["active"]
    assert tools["calculator"]["risk_level"] == "read"
    assert tools["save_note"]["risk"] == "write" and tools["save_note"]["origin"] == "user"
    assert tools["save_note"]["examples"] == ["note that I like tea", "remember to call Bob"]
    assert tools["hidden"]["available"] is False
    assert tools["hidden"]["reason"] == "is_available() returned False"
    assert info["tools"] == sum(1 for t in body["tools"] if t["active"])
    assert info["token_required"] is False


# --------------------------------------------------------------------- the page
def test_page_stream_reports_every_event_and_approvals_are_answered(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(WRITE_TOOL, encoding="utf-8")
    provider = ScriptedProvider([ToolCall("save_note", {"text": "tea"}), "Saved your note."])
    with client_for(provider, riverse_home) as client:
        answered: list[dict] = []
        client.get("/api/info")  # the session cookie first: the chat and the helper are then one client

        def answer_when_asked() -> None:
            wait_until(lambda: client.get("/api/approvals").json()["approvals"], "the approval request")
            [pending] = client.get("/api/approvals").json()["approvals"]
            answered.append(pending)
            bad = client.post(f"/api/approvals/{pending['id']}", json={"answer": "maybe"})
            assert bad.status_code == 400
            assert client.post(f"/api/approvals/{pending['id']}", json={"answer": "yes"}).json()["answer"] == "yes"

        helper = threading.Thread(target=answer_when_asked)
        helper.start()
        with client.stream("POST", "/api/chat", json={"message": "note that I like tea"}) as response:
            assert response.status_code == 200
            events = page_events(response)
        helper.join(10)
        assert client.post(f"/api/approvals/{answered[0]['id']}", json={"answer": "no"}).status_code == 404
    kinds = [k for k, _ in events]
    assert kinds[:3] == ["tool_start", "approval_request", "tool_end"]
    assert kinds[-1] == "done"
    request = events[1][1]
    assert (request["name"], request["params"], request["risk"]) == ("save_note", {"text": "tea"}, "write")
    assert request["id"] == answered[0]["id"]
    tool_end = events[2][1]
    assert (tool_end["success"], tool_end["data"], tool_end["approval"]) == (True, "saved: tea", "approved")
    assert events[-1][1]["answer"] == "Saved your note."
    assert "".join(d["text"] for k, d in events if k == "text") == "Saved your note."


def test_always_lasts_for_the_conversation_only(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(WRITE_TOOL, encoding="utf-8")
    call = ToolCall("save_note", {"text": "tea"})
    provider = ScriptedProvider([call, "Saved.", call, "Saved again.", call, "Not saved."])
    client = client_for(provider, riverse_home, **{"server.approval_timeout": 3.0})
    with client:
        client.get("/api/info")  # a client's session cookie comes with its first answer; its approvals are its own
        asked: list[str] = []

        def answer(reply: str) -> None:
            wait_until(lambda: client.get("/api/approvals").json()["approvals"], "the approval request")
            [pending] = client.get("/api/approvals").json()["approvals"]
            asked.append(pending["conversation_id"])
            client.post(f"/api/approvals/{pending['id']}", json={"answer": reply})

        helper = threading.Thread(target=answer, args=("always",))
        helper.start()
        first = client.post("/v1/chat/completions", json=chat(conversation_id="c1"))
        helper.join(10)
        again = client.post("/v1/chat/completions", json=chat(conversation_id="c1"))  # not asked again
        other = client.post("/v1/chat/completions", json=chat(conversation_id="c2"))  # asked; nobody answers
    approvals = [r.json()["choices"][0]["message"]["riverse_tool_calls"][0]["approval"] for r in (first, again, other)]
    assert approvals == ["approved-session", "approved-session", "refused"]
    assert asked == ["c1"]


def test_unanswered_approval_times_out_as_refused(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(WRITE_TOOL, encoding="utf-8")
    provider = ScriptedProvider([ToolCall("save_note", {"text": "tea"}), "I could not save it."])
    client = client_for(provider, riverse_home, **{"server.approval_timeout": 0.2})
    with client, client.stream("POST", "/api/chat", json={"message": "note that I like tea"}) as response:
        events = page_events(response)
    tool_end = next(d for k, d in events if k == "tool_end")
    assert (tool_end["success"], tool_end["status"]) == (False, "refused")
    notice = next(d for k, d in events if k == "notice")
    assert "nobody answered the approval request for tool 'save_note' within 0.2 s" in notice["text"]


# ------------------------------------------------------------------- concurrency
def test_conversations_do_not_block_each_other(riverse_home):
    entered, release = threading.Event(), threading.Event()

    def slow(messages, tools):
        entered.set()
        release.wait(20)
        return "slow answer"

    provider = ScriptedProvider([slow, "quick answer"])
    results: dict[str, Any] = {}
    with client_for(provider, riverse_home) as client:
        slow_thread = threading.Thread(
            target=lambda: results.setdefault("slow", client.post("/v1/chat/completions", json=chat())))
        slow_thread.start()
        assert entered.wait(10)
        quick = client.post("/v1/chat/completions", json=chat())
        assert quick.json()["choices"][0]["message"]["content"] == "quick answer"
        assert "slow" not in results  # the first turn is still running
        release.set()
        slow_thread.join(10)
    assert results["slow"].json()["choices"][0]["message"]["content"] == "slow answer"


def test_fair_gate_serves_waiters_in_arrival_order():
    gate = FairGate()
    order: list[int] = []
    release = threading.Event()

    def holder() -> None:
        with gate.hold() as waited:
            order.append(0 if waited == 0.0 else -1)
            release.wait(20)

    def waiter(n: int) -> None:
        with gate.hold() as waited:
            order.append(n if waited > 0 else -n)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    wait_until(lambda: order == [0], "the holder")
    for n in range(1, 6):
        threads.append(threading.Thread(target=waiter, args=(n,)))
        threads[-1].start()
        wait_until(lambda n=n: gate.waiting == n, f"waiter {n} to queue")
    release.set()
    for thread in threads:
        thread.join(10)
    assert order == [0, 1, 2, 3, 4, 5]
    assert gate.waiting == 0
    with gate.hold() as waited:  # free again: no wait
        assert waited == 0.0


def test_a_single_generation_model_queues_requests_and_says_how_long(riverse_home):
    entered, release = threading.Event(), threading.Event()

    def holding(messages, tools):
        entered.set()
        release.wait(20)
        return "first"

    provider = ScriptedProvider([holding, "second", "third"])
    provider.capabilities = Capabilities(native_tools=True, concurrency=1)  # as the embedded llama.cpp provider declares
    results: dict[str, Any] = {}
    with client_for(provider, riverse_home) as client:
        gate = client.app.state.turns.gate
        first = threading.Thread(target=lambda: results.setdefault("first", client.post("/v1/chat/completions", json=chat())))
        first.start()
        assert entered.wait(10)

        def streamed() -> None:
            with client.stream("POST", "/api/chat", json={"message": "second"}) as response:
                results["second"] = page_events(response)

        second = threading.Thread(target=streamed)
        second.start()
        wait_until(lambda: gate.waiting == 1, "the second turn to queue")
        third = threading.Thread(target=lambda: results.setdefault("third", client.post("/v1/chat/completions", json=chat())))
        third.start()
        wait_until(lambda: gate.waiting == 2, "the third turn to queue")
        release.set()
        for thread in (first, second, third):
            thread.join(10)
    assert results["first"].headers["X-Riverse-Queue-Wait-Ms"] == "0"
    # First come, first served: the turns got the model in the order they asked for it.
    assert [r["messages"][-1]["content"] for r in provider.requests] == ["what is 6*7?", "second", "what is 6*7?"]
    queue = [d for k, d in results["second"] if k == "queue"]
    assert len(queue) == 1 and queue[0]["wait_ms"] >= 1
    assert results["second"][-1][1]["answer"] == "second"
    assert int(results["third"].headers["X-Riverse-Queue-Wait-Ms"]) >= 1
    assert results["third"].json()["choices"][0]["message"]["content"] == "third"


# ------------------------------------------------------------------------ access
def test_with_a_token_every_request_needs_it(riverse_home):
    provider = ScriptedProvider(default="hello")
    with client_for(provider, riverse_home, **{"server.token": TOKEN}) as client:
        for method, path in [("GET", "/api/tools"), ("GET", "/v1/models"), ("POST", "/v1/chat/completions"),
                             ("GET", "/static/app.js"), ("GET", "/api/conversations")]:
            response = client.request(method, path, json=chat())
            assert response.status_code == 401, path
            assert response.json()["error"]["code"] == "invalid_api_key"
        assert client.get("/v1/models", headers={"Authorization": "Bearer wrong-token-0123456789"}).status_code == 401
        good = client.get("/v1/models", headers={"Authorization": f"Bearer {TOKEN}"})
        assert good.status_code == 200
        # A browser gets the sign-in form, then a cookie that is not the token itself.
        page = client.get("/", headers={"Accept": "text/html"})
        assert page.status_code == 401 and 'action="/login"' in page.text
        wrong = client.post("/login", content=b"token=nope", headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert wrong.status_code == 401 and "Wrong token" in wrong.text
        signed_in = client.post("/login", content=f"token={TOKEN}".encode(),
                                headers={"Content-Type": "application/x-www-form-urlencoded"}, follow_redirects=False)
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/"
        cookie = signed_in.cookies["riverse_session"]
        assert TOKEN not in cookie and "HttpOnly" in signed_in.headers["set-cookie"]
        assert client.get("/", headers={"Accept": "text/html"}).status_code == 200  # the cookie is kept
        info = client.get("/api/info")
        assert info.status_code == 200 and info.json()["token_required"] is True
        assert TOKEN not in info.text and TOKEN not in client.get("/api/tools").text


def test_other_sites_and_rebound_host_names_are_refused(calc_client):
    client, provider = calc_client
    cross = client.post("/api/chat", json={"message": "hi"}, headers={"Origin": "http://evil.example"})
    assert cross.status_code == 403 and cross.json()["error"]["code"] == "cross_origin"
    rebound = client.get("/api/tools", headers={"Host": "evil.example:8787"})
    assert rebound.status_code == 403 and "127.0.0.1 or localhost only" in rebound.json()["error"]["message"]
    same = client.get("/api/info", headers={"Origin": BASE})
    assert same.status_code == 200
    assert provider.requests == []
