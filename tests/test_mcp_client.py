"""MCP servers as Riverse tools: real servers started over stdio (mcp-server-time from the package
index, and the misbehaving ones of tests/helpers/mcp_servers.py), used through the registry, the
runner, the agent loop and ``riverse tools run``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from agent.app import App
from agent.cli import cli
from agent.config import Settings, SettingsError, load_settings
from agent.mcp.schema import SchemaError, translate
from agent.mcp.source import McpSource
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.toolkit.registry import ToolRegistry
from agent.toolkit.runtime import ApprovalGate, ToolRunner

ROOT = Path(__file__).resolve().parent.parent
TIME = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
HELPER = {"command": sys.executable, "args": ["-m", "tests.helpers.mcp_servers", "tools"], "cwd": str(ROOT)}


def source(home: Path, servers: dict[str, dict], env: dict[str, str] | None = None) -> McpSource:
    settings = Settings.model_validate({"mcp": {"servers": servers}})
    return McpSource(settings.mcp_servers(env or {}), {"language": "en", "tools": {}}, home)


@pytest.fixture
def registry_of(riverse_home):
    made: list[ToolRegistry] = []

    def make(servers: dict[str, dict], env: dict[str, str] | None = None) -> ToolRegistry:
        registry = ToolRegistry({"language": "en", "tools": {}}, builtin=False, packages=False, isolation="thread",
                                sources=[source(riverse_home, servers, env)])
        made.append(registry)
        return registry

    yield make
    for registry in made:
        registry.close()


def write_settings(home: Path, data: dict) -> None:
    (home / "settings.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


# ------------------------------------------------------------------ schemas
def test_input_schema_becomes_typed_parameters():
    out = translate({"type": "object", "required": ["size", "item"], "properties": {
        "size": {"type": "string", "enum": ["small", "large"], "description": "the size"},
        "price-limit": {"type": "number", "title": "Price limit"},
        "item": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        "tags": {"type": "array", "items": {"type": "string"}}}})
    assert out.parameter_types["size"] == ["small", "large"]
    assert out.parameter_types["price_limit"] == "number" and out.parameters["price_limit"] == "Price limit"
    assert out.parameter_types["item"]["properties"]["name"] == {"type": "string"}
    assert out.parameter_types["tags"]["type"] == "array"
    assert out.required == ["size", "item"]
    assert out.arguments({"price_limit": 3, "size": "small"}) == {"price-limit": 3, "size": "small"}


@pytest.mark.parametrize("schema, says", [
    ("not a schema", "not an object"),
    ({"type": "array"}, "must be an object"),
    ({"type": "object", "properties": ["a"]}, "'properties' is not an object"),
    ({"type": "object", "properties": {"a": 3}}, "property 'a'"),
    ({"type": "object", "properties": {}, "required": ["a"]}, "requires ['a']"),
    ({"type": "object", "properties": {"a": {"enum": []}}}, "'enum' must be a non-empty list"),
    ({"type": "object", "properties": {"a-b": {}, "a_b": {}}}, "same Riverse name"),
])
def test_a_broken_schema_says_what_is_wrong(schema, says):
    with pytest.raises(SchemaError, match=None) as caught:
        translate(schema)
    assert says in str(caught.value)


# ----------------------------------------------------------------- settings
def test_server_settings_are_checked():
    for bad, says in [({"x": {}}, "either command"), ({"x": {"command": "a", "url": "http://h/mcp"}}, "either command"),
                      ({"x": {"url": "ftp://h"}}, "http:// or https://"), ({"1x": {"command": "a"}}, "server name '1x'"),
                      ({"x": {"command": "a", "risk": "danger"}}, "risk")]:
        with pytest.raises(Exception) as caught:
            Settings.model_validate({"mcp": {"servers": bad}})
        assert says in str(caught.value)


def test_secrets_come_from_the_environment_and_a_missing_one_is_named(riverse_home):
    write_settings(riverse_home, {"mcp": {"servers": {"s": {"url": "https://example.test/mcp",
                                                               "headers": {"Authorization": "Bearer ${S_TOKEN}"}}}}})
    settings = load_settings()
    assert settings.mcp_servers({"S_TOKEN": "abc"})["s"]["connect"]["headers"] == {"Authorization": "Bearer abc"}
    with pytest.raises(SettingsError) as caught:
        settings.mcp_servers({})
    assert "mcp.servers.s.headers.Authorization" in str(caught.value) and "S_TOKEN" in str(caught.value)


# ------------------------------------------------- a real server: mcp-server-time
def test_mcp_server_time_tools_join_the_registry_typed_and_run(registry_of):
    registry = registry_of({"time": TIME})
    assert {"time_get_current_time", "time_convert_time"} <= set(registry.names())
    entry = registry.entry("time_convert_time")
    assert entry.origin == "mcp:time" and entry.manifest.risk == "network"
    assert set(entry.manifest.required) == {"source_timezone", "time", "target_timezone"}
    assert entry.manifest.json_schema()["properties"]["time"]["type"] == "string"
    described = {t["name"]: t for t in registry.describe()["tools"]}
    assert described["time_get_current_time"]["source"] == "mcp:time"
    outcome = ToolRunner(registry).run("time_convert_time", {"source_timezone": "UTC", "time": "12:00",
                                                             "target_timezone": "Asia/Tokyo"})
    assert outcome.success, outcome.error
    assert json.loads(outcome.data)["target"]["datetime"].endswith("T21:00:00+09:00")
    missing = ToolRunner(registry).run("time_convert_time", {"time": "12:00"})
    assert missing.status == "invalid" and "source_timezone" in missing.error


def test_riverse_tools_run_and_the_loop_use_an_mcp_tool(riverse_home):
    write_settings(riverse_home, {"mcp": {"servers": {"time": TIME}}})
    result = CliRunner().invoke(cli, ["tools", "run", "time_get_current_time", "timezone=Asia/Tokyo", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(json.loads(result.output)["data"])["timezone"] == "Asia/Tokyo"
    listed = CliRunner().invoke(cli, ["tools", "list"])
    assert "time_get_current_time" in listed.output and "mcp:time" in listed.output
    provider = ScriptedProvider([ToolCall("time_get_current_time", {"timezone": "Europe/Paris"}), "Done."])
    app = App(provider=provider)
    try:
        turn = app.agent().ask("What time is it in Paris?")
        tools_sent = [t["function"]["name"] for t in provider.requests[0]["tools"]]
        assert "time_get_current_time" in tools_sent
        assert turn.tool_calls[0].success and "Europe/Paris" in turn.tool_calls[0].data
    finally:
        app.registry.close()


# ------------------------------------------------------ servers that misbehave
def test_typed_calls_an_error_result_and_a_broken_schema(registry_of):
    registry = registry_of({"t": {**HELPER, "timeout": 5}})
    runner = ToolRunner(registry)
    assert runner.run("t_add", {"a": "2", "b": 3}).data == "5"  # "2" became 2 by the manifest's type
    order = runner.run("t_order", {"size": "LARGE", "item": {"name": "tea", "qty": 2}, "price_limit": "3.5"})
    assert json.loads(order.data) == {"item": {"name": "tea", "qty": 2}, "price-limit": 3.5, "size": "large"}
    assert runner.run("t_order", {"size": "huge", "item": {"name": "tea"}}).status == "invalid"
    failed = runner.run("t_fail", {})
    assert not failed.success and failed.error == "MCP server 't', tool 'fail': the order book is closed"
    assert "t_broken" not in registry
    broken = next(e for e in registry.entries(include_unavailable=True) if e.name == "t_broken")
    assert not broken.available and "'properties' is not an object" in broken.reason and "'t'" in broken.reason
    assert "'properties' is not an object" in registry.why_missing("t_broken")


def test_a_server_that_crashes_mid_call_is_restarted_and_others_keep_working(registry_of):
    registry = registry_of({"t": {**HELPER, "timeout": 10}, "time": TIME})
    runner = ToolRunner(registry)
    first_pid = runner.run("t_pid", {}).data
    crashed = runner.run("t_crash", {})
    assert crashed.status == "error" and "MCP server 't' ended during the call of 'crash'" in crashed.error
    assert runner.run("time_get_current_time", {"timezone": "UTC"}).success
    again = runner.run("t_pid", {})
    assert again.success and again.data != first_pid
    assert runner.run("t_crash", {}).status == "error"  # a success in between: started again at once
    assert runner.run("t_crash", {}).status == "error"  # a second failure in a row: the next start waits
    waiting = runner.run("t_pid", {})
    assert "failed 2 time(s) in a row; it is started again in 1 s" in waiting.error
    registry.refresh()  # the server is not running and waits to start again: its tools stay listed
    assert "t_echo" in registry


def test_a_server_that_never_answers_a_call_times_out_by_name(registry_of):
    registry = registry_of({"t": {**HELPER, "timeout": 1}})
    runner = ToolRunner(registry, timeout=1)
    outcome = runner.run("t_hang", {})
    assert outcome.status == "timeout" and "MCP server 't' did not answer the call of 'hang' within 1 s" in outcome.error
    assert runner.run("t_echo", {"text": "still here"}).data == "still here"


def test_a_server_that_never_finishes_its_handshake_or_does_not_exist(registry_of):
    silent = {"command": sys.executable, "args": ["-m", "tests.helpers.mcp_servers", "silent"], "cwd": str(ROOT),
              "start_timeout": 1}
    registry = registry_of({"mute": silent, "ghost": {"command": "/nonexistent/riverse-mcp-server"}, "time": TIME})
    problems = {p.path: p.message for p in registry.problems}
    assert "did not finish its handshake within 1 s" in problems["mcp:mute"] and "'mute'" in problems["mcp:mute"]
    assert "the command '/nonexistent/riverse-mcp-server' does not exist" in problems["mcp:ghost"]
    assert "time_get_current_time" in registry
    assert "'/nonexistent/riverse-mcp-server' does not exist" in registry.why_missing("ghost_search")
    unknown = ToolRunner(registry).run("mute_anything", {})
    assert unknown.status == "unknown" and "did not finish its handshake" in unknown.error


def test_risk_per_server_and_per_tool_goes_through_the_approval_policy(registry_of):
    registry = registry_of({"t": {**HELPER, "risk": "write", "tool_risk": {"echo": "read"}, "prefix": ""}})
    assert "echo" in registry and "add" in registry  # prefix "" drops it
    runner = ToolRunner(registry, gate=ApprovalGate.from_settings(Settings().approval))  # nobody to ask
    refused = runner.run("add", {"a": 1, "b": 2})
    assert refused.status == "refused" and "(write) needs the user's approval" in refused.error
    assert runner.run("echo", {"text": "hi"}).success


def test_secrets_reach_the_server_but_no_listing_log_or_message(riverse_home, registry_of, monkeypatch):
    secret = "s3cr3t-value-never-shown"
    server = {"command": sys.executable, "args": ["-m", "tests.helpers.mcp_servers", "secret"], "cwd": str(ROOT),
              "env": {"RIVERSE_TEST_SECRET": "${MY_SECRET}"}}
    registry = registry_of({"s": server}, env={"MY_SECRET": secret})
    outcome = ToolRunner(registry).run("s_env", {})
    assert outcome.data == "set"
    shown = json.dumps(registry.describe()) + json.dumps([p.to_dict() for p in registry.problems])
    assert secret not in shown
    monkeypatch.setenv("MY_SECRET", secret)
    write_settings(riverse_home, {"mcp": {"servers": {"s": server, "ghost": {"command": "/nonexistent/x",
                                                                               "env": {"K": "${MY_SECRET}"}}}}})
    runs = [CliRunner().invoke(cli, args) for args in (["tools", "run", "s_env"], ["tools", "list", "--json"],
                                                       ["logs", "--json"], ["logs", "-v"])]
    assert runs[0].output.strip() == "set"
    for result in runs:
        assert secret not in result.output
    for file in riverse_home.rglob("*"):
        if file.is_file():
            assert secret.encode() not in file.read_bytes(), file


def test_closing_the_registry_ends_the_servers(registry_of):
    registry = registry_of({"t": HELPER})
    pid = int(ToolRunner(registry).run("t_pid", {}).data)
    os.kill(pid, 0)  # alive
    registry.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "shut down with Riverse" in ToolRunner(registry).run("t_pid", {}).error


def test_a_server_that_could_not_be_listed_is_not_retried_at_every_refresh(registry_of, monkeypatch):
    import agent.mcp.source as source_module

    silent = {"command": sys.executable, "args": ["-m", "tests.helpers.mcp_servers", "silent"], "cwd": str(ROOT),
              "start_timeout": 1}
    registry = registry_of({"mute": silent})
    assert any(p.path == "mcp:mute" for p in registry.problems)
    assert registry.refresh().problems == []  # within RETRY_LISTING_S: not started again, nothing new to report
    monkeypatch.setattr(source_module, "RETRY_LISTING_S", 0.0)
    report = registry.refresh()  # the retry: a new start, which fails again the same way
    assert any("did not finish its handshake" in p.message for p in report.problems)
