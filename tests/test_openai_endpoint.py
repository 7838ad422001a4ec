"""End to end against a local OpenAI-compatible HTTP server: native and JSON tool protocols."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from tests.helpers.openai_server import FakeOpenAIServer

EXAMPLES = Path(__file__).parent / "spec_examples" / "zh"


@pytest.fixture
def home_with_tool(riverse_home):
    (riverse_home / "tools").mkdir()
    shutil.copy(EXAMPLES / "my_tool.py", riverse_home / "tools" / "my_tool.py")
    return riverse_home


def write_settings(home: Path, base_url: str, protocol: str) -> None:
    (home / "settings.yaml").write_text(
        f"llm:\n  provider: openai_compatible\n  base_url: {base_url}\n  model: test-model\n  tool_protocol: {protocol}\n",
        encoding="utf-8",
    )


def test_native_tool_call_round_trip(home_with_tool):
    replies = [
        {"tool_calls": [{"name": "my_tool", "arguments": {"param_name": "x"}}]},
        {"content": "Done: 处理结果: x"},
    ]
    with FakeOpenAIServer(replies) as server:
        write_settings(home_with_tool, server.base_url, "native")
        result = CliRunner().invoke(cli, ["ask", "--json", "run my tool on x"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["answer"] == "Done: 处理结果: x"
    assert [(c["name"], c["params"], c["success"], c["data"]) for c in out["tool_calls"]] == [
        ("my_tool", {"param_name": "x"}, True, "处理结果: x")
    ]
    assert set(out["tool_calls"][0]) == {"name", "params", "success", "data", "error", "duration_ms", "status", "approval",
                                         "traceback", "caller"}
    assert out["tool_calls"][0]["traceback"] == ""  # only a call that raised has one
    assert out["tool_calls"][0]["caller"] == ""  # Riverse's own call, not an MCP client's
    first, second = server.requests
    assert "my_tool" in [t["function"]["name"] for t in first["tools"]]
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_messages == [{"role": "tool", "tool_call_id": "call_0", "content": "处理结果: x"}]


def test_json_protocol_round_trip(home_with_tool):
    replies = [
        {"content": 'Sure.\n```json\n{"tool_calls": [{"name": "my_tool", "params": {"param_name": "x"}}]}\n```'},
        {"content": "Done: 处理结果: x"},
    ]
    with FakeOpenAIServer(replies) as server:
        write_settings(home_with_tool, server.base_url, "json")
        result = CliRunner().invoke(cli, ["ask", "--json", "run my tool on x"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["answer"] == "Done: 处理结果: x"
    assert out["tool_calls"][0]["data"] == "处理结果: x"
    first, second = server.requests
    assert "tools" not in first
    assert "my_tool" in first["messages"][0]["content"]
    assert "处理结果: x" in second["messages"][-1]["content"]


def test_streamed_answer_with_streamed_tool_call(home_with_tool):
    replies = [
        {"tool_calls": [{"name": "my_tool", "arguments": {"param_name": "streamed"}}]},
        {"content": "The tool said 处理结果: streamed"},
    ]
    with FakeOpenAIServer(replies) as server:
        write_settings(home_with_tool, server.base_url, "auto")
        result = CliRunner().invoke(cli, ["ask", "use my tool"])
    assert result.exit_code == 0, result.output
    assert "The tool said 处理结果: streamed" in result.output
    assert all(r.get("stream") for r in server.requests)
    assert any(m.get("content") == "处理结果: streamed" for m in server.requests[1]["messages"])


def test_auto_protocol_falls_back_to_json_when_tools_are_rejected(home_with_tool):
    replies = [
        {"status": 400, "error": "tools are not supported"},
        {"content": '{"tool": "my_tool", "params": {"param_name": "y"}}'},
        {"content": "ok 处理结果: y"},
    ]
    with FakeOpenAIServer(replies) as server:
        write_settings(home_with_tool, server.base_url, "auto")
        result = CliRunner().invoke(cli, ["ask", "--json", "use my tool"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["answer"] == "ok 处理结果: y"
    assert "tools" in server.requests[0] and "tools" not in server.requests[1]


def test_unreachable_server_is_one_clear_line(home_with_tool):
    with FakeOpenAIServer() as server:
        url = server.base_url
    write_settings(home_with_tool, url, "native")
    result = CliRunner().invoke(cli, ["ask", "hello"])
    assert result.exit_code == 1
    assert "cannot reach the model server at" in result.output
    assert "Traceback" not in result.output
