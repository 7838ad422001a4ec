"""Running agent turns for the server: worker threads, live events, approvals and a fair model queue.

``Agent.ask`` is synchronous and may take seconds (a model generating, a tool running, a user deciding
on an approval), so each turn runs in a worker thread and reports its events to the event loop through
an asyncio queue. Conversations therefore never wait for each other, except for a model that can only
generate one answer at a time (the embedded llama.cpp model declares ``concurrency=1`` in its
capabilities): every use of it passes a first-come, first-served gate, and a turn that had to wait
says how long. That gate is this process's own: each replica of a server queues for its own model,
and replicas that share one inference server are queued by that server.

Nothing a turn needs lives only here: its conversation, messages and tool calls are in the store as
they happen, and its approval requests too (:mod:`agent.server.approvals`), so any replica lists and
answers them and any replica continues the conversation afterwards.

A turn belongs to the client that started it (``owner``, a key from :mod:`agent.server.owners`; None for
the token's holder): only that client lists and answers its pending approvals, and "always" lasts for
that client's turns in that conversation only, on this replica (another replica asks again).
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from agent.app import App
from agent.errors import RiverseError
from agent.loop import Agent, Event, TurnResult
from agent.providers.base import (
    Completion,
    PrefixCache,
    Provider,
    ProviderError,
    ReplyCursor,
    SentenceVectors,
    capabilities_of,
    needed_prefix_cache,
    needed_vectors,
    scored_decoding,
)
from agent.server.approvals import Approvals, PendingApproval
from agent.server.errors import ApiError
from agent.router.texts import PREPARING
from agent.server.usage import CountingProvider
from agent.server.owners import Client
from agent.server.stopping import StoppableProvider, TurnStopped
from agent.toolkit.base import acting_for
from agent.toolkit.runtime import ApprovalRequest

log = logging.getLogger("riverse.server")

ANSWERS = ("yes", "no", "always")


class FairGate:
    """A lock that serves waiters in the order they arrived.

    ``threading.Lock`` wakes an arbitrary waiter, so under load one conversation could wait for ever
    behind luckier ones. Here every waiter takes a place in a queue and the holder hands the lock
    straight to the first one when it is done. The holder may enter again (a decision holds the model
    while it also asks for a sentence vector); only its outermost hold queues and releases.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[threading.Event] = deque()
        self._busy = False
        self._owner: int | None = None
        self._depth = 0

    @property
    def waiting(self) -> int:
        """How many callers are queued behind the current holder."""
        return len(self._queue)

    @contextmanager
    def hold(self) -> Iterator[float]:
        """Hold the gate; yields how many milliseconds this caller queued (0.0 when it went straight in)."""
        me = threading.get_ident()
        if self._owner == me:  # only the holder itself can see itself as the owner
            self._depth += 1
            try:
                yield 0.0
            finally:
                self._depth -= 1
            return
        ticket = threading.Event()
        with self._lock:
            queued = self._busy
            if queued:
                self._queue.append(ticket)
            else:
                self._busy = True
        started = time.perf_counter()
        if queued:
            ticket.wait()
        waited = (time.perf_counter() - started) * 1000 if queued else 0.0
        self._owner = me
        try:
            yield waited
        finally:
            self._owner = None
            with self._lock:
                if self._queue:
                    self._queue.popleft().set()
                else:
                    self._busy = False


class QueuedProvider:
    """A provider seen through a :class:`FairGate`: every use of the model (answers, decisions,
    sentence vectors, prompt preparation) waits its turn, and every wait is reported to ``on_wait``
    (milliseconds). It declares the capabilities of the provider it wraps, no more."""

    def __init__(self, provider: Provider, gate: FairGate, on_wait: Callable[[float], None]):
        self._provider = provider
        self._gate = gate
        self._on_wait = on_wait
        self.name = provider.name
        self.capabilities = capabilities_of(provider)

    @contextmanager
    def _turn(self) -> Iterator[None]:
        with self._gate.hold() as waited_ms:
            if waited_ms:
                self._on_wait(waited_ms)
            yield

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Completion:
        with self._turn():
            return self._provider.complete(messages, **kwargs)

    @contextmanager
    def open_reply(self, messages: list[dict[str, Any]], *, keep: int = 0) -> Iterator[ReplyCursor]:
        scored = scored_decoding(self._provider)
        if scored is None:
            raise ProviderError(f"provider {self.name} has no scored decoding")
        with self._turn(), scored.open_reply(messages, keep=keep) as cursor:
            yield cursor

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        with self._turn():
            return self._vectors().embed(texts, keep=keep)

    def has_embedded(self, texts: list[str]) -> bool:
        with self._turn():
            return self._vectors().has_embedded(texts)

    def load(self) -> None:
        with self._turn():
            self._cache().load()

    def has_prefix(self, messages: list[dict[str, Any]]) -> bool:
        with self._turn():
            return self._cache().has_prefix(messages)

    def prepare_prefix(self, messages: list[dict[str, Any]]) -> None:
        with self._turn():
            self._cache().prepare_prefix(messages)

    def leaves_room(self, messages: list[dict[str, Any]], room: int) -> bool:
        with self._turn():
            return self._cache().leaves_room(messages, room)

    def _vectors(self) -> SentenceVectors:
        return needed_vectors(self._provider, self.name)

    def _cache(self) -> PrefixCache:
        return needed_prefix_cache(self._provider, self.name)


