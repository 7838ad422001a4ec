"""Riverse's own endpoints, used by the web page and by scripts.

- ``GET /api/info``: version, model, language, number of tools.
- ``GET /api/status``: the model's state while the server prepares it at start (:mod:`agent.server.readiness`).
- ``GET /api/tools``: every discovered tool with its manifest, risk, availability and why not.
- ``GET /api/conversations``, ``GET/DELETE /api/conversations/{id}``: the stored conversations, each
  message with the tool calls made to answer it.
- ``GET /api/approvals``, ``POST /api/approvals/{id}`` with ``{"answer": "yes" | "no" | "always"}``.
- ``POST /api/chat`` with ``{"message": ..., "conversation_id": ...}``: a turn streamed as server-sent
  events named ``text``, ``tool_start``, ``tool_end``, ``approval_request``, ``notice``, ``queue``, and
  finally ``done`` (or ``error``). The header ``X-Riverse-Turn`` names the turn. With ``"resend_from": N``
  the conversation's N-th user message (from 0) and everything after it are removed first: the message
  is sent again (to answer it anew) or, edited, in its place.
- ``POST /api/turns/{id}/stop``: stop a running turn of this client's; what was said so far is kept.

A client sees only the conversations and approvals it owns (:mod:`agent.server.owners`); someone else's
answers 404, the same as one that does not exist.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from agent import __version__
from agent.server.errors import ApiError, read_json_object
from agent.server.openai_api import CONVERSATION_HEADER, SSE_HEADERS, conversation_id_from
from agent.server.owners import Client, client_of
from agent.server.turns import ANSWERS, Turn, TurnService

TURN_HEADER = "X-Riverse-Turn"
from agent.storage import Store

router = APIRouter(prefix="/api")


def _turns(request: Request) -> TurnService:
    return request.app.state.turns


@router.get("/info")
def info(request: Request) -> dict[str, Any]:
    app = _turns(request).app
    return {
        "version": __version__,
        "model": app.model_label(),
        "language": app.language,
        "tools": len(app.registry),
        "token_required": bool(app.settings.server.token) or app.store.count_users() > 0,
    }


@router.get("/status")
def status(request: Request) -> dict[str, Any]:
    return request.app.state.readiness.as_dict()


@router.get("/tools")
def list_tools(request: Request) -> dict[str, Any]:
    registry = _turns(request).app.registry
    registry.refresh()
    return registry.describe()


@router.get("/conversations")
def list_conversations(request: Request, limit: int = 50) -> dict[str, Any]:
    if not 1 <= limit <= 500:
        raise ApiError(400, f"limit must be between 1 and 500, got {limit}", param="limit")
    client = client_of(request)
    found = _turns(request).app.store.conversations(limit, owner=client.key, shared=client.shared)
    return {"conversations": [_public(c) for c in found]}


def _public(conversation: dict[str, Any]) -> dict[str, Any]:
    """A conversation as clients see it: without its owner's key."""
    return {key: value for key, value in conversation.items() if key != "owner"}


def _visible(store: Store, cid: str, client: Client) -> dict[str, Any]:
    """The conversation ``cid`` if ``client`` may see it; 404 otherwise, whether it exists or not."""
    conversation = store.get_conversation(cid)
    if conversation is None or not client.may_see(conversation):
        raise ApiError(404, f"no conversation {cid!r}; GET /api/conversations lists them", code="not_found")
    return _public(conversation)


def conversation_detail(store: Store, cid: str, client: Client) -> dict[str, Any]:
    """A conversation's messages in order; each assistant message carries the tool calls made for it."""
    conversation = _visible(store, cid, client)
    calls = deque(sorted(store.tool_calls(limit=100_000, conversation=cid), key=lambda c: c["id"]))
    messages = []
    for m in store.messages(cid):
        item: dict[str, Any] = {"role": m.role, "content": m.content, "created_at": m.created_at}
        if m.role == "assistant":
            item["tool_calls"] = []
            while calls and calls[0]["created_at"] <= m.created_at:
                item["tool_calls"].append(calls.popleft())
        messages.append(item)
    return {**conversation, "messages": messages}


@router.get("/conversations/{cid}")
def get_conversation(request: Request, cid: str) -> dict[str, Any]:
    return conversation_detail(_turns(request).app.store, cid, client_of(request))


