"""Users and their tool-call log over HTTP.

- ``GET /api/logs?limit=N&tool=NAME``: the tool calls made in the caller's own conversations, newest
  first (the holder of the single server token, or the machine's user on loopback, sees every call).
- ``GET /api/users``, ``POST /api/users`` with ``{"name": ..., "admin": false}`` (the answer carries the
  new user's token, the one time it is shown), ``DELETE /api/users/{name}``: for admins only, on a
  server with users. ``riverse users`` does the same from the command line of the server's machine.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from agent.server.errors import ApiError, read_json_object
from agent.server.owners import Client, client_of
from agent.users import UserError, add_user

router = APIRouter(prefix="/api")


def _store(request: Request) -> Any:
    return request.app.state.riverse.store


@router.get("/logs")
def tool_log(request: Request, limit: int = 50, tool: str | None = None) -> dict[str, Any]:
    if not 1 <= limit <= 1000:
        raise ApiError(400, f"limit must be between 1 and 1000, got {limit}", param="limit")
    client = client_of(request)
    if client.key is None:
        return {"tool_calls": _store(request).tool_calls(limit=limit, tool=tool)}
    return {"tool_calls": _store(request).tool_calls(limit=limit, tool=tool, owner=client.key)}


def _admin(request: Request) -> Client:
    client = client_of(request)
    if client.user is None or not client.admin:
        raise ApiError(403, "only an admin user manages users (riverse users add NAME --admin makes one); "
                            "on the server's machine, riverse users add/list/remove works without one",
                       type="permission_error", code="not_admin")
    return client


@router.get("/users")
def list_users(request: Request) -> dict[str, Any]:
    _admin(request)
    return {"users": _store(request).users()}


@router.post("/users")
async def create_user(request: Request) -> dict[str, Any]:
    _admin(request)
    body = await read_json_object(request)
    name, admin = body.get("name"), body.get("admin", False)
    if not isinstance(name, str) or not isinstance(admin, bool):
        raise ApiError(400, "send {\"name\": \"alice\", \"admin\": false}: name a string, admin true or false",
                       param="name")
    try:
        token = await run_in_threadpool(add_user, _store(request), name, admin)
    except UserError as exc:
        raise ApiError(400, str(exc), param="name", code="invalid_user") from None
    return {"name": name, "admin": admin, "token": token}


@router.delete("/users/{name}")
def delete_user(request: Request, name: str) -> dict[str, Any]:
    client = _admin(request)
    if name == client.user:
        raise ApiError(400, "an admin cannot remove themselves here; use riverse users remove on the server's "
                            "machine, or ask another admin", param="name")
    if not _store(request).remove_user(name):
        raise ApiError(404, f"no user {name!r}; GET /api/users lists them", code="not_found")
    return {"name": name, "removed": True}
