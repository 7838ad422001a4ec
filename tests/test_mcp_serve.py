"""``riverse mcp serve`` driven by the MCP SDK's own client, over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest
import yaml
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.client.streamable_http import streamable_http_client

from agent.app import App
from agent.cli import cli
from tests.helpers.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
RIVERSE = ["-c", "from agent.cli import main; main()"]
CLIENT = types.Implementation(name="test-client", version="1.0")
HELLO = '''
from agent.tools import BaseTool, ToolManifest, ToolResult


class Hello(BaseTool):
    def manifest(self):
        return ToolManifest(name="hello", description="Say hello to someone.", parameters={"name": "who to greet"},
                            examples=["say hello to Ann", "greet Bob"], required=["name"])

    def execute(self, params):
        return ToolResult(True, "hello " + params["name"])
'''


def settings(home: Path, data: dict) -> None:
    (home / "settings.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def stdio(home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[*RIVERSE, "mcp", "serve"], cwd=str(ROOT),
                                 env={"RIVERSE_HOME": str(home), "HOME": os.environ["HOME"]})


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content)


def run(test) -> None:
    anyio.run(test)


def test_stdio_lists_calls_errors_refuses_and_logs_the_client(riverse_home):
    settings(riverse_home, {"language": "zh"})

    async def session() -> None:
        async with Client(stdio(riverse_home), client_info=CLIENT, cache=None, read_timeout_seconds=60) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            calc = tools["calculator"]
            assert calc.input_schema["required"] == ["expression"]
            assert calc.input_schema["properties"]["expression"]["type"] == "string"
            assert re.search(r"[\u4e00-\u9fff]", calc.description), calc.description  # the configured language
            assert "shell_exec" not in tools  # off by default: not available, not offered
            ok = await client.call_tool("calculator", {"expression": "2**10"})
            assert not ok.is_error and "1024" in text_of(ok)
            bad = await client.call_tool("calculator", {"expression": "2 +* 3"})
            assert bad.is_error and text_of(bad)
            invalid = await client.call_tool("calculator", {})
            assert invalid.is_error and "expression" in text_of(invalid)
            refused = await client.call_tool("notes", {"action": "add", "text": "buy milk"})
            assert refused.is_error and "mcp.serve.approval" in text_of(refused)
            listed = await client.call_tool("notes", {"action": "list"})  # reading notes needs no approval
            assert not listed.is_error

    run(session)
    calls = App().store.tool_calls(limit=10)
    assert {c["caller"] for c in calls} == {"mcp:test-client"}
    refused = next(c for c in calls if c["status"] == "refused")
    assert refused["name"] == "notes" and refused["params"]["action"] == "add"
    shown = CliRunner().invoke(cli, ["logs", "-v", "-n", "1"])
    assert "mcp:test-client" in shown.output


def test_stdio_tells_the_client_when_a_tool_is_added(riverse_home):
    async def session() -> None:
        async with Client(stdio(riverse_home), client_info=CLIENT, cache=None, read_timeout_seconds=60) as client:
            assert "hello" not in [t.name for t in (await client.list_tools()).tools]
            with anyio.fail_after(30):
                async with client.listen(tools_list_changed=True) as events:
                    (riverse_home / "tools").mkdir(exist_ok=True)
                    (riverse_home / "tools" / "hello.py").write_text(HELLO, encoding="utf-8")
                    async for event in events:
                        break
            assert "hello" in [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            said = await client.call_tool("hello", {"name": "Ann"})
            assert text_of(said) == "hello Ann"

    run(session)


@pytest.mark.parametrize("approval, answer, mode, runs", [
    ("allow", None, "auto", True),
    ("ask", "accept", "legacy", True),  # asked with a request to the client during the call
    ("ask", "accept", "auto", True),  # 2026-07-28: asked with an InputRequiredResult, then called again
    ("ask", "decline", "auto", False),
    ("ask", "cancel", "legacy", False),
])
def test_approval_for_mcp_clients_follows_the_settings(riverse_home, approval, answer, mode, runs):
    settings(riverse_home, {"mcp": {"serve": {"approval": approval}}})
    asked: list[str] = []

    async def elicit(context, params) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=answer)

    async def session() -> None:
        options = {"elicitation_callback": elicit} if answer else {}
        async with Client(stdio(riverse_home), client_info=CLIENT, cache=None, read_timeout_seconds=60, mode=mode,
                          **options) as client:
            result = await client.call_tool("notes", {"action": "add", "text": "call the bank"})
            assert result.is_error is not runs, text_of(result)
            if not runs:
                assert "did not approve" in text_of(result) and "test-client" in text_of(result)

    run(session)
    if answer:
        assert len(asked) == 1 and "notes" in asked[0] and "call the bank" in asked[0]
    calls = App().store.tool_calls(limit=1)
    assert calls[0]["approval"] == ("approved" if runs else "refused")
    assert bool(App().store.tool_calls(tool="notes", limit=5)) and (calls[0]["status"] == "ok") is runs


def test_an_approval_forged_or_meant_for_another_call_is_refused(riverse_home):
    """Attack: a client that sends "accept" for a call it was never asked about, or with the state of
    another call, does not get the call run."""
    settings(riverse_home, {"mcp": {"serve": {"approval": "ask"}}})
    accept = {"riverse-approval": types.ElicitResult(action="accept")}

    async def elicit(context, params) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def session() -> list[types.CallToolResult]:
        async with Client(stdio(riverse_home), client_info=CLIENT, cache=None, read_timeout_seconds=60,
                          elicitation_callback=elicit) as client:
            first = await client.session.call_tool("notes", {"action": "add", "text": "harmless"},
                                                   allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and first.request_state
            out = []
            for state in (first.request_state, "0" * 64, None):  # another call's state, a made-up one, none
                out.append(await client.session.call_tool("notes", {"action": "add", "text": "rm -rf"},
                                                          input_responses=accept, request_state=state,
                                                          allow_input_required=True))
            return out

    results = anyio.run(session)
    for result in results:
        assert isinstance(result, types.CallToolResult) and result.is_error
        assert "was not asked for this call" in text_of(result)
    assert all(c["status"] == "refused" for c in App().store.tool_calls(limit=10))


class HttpServer:
    """``riverse mcp serve --http --port 0`` in a subprocess; ``url`` once it listens."""

    def __init__(self, home: Path, *extra: str, env: dict[str, str] | None = None):
        self.process = subprocess.Popen([sys.executable, *RIVERSE, "mcp", "serve", "--http", "--port", "0", *extra],
                                        cwd=ROOT, env={**os.environ, "RIVERSE_HOME": str(home), **(env or {})},
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in self.process.stderr], daemon=True).start()
        self.url = ""
        while not self.url:
            line = lines.get(timeout=60)
            found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
            self.url = found.group(1) if found else ""

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def test_http_lists_calls_and_tells_a_legacy_client_about_a_new_tool(riverse_home):
    server = HttpServer(riverse_home)
    seen: list[str] = []

    async def session() -> None:
        got = anyio.Event()

        async def on_message(message) -> None:
            if getattr(message, "method", None) == "notifications/tools/list_changed":
                seen.append(message.method)
                got.set()

        async with Client(server.url, client_info=CLIENT, cache=None, mode="legacy", message_handler=on_message,
                          read_timeout_seconds=60) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "calculator" in names and "hello" not in names
            result = await client.call_tool("unit_convert", {"value": 10, "from_unit": "km", "to_unit": "mi"})
            assert not result.is_error and "6.21" in text_of(result)
            (riverse_home / "tools").mkdir(exist_ok=True)
            (riverse_home / "tools" / "hello.py").write_text(HELLO, encoding="utf-8")
            with anyio.fail_after(30):
                await got.wait()
            assert "hello" in [t.name for t in (await client.list_tools()).tools]

    try:
        run(session)
    finally:
        server.stop()
    assert seen == ["notifications/tools/list_changed"] or set(seen) == {"notifications/tools/list_changed"}


def test_http_needs_the_token_when_one_is_set(riverse_home):
    token = "a-long-enough-test-token-1234"
    server = HttpServer(riverse_home, env={"RIVERSE_SERVER_TOKEN": token})

    async def with_headers(headers: dict[str, str]) -> list[str]:
        transport = streamable_http_client(server.url, http_client=create_mcp_http_client(headers=headers))
        async with Client(transport, client_info=CLIENT, cache=None, read_timeout_seconds=20) as client:
            return [t.name for t in (await client.list_tools()).tools]

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    try:
        assert "calculator" in anyio.run(with_headers, {"Authorization": f"Bearer {token}"})
        for wrong in ({}, {"Authorization": "Bearer not-the-token-at-all-000"}, {"Authorization": token}):
            answer = httpx.post(server.url, json=initialize, headers={**accept, **wrong}, timeout=20)
            assert answer.status_code == 401, (wrong, answer.status_code)
        right = httpx.post(server.url, json=initialize, headers={**accept, "Authorization": f"Bearer {token}"}, timeout=20)
        assert right.status_code == 200
        # Attack: a web page on another site (DNS rebinding, or a cross-site request) with the token
        for foreign in ({"Host": "evil.example:8788"}, {"Origin": "http://evil.example"},
                        {"Sec-Fetch-Site": "cross-site"}):
            answer = httpx.post(server.url, json=initialize, timeout=20,
                                headers={**accept, "Authorization": f"Bearer {token}", **foreign})
            assert answer.status_code in (400, 403, 421), (foreign, answer.status_code)
    finally:
        server.stop()


def test_http_beyond_loopback_needs_a_token(riverse_home):
    result = CliRunner().invoke(cli, ["mcp", "serve", "--http", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 1 and "token" in result.output.lower()
    misuse = CliRunner().invoke(cli, ["mcp", "serve", "--port", "9"])
    assert misuse.exit_code == 2 and "--http" in misuse.output


def test_http_with_a_token_file_makes_one_and_requires_it(riverse_home, tmp_path):
    token_file = tmp_path / "mcp-token"
    server = HttpServer(riverse_home, "--token-file", str(token_file))
    try:
        token = token_file.read_text(encoding="utf-8").strip()
        assert len(token) >= 16 and (token_file.stat().st_mode & 0o777) == 0o600
        accept = {"Accept": "application/json, text/event-stream"}
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}
        assert httpx.post(server.url, json=initialize, headers=accept, timeout=20).status_code == 401
        allowed = httpx.post(server.url, json=initialize, headers={**accept, "Authorization": f"Bearer {token}"},
                             timeout=20)
        assert allowed.status_code == 200
    finally:
        server.stop()


def test_riverse_uses_a_streamable_http_server_with_a_header_from_the_environment(riverse_home, tmp_path, monkeypatch):
    token = "another-long-test-token-5678"
    served = tmp_path / "served-home"
    served.mkdir(mode=0o700)
    server = HttpServer(served, env={"RIVERSE_SERVER_TOKEN": token})
    monkeypatch.setenv("SERVED_TOKEN", token)
    settings(riverse_home, {"mcp": {"servers": {
        "far": {"url": server.url, "headers": {"Authorization": "Bearer ${SERVED_TOKEN}"}, "risk": "read"},
        "locked": {"url": server.url, "prefix": "l"}}}})
    app = App()
    try:
        registry = app.registry
        assert registry.entry("far_calculator").origin == "mcp:far"
        assert not any(name.startswith("l_") for name in registry.names())
        locked = next(p for p in registry.problems if p.path == "mcp:locked")
        assert "MCP server 'locked'" in locked.message and "HTTP 401" in locked.message
        assert "mcp.servers.locked.headers" in locked.message
        result = CliRunner().invoke(cli, ["tools", "run", "far_calculator", "expression=6*7"])
        assert result.exit_code == 0 and "42" in result.output
    finally:
        app.registry.close()
        server.stop()
    assert "far_calculator" in CliRunner().invoke(cli, ["logs"]).output
    assert token not in CliRunner().invoke(cli, ["logs", "--json"]).output


def test_riverse_hears_when_an_mcp_server_it_uses_adds_a_tool(riverse_home, tmp_path):
    served = tmp_path / "served-home"
    served.mkdir(mode=0o700)
    server = {"command": sys.executable, "args": [*RIVERSE, "mcp", "serve"], "cwd": str(ROOT),
              "env": {"RIVERSE_HOME": str(served)}}
    settings(riverse_home, {"mcp": {"servers": {"inner": server}}})
    app = App()
    try:
        registry = app.registry
        assert "inner_calculator" in registry and "inner_hello" not in registry
        (served / "tools").mkdir()
        (served / "tools" / "hello.py").write_text(HELLO, encoding="utf-8")
        added: list[str] = []
        # each refresh lists the server again only once it said its tools changed
        wait_until(lambda: bool(added.extend(registry.refresh().added) or added), "inner_hello in the registry", 30)
        assert added == ["inner_hello"]
        assert app.registry.entry("inner_hello").manifest.required == ["name"]
    finally:
        app.registry.close()
