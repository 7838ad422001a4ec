"""Tool calls waiting for their owner's yes, no or always, kept in the store.

A turn that needs approval writes the request to the store (table ``approvals``) and waits. Whoever
owns it may list and answer it through any server process using the same store: on PostgreSQL the
answer is announced with ``NOTIFY`` and every replica's listener wakes the turn that waits, on
SQLite the one server process is told directly. A waiting turn also reads its request back from the
store every :data:`POLL_S` seconds, so an announcement lost with a dropped connection delays an
answer by at most that long. Nobody but the owner can see or answer a request (the store checks the
owner in the same statement that records the answer).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.storage import Store
from agent.toolkit.runtime import ApprovalRequest

POLL_S = 1.0


@dataclass
class PendingApproval:
    """A tool call parked until its owner answers (or the time runs out)."""

    id: str
    conversation_id: str
    owner: str | None  # the key of the client whose turn asks; None: the machine's own user
    request: dict[str, Any]  # name, params, risk, declared, description
    expires_at: float

    @classmethod
    def of(cls, conversation_id: str, owner: str | None, request: ApprovalRequest, timeout: float) -> "PendingApproval":
        fields = {"name": request.name, "params": request.params, "risk": request.risk,
                  "declared": request.declared, "description": request.description}
        return cls(uuid.uuid4().hex[:12], conversation_id, owner, fields, time.time() + timeout)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "conversation_id": self.conversation_id, **self.request,
                "expires_in": max(0, round(self.expires_at - time.time()))}


class Approvals:
    """The tool calls waiting for a decision, answered by the client whose turn asks, and by no other."""

    def __init__(self, store: Store, timeout: float):
        self.store = store
        self.timeout = timeout
        self._lock = threading.Lock()
        self._waiting: dict[str, threading.Event] = {}
        store.on_notify(self._answered)

    def _answered(self, approval_id: str) -> None:
        with self._lock:
            event = self._waiting.get(approval_id)
        if event is not None:
            event.set()

    def wait_for(self, conversation_id: str, owner: str | None, request: ApprovalRequest,
                 announce: Callable[[PendingApproval], None]) -> str:
        """Store the request, announce it, and block until it is answered; "" when the time ran out."""
        pending = PendingApproval.of(conversation_id, owner, request, self.timeout)
        event = threading.Event()
        with self._lock:
            self._waiting[pending.id] = event
        try:
            self.store.add_approval(pending.id, conversation_id, owner, pending.request, pending.expires_at)
            announce(pending)
            while (remaining := pending.expires_at - time.time()) > 0:
                event.wait(min(remaining, POLL_S))
                event.clear()  # before reading: an answer stored after this read sets it again
                answer = self.store.approval_answer(pending.id)
                if answer is None:  # gone with its conversation
                    return ""
                if answer:
                    return answer
            return ""
        finally:
            with self._lock:
                self._waiting.pop(pending.id, None)
            self.store.drop_approval(pending.id)

    def answer(self, approval_id: str, answer: str, owner: str | None) -> bool:
        """Answer a pending request of ``owner``'s; False when ``owner`` has none with this id (answered,
        expired, or another client's: the same answer, so nobody learns which)."""
        return self.store.answer_approval(approval_id, owner, answer)

    def pending(self, owner: str | None, conversation_id: str | None = None) -> list[PendingApproval]:
        """``owner``'s pending requests (in one conversation, when given), from every server process."""
        return [PendingApproval(row["id"], row["conversation_id"], row["owner"], row["request"], row["expires_at"])
                for row in self.store.pending_approvals(owner, conversation_id)]
