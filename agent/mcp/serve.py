"""``riverse mcp serve``: every Riverse tool for any MCP client, over stdio or streamable HTTP.

The SDK's low-level ``Server`` answers ``tools/list`` with each available tool's JSON schema (from its
manifest's types and required parameters) and description in the configured language, and
``tools/call`` by running the call through :class:`~agent.toolkit.runtime.ToolRunner`: parameter
validation, the approval policy, the timeout, worker-process isolation, the output cap. Each call is
recorded in the store with the client as its caller (``riverse logs`` shows ``mcp:<client>``).

A call whose policy needs approval runs only as ``mcp.serve.approval`` says: ``refuse`` (the default)
refuses it with the reason and the setting that would allow it; ``allow`` runs it; ``ask`` asks the
client's user through the client (elicitation) when the client can be asked, else refuses it.

Tool files are watched while serving: when a tool is added, changed or removed, clients are told
(``notifications/tools/list_changed``, or a ``subscriptions/listen`` event on 2026-07-28 connections).
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent import __version__
from agent.app import App
from agent.mcp.approval import McpApproval
from agent.mcp.texts import text
from agent.toolkit.base import ToolManifest
from agent.toolkit.runtime import ToolOutcome, ToolRunner

WATCH_INTERVAL_S = 1.0
MAX_LEGACY_CLIENTS = 256


class RiverseMcpServer:
    """The MCP server over one :class:`~agent.app.App`'s registry, runner settings and store."""

    def __init__(self, app: App, *, watch_interval: float = WATCH_INTERVAL_S):
        self.app = app
        self.language = app.language
        self.watch_interval = watch_interval
        self.approval = McpApproval(app.settings, app.language)
        self.bus = InMemorySubscriptionBus()
        # a session per connection of the handshake era, which gets list_changed notifications
        self._legacy: dict[int, Any] = {}
        self.server = Server("riverse", version=__version__, on_list_tools=self.list_tools,
                             on_call_tool=self.call_tool, on_subscriptions_listen=ListenHandler(self.bus))
        self.options = self.server.create_initialization_options(NotificationOptions(tools_changed=True))

    # -------------------------------------------------------------- handlers
    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        self._remember(ctx)
        await anyio.to_thread.run_sync(self.app.registry.refresh)
        return types.ListToolsResult(tools=[tool_of(m) for m in self.app.registry.manifests(self.language)])

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        self._remember(ctx)
        name, arguments = params.name, dict(params.arguments or {})
        client = client_name(ctx)
        entry = self.app.registry.entry(name)
        if entry is None:
            return _result(False, text("unknown", self.language, name=name))
        decided = await self.approval.decide(ctx, params, entry.manifest, client)
        if isinstance(decided, types.InputRequiredResult):
            return decided  # the client asks its user, then calls again with the answer
        answer, reason = decided
        runner = ToolRunner.from_settings(self.app.registry, self.app.settings, approver=lambda request: answer)
        outcome: ToolOutcome = await anyio.to_thread.run_sync(runner.run, name, arguments)
        if outcome.status == "refused" and reason:
            outcome.error = reason
        outcome.caller = f"mcp:{client}"
        await anyio.to_thread.run_sync(self.app.store.add_tool_call, None, outcome)
        return _result(outcome.success, outcome.data if outcome.success else outcome.error)

    def _remember(self, ctx: Any) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # told through subscriptions/listen
        connection = getattr(ctx.session, "_connection", ctx.session)  # a session object per request, one connection
        self._legacy.pop(id(connection), None)
        self._legacy[id(connection)] = ctx.session
        while len(self._legacy) > MAX_LEGACY_CLIENTS:
            self._legacy.pop(next(iter(self._legacy)))

    # ------------------------------------------------------------ hot reload
    async def watch(self) -> None:
        """Pick up added, changed and removed tools; tell every client that the list changed."""
        while True:
            await anyio.sleep(self.watch_interval)
            report = await anyio.to_thread.run_sync(self.app.registry.refresh)
            if report.added or report.changed or report.removed:
                await self.tools_changed()

    async def tools_changed(self) -> None:
        await self.bus.publish(ToolsListChanged())
        for key, session in list(self._legacy.items()):
            try:
                with anyio.fail_after(5):
                    await session.send_tool_list_changed()
            except Exception:  # noqa: BLE001 - a client that went away
                self._legacy.pop(key, None)

    # ------------------------------------------------------------- transports
    async def serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with anyio.create_task_group() as group:
            group.start_soon(self.watch)
            async with stdio_server() as (read, write):
                await self.server.run(read, write, self.options)
            group.cancel_scope.cancel()

    def http_app(self, host: str, token: str | None) -> Any:
        """The streamable-HTTP ASGI app at ``/mcp``, behind Riverse's access guard (token, host, origin)."""
        from agent.server.access import AccessGuard, is_loopback

        app = self.server.streamable_http_app(host=host)
        return AccessGuard(app, token=token, loopback_only=is_loopback(host))

    async def serve_http(self, host: str, port: int, token: str | None, started: Any = None) -> None:
        import uvicorn

        # open streams (a client's subscriptions/listen) do not keep Ctrl-C or SIGTERM waiting long
        config = uvicorn.Config(self.http_app(host, token), host=host, port=port, log_level="warning",
                                lifespan="on", ws="none", timeout_graceful_shutdown=3)
        server = uvicorn.Server(config)
        async with anyio.create_task_group() as group:
            group.start_soon(self.watch)
            if started is not None:
                group.start_soon(_report_started, server, started)
            await server.serve()
            group.cancel_scope.cancel()


async def _report_started(server: Any, started: Any) -> None:
    while not server.started:
        await anyio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1] if server.servers else None
    started(port)


def tool_of(manifest: ToolManifest) -> types.Tool:
    """A manifest as an MCP tool: its name, description, JSON schema and what its risk hints."""
    risk = manifest.risk_level
    hints = types.ToolAnnotations(read_only_hint=risk in ("read", "network") and not manifest.risk_by_value,
                                  destructive_hint=risk in ("write", "execute") or bool(manifest.risk_by_value),
                                  open_world_hint=risk == "network")
    return types.Tool(name=manifest.name, description=manifest.description, input_schema=manifest.json_schema(),
                      annotations=hints)


def client_name(ctx: Any) -> str:
    """The MCP client's own name (from its initialize request), else ``client``."""
    params = ctx.session.client_params
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return str(name)[:64] if name else "client"


def _result(success: bool, content: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=content)], is_error=not success)