@router.delete("/conversations/{cid}")
def delete_conversation(request: Request, cid: str) -> dict[str, Any]:
    turns = _turns(request)
    _visible(turns.app.store, cid, client_of(request))
    if not turns.app.store.delete_conversation(cid):
        raise ApiError(404, f"no conversation {cid!r}; GET /api/conversations lists them", code="not_found")
    turns.forget(cid)
    return {"id": cid, "deleted": True}


@router.get("/approvals")
def list_approvals(request: Request, conversation_id: str | None = None) -> dict[str, Any]:
    pending = _turns(request).approvals.pending(client_of(request).key, conversation_id)
    return {"approvals": [p.as_dict() for p in pending]}


@router.post("/approvals/{approval_id}")
async def answer_approval(request: Request, approval_id: str) -> dict[str, Any]:
    body = await read_json_object(request)
    answer = str(body.get("answer", "")).strip().lower()
    if answer not in ANSWERS:
        raise ApiError(400, f"'answer' must be one of {', '.join(ANSWERS)}, got {body.get('answer')!r}", param="answer")
    if not _turns(request).approvals.answer(approval_id, answer, client_of(request).key):
        raise ApiError(404, f"no pending approval {approval_id!r}: it was answered already or it expired",
                       code="not_found")
    return {"id": approval_id, "answer": answer}


@router.post("/chat", response_model=None)
async def chat(request: Request) -> StreamingResponse:
    turns = _turns(request)
    body = await read_json_object(request)
    text = body.get("message")
    if not isinstance(text, str) or not text.strip():
        raise ApiError(400, "'message' is required: the text to send to the agent", param="message")
    limit = turns.app.settings.server.max_input_chars
    if len(text) > limit:
        raise ApiError(400, f"the message holds {len(text)} characters; this server accepts at most {limit} "
                            "(server.max_input_chars)", param="message", code="context_length_exceeded")
    requested = conversation_id_from(body.get("conversation_id"), "'conversation_id'")
    resend_from = body.get("resend_from")
    if resend_from is not None and (not isinstance(resend_from, int) or isinstance(resend_from, bool) or resend_from < 0):
        raise ApiError(400, f"'resend_from' must be the number of a user message, from 0; got {resend_from!r}",
                       param="resend_from")
    client = client_of(request)
    if resend_from is not None:
        if requested is None:
            raise ApiError(400, "'resend_from' needs the 'conversation_id' it applies to", param="conversation_id")
        await run_in_threadpool(_drop_from, turns, requested, resend_from, client)
    cid = await run_in_threadpool(turns.open_conversation, requested, [], client)
    turn = turns.start(text, cid, client)
    return StreamingResponse(_events(turns, turn), media_type="text/event-stream",
                             headers={CONVERSATION_HEADER: cid, TURN_HEADER: turn.id, **SSE_HEADERS})


def _drop_from(turns: TurnService, cid: str, index: int, client: Client) -> None:
    """Remove the ``index``-th user message of ``cid`` and everything after it, before it is sent again."""
    store = turns.app.store
    _visible(store, cid, client)
    if turns.running_in(cid):
        raise ApiError(409, f"a turn is still running in conversation {cid!r}; stop it or wait for its end",
                       code="conflict")
    users = [m for m in store.messages(cid) if m.role == "user"]
    if index >= len(users):
        raise ApiError(400, f"conversation {cid!r} has {len(users)} user messages; 'resend_from' {index} is not one",
                       param="resend_from")
    store.drop_messages_from(cid, users[index].id)


@router.post("/turns/{turn_id}/stop")
def stop_turn(request: Request, turn_id: str) -> dict[str, Any]:
    if not _turns(request).stop(turn_id, client_of(request).key):
        raise ApiError(404, f"no running turn {turn_id!r} of yours: it ended already, or it never was",
                       code="not_found")
    return {"id": turn_id, "stopping": True}


async def _events(turns: TurnService, turn: Turn) -> AsyncIterator[str]:
    async with aclosing(turns.follow(turn)) as events:
        async for event in events:
            yield f"event: {event.kind}\ndata: {json.dumps(event.data, ensure_ascii=False)}\n\n"
