"""One link per configured MCP server: the SDK's client, held open on a background event loop.

Every server's :class:`ServerLink` runs ``mcp.Client`` in a task of one event loop that lives in a
daemon thread (:func:`background`), so the agent's threads call :meth:`ServerLink.list_tools` and
:meth:`ServerLink.call` as plain functions. A server starts the first time it is needed; a server that
ended or failed is started again on the next use, after a wait that doubles with each failure in a
row (none before the first retry, then 1, 2, 4 ... up to :data:`MAX_BACKOFF_S` seconds). Every link
is closed when Riverse exits. Whatever goes wrong is a :class:`McpServerError` whose message names
the server: a command that does not exist, a failed or hanging handshake, a server that ended during
a call, a call that does not finish in time.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import threading
import time
from pathlib import Path
from typing import Any

MAX_BACKOFF_S = 30.0
STDERR_TAIL = 400  # characters of a server's error output quoted in a message


class McpServerError(RuntimeError):
    """Something went wrong with one MCP server; the message names it and says what to do.
    ``kind``: ``timeout`` (it did not answer in time) or ``error``."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind


class EventLoopThread:
    """An asyncio event loop running in a daemon thread; coroutines are handed to it from any thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="riverse-mcp", daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float | None) -> Any:
        """Run ``coro`` on the loop and wait for its result (TimeoutError after ``timeout`` seconds)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            future.add_done_callback(_retrieve)  # what it raises later is not "never retrieved"
            raise TimeoutError from None


def _retrieve(future: Any) -> None:
    if not future.cancelled():
        future.exception()


_background: EventLoopThread | None = None
_links: list["ServerLink"] = []
_guard = threading.Lock()


def background() -> EventLoopThread:
    """The process's one MCP event loop (started on first use)."""
    global _background
    with _guard:
        if _background is None:
            _background = EventLoopThread()
            atexit.register(close_all)
        return _background


def close_all() -> None:
    """Close every link: their servers' processes end (at exit, and in tests)."""
    with _guard:
        links = list(_links)
    for link in links:
        link.close()


