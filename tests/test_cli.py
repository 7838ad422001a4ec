"""The command line with the scripted fake provider: chat, ask, tools run, logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from agent.cli import cli
from agent.storage import open_store

EXAMPLES = Path(__file__).parent / "spec_examples" / "zh"


def setup_home(home: Path, script: str) -> None:
    (home / "tools").mkdir(exist_ok=True)
    shutil.copy(EXAMPLES / "my_tool.py", home / "tools" / "my_tool.py")
    (home / "script.yaml").write_text(script, encoding="utf-8")
    (home / "settings.yaml").write_text(
        f"llm:\n  provider: fake\n  script: {home / 'script.yaml'}\n", encoding="utf-8"
    )


def test_chat_shows_tool_calls_streams_answers_and_keeps_history(riverse_home):
    setup_home(
        riverse_home,
        "- {tool: my_tool, params: {param_name: abc}}\n- 'The tool answered 处理结果: abc'\n- Second answer\n- Fresh start\n",
    )
    result = CliRunner().invoke(cli, ["chat"], input="run my tool\n/tools\nand again?\n/new\nhello\n/exit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "→ my_tool" in out and '"param_name": "abc"' in out
    assert "✓ my_tool" in out and " ms " in out
    assert "The tool answered 处理结果: abc" in out
    assert "my_tool · 供 LLM" in out  # /tools
    assert "Started a new conversation" in out
    store = open_store(riverse_home / "riverse.db")
    conversations = store.conversations()
    assert len(conversations) == 2
    first = conversations[-1]["id"]
    assert [m.content for m in store.messages(first)] == [
        "run my tool", "The tool answered 处理结果: abc", "and again?", "Second answer",
    ]


def test_chat_ends_on_ctrl_d_and_unknown_commands_are_explained(riverse_home):
    setup_home(riverse_home, "- unused\n")
    result = CliRunner().invoke(cli, ["chat"], input="/frobnicate\n")
    assert result.exit_code == 0
    assert "Unknown command /frobnicate" in result.output
    assert "Bye." in result.output


def test_chat_continue_resumes_the_last_conversation(riverse_home):
    setup_home(riverse_home, "- one\n")
    runner = CliRunner()
    runner.invoke(cli, ["chat"], input="first\n")
    (riverse_home / "script.yaml").write_text("- two\n", encoding="utf-8")
    result = runner.invoke(cli, ["chat", "--continue"], input="second\n")
    assert "Continuing conversation" in result.output
    store = open_store(riverse_home / "riverse.db")
    [conversation] = store.conversations()
    assert [m.content for m in store.messages(conversation["id"])] == ["first", "one", "second", "two"]


def test_ask_json_shape(riverse_home):
    setup_home(riverse_home, "- {tool: my_tool, params: {param_name: q}}\n- answer\n")
    result = CliRunner().invoke(cli, ["ask", "--json", "go"])
    out = json.loads(result.output)
    assert out["answer"] == "answer"
    [call] = out["tool_calls"]
    assert {k: call[k] for k in ("name", "params", "success", "data", "error")} == {
        "name": "my_tool", "params": {"param_name": "q"}, "success": True, "data": "处理结果: q", "error": "",
    }
    assert isinstance(call["duration_ms"], int)


def test_tools_run_json_exit_status_and_logs(riverse_home):
    setup_home(riverse_home, "- unused\n")
    runner = CliRunner()
    ok = runner.invoke(cli, ["tools", "run", "my_tool", "param_name=v", "--json"])
    assert ok.exit_code == 0 and json.loads(ok.output) == {"success": True, "data": "处理结果: v", "error": ""}
    missing = runner.invoke(cli, ["tools", "run", "no_such_tool"])
    assert missing.exit_code == 2 and "unknown tool 'no_such_tool'" in missing.output
    bad = runner.invoke(cli, ["tools", "run", "my_tool", "novalue"])
    assert bad.exit_code == 2 and "key=value" in bad.output
    logs = runner.invoke(cli, ["logs", "--json", "--tool", "my_tool"])
    [row] = json.loads(logs.output)
    assert row["name"] == "my_tool" and row["params"] == {"param_name": "v"} and row["success"] is True
    table = runner.invoke(cli, ["logs"])
    assert "my_tool" in table.output and "处理结果: v" in table.output


def test_messages_follow_the_configured_language(riverse_home):
    setup_home(riverse_home, "- unused\n")
    result = CliRunner().invoke(cli, ["-l", "ja", "chat"], input="/exit\n")
    assert "さようなら。" in result.output
    result = CliRunner().invoke(cli, ["-l", "zh", "tools", "run", "nope"])
    assert "未知工具“nope”" in result.output


TODO_TOOL = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class Todo(BaseTool):
    def manifest(self):
        return ToolManifest("todo", "The [user]'s todo list", {"action": "list"}, ["show my todos", "what's on my list?"])

    def execute(self, params):
        if params.get("action") == "fail":
            return ToolResult(False, "", "[red]no list[/red] at [/tmp/x]")
        return ToolResult(True, "1. [x] buy milk 2. [ ] call mom [bold]3[/bold]")
'''


def test_tool_text_is_shown_exactly_as_returned_never_as_markup(riverse_home):
    setup_home(riverse_home, "- {tool: todo, params: {action: list}}\n- '[b]Done[/b]: [x] buy milk'\n"
                             "- {tool: todo, params: {action: fail}}\n- 'Failed.'\n")
    (riverse_home / "tools" / "todo.py").write_text(TODO_TOOL, encoding="utf-8")
    result = CliRunner().invoke(cli, ["chat"], input="show my todos\nagain\n/tools\n/exit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "1. [x] buy milk 2. [ ] call mom [bold]3[/bold]" in out  # the tool's card, every bracket kept
    assert "[b]Done[/b]: [x] buy milk" in out  # the answer, as streamed
    assert "[red]no list[/red] at [/tmp/x]" in out  # a failure's text
    assert "todo · The [user]'s todo list" in out  # /tools shows the description as written
    # and a broken tool file's problem line carries no raw style tags
    (riverse_home / "tools" / "broken.py").write_text("import nothing_here_[x]\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["chat"], input="/exit\n")
    assert "! " in result.output and "[yellow]" not in result.output and "[/yellow]" not in result.output


def test_tools_list_shows_author_text_with_brackets_as_written(riverse_home):
    setup_home(riverse_home, "- unused\n")
    (riverse_home / "tools" / "todo.py").write_text(TODO_TOOL, encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list"])
    assert result.exit_code == 0, result.output
    assert "The [user]'s todo list" in result.output and "e.g. show my todos" in result.output