@dataclass
class TurnEvent:
    """What a client is told while a turn runs: ``text``, ``tool_start``, ``tool_end``,
    ``approval_request``, ``notice``, ``queue``, then ``done`` (``stopped`` true when the user stopped
    it) or ``error``. A notice the page words itself carries a ``code`` (``preparing``,
    ``approval_timeout``) besides its text."""

    kind: str
    data: dict[str, Any]


class Turn:
    """One running turn: its events for the event loop, and how long it queued for the model."""

    def __init__(self, conversation_id: str, loop: asyncio.AbstractEventLoop, owner: str | None,
                 acting: str | None = None, prompt_texts: list[str] | None = None):
        self.id = uuid.uuid4().hex
        self.conversation_id = conversation_id
        self.owner = owner
        self.acting = acting  # whose notes the turn's tools keep (a user's key; None: the machine's user)
        self.stop = threading.Event()  # set by the user's Stop (see agent.server.stopping)
        self.said = ""  # the answer's text streamed so far, kept when the turn is stopped
        self.prompt_texts = prompt_texts or []  # what the client sent: counted when the provider reports no usage
        self.counter: CountingProvider | None = None
        self.queue_wait_ms = 0.0
        self.approval_ids: list[str] = []
        self._loop = loop
        self._events: asyncio.Queue[TurnEvent] = asyncio.Queue()

    # --- called from the worker thread
    def emit(self, kind: str, **data: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(self._events.put_nowait, TurnEvent(kind, data))
        except RuntimeError:  # the server stopped while the turn was still running
            pass

    def on_agent_event(self, event: Event) -> None:
        if event.kind == "tool_end" and event.outcome is not None:
            self.emit("tool_end", **event.outcome.as_dict())  # a stopped tool's end is still shown
            return
        if self.stop.is_set():
            raise TurnStopped("the turn was stopped")
        if event.kind == "tool_start":
            self.emit("tool_start", name=event.name, params=event.params)
        elif event.kind == "notice" and event.text in PREPARING.values():
            self.emit("notice", text=event.text, code="preparing")
        else:  # text, notice
            if event.kind == "text":
                self.said += event.text
            self.emit(event.kind, text=event.text)

    @property
    def waited_ms(self) -> int:
        """Milliseconds this turn queued for the model, rounded up: any wait at all shows."""
        return math.ceil(self.queue_wait_ms)

    def on_wait(self, waited_ms: float) -> None:
        self.queue_wait_ms += waited_ms
        self.emit("queue", wait_ms=math.ceil(waited_ms), total_wait_ms=self.waited_ms)

    def finish(self, result: TurnResult) -> None:
        usage = self.counter.usage(self.prompt_texts, result.answer) if self.counter is not None else None
        self.emit("done", answer=result.answer, conversation_id=result.conversation_id,
                  tool_calls=[o.as_dict() for o in result.tool_calls], queue_wait_ms=self.waited_ms, stopped=False,
                  usage=usage)

    def stopped(self) -> None:
        self.emit("done", answer=self.said, conversation_id=self.conversation_id, queue_wait_ms=self.waited_ms,
                  stopped=True)

    def fail(self, error: BaseException) -> None:
        """Report a failed turn: a RiverseError says what to do; anything else stays in the server's log."""
        expected = isinstance(error, RiverseError)
        self.emit("error", message=str(error) if expected else "internal error; see the server's log", expected=expected)

    # --- used on the event loop
    async def events(self) -> AsyncGenerator[TurnEvent, None]:
        """The turn's events as they happen, ending with ``done`` or ``error``."""
        while True:
            event = await self._events.get()
            yield event
            if event.kind in ("done", "error"):
                return


class TurnService:
    """Starts turns in worker threads, shares one registry, store and provider among them."""

    def __init__(self, app: App):
        self.app = app
        server = app.settings.server
        self.approvals = Approvals(app.store, server.approval_timeout)
        self.gate = FairGate()
        self._pool = ThreadPoolExecutor(max_workers=server.workers, thread_name_prefix="riverse-turn")
        self._allowed: dict[tuple[str | None, str], set[str]] = {}  # (owner, conversation) -> tools approved "always"
        self._allowed_lock = threading.Lock()
        self._running: dict[str, Turn] = {}  # turn id -> the turn, while it runs

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def forget(self, conversation_id: str) -> None:
        with self._allowed_lock:
            for key in [key for key in self._allowed if key[1] == conversation_id]:
                del self._allowed[key]

    def start(self, text: str, conversation_id: str, client: Client, prompt_texts: list[str] | None = None) -> Turn:
        """Start ``client``'s turn in ``conversation_id`` (which must exist); must be called on the event loop.
        ``prompt_texts``: the request's texts, counted as the prompt when the provider reports no usage."""
        turn = Turn(conversation_id, asyncio.get_running_loop(), client.key, client.notes_owner, prompt_texts or [text])
        with self._allowed_lock:
            self._running[turn.id] = turn
        self._pool.submit(self._run, turn, text)
        return turn

    def running_in(self, conversation_id: str) -> bool:
        """Whether a turn is running in ``conversation_id``."""
        with self._allowed_lock:
            return any(t.conversation_id == conversation_id for t in self._running.values())

    def stop(self, turn_id: str, owner: str | None) -> bool:
        """Stop ``owner``'s running turn ``turn_id``: the model stops writing, a running tool is
        abandoned, an approval it waits for is refused. False when ``owner`` has no such turn running
        (ended, or another client's: the same answer, so nobody learns which)."""
        with self._allowed_lock:
            turn = self._running.get(turn_id)
        if turn is None or turn.owner != owner:
            return False
        turn.stop.set()
        for approval_id in list(turn.approval_ids):
            self.approvals.answer(approval_id, "no", owner)
        return True

    def _run(self, turn: Turn, text: str) -> None:
        try:
            self.app.registry.refresh()  # tool files added or changed since the last turn are picked up
            with acting_for(turn.acting):
                result = self._agent(turn).ask(text, turn.conversation_id, on_event=turn.on_agent_event)
        except BaseException as exc:  # noqa: BLE001 - reported to the client; only the unexpected is logged
            if isinstance(exc, TurnStopped) or turn.stop.is_set():  # a provider may wrap what stopped it
                self.app.store.add_message(turn.conversation_id, "assistant", turn.said)  # what was said is kept
                turn.stopped()
                return
            if not isinstance(exc, RiverseError):
                log.error("turn in conversation %s failed", turn.conversation_id, exc_info=exc)
            turn.fail(exc)
            return
        finally:
            with self._allowed_lock:
                self._running.pop(turn.id, None)
        turn.finish(result)

    def _agent(self, turn: Turn) -> Agent:
        provider = self.app.provider
        if capabilities_of(provider).concurrency == 1:
            provider = QueuedProvider(provider, self.gate, turn.on_wait)
        provider = turn.counter = CountingProvider(provider)
        provider = StoppableProvider(provider, turn.stop)
        agent = Agent.from_settings(self.app.settings, provider, self.app.registry, self.app.store, self._approver(turn))
        agent.runner.stop = turn.stop
        with self._allowed_lock:
            agent.runner.gate.session_allowed = self._allowed.setdefault((turn.owner, turn.conversation_id), set())
        return agent

    def _approver(self, turn: Turn) -> Callable[[ApprovalRequest], str]:
        def announce(pending: PendingApproval) -> None:
            turn.approval_ids.append(pending.id)
            turn.emit("approval_request", **pending.as_dict())

        def approve(request: ApprovalRequest) -> str:
            answer = self.approvals.wait_for(turn.conversation_id, turn.owner, request, announce)
            if not answer:
                turn.emit("notice", text=f"nobody answered the approval request for tool '{request.name}' "
                                         f"within {self.approvals.timeout:g} s; it was refused",
                          code="approval_timeout", name=request.name, seconds=self.approvals.timeout)
            return answer or "no"

        return approve

    async def follow(self, turn: Turn) -> AsyncGenerator[TurnEvent, None]:
        """The turn's events for one client; use with ``contextlib.aclosing``.

        A client that goes away before the end refuses the approvals it was asked for, so the turn
        does not hold a worker until they time out.
        """
        ended = False
        try:
            async for event in turn.events():
                yield event
            ended = True
        finally:
            if not ended:
                for approval_id in turn.approval_ids:
                    self.approvals.answer(approval_id, "no", turn.owner)

    def open_conversation(self, conversation_id: str | None, earlier: list[dict[str, str]], client: Client) -> str:
        """The conversation a turn runs in: the one named, or a new one of ``client``'s seeded with
        ``earlier`` messages.

        A conversation the server already has keeps its own history; the client's copy is ignored. One
        the client may not see is refused as if it did not exist.
        """
        store = self.app.store
        existing = store.get_conversation(conversation_id) if conversation_id else None
        if existing is not None:
            if not client.may_see(existing):
                raise ApiError(404, f"no conversation {conversation_id!r} of yours; leave the id out to start "
                                    "a new conversation, or choose another id", code="not_found")
            return existing["id"]
        cid = store.ensure_conversation(conversation_id, owner=client.key)
        made = store.get_conversation(cid)
        if made is None or not client.may_see(made):  # another client made this id first, a moment ago
            raise ApiError(404, f"no conversation {conversation_id!r} of yours; leave the id out to start "
                                "a new conversation, or choose another id", code="not_found")
        for message in earlier:
            store.add_message(cid, message["role"], message["content"])
        return cid
