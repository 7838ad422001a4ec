"""The OpenAI-compatible endpoints: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Riverse runs its tools itself, on the server, so a client gets an ordinary assistant message with the
final answer; the tool calls made on the way are in the extra field ``riverse_tool_calls`` (of the
message, and of the last chunk when streaming). Live events (tool calls starting and ending, approval
requests, waiting for the model) ride on streaming chunks with an empty delta in the extra field
``riverse_event``, which standard clients ignore.

The last message is the turn. The conversation is the one named by the ``X-Riverse-Conversation``
header or the ``conversation_id`` field; without one, a fresh conversation is seeded with the earlier
user and assistant messages of the request, so a stateless client keeps its context. A conversation
belongs to the client that started it (:mod:`agent.server.owners`). ``temperature`` and the like are
ignored: the agent's settings decide. Client-side ``tools`` (and ``tool_choice``, ``functions``) are refused
with a 400: the tools are Riverse's own, run on the server; a client's tools are not supported.

``usage`` is the provider's count of the turn's tokens (every request of the turn added up), or, for a
provider that reports none (the embedded model), counted from the request's and the answer's text
(``riverse_counted: true``; see :mod:`agent.server.usage`).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from agent.config import Settings
from agent.server.errors import ApiError, read_json_object
from agent.server.owners import client_of
from agent.server.turns import Turn, TurnService

router = APIRouter()

CONVERSATION_HEADER = "X-Riverse-Conversation"
QUEUE_HEADER = "X-Riverse-Queue-Wait-Ms"
ROLES = ("system", "developer", "user", "assistant", "tool")
_CONVERSATION_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def model_ids(settings: Settings) -> list[str]:
    """``riverse`` (the agent) and the configured model's name; both reach the same agent."""
    configured = settings.llm.model or settings.llm.provider
    return ["riverse"] + ([configured] if configured != "riverse" else [])


@dataclass
class ChatRequest:
    text: str
    model: str
    stream: bool = False
    conversation_id: str | None = None
    earlier: list[dict[str, str]] = field(default_factory=list)  # user/assistant messages before the turn
    prompt_texts: list[str] = field(default_factory=list)  # every message's text, for a counted usage


def conversation_id_from(value: Any, where: str) -> str | None:
    """A client-chosen conversation id, checked (letters, digits and ``_.:-``, at most 64)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _CONVERSATION_ID.fullmatch(value):
        raise ApiError(400, f"{where} must be 1-64 letters, digits or _.:- characters, got {value!r}",
                       param="conversation_id", code="invalid_conversation_id")
    return value


def _text_of(content: Any, index: int) -> str:
    """A message's text: a string, a list of text parts, or null (an assistant message with tool calls)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for n, part in enumerate(content):
            if not (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise ApiError(400, f"messages[{index}].content[{n}] is {kind!r}; only text parts are supported",
                               param=f"messages[{index}].content", code="unsupported_content")
            pieces.append(part["text"])
        return "".join(pieces)
    raise ApiError(400, f"messages[{index}].content must be a string or a list of text parts",
                   param=f"messages[{index}].content")


def parse_chat_request(body: dict[str, Any], headers: Any, settings: Settings) -> ChatRequest:
    """Check a chat completion request; every problem names the field and how to fix it."""
    known = model_ids(settings)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ApiError(400, f"'model' is required; use one of: {', '.join(known)} (see GET /v1/models)",
                       param="model", code="missing_required_parameter")
    if model not in known:
        raise ApiError(404, f"the model {model!r} does not exist here; use one of: {', '.join(known)}",
                       param="model", code="model_not_found")
    messages = body.get("messages")
    if messages is None:
        raise ApiError(400, "'messages' is required: a list of {role, content} ending with the user's message",
                       param="messages", code="missing_required_parameter")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty list of {role, content} ending with the user's message",
                       param="messages", code="invalid_value")
    texts: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise ApiError(400, f"messages[{index}] must be an object whose role is one of {', '.join(ROLES)}",
                           param=f"messages[{index}]", code="invalid_value")
        texts.append((message["role"], _text_of(message.get("content"), index)))
    role, text = texts[-1]
    if role != "user" or not text.strip():
        raise ApiError(400, f"the last message must be the user's, with text (it is a {role!r} message"
                            f"{'' if text.strip() else ' without text'})", param="messages", code="invalid_value")
    size = sum(len(t) for _, t in texts)
    limit = settings.server.max_input_chars
    if size > limit:
        raise ApiError(400, f"the messages hold {size} characters; this server accepts at most {limit} "
                            "(server.max_input_chars); shorten them or start a new conversation",
                       param="messages", code="context_length_exceeded")
    client_tools = [key for key in ("tools", "tool_choice", "functions", "function_call") if body.get(key)]
    if client_tools:
        raise ApiError(400, f"'{client_tools[0]}' is not supported: Riverse runs its own tools on the server and "
                            "answers with the result; remove it, and add the tool to Riverse instead "
                            "(riverse tools new NAME)", param=client_tools[0], code="unsupported_parameter")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise ApiError(400, f"'stream' must be true or false, got {stream!r}", param="stream")
    cid = conversation_id_from(headers.get(CONVERSATION_HEADER), f"the {CONVERSATION_HEADER} header") or \
        conversation_id_from(body.get("conversation_id"), "'conversation_id'")
    earlier = [{"role": r, "content": t} for r, t in texts[:-1] if r in ("user", "assistant") and t]
    return ChatRequest(text=text, model=model, stream=stream, conversation_id=cid, earlier=earlier,
                       prompt_texts=[t for _, t in texts if t])


