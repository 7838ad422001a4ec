"""Tool worker processes, from the agent's side: starting them, talking to them and ending them.

A :class:`Worker` is a Python process running :mod:`agent.toolkit.worker_process`, started in a session
and process group of its own with an environment without secrets (:func:`worker_environment`). Requests
and replies travel on two pipes of their own; every send and every wait has a deadline, and a reply
longer than its limit or that is not a JSON object ends the worker. Its stdout and stderr go to a third
pipe that a thread drains, keeping only their last few kilobytes (shown when the worker dies). Ending
a worker kills its whole process group, so processes its tools started go with it.

A :class:`WorkerPool` keeps up to ``size`` workers alive between calls, each able to host any tool:
a call takes an idle one (preferring one that already loaded the tool's file), or starts one, or waits
for one to be free. Workers are ended with the pool, when the agent exits, or when they fail.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import agent
from agent.toolkit.worker_process import FRAME

# Variables whose names look like secrets (the same rule as shell_exec's): never in a worker's
# environment unless settings name them in runtime.tool_env.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
NEVER_PASSED = ("RIVERSE_API_KEY", "RIVERSE_SERVER_TOKEN")  # the model's key and the server's token
AGENT_PARENT = str(Path(agent.__file__).resolve().parent.parent)  # the folder that holds this `agent`
BOOT = "from agent.toolkit.worker_process import main; main()"
OUTPUT_TAIL_BYTES = 4096


def worker_environment(allow: Iterable[str] = (), deny: Iterable[str] = ()) -> dict[str, str]:
    """The agent's environment minus variables that look like secrets (those named in ``allow`` stay,
    those in ``deny`` and the model's key never do), with this ``agent`` package first on PYTHONPATH."""
    allowed, denied = set(allow), set(deny) | set(NEVER_PASSED)
    env = {
        name: value for name, value in os.environ.items()
        if name not in denied and (name in allowed or not SECRET_NAME.search(name))
    }
    env["PYTHONPATH"] = os.pathsep.join([AGENT_PARENT, *filter(None, [env.get("PYTHONPATH")])])
    return env


def search_path() -> list[str]:
    """The agent's module search path, with this ``agent`` package's folder first."""
    return [AGENT_PARENT, *(p for p in sys.path if p != AGENT_PARENT)]


def exit_description(code: int | None) -> str:
    """How a process ended, in words: ``exited with status 1``, ``was killed by signal 6 (SIGABRT)``."""
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown"
        return f"was killed by signal {-code} ({name})"
    return f"exited with status {code}"


class WorkerFailure(Exception):
    """A worker could not answer. ``kind``: ``timeout``, ``exited``, ``protocol``, ``start`` or ``busy``."""

    def __init__(self, kind: str, detail: str, output: str = ""):
        super().__init__(detail)
        self.kind, self.detail, self.output = kind, detail, output


class OutputTail:
    """Drains a worker's stdout and stderr in a thread, keeping only the last few kilobytes."""

    def __init__(self, stream: Any):
        self._stream = stream
        self._lock = threading.Lock()
        self._tail = bytearray()
        self.total = 0
        self.ended = threading.Event()
        threading.Thread(target=self._drain, name="riverse-tool-output", daemon=True).start()

    def _drain(self) -> None:
        fd = self._stream.fileno()
        try:
            while chunk := os.read(fd, 1 << 16):
                with self._lock:
                    self.total += len(chunk)
                    self._tail += chunk
                    del self._tail[:-OUTPUT_TAIL_BYTES]
        except OSError:
            pass
        finally:
            self._stream.close()
            self.ended.set()

    def take(self) -> str:
        """What was printed since the last call, its end at most."""
        with self._lock:
            text = self._tail.decode("utf-8", errors="replace")
            self._tail.clear()
        return text