class ServerLink:
    """The connection to one MCP server. ``spec``: the server's settings as a plain dict (``command``,
    ``args``, ``env`` and ``cwd`` for stdio; ``url`` and ``headers`` for streamable HTTP), with the
    values of ``env`` and ``headers`` already read from the environment. ``stderr``: a file that takes
    the error output of a stdio server (its tail is quoted when the server fails)."""

    def __init__(self, name: str, spec: dict[str, Any], *, start_timeout: float = 20.0, stderr: Path | None = None):
        self.name = name
        self.spec = spec
        self.start_timeout = start_timeout
        self.stderr = stderr
        self.stale = False  # the server said its tools changed: list them again
        self.starts = 0
        self.http_status = 0  # the last HTTP error status of a streamable-HTTP server
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._closing: asyncio.Future | None = None
        self._lock: asyncio.Lock | None = None
        self._failures = 0
        self._next_start = 0.0
        self._closed = False
        with _guard:
            _links.append(self)

    # ------------------------------------------------------------ sync API
    def list_tools(self) -> list[Any]:
        """The server's tools (``mcp.types.Tool``), starting the server when it is not running."""
        return self._run(self._list_tools(), self.start_timeout + 60)

    def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Call ``tool``: its ``CallToolResult``; McpServerError when the server fails."""
        return self._run(self._call(tool, arguments, timeout), timeout + self.start_timeout + 30)

    def close(self) -> None:
        self._closed = True
        if self._task is not None and _background is not None:
            try:
                _background.run(self._shutdown(self._task, self._stop), 15)
            except (TimeoutError, RuntimeError):
                pass

    def _run(self, coro: Any, timeout: float) -> Any:
        if self._closed:
            coro.close()
            raise McpServerError(f"MCP server '{self.name}' was shut down with Riverse")
        try:
            return background().run(coro, timeout)
        except TimeoutError:
            raise McpServerError(f"MCP server '{self.name}' did not answer within {timeout:g} s", "timeout") from None

    # ----------------------------------------------------------- the loop
    async def _list_tools(self) -> list[Any]:
        client = await self._ensure()
        tools: list[Any] = []
        cursor = None
        try:
            for _ in range(100):  # a paginator that never ends cannot hang the listing
                page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        except Exception as exc:  # noqa: BLE001 - a listing that fails is that server's problem only
            await self._failed()
            raise McpServerError(f"MCP server '{self.name}' could not list its tools: {_reason(exc)}{self._tail()}") from None
        self.stale = False
        return tools

    async def _call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        client = await self._ensure()
        try:
            result = await asyncio.wait_for(client.call_tool(tool, arguments, read_timeout_seconds=timeout), timeout + 1)
        except (asyncio.TimeoutError, TimeoutError):
            raise McpServerError(f"MCP server '{self.name}' did not answer the call of '{tool}' within {timeout:g} s",
                                 "timeout") from None
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise McpServerError(f"MCP server '{self.name}' did not answer the call of '{tool}' within "
                                     f"{timeout:g} s", "timeout") from None
            if exc.code == CONNECTION_CLOSED:
                await self._failed()
                raise McpServerError(f"MCP server '{self.name}' ended during the call of '{tool}'; it is started "
                                     f"again on the next call{self._tail()}") from None
            raise McpServerError(f"MCP server '{self.name}' refused the call of '{tool}': {exc.message}") from None
        except Exception as exc:  # noqa: BLE001 - a broken channel, a reply the SDK cannot read
            await self._failed()
            raise McpServerError(f"MCP server '{self.name}' failed during the call of '{tool}': {_reason(exc)}"
                                 f"{self._tail()}") from None
        self._failures = 0
        return result

    async def _ensure(self) -> Any:
        """The running client, starting the server first when it is not running."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is not None and self._task is not None and not self._task.done():
                return self._client
            wait = self._next_start - time.monotonic()
            if wait > 0:
                raise McpServerError(f"MCP server '{self.name}' failed {self._failures} time(s) in a row; "
                                     f"it is started again in {wait:.0f} s")
            return await self._start()

    async def _start(self) -> Any:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self.starts += 1
        self._task = asyncio.create_task(self._hold(ready, self._stop))
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.start_timeout)
        except (asyncio.TimeoutError, TimeoutError):
            await self._failed()
            raise McpServerError(f"MCP server '{self.name}' did not finish its handshake within "
                                 f"{self.start_timeout:g} s; it was stopped{self._tail()}", "timeout") from None
        except Exception as exc:  # noqa: BLE001 - a command that is missing, a handshake that failed
            await self._failed()
            raise McpServerError(self._start_problem(exc)) from None
        self._client = ready.result()
        self.stale = False
        return self._client

    async def _hold(self, ready: asyncio.Future, stop: asyncio.Event) -> None:
        """Keep one client open until ``stop`` (entered and left in this one task, as anyio wants)."""
        from mcp import Client

        try:
            async with Client(self._target(), read_timeout_seconds=self.start_timeout, cache=None,
                              message_handler=self._on_message) as client:
                if not ready.done():
                    ready.set_result(client)
                listening = asyncio.create_task(self._listen(client))
                try:
                    await stop.wait()
                finally:
                    listening.cancel()
        except BaseException as exc:  # noqa: BLE001 - reported through ``ready``; nothing else waits on it
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(repr(exc)))
        finally:
            if self._stop is stop:  # not a newer client's: this one was replaced after a failure
                self._client = None

    def _target(self) -> Any:
        if self.spec.get("url"):
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=dict(self.spec.get("headers") or {}))
            self.http_status = 0

            async def note_status(response: Any) -> None:  # the SDK's error does not say the HTTP status
                if response.status_code >= 400:
                    self.http_status = response.status_code

            http.event_hooks["response"].append(note_status)
            return streamable_http_client(self.spec["url"], http_client=http)
        from mcp import StdioServerParameters

        params = StdioServerParameters(command=self.spec["command"], args=list(self.spec.get("args") or []),
                                       env=dict(self.spec.get("env") or {}) or None, cwd=self.spec.get("cwd"))
        return _StdioTarget(params, self.stderr)

    async def _listen(self, client: Any) -> None:
        """On a 2026-07-28 connection to a server that announces tool-list changes, hear them."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        tools = client.server_capabilities.tools
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or tools is None or not tools.list_changed:
            return
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    self.stale = True
        except Exception:  # noqa: BLE001 - without the stream, changes are seen at the next restart
            return

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self.stale = True

    async def _failed(self) -> None:
        """The server failed: stop what is left of it; the next start waits a little longer each time."""
        self._failures += 1
        delay = 0.0 if self._failures == 1 else min(MAX_BACKOFF_S, 2.0 ** (self._failures - 2))
        self._next_start = time.monotonic() + delay
        self._client = None
        self._closing = asyncio.ensure_future(self._shutdown(self._task, self._stop))  # the caller gets its answer meanwhile

    async def _shutdown(self, task: asyncio.Task | None, stop: asyncio.Event | None) -> None:
        """End the client held by ``task`` (its server's process ends with it)."""
        if task is None:
            return
        if stop is not None:
            stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5)
        except BaseException:  # noqa: BLE001 - a transport that does not close is cancelled
            task.cancel()
            try:
                await asyncio.wait_for(task, 5)
            except BaseException:  # noqa: BLE001
                pass

    def _start_problem(self, exc: BaseException) -> str:
        command = self.spec.get("command")
        if isinstance(_root(exc), FileNotFoundError) and command:
            return (f"MCP server '{self.name}': the command {command!r} does not exist; install it or fix "
                    f"mcp.servers.{self.name}.command in the settings")
        where = self.spec.get("url") or command
        status = ""
        if self.http_status:
            status = f" (HTTP {self.http_status})"
            if self.http_status in (401, 403):
                status += f"; check the credentials in mcp.servers.{self.name}.headers"
        return f"MCP server '{self.name}' ({where}) failed its handshake: {_reason(exc)}{status}{self._tail()}"

    def _tail(self) -> str:
        if self.stderr is None:
            return ""
        try:
            with self.stderr.open("rb") as handle:
                handle.seek(max(0, self.stderr.stat().st_size - STDERR_TAIL))
                text = handle.read().decode("utf-8", errors="replace").strip()
        except OSError:
            return ""
        return f"; its last error output: {text!r}" if text else ""


class _StdioTarget:
    """The SDK's stdio transport with the server's error output going to a file of Riverse's."""

    def __init__(self, params: Any, stderr: Path | None):
        self.params, self.stderr = params, stderr
        self._cm: Any = None
        self._file: Any = None

    async def __aenter__(self) -> Any:
        from mcp.client.stdio import stdio_client

        if self.stderr is not None:
            self.stderr.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.stderr, "w", encoding="utf-8")  # noqa: SIM115 - closed in __aexit__
            os.chmod(self.stderr, 0o600)
        self._cm = stdio_client(self.params, errlog=self._file) if self._file else stdio_client(self.params)
        try:
            return await self._cm.__aenter__()
        except BaseException:
            self._close_file()
            raise

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self._cm.__aexit__(*exc)
        finally:
            self._close_file()

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _root(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio wraps what a transport raises)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    root = _root(exc)
    text = str(root).strip() or type(root).__name__
    return text[:300]
