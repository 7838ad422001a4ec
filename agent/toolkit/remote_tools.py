"""Tools that live in worker processes: the loader the registry uses with process isolation, and the
:class:`RemoteTool` that stands in for each tool in the agent's process.

:class:`RemoteLoader` has :class:`~agent.toolkit.discovery.ToolLoader`'s interface: it reads a tool
file's text, has a worker import it (with :class:`ToolLoader`, there), and turns the reply into
:class:`ToolEntry` and :class:`LoadProblem` objects. A file whose loading does not finish in time, or
ends the worker, becomes a problem like any other. Each loaded version of a file is a *unit*: its text
and the config travel with it, so any worker, even one started later, loads the very version the
registry chose (the last good one, after a broken edit). Nothing a worker sends is trusted beyond its
shape: every reply is checked before the agent uses it.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult, acting_owner, message_language
from agent.toolkit.discovery import FileState, LoadProblem, ToolEntry, expanded_config, scope_config, signature
from agent.toolkit.results import TRACEBACK_CHARS, capped
from agent.toolkit.validate import manifest_problems
from agent.toolkit.worker_pool import WorkerFailure, WorkerPool, search_path

START_TIMEOUT_S = 60.0  # for a new worker's Python to start: not the tool's time
LOAD_REPLY_LIMIT = 16 << 20  # bytes
CALL_REPLY_SLACK = 1 << 20
DIRECT_CALL_CHARS = 10_000_000  # what execute() called directly (not by the runner) may return
MANIFEST_FIELDS = ("name", "description", "parameters", "examples", "parameter_types", "required", "timeout",
                   "risk", "extra_examples", "risk_by_value")
LEVELS = ("error", "warning", "info")
_units = itertools.count(1)


class RemoteHost:
    """The registry's workers, and how long loading a tool file there may take."""

    def __init__(self, pool: WorkerPool, load_timeout: float):
        self.pool = pool
        self.load_timeout = load_timeout
        self._stale: set[str] = set()  # units no entry uses any more; workers drop them
        self._lock = threading.Lock()

    def load(self, unit: dict[str, Any]) -> dict[str, Any]:
        with self.pool.lease() as worker:
            return self._load_in(worker, unit)

    def _load_in(self, worker: Any, unit: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            drop = worker.units & self._stale
        worker.units -= drop
        message = {"op": "load", "unit": unit, "sys_path": search_path(), "drop": sorted(drop)}
        reply = worker.request(message, self.load_timeout, LOAD_REPLY_LIMIT)
        worker.units.add(unit["id"])
        return reply

    def call(self, unit: dict[str, Any], key: str, message: dict[str, Any], timeout: float, limit: int) -> dict[str, Any]:
        """Send ``message`` to tool ``key`` of ``unit`` in a worker, loading the unit there first if needed."""
        with self.pool.lease(unit["id"], wait=timeout) as worker:
            if unit["id"] not in worker.units:
                self._load_for_call(worker, unit, key)
            return worker.request({**message, "unit": unit["id"], "key": key}, timeout, limit)

    def _load_for_call(self, worker: Any, unit: dict[str, Any], key: str) -> None:
        """Load ``unit`` in a worker that lacks it (a new one, or one that replaced a failed one)."""
        try:
            reply = self._load_in(worker, unit)
        except WorkerFailure as failure:
            raise WorkerFailure("load", f"loading its file {failure.detail}", failure.output) from None
        state = reply.get("state")
        if not isinstance(state, dict) or not isinstance(state.get("entries"), list):
            raise WorkerFailure("load", str(reply.get("fault") or "its worker sent no tools")[:500])
        if key not in [e.get("key") for e in state["entries"] if isinstance(e, dict)]:
            problems = [str(p.get("message")) for p in state.get("problems") or [] if isinstance(p, dict)]
            raise WorkerFailure("load", "; ".join(problems)[:500] or "the tool is no longer in its file")

    def forget(self, unit_ids: set[str]) -> None:
        with self._lock:
            self._stale |= unit_ids

    def close(self) -> None:
        self.pool.shutdown()


def failure_text(name: str, failure: WorkerFailure, timeout: float) -> tuple[str, str]:
    """The (status, error) of a call of tool ``name`` whose worker failed."""
    output = failure.output.strip()
    shown = f"; its last output: {output[-300:]!r}" if output else ""
    if failure.kind == "timeout":
        return "timeout", f"tool '{name}' did not finish within {timeout:g} s and was abandoned; its worker process was killed"
    if failure.kind == "busy":
        return "timeout", f"tool '{name}' could not start: {failure.detail}"
    if failure.kind == "exited":
        return "error", f"tool '{name}' ended its worker process: it {failure.detail}{shown}"
    if failure.kind == "load":
        return "error", f"tool '{name}' could not be loaded in a new worker process: {failure.detail}"
    if failure.kind == "protocol":
        return "error", f"tool '{name}' broke its worker process's channel ({failure.detail}); the worker was replaced"
    return "error", f"tool '{name}' could not run: {failure.detail}{shown}"


def load_problem(where: str, failure: WorkerFailure, load_timeout: float) -> LoadProblem:
    """The problem of a tool file whose loading failed its worker."""
    output = failure.output.strip()
    shown = f"; its last output: {output[-300:]!r}" if output else ""
    if failure.kind == "timeout":
        message = (f"did not finish loading within {load_timeout:g} s (at import, in __init__(), manifest() or "
                   "is_available()); it was stopped and skipped, and is loaded again once the file changes")
    elif failure.kind == "exited":
        message = f"loading it ended its worker process, which {failure.detail}; it was skipped{shown}"
    elif failure.kind == "protocol":
        message = f"loading it broke its worker process's channel ({failure.detail}); it was skipped"
    else:
        message = f"could not be loaded: {failure.detail}{shown}"
    return LoadProblem(where, message)


class RemoteTool(BaseTool):
    """Stands in for a tool that lives in a worker process: ``manifest()`` and ``is_available()`` answer
    what discovery found; ``execute()``, ``same_value()`` and the per-language manifests are asked of a
    worker, in the language of the message being answered. ``config`` is the tool's own scoped copy."""

    def __init__(self, host: RemoteHost, unit: dict[str, Any], key: str, manifest: ToolManifest, config: dict,
                 available: bool = True, reason: str = ""):
        super().__init__(config)
        self.host, self.unit, self.key = host, unit, key
        self._manifest, self._available, self._reason = manifest, available, reason

    def manifest(self) -> ToolManifest:
        return self._manifest

    def is_available(self) -> bool:
        return self._available

    def unavailable_reason(self) -> str:
        return self._reason

    def execute(self, params: dict) -> ToolResult:
        outcome = self.run(dict(params), timeout=float(self._manifest.timeout or 30.0), max_chars=None,
                           language=message_language())
        return ToolResult(outcome["success"], outcome["data"], outcome["error"])

    def run(self, params: dict, *, timeout: float, max_chars: int | None, language: str | None) -> dict[str, Any]:
        """Run ``execute(params)`` in a worker: ``{"status", "success", "data", "error"}``; never raises."""
        name = self._manifest.name
        limit = max_chars if max_chars is not None else DIRECT_CALL_CHARS
        message = {"op": "execute", "params": params, "max_chars": limit, "language": language, "owner": acting_owner()}
        try:
            reply = self.host.call(self.unit, self.key, message, timeout, 12 * limit + CALL_REPLY_SLACK)
        except WorkerFailure as failure:
            status, error = failure_text(name, failure, timeout)
            return {"status": status, "success": False, "data": "", "error": error}
        except Exception as exc:  # noqa: BLE001 - whatever goes wrong here, the turn goes on
            return {"status": "error", "success": False, "data": "", "error": f"tool '{name}' could not run: {exc}"}
        return checked_outcome(name, reply, limit)

    def worst_case(self, timeout: float) -> float:
        """How long :meth:`run` can take at most: waiting for a worker, starting one, loading, running."""
        return 2 * timeout + START_TIMEOUT_S + self.host.load_timeout

    def same_value(self, param: str, expected: Any, got: Any) -> bool | None:
        message = {"op": "same_value", "param": param, "expected": expected, "got": got, "language": message_language()}
        try:
            verdict = self.host.call(self.unit, self.key, message, self.host.load_timeout, 1024).get("verdict")
        except WorkerFailure:
            return None
        return verdict if isinstance(verdict, bool) else None

    def manifest_for(self, language: str) -> ToolManifest | None:
        """The manifest as the tool writes it for ``language`` (None: the usual one)."""
        message = {"op": "manifest_in", "language": language}
        try:
            data = self.host.call(self.unit, self.key, message, self.host.load_timeout, LOAD_REPLY_LIMIT).get("manifest")
            other = decode_manifest(data) if data is not None else None
        except Exception:  # noqa: BLE001 - a worker that fails here leaves the usual manifest
            return None
        return other if other is not None and other.name == self._manifest.name else None


def checked_outcome(name: str, reply: dict[str, Any], limit: int) -> dict[str, Any]:
    """A worker's outcome of a call, when it has the right shape; else an error outcome."""
    outcome = reply.get("outcome")
    if "fault" in reply:
        return {"status": "error", "success": False, "data": "", "error": f"tool '{name}': {str(reply['fault'])[:500]}"}
    shaped = (
        isinstance(outcome, dict) and outcome.get("status") in ("ok", "failed", "error")
        and outcome.get("success") is (outcome.get("status") == "ok")
        and isinstance(outcome.get("data"), str) and isinstance(outcome.get("error"), str)
    )
    if not shaped:
        return {"status": "error", "success": False, "data": "",
                "error": f"tool '{name}': its worker process sent an outcome Riverse cannot read"}
    texts = {}
    for key in ("data", "error"):  # the worker already cut them, adding a note of what it cut
        text = outcome[key]
        texts[key] = capped(text, limit) if len(text) > limit + 100 else text
    trace = outcome.get("traceback")
    texts["traceback"] = trace[-TRACEBACK_CHARS - 100:] if isinstance(trace, str) and outcome["status"] == "error" else ""
    return {"status": outcome["status"], "success": outcome["success"], **texts}


def decode_manifest(data: Any) -> ToolManifest:
    """A manifest a worker sent, checked as discovery checks one; ValueError when it is not valid."""
    if not isinstance(data, dict) or set(data) != set(MANIFEST_FIELDS):
        raise ValueError("a manifest without the manifest's fields")
    manifest = ToolManifest(**data)
    errors = [p.message for p in manifest_problems(manifest) if p.level == "error"]
    if errors:
        raise ValueError(f"an invalid manifest: {errors[0]}")
    return manifest


def _typed(data: dict[str, Any], key: str, *kinds: type) -> Any:
    """``data[key]`` when it is one of ``kinds`` (a bool is not taken for an int); else ValueError."""
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{key!r} of the wrong type")
    return value


class RemoteLoader:
    """Loads tool files and packages in worker processes (the interface of ``ToolLoader``)."""

    def __init__(self, config: dict, host: RemoteHost):
        self.config = config
        self.host = host

    def load_file(self, path: Path, rank: int, changed: bool = False) -> FileState:
        sig = signature(path)
        try:
            source = path.read_bytes()
        except OSError as exc:
            return FileState(sig, [], [LoadProblem(str(path), f"cannot read: {exc.strerror}")])
        unit = {"id": f"{path}#{next(_units)}", "kind": "file", "path": str(path), "rank": rank,
                "changed": changed, "source": source, "config": self.config}
        return self._load(unit, sig, str(path))

    def load_packages(self) -> FileState:
        unit = {"id": f"packages#{next(_units)}", "kind": "packages", "path": "", "rank": 0, "changed": False,
                "source": None, "config": self.config}
        return self._load(unit, (0, 0), "<entry points>")

    def _load(self, unit: dict[str, Any], sig: tuple[int, int], where: str) -> FileState:
        try:
            reply = self.host.load(unit)
            if "fault" in reply:
                raise WorkerFailure("fault", str(reply["fault"])[:500])
            entries, problems = self._decode(unit, reply.get("state"))
        except WorkerFailure as failure:
            self.host.forget({unit["id"]})
            return FileState(sig, [], [load_problem(where, failure, self.host.load_timeout)])
        except (ValueError, TypeError, KeyError) as exc:
            self.host.forget({unit["id"]})
            return FileState(sig, [], [LoadProblem(where, f"its worker process sent a reply Riverse cannot read ({exc})")])
        except Exception as exc:  # noqa: BLE001 - starting or talking to a worker failed in another way
            self.host.forget({unit["id"]})
            return FileState(sig, [], [LoadProblem(where, f"could not be loaded in a worker process: {exc}")])
        if not entries:
            self.host.forget({unit["id"]})
        return FileState(sig, entries, problems)

    def _decode(self, unit: dict[str, Any], state: Any) -> tuple[list[ToolEntry], list[LoadProblem]]:
        if not isinstance(state, dict):
            raise ValueError("no state")
        problems = [
            LoadProblem(_typed(p, "path", str), _typed(p, "message", str), _typed(p, "line", int, type(None)),
                        _typed(p, "class", str, type(None)), p["level"] if p.get("level") in LEVELS else "error")
            for p in _typed(state, "problems", list)
        ]
        return [self._entry(unit, data) for data in _typed(state, "entries", list)], problems

    def _entry(self, unit: dict[str, Any], data: Any) -> ToolEntry:
        if not isinstance(data, dict):
            raise ValueError("an entry that is not an object")
        manifest = decode_manifest(data.get("manifest"))
        name = _typed(data, "name", str)
        if manifest.name != name:
            raise ValueError(f"an entry named {name!r} with the manifest of {manifest.name!r}")
        config = expanded_config(self.config)
        scope_config(config, name)
        available, reason = _typed(data, "available", bool), _typed(data, "reason", str)
        tool = RemoteTool(self.host, unit, _typed(data, "key", str), manifest, config, available, reason)
        return ToolEntry(
            name=name, tool=tool, manifest=manifest, path=_typed(data, "path", str),
            class_name=_typed(data, "class_name", str), line=_typed(data, "line", int, type(None)),
            origin=_typed(data, "origin", str), rank=_typed(data, "rank", int), available=available, reason=reason,
        )
