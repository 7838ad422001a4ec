"""MCP servers as a source of tools for the registry.

:class:`McpSource` gives the registry one :class:`~agent.toolkit.discovery.FileState` per configured
server: a :class:`McpTool` for each tool the server lists, named ``PREFIX_tool`` (the prefix is the
server's name unless its settings say otherwise), typed from its ``inputSchema``, with the server's
risk (``network`` unless its settings say otherwise) and timeout. Each entry's source is
``mcp:NAME``. A server that cannot be started or listed is a load problem naming it; a tool whose
schema Riverse cannot read is listed as unavailable, with the reason. Every other tool keeps working.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agent.mcp.links import McpServerError, ServerLink
from agent.mcp.schema import SchemaError, Translated, riverse_name, translate
from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.discovery import PACKAGE, FileState, LoadProblem, ToolEntry
from agent.toolkit.results import capped
from agent.toolkit.validate import manifest_problems

RETRY_LISTING_S = 60.0  # seconds before a server that could not be listed is tried again by a refresh


class McpTool(BaseTool):
    """Stands in for one tool of an MCP server: calls it through the server's link."""

    def __init__(self, link: ServerLink, remote: str, manifest: ToolManifest, translated: Translated, config: dict):
        super().__init__(config)
        self.link, self.remote, self._manifest, self.translated = link, remote, manifest, translated

    def manifest(self) -> ToolManifest:
        return self._manifest

    def timeout(self) -> float:
        """The call's time limit: ``tools.NAME.timeout`` in the settings, else the server's."""
        own = self.tool_config(self._manifest.name).get("timeout")
        if isinstance(own, (int, float)) and not isinstance(own, bool) and own > 0:
            return float(own)
        return float(self._manifest.timeout or 60.0)

    def worst_case(self, timeout: float) -> float:
        """How long a call can take at most: starting the server, then the call itself."""
        return max(timeout, self.timeout()) + self.link.start_timeout + 35

    def execute(self, params: dict) -> ToolResult:
        outcome = self.run_settled(params, timeout=self.timeout(), max_chars=None, language=None)
        return ToolResult(outcome["success"], outcome["data"], outcome["error"])

    def run_settled(self, params: dict, *, timeout: float, max_chars: int | None, language: str | None) -> dict[str, Any]:
        """The call's outcome as the runner records it (``timeout`` and ``error`` when the server
        failed, ``failed`` for an error result); never raises."""
        try:
            result = self.link.call(self.remote, self.translated.arguments(params), timeout)
        except McpServerError as exc:
            return {"status": exc.kind, "success": False, "data": "", "error": str(exc)}
        settled = result_of(self.link.name, self.remote, result)
        data, error = capped(settled.data, max_chars), capped(settled.error, max_chars)
        return {"status": "ok" if settled.success else "failed", "success": settled.success, "data": data, "error": error}


def result_of(server: str, tool: str, result: Any) -> ToolResult:
    """A ``CallToolResult`` as a ToolResult: its text blocks (what other blocks are, briefly)."""
    parts = [_block_text(block) for block in getattr(result, "content", None) or []]
    text = "\n".join(p for p in parts if p)
    structured = getattr(result, "structured_content", None)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    if getattr(result, "is_error", False):
        return ToolResult(False, error=f"MCP server '{server}', tool '{tool}': {text or 'failed without saying why'}")
    return ToolResult(True, text)


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        inner = getattr(block, "resource", None)
        text = getattr(inner, "text", None)
        return str(text) if text is not None else f"[resource {getattr(inner, 'uri', '')}]"
    if kind == "resource_link":
        return f"[resource {getattr(block, 'uri', '')}]"
    if kind in ("image", "audio"):
        return f"[{kind} {getattr(block, 'mime_type', '')}, {len(getattr(block, 'data', '') or '')} characters of base64]"
    return f"[{kind} content]"


class McpSource:
    """The tools of the MCP servers in ``servers`` (``{NAME: spec}``, see :func:`server_specs`)."""

    def __init__(self, servers: dict[str, dict[str, Any]], config: dict, home: Path):
        self.servers = servers
        self.config = config
        self.links = {
            name: ServerLink(name, spec["connect"], start_timeout=spec["start_timeout"],
                             stderr=home / "logs" / "mcp" / f"{name}.stderr.log")
            for name, spec in servers.items()
        }
        self._states: dict[str, FileState] = {}
        self._starts: dict[str, int] = {}
        self._failed_at: dict[str, float] = {}

    def states(self) -> list[FileState]:
        """One state per server: listed now the first time, again when the server restarted or said
        its tools changed, or when its last listing failed; else the last listing."""
        due = [name for name in self.servers if self._due(name)]
        if due:
            with ThreadPoolExecutor(max_workers=min(8, len(due)), thread_name_prefix="riverse-mcp-list") as pool:
                for name, state in zip(due, pool.map(self._load, due)):
                    self._states[name] = state
        return [self._states[name] for name in self.servers]

    def close(self) -> None:
        for link in self.links.values():
            link.close()

    def _due(self, name: str) -> bool:
        state, link = self._states.get(name), self.links[name]
        if state is None or link.stale or link.starts != self._starts.get(name):
            return True
        failed = not state.entries and any(p.level == "error" for p in state.problems)
        # a server that could not be listed is tried again now and then, not at every refresh (each turn)
        return failed and time.monotonic() - self._failed_at.get(name, 0.0) >= RETRY_LISTING_S

    def _load(self, name: str) -> FileState:
        link = self.links[name]
        where = f"mcp:{name}"
        try:
            tools = link.list_tools()
        except McpServerError as exc:
            self._starts[name] = link.starts
            kept = self._states.get(name)
            if kept is not None and kept.entries:  # keep its last tool list: a call starts it again
                note = f"{exc}; its last list of tools is kept"
                return FileState((0, 0), kept.entries, [LoadProblem(where, note, level="warning")])
            self._failed_at[name] = time.monotonic()
            return FileState((0, 0), [], [LoadProblem(where, str(exc))])
        self._starts[name] = link.starts
        entries, problems = [], []
        for tool in tools:
            entry = self._entry(name, link, tool)
            entries.append(entry)
            if not entry.available:
                problems.append(LoadProblem(where, entry.reason, class_name=entry.name, level="warning"))
        return FileState((0, 0), entries, problems)

    def _entry(self, server: str, link: ServerLink, tool: Any) -> ToolEntry:
        spec = self.servers[server]
        remote = str(tool.name)
        name = riverse_name(remote, spec["prefix"])
        risk = spec["tool_risk"].get(remote) or spec["tool_risk"].get(name) or spec["risk"]
        description = " ".join(str(tool.description or tool.title or "").split()) or f"{remote} (MCP server {server})"
        reason = ""
        try:
            translated = translate(tool.input_schema)
        except SchemaError as exc:
            translated, reason = Translated(), f"tool '{remote}' of MCP server '{server}': {exc}"
        manifest = ToolManifest(name=name, description=description[:1000], parameters=translated.parameters,
                                parameter_types=translated.parameter_types, required=translated.required,
                                timeout=spec["timeout"], risk=risk)
        errors = [p.message for p in manifest_problems(manifest) if p.level == "error"]
        if errors and not reason:
            reason = f"tool '{remote}' of MCP server '{server}': {errors[0]}"
        scoped = {**self.config, "tools": {name: dict((self.config.get("tools") or {}).get(name) or {})}}
        mcp_tool = McpTool(link, remote, manifest, translated, scoped)
        return ToolEntry(name, mcp_tool, manifest, f"mcp:{server}", remote, None, f"mcp:{server}", PACKAGE,
                         available=not reason, reason=reason)
