"""Two ``riverse serve`` replicas, each a process of its own, on one PostgreSQL, driven by the official
``openai`` client: a conversation goes on from one to the other, an approval raised on one is answered
on the other, a replica that dies keeps what it stored, and one user reaches nothing of another's."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import openai
import pytest

from agent.storage import open_store
from agent.users import add_user
from tests.helpers.replica import replica
from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parent.parent
CONVERSATION = "X-Riverse-Conversation"


def replica_home(tmp_path: Path, name: str, url: str) -> Path:
    home = tmp_path / name
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text(f"storage:\n  url: {url}\nruntime:\n  isolation: thread\n")
    return home


@pytest.fixture
def team(tmp_path, pg_url):
    """Two replicas on one database, and the tokens of two users, alice and bob."""
    store = open_store(pg_url)
    tokens = {"alice": add_user(store, "alice"), "bob": add_user(store, "bob")}
    store.close()
    with replica(replica_home(tmp_path, "a", pg_url), ROOT) as (a, proc_a), \
            replica(replica_home(tmp_path, "b", pg_url), ROOT) as (b, _):
        yield {"a": a, "b": b, "proc_a": proc_a, "url": pg_url, **tokens}


def ask(base: str, token: str, text: str, conversation: str) -> str:
    client = openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0)
    reply = client.chat.completions.create(model="riverse", messages=[{"role": "user", "content": text}],
                                           extra_headers={CONVERSATION: conversation})
    return reply.choices[0].message.content or ""


def api(base: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_a_conversation_started_on_one_replica_goes_on_on_the_other(team):
    assert ask(team["a"], team["alice"], "My name is Ada", "trip") == "I have seen 1 messages: My name is Ada"
    # Replica b has never seen this conversation: it reads it from the store.
    assert ask(team["b"], team["alice"], "What is my name?", "trip") == \
        "I have seen 2 messages: My name is Ada | What is my name?"
    with api(team["a"], team["alice"]) as alice:
        detail = alice.get("/api/conversations/trip").json()
    assert [m["content"] for m in detail["messages"]] == [
        "My name is Ada", "I have seen 1 messages: My name is Ada",
        "What is my name?", "I have seen 2 messages: My name is Ada | What is my name?"]


def test_an_approval_raised_on_one_replica_is_answered_on_the_other(team):
    stream_done: dict[str, str] = {}
    events: list[dict] = []

    def alice_on_a() -> None:
        client = openai.OpenAI(base_url=f"{team['a']}/v1", api_key=team["alice"], max_retries=0)
        stream = client.chat.completions.create(
            model="riverse", stream=True, extra_headers={CONVERSATION: "passport"},
            messages=[{"role": "user", "content": "note my passport expires in May"}])
        text = []
        for chunk in stream:
            extra = chunk.model_extra or {}
            if extra.get("riverse_event"):
                events.append(extra["riverse_event"])
            text.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
        stream_done["answer"] = "".join(text)

    worker = threading.Thread(target=alice_on_a)
    worker.start()
    with api(team["b"], team["alice"]) as alice_b, api(team["b"], team["bob"]) as bob_b, \
            api(team["a"], team["bob"]) as bob_a:
        wait_until(lambda: alice_b.get("/api/approvals").json()["approvals"], "alice's approval on replica b", 30)
        [pending] = alice_b.get("/api/approvals").json()["approvals"]
        assert (pending["name"], pending["conversation_id"]) == ("notes", "passport")
        # Bob sees nothing of it on either replica, and cannot answer it.
        assert bob_b.get("/api/approvals").json()["approvals"] == []
        assert bob_a.get("/api/approvals").json()["approvals"] == []
        for answer in ("yes", "always", "no"):
            assert bob_b.post(f"/api/approvals/{pending['id']}", json={"answer": answer}).status_code == 404
        assert alice_b.post(f"/api/approvals/{pending['id']}", json={"answer": "yes"}).status_code == 200
        worker.join(30)
        assert not worker.is_alive()
        assert stream_done["answer"].startswith("Done: ") and "my passport expires in May" in stream_done["answer"]
        assert [e["type"] for e in events][:2] == ["tool_start", "approval_request"]
        # The note is alice's: found by her on replica b, not by bob.
        assert "passport expires in May" in ask(team["b"], team["alice"], "find passport", "find-a")
        assert "passport expires in May" not in ask(team["b"], team["bob"], "find passport", "find-b")


def test_one_user_reaches_nothing_of_another_users(team, attack_report):
    ask(team["a"], team["alice"], "my secret plan", "alice-plan")
    ask(team["a"], team["alice"], "calc", "alice-calc")
    attempts = escapes = 0
    with api(team["b"], team["bob"]) as bob:
        tries = [bob.get("/api/conversations/alice-plan").status_code == 404,
                 bob.delete("/api/conversations/alice-plan").status_code == 404,
                 not any(c["id"].startswith("alice") for c in bob.get("/api/conversations").json()["conversations"]),
                 bob.get("/api/logs").json()["tool_calls"] == [],
                 bob.get("/api/users").status_code == 403]
        attempts += len(tries)
        escapes += tries.count(False)
        with pytest.raises(openai.NotFoundError):  # continuing alice's conversation under its id
            ask(team["b"], team["bob"], "what was the plan?", "alice-plan")
        attempts += 1
    with api(team["a"], team["alice"]) as alice:
        assert [c["name"] for c in alice.get("/api/logs").json()["tool_calls"]] == ["calculator"]
        assert len(alice.get("/api/conversations/alice-plan").json()["messages"]) == 2  # bob added nothing
    for base in (team["a"], team["b"]):
        for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Bearer {team['alice']}x"},
                        {"Cookie": "riverse_session=" + "0" * 64}):
            status = httpx.get(f"{base}/api/conversations", headers=headers).status_code
            attempts += 1
            escapes += status != 401
    attack_report.record("server: one user against another's data, across two replicas", attempts, escapes)
    assert escapes == 0


def test_a_replica_that_dies_mid_turn_loses_no_stored_message(team):
    def turn_on_a() -> None:
        try:
            ask(team["a"], team["alice"], "note the boat leaves at 9", "boat")
        except (openai.APIConnectionError, openai.APIError):
            pass  # its replica died under it

    worker = threading.Thread(target=turn_on_a)
    worker.start()
    with api(team["b"], team["alice"]) as alice_b:
        wait_until(lambda: alice_b.get("/api/approvals").json()["approvals"], "the turn waiting on replica a", 30)
        team["proc_a"].kill()  # replica a dies while its turn waits for approval
        team["proc_a"].wait(10)
        worker.join(30)
        detail = alice_b.get("/api/conversations/boat").json()
        assert [m["content"] for m in detail["messages"]] == ["note the boat leaves at 9"]
        # The conversation goes on, on replica b.
        assert ask(team["b"], team["alice"], "and then?", "boat") == \
            "I have seen 2 messages: note the boat leaves at 9 | and then?"
