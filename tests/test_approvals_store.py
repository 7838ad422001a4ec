"""Approvals kept in the store: a turn waiting on one replica is woken by an answer given on another
(PostgreSQL's NOTIFY, not the once-a-second look at the store), on SQLite by the one process itself;
only the owner's answer counts, and an unanswered request runs out."""

from __future__ import annotations

import threading
import time

import pytest

from agent.server import approvals as approvals_module
from agent.server.approvals import Approvals
from agent.storage import open_store
from agent.toolkit.runtime import ApprovalRequest
from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.postgres
REQUEST = ApprovalRequest(name="shell_exec", params={"command": "ls"}, risk="execute", declared=True, description="")


@pytest.fixture(params=["sqlite", "postgresql"])
def two_replicas(request, tmp_path, monkeypatch):
    """The stores of two replicas (one and the same on SQLite, served by one process)."""
    monkeypatch.setattr(approvals_module, "POLL_S", 60.0)  # only a notification can wake a waiter in time
    if request.param == "sqlite":
        store = open_store(f"sqlite://{tmp_path}/r.db")
        yield store, store
        store.close()
        return
    url = request.getfixturevalue("pg_url")
    first, second = open_store(url), open_store(url)
    yield first, second
    first.close()
    second.close()


def wait_in_thread(approvals: Approvals, cid: str, owner: str | None) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run() -> None:
        started = time.monotonic()
        box["answer"] = approvals.wait_for(cid, owner, REQUEST, lambda pending: box.setdefault("id", pending.id))
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def test_an_answer_given_on_another_replica_wakes_the_waiting_turn(two_replicas):
    here_store, there_store = two_replicas
    here, there = Approvals(here_store, timeout=30), Approvals(there_store, timeout=30)
    cid = here_store.new_conversation(owner="alice")
    thread, box = wait_in_thread(here, cid, "alice")
    wait_until(lambda: there.pending("alice"), "the request, seen from the other replica")
    if here_store is not there_store:
        assert here_store.listening.wait(10), "the waiting replica is not listening"
    [pending] = there.pending("alice")
    assert pending.as_dict()["name"] == "shell_exec" and pending.as_dict()["params"] == {"command": "ls"}
    assert there.pending("bob") == [] and there.answer(pending.id, "yes", "bob") is False
    assert there.answer(pending.id, "always", "alice") is True
    thread.join(10)
    assert box["answer"] == "always" and box["seconds"] < 10
    assert here.pending("alice") == [] and there_store.approval_answer(pending.id) is None  # cleaned up


def test_an_unanswered_request_runs_out(two_replicas, monkeypatch):
    here_store, _ = two_replicas
    monkeypatch.setattr(approvals_module, "POLL_S", 0.05)
    here = Approvals(here_store, timeout=0.3)
    thread, box = wait_in_thread(here, here_store.new_conversation(), None)
    thread.join(10)
    assert box["answer"] == "" and here.answer(box["id"], "yes", None) is False


def test_deleting_the_conversation_refuses_its_waiting_request(two_replicas, monkeypatch):
    here_store, there_store = two_replicas
    monkeypatch.setattr(approvals_module, "POLL_S", 0.05)  # the waiter finds its request gone at its next look
    here = Approvals(here_store, timeout=30)
    cid = here_store.new_conversation()
    thread, box = wait_in_thread(here, cid, None)
    wait_until(lambda: "id" in box, "the request")
    assert there_store.delete_conversation(cid)
    thread.join(10)
    assert box["answer"] == ""