def _turns(request: Request) -> TurnService:
    return request.app.state.turns


@router.get("/v1/models")
def list_models(request: Request) -> dict[str, Any]:
    created = int(time.time())
    return {
        "object": "list",
        "data": [{"id": m, "object": "model", "created": created, "owned_by": "riverse"}
                 for m in model_ids(request.app.state.riverse.settings)],
    }


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(request: Request) -> JSONResponse | StreamingResponse:
    turns = _turns(request)
    chat = parse_chat_request(await read_json_object(request), request.headers, turns.app.settings)
    client = client_of(request)
    cid = await run_in_threadpool(turns.open_conversation, chat.conversation_id, chat.earlier, client)
    turn = turns.start(chat.text, cid, client, chat.prompt_texts)
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    headers = {CONVERSATION_HEADER: cid}
    if chat.stream:
        return StreamingResponse(_stream(turns, turn, completion_id, chat.model), media_type="text/event-stream",
                                 headers={**headers, **SSE_HEADERS})
    done: dict[str, Any] = {}
    async with aclosing(turns.follow(turn)) as events:
        async for event in events:
            done = event.data
    if "answer" not in done:  # the turn failed
        status, kind = (502, "model_error") if done.get("expected") else (500, "server_error")
        raise ApiError(status, done.get("message", "the turn failed"), type=kind)
    headers[QUEUE_HEADER] = str(turn.waited_ms)
    message = {"role": "assistant", "content": done["answer"], "riverse_tool_calls": done["tool_calls"]}
    return JSONResponse(
        {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": chat.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": done.get("usage"),
            "riverse_conversation_id": cid,
        },
        headers=headers,
    )


async def _stream(turns: TurnService, turn: Turn, completion_id: str, model: str) -> AsyncIterator[str]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    async with aclosing(turns.follow(turn)) as events:
        yield chunk({"role": "assistant", "content": ""})
        async for event in events:
            if event.kind == "text":
                yield chunk({"content": event.data["text"]})
            elif event.kind == "done":
                yield chunk({}, "stop", riverse_tool_calls=event.data["tool_calls"],
                            riverse_conversation_id=turn.conversation_id, usage=event.data.get("usage"))
            elif event.kind == "error":
                kind = "model_error" if event.data["expected"] else "server_error"
                error = {"message": event.data["message"], "type": kind, "param": None, "code": None}
                yield f"data: {json.dumps({'error': error}, ensure_ascii=False)}\n\n"
            else:
                yield chunk({}, riverse_event={"type": event.kind, **event.data})
    yield "data: [DONE]\n\n"
