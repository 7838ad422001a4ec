"""Inside a tool worker process: importing tool files and running their code for the agent.

:mod:`agent.toolkit.worker_pool` starts this module's :func:`main` in a separate Python process, in a
session and process group of its own, with three pipe descriptors as arguments: requests come in on the
first, replies go out on the second, and the third ends when the agent does (see :func:`watch_agent`). Each message is an 8-byte length and then the payload: requests
are pickled dicts written by the agent, replies are JSON (the agent reads nothing else from a worker).
The process's stdin is ``/dev/null``; its stdout and stderr are a pipe the agent drains, so what a tool
prints never reaches the agent's own output or this channel.

Requests (``op``): ``load`` a tool file (or the installed packages) with :class:`ToolLoader`, keeping
its tools under a unit id; ``execute``, ``same_value`` and ``manifest_in`` call one of those tools, in
the language of the message being answered. After every request, processes that tool code started and
left running are asked to end (see :func:`end_strays`).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

from agent.toolkit.base import acting_for, answering_in
from agent.toolkit.discovery import ToolLoader
from agent.toolkit.results import describe_exception, settle

FRAME = struct.Struct(">Q")  # the length of the payload that follows
STRAY_GRACE_S = 0.5  # how long processes left running by a tool get to end after SIGTERM


def read_frame(fd: int) -> bytes | None:
    """The next message on ``fd``; None at the end of the stream."""
    head = _read_exactly(fd, FRAME.size)
    if head is None:
        return None
    (size,) = FRAME.unpack(head)
    return _read_exactly(fd, size) if size else b""


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(FRAME.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view):]


def end_strays() -> bool:
    """Send SIGTERM to the processes a tool started in this worker's process group and left running,
    then reap them. True when some child of this worker is still running after the grace period (the
    agent then replaces this worker, ending its whole process group)."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the worker itself stays
    try:
        os.killpg(0, signal.SIGTERM)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    deadline = time.monotonic() + STRAY_GRACE_S
    pause = threading.Event()
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            if time.monotonic() > deadline:
                return True
            pause.wait(0.002)


class WorkerTools:
    """The tools loaded in this worker, by unit id (one tool file, or the installed packages)."""

    def __init__(self) -> None:
        self.units: dict[str, dict[str, Any]] = {}

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        for unit_id in request.get("drop") or ():
            self.units.pop(unit_id, None)
        op = request.get("op")
        if op == "load":
            return self.load(request["unit"], request.get("sys_path"))
        entry = self.units.get(request.get("unit"), {}).get(request.get("key"))
        if entry is None:
            return {"fault": f"tool {request.get('key')!r} is not loaded in this worker"}
        with answering_in(request.get("language")), acting_for(request.get("owner")):
            if op == "execute":
                return {"outcome": self.execute(entry, request)}
            if op == "same_value":
                return {"verdict": self.same_value(entry, request)}
            if op == "manifest_in":
                other = entry.manifest_in(request["language"])
                return {"manifest": None if other is entry.manifest else other.to_dict()}
        return {"fault": f"unknown request {op!r}"}

    def load(self, unit: dict[str, Any], sys_path: list[str] | None) -> dict[str, Any]:
        if sys_path:
            sys.path[:] = sys_path  # the agent's own search path: the same packages, the same agent
        loader = ToolLoader(unit["config"])
        if unit["kind"] == "packages":
            state = loader.load_packages()
        else:
            state = loader.load_file(Path(unit["path"]), unit["rank"], unit["changed"], unit["source"])
        self.units[unit["id"]] = {entry_key(e.path, e.class_name): e for e in state.entries}
        return {"state": {"entries": [entry_data(e) for e in state.entries],
                          "problems": [p.to_dict() for p in state.problems]}}

    @staticmethod
    def execute(entry: Any, request: dict[str, Any]) -> dict[str, Any]:
        try:
            result, exc = entry.tool.execute(dict(request["params"])), None
        except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: the tool's own
            result, exc = None, err
        return settle(entry.name, result, exc, request.get("max_chars"), path=entry.path)

    @staticmethod
    def same_value(entry: Any, request: dict[str, Any]) -> bool | None:
        try:
            verdict = entry.tool.same_value(request["param"], request["expected"], request["got"])
            return None if verdict is None else bool(verdict)
        except BaseException:  # noqa: BLE001 - no verdict: the usual comparison decides
            return None


def entry_key(path: str, class_name: str) -> str:
    """How the agent names one tool inside a unit."""
    return f"{path}::{class_name}"


def entry_data(entry: Any) -> dict[str, Any]:
    return {
        "key": entry_key(entry.path, entry.class_name), "name": entry.name, "manifest": entry.manifest.to_dict(),
        "path": entry.path, "class_name": entry.class_name, "line": entry.line, "origin": entry.origin,
        "rank": entry.rank, "available": entry.available, "reason": entry.reason,
    }


def _plain(value: Any) -> Any:
    """What a reply holds in place of a value JSON has no form for."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__}>"


def encode(reply: dict[str, Any]) -> bytes:
    try:
        return json.dumps(reply, ensure_ascii=False, default=_plain).encode("utf-8", errors="replace")
    except Exception as exc:  # noqa: BLE001 - nesting too deep, a value that refuses to be text
        return json.dumps({"fault": f"the reply could not be written as JSON: {type(exc).__name__}"}).encode()


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a tool may have replaced or closed them
            pass


def serve(read_fd: int, write_fd: int) -> None:
    """Answer requests until the agent closes the channel."""
    tools = WorkerTools()
    write_frame(write_fd, encode({"ready": os.getpid()}))
    while True:
        raw = read_frame(read_fd)
        if raw is None:
            return
        request: dict[str, Any] = {}
        try:
            request = pickle.loads(raw)
            reply = tools.handle(request)
        except BaseException as exc:  # noqa: BLE001 - tool code may raise anything, even from a guard
            reply = {"fault": f"the worker could not answer: {describe_exception(exc)}"}
        _flush_output()
        reply["seq"] = request.get("seq")
        reply["strays"] = end_strays()
        write_frame(write_fd, encode(reply))


def watch_agent(lifeline: int) -> None:
    """End this worker, and everything in its process group, once the agent is gone (even killed,
    and even while a tool is busy): the agent holds the other end of ``lifeline`` and never writes."""
    try:
        while os.read(lifeline, 1):
            pass
    except OSError:
        pass
    os.killpg(0, signal.SIGKILL)


def main() -> None:
    read_fd, write_fd, lifeline = (int(arg) for arg in sys.argv[-3:])
    for fd in (read_fd, write_fd, lifeline):
        os.set_inheritable(fd, False)  # processes a tool starts do not get the channel
    threading.Thread(target=watch_agent, args=(lifeline,), name="riverse-agent-watch", daemon=True).start()
    try:
        serve(read_fd, write_fd)
    except OSError:
        pass  # the agent went away
    finally:
        os.killpg(0, signal.SIGKILL)  # this worker and everything left in its process group