class Worker:
    """One worker process and its channel. Not shared: a pool lends it to one caller at a time."""

    def __init__(self, env: dict[str, str], start_timeout: float):
        worker_reads, agent_writes = os.pipe()
        agent_reads, worker_writes = os.pipe()
        lifeline, self._lifeline = os.pipe()  # never written: the worker sees it end when the agent does
        theirs = (worker_reads, worker_writes, lifeline)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-P", "-c", BOOT, *map(str, theirs)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=env, pass_fds=theirs, start_new_session=True,
            )
        except OSError as exc:
            for fd in (agent_writes, agent_reads, self._lifeline):
                os.close(fd)
            raise WorkerFailure("start", f"cannot start a worker process: {exc.strerror or exc}") from None
        finally:
            for fd in theirs:  # the worker's ends: only the worker holds them now
                os.close(fd)
        self._send_fd, self._receive_fd = agent_writes, agent_reads
        os.set_blocking(self._send_fd, False)
        self.output = OutputTail(self.proc.stdout)
        self.units: set[str] = set()  # tool files (and packages) loaded in this worker, by unit id
        self.retire = False  # end it instead of keeping it for the next call
        self.ended = False
        self._end_lock = threading.Lock()
        self._sequence = 0
        try:
            hello = self._receive(time.monotonic() + start_timeout, 1024)  # {"ready": pid} once started
        except WorkerFailure as failure:
            self.close()
            raise WorkerFailure("start", f"a new worker process {failure.detail}", failure.output) from None
        if hello.get("ready") != self.proc.pid:
            self.close()
            raise WorkerFailure("start", f"a new worker process said {hello!r} instead of being ready")

    def request(self, message: dict[str, Any], timeout: float, limit: int) -> dict[str, Any]:
        """Send ``message`` and return the reply. A worker that does not answer within ``timeout``
        seconds, dies, or answers with more than ``limit`` bytes or something not a JSON object is
        ended and :class:`WorkerFailure` raised."""
        deadline = time.monotonic() + timeout
        self.output.take()
        self._sequence += 1
        try:
            payload = pickle.dumps({**message, "seq": self._sequence}, protocol=pickle.HIGHEST_PROTOCOL)
            self._send(payload, deadline, timeout)
            reply = self._receive(deadline, limit, timeout)
        except WorkerFailure:
            raise
        except BaseException:  # interrupted halfway (Ctrl-C, a bug): its reply would answer the next request
            self.end()
            raise
        if reply.get("seq") != self._sequence:
            self.end()
            raise WorkerFailure("protocol", f"its reply answers request {reply.get('seq')!r}, not {self._sequence}")
        if reply.get("strays"):
            self.retire = True  # processes it started survived SIGTERM: its process group is ended
        return reply

    def _send(self, payload: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(FRAME.pack(len(payload)) + payload)
        while view:
            self._wait(select.POLLOUT, deadline, timeout)
            try:
                view = view[os.write(self._send_fd, view):]
            except BlockingIOError:
                continue
            except OSError:  # the worker closed its end: it is gone
                raise self._died() from None

    def _receive(self, deadline: float, limit: int, timeout: float | None = None) -> dict[str, Any]:
        head = self._read(FRAME.size, deadline, timeout)
        (size,) = FRAME.unpack(head)
        if size > limit:
            self.end()
            raise WorkerFailure("protocol", f"its reply was {size} bytes, more than the {limit} allowed")
        try:
            reply = json.loads(self._read(size, deadline, timeout))
        except ValueError as exc:
            self.end()
            raise WorkerFailure("protocol", f"its reply is not valid JSON ({exc})") from None
        if not isinstance(reply, dict):
            self.end()
            raise WorkerFailure("protocol", f"its reply is a JSON {type(reply).__name__}, not an object")
        return reply

    def _read(self, size: int, deadline: float, timeout: float | None) -> bytes:
        chunks, left = [], size
        while left:
            self._wait(select.POLLIN, deadline, timeout)
            chunk = os.read(self._receive_fd, min(left, 1 << 20))
            if not chunk:
                raise self._died()
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _wait(self, event: int, deadline: float, timeout: float | None) -> None:
        fd = self._send_fd if event == select.POLLOUT else self._receive_fd
        poller = select.poll()
        poller.register(fd, event)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.end()
                if timeout is None:
                    raise WorkerFailure("start", "did not start in time", self.output.take())
                raise WorkerFailure("timeout", f"did not finish within {timeout:g} s", self.output.take())
            if poller.poll(remaining * 1000):
                return

    def _died(self) -> WorkerFailure:
        """The failure to raise once the worker's end of the channel closed."""
        self.end()
        self.output.ended.wait(0.5)  # what it printed last, once its process group is gone
        return WorkerFailure("exited", exit_description(self.proc.returncode), self.output.take())

    def end(self) -> None:
        """Kill the worker's whole process group and reap the worker. Its channel stays open until
        :meth:`close`, so that a caller still waiting on it sees it end rather than another pipe."""
        with self._end_lock:
            if self.ended:
                return
            self.ended = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group's id is the worker's pid, not yet reaped
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """End the worker and close its channel; only its owner (the pool, or the lessee) calls this."""
        self.end()
        with self._end_lock:
            fds = (self._send_fd, self._receive_fd, self._lifeline)
            self._send_fd = self._receive_fd = self._lifeline = -1
        for fd in fds:
            if fd >= 0:
                os.close(fd)


class _PoolState:
    """What a pool's workers need to be ended, also after the pool itself is gone."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.idle: list[Worker] = []
        self.live: set[Worker] = set()
        self.starting = 0
        self.closed = False

    def close(self) -> None:
        """Later calls fail; every worker is ended, and the idle ones closed (a lent one is closed by
        its lessee when it comes back)."""
        with self.cond:
            self.closed = True
            live, idle = list(self.live), list(self.idle)
            self.idle.clear()
            self.cond.notify_all()
        for worker in live:
            worker.end()
        for worker in idle:
            worker.close()
        with self.cond:
            self.live.difference_update(idle)


class WorkerPool:
    """Up to ``size`` worker processes, lent to one call at a time and kept between calls."""

    def __init__(self, *, size: int = 4, start_timeout: float = 60.0, allow_env: Iterable[str] = (),
                 deny_env: Iterable[str] = ()):
        self.size = max(1, int(size))
        self.start_timeout = start_timeout
        self.allow_env, self.deny_env = tuple(allow_env), tuple(deny_env)
        self._state = _PoolState()
        weakref.finalize(self, self._state.close)  # with the pool, or when the agent exits

    @contextmanager
    def lease(self, prefer: str | None = None, wait: float | None = None) -> Iterator[Worker]:
        """A worker for one caller; ``prefer`` names a unit it should already have loaded, if any is idle."""
        worker = self._acquire(prefer, wait)
        try:
            yield worker
        finally:
            self._release(worker)

    def _acquire(self, prefer: str | None, wait: float | None) -> Worker:
        state = self._state
        deadline = None if wait is None else time.monotonic() + wait
        with state.cond:
            while True:
                if state.closed:
                    raise WorkerFailure("start", "the tool workers were shut down")
                if state.idle:
                    ready = [w for w in state.idle if prefer in w.units] or state.idle
                    worker = ready[-1]
                    state.idle.remove(worker)
                    return worker
                if len(state.live) + state.starting < self.size:
                    state.starting += 1
                    break
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise WorkerFailure("busy", f"every one of the {self.size} worker processes stayed busy for {wait:g} s")
                state.cond.wait(remaining)
        worker = None
        try:
            worker = Worker(worker_environment(self.allow_env, self.deny_env), self.start_timeout)
        finally:
            with state.cond:
                state.starting -= 1
                if worker is not None and not state.closed:
                    state.live.add(worker)
                state.cond.notify()
        if worker not in state.live:  # the pool was shut down meanwhile
            worker.close()
            raise WorkerFailure("start", "the tool workers were shut down")
        return worker

    def _release(self, worker: Worker) -> None:
        state = self._state
        with state.cond:
            keep = not (worker.ended or worker.retire or state.closed)
            if keep:
                state.idle.append(worker)
            else:
                state.live.discard(worker)
            state.cond.notify()
        if not keep:
            worker.close()

    @property
    def workers(self) -> int:
        """How many worker processes are alive now."""
        with self._state.cond:
            return len(self._state.live)

    def shutdown(self) -> None:
        """End every worker; later calls fail."""
        self._state.close()
