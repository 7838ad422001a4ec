"""shell_exec (off by default; approval, timeout, working folder, output cap), the approval dialogue in
``riverse chat``, and ``riverse tools list`` showing every built-in tool with its risk and availability."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.config import load_settings
from agent.toolkit.runtime import ToolRunner
from agent.storage import open_store
from agent.tools import ToolRegistry
from agent.tools.shell_exec import ShellExecTool

PY = shlex.quote(sys.executable)


def shell(home: Path, language: str = "en", **section) -> ShellExecTool:
    return ShellExecTool({"language": language, "home": str(home), "tools": {"shell_exec": {"enabled": True, **section}}})


def write_settings(home: Path, script: str, extra: str = "") -> None:
    (home / "script.yaml").write_text(script, encoding="utf-8")
    (home / "settings.yaml").write_text(
        f"llm:\n  provider: fake\n  script: {home / 'script.yaml'}\ntools:\n  shell_exec:\n    enabled: true\n{extra}",
        encoding="utf-8",
    )


# ------------------------------------------------------------------------- availability
@pytest.mark.parametrize(
    "language,expected",
    [
        ("en", "off by default, because it runs commands on this computer; to enable it set tools.shell_exec.enabled: true"),
        ("zh", "默认关闭，因为它会在这台电脑上运行命令"),
        ("ja", "このコンピューターでコマンドを実行するため既定ではオフです"),
    ],
)
def test_off_by_default_with_the_reason(language, expected):
    registry = ToolRegistry({"language": language, "tools": {}}, packages=False)
    assert "shell_exec" not in registry
    [entry] = [e for e in registry.entries(include_unavailable=True) if e.name == "shell_exec"]
    assert expected in entry.reason


def test_tools_list_shows_every_builtin_tool_with_risk_and_availability(riverse_home):
    result = CliRunner().invoke(cli, ["tools", "list", "--json"])
    tools = {t["name"]: t for t in json.loads(result.output)["tools"] if t["origin"] == "built-in"}
    expected = {
        "weather": ("network", True), "calculator": ("read", True), "current_time": ("read", True),
        "unit_convert": ("read", True), "file_list": ("read", True), "file_read": ("read", True),
        "grep": ("read", True), "web_fetch": ("network", True), "notes": ("write", True),
        "shell_exec": ("execute", False), "web_search": ("network", False),
    }
    assert {name: (tools[name]["risk"], tools[name]["available"]) for name in expected} == expected
    text = CliRunner().invoke(cli, ["tools", "list"]).output
    assert "shell_exec  ✗ unavailable: off by default" in text and "· risk: execute ·" in text
    assert "pip install 'riverse[search]'" in text  # the reason is printed as text, not as markup
    assert "notes  ✓ available  · risk: write" in text


# ------------------------------------------------------------------------------ running
def test_runs_in_the_workspace_of_the_riverse_home(riverse_home):
    result = shell(riverse_home).execute({"command": f"{PY} -c \"import os; print(os.getcwd())\""})
    assert result.success, result.error
    workspace = riverse_home / "workspace"
    assert result.data.splitlines()[1:] == [f"(exit status 0, in {workspace})", str(workspace)]


def test_runs_in_the_configured_folder(riverse_home, tmp_path):
    folder = tmp_path / "projects"
    result = shell(riverse_home, cwd=str(folder)).execute({"command": f"{PY} -c \"import os; print(os.getcwd())\""})
    assert result.data.endswith(str(folder)) and folder.is_dir()


def test_no_shell_unless_configured(riverse_home):
    plain = shell(riverse_home).execute({"command": "echo one | tr o 0 > out.txt"})
    assert plain.data.endswith("one | tr o 0 > out.txt")  # echo got the words: no pipe, no redirection
    assert not (riverse_home / "workspace" / "out.txt").exists()
    piped = shell(riverse_home, shell=True).execute({"command": "echo one | tr o 0"})
    assert piped.data.endswith("0ne")


def test_failures_are_clear(riverse_home):
    failed = shell(riverse_home).execute({"command": f"{PY} -c \"import sys; print('bad input'); sys.exit(3)\""})
    assert not failed.success and failed.error == "The command exited with status 3. Output:\nbad input"
    missing = shell(riverse_home, "zh").execute({"command": "no-such-program-xyz --help"})
    assert not missing.success and missing.error.startswith("找不到程序“no-such-program-xyz”")
    quotes = shell(riverse_home).execute({"command": "echo 'unclosed"})
    assert not quotes.success and "cannot be split into words (No closing quotation)" in quotes.error
    empty = shell(riverse_home, "ja").execute({"command": " "})
    assert not empty.success and "コマンドが指定されていません" in empty.error


def test_output_is_capped_keeping_start_and_end(riverse_home):
    command = f"{PY} -c \"print('START'); print('x' * 100000); print('END')\""
    result = shell(riverse_home, max_output_chars=400).execute({"command": command})
    output = result.data.split("\n", 2)[2]
    assert output.startswith("START\nxxx") and output.endswith("xxx\nEND")
    assert "bytes of output cut ...]" in output and len(output) < 500


def test_a_hanging_command_is_killed_with_everything_it_started(riverse_home):
    started = time.monotonic()
    result = shell(riverse_home, shell=True, command_timeout=2).execute(
        {"command": "echo started; sleep 60 & echo $! > child.pid; wait"}
    )
    assert not result.success
    assert result.error == "The command did not finish within 2 seconds and was stopped. Output so far:\nstarted"
    assert time.monotonic() - started < 10
    child = int((riverse_home / "workspace" / "child.pid").read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(child):
        time.sleep(0.02)  # polling the process table, not waiting for an event
    assert not _running(child)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_secrets_are_not_passed_to_the_command(riverse_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    command = f"{PY} -c \"import os; print(sorted(k for k in os.environ if k in ('OPENAI_API_KEY', 'GITHUB_TOKEN', 'PLAIN_SETTING')))\""
    assert shell(riverse_home).execute({"command": command}).data.endswith("['PLAIN_SETTING']")


def test_manifest_declares_execute_and_a_timeout_above_the_command_timeout(riverse_home):
    manifests = [shell(riverse_home, lang, command_timeout=7).manifest() for lang in ("en", "zh", "ja")]
    assert {(m.risk, m.timeout) for m in manifests} == {("execute", 12)}
    assert len({m.description for m in manifests}) == 3


# -------------------------------------------------------------------------------- approval
def test_every_command_needs_approval_by_default(riverse_home):
    settings = load_settings(overrides={"tools": {"shell_exec": {"enabled": True}}})
    registry = ToolRegistry(settings.config_for_tools(), packages=False)
    marker = riverse_home / "workspace" / "ran.txt"
    command = {"command": f"{PY} -c \"open('ran.txt', 'w').write('x')\""}
    refused = ToolRunner.from_settings(registry, settings).run("shell_exec", command)
    assert refused.status == "refused" and "needs the user's approval" in refused.error and not marker.exists()
    asked = []
    runner = ToolRunner.from_settings(registry, settings, approver=lambda request: asked.append(request) or "yes")
    assert runner.run("shell_exec", command).status == "ok" and marker.exists()
    assert runner.run("shell_exec", command).status == "ok"
    assert [(r.name, r.risk, r.params) for r in asked] == [("shell_exec", "execute", command)] * 2  # asked each time


def test_ask_refuses_without_yes_and_runs_with_it(riverse_home):
    step = "- {tool: shell_exec, params: {command: 'echo hi'}}\n- done\n"
    write_settings(riverse_home, step)
    refused = CliRunner().invoke(cli, ["ask", "--json", "say hi"])
    [call] = json.loads(refused.output)["tool_calls"]
    assert call["status"] == "refused" and "run 'riverse ask' with --yes" in call["error"]
    approved = CliRunner().invoke(cli, ["ask", "--json", "--yes", "say hi"])
    [call] = json.loads(approved.output)["tool_calls"]
    assert call["status"] == "ok" and call["approval"] == "approved" and call["data"].endswith("hi")


CHAT_SCRIPT = """\
- {tool: shell_exec, params: {command: 'echo hello from the workspace'}}
- You declined, so I did not run the command.
- {tool: shell_exec, params: {command: 'echo hello from the workspace'}}
- 'It printed: hello from the workspace'
- {tool: shell_exec, params: {command: 'echo hello again'}}
- 'It printed: hello again'
"""


def test_chat_asks_is_refused_then_approved_for_the_session(riverse_home):
    write_settings(riverse_home, CHAT_SCRIPT)
    dialogue = "say hello from the shell\nn\nplease run it\na\nonce more\n/exit\n"
    result = CliRunner().invoke(cli, ["chat"], input=dialogue)
    assert result.exit_code == 0, result.output
    out = result.output
    question = "Allow tool 'shell_exec' (execute) with {\"command\": \"echo hello from the workspace\"}? [y]es / [n]o / [a]lways this session"
    assert out.count("Allow tool 'shell_exec'") == 2 and out.count(question) == 2
    assert "✗ shell_exec" in out and "the user did not approve running tool 'shell_exec'" in out
    assert "You declined, so I did not run the command." in out
    assert "It printed: hello from the workspace" in out and "It printed: hello again" in out
    assert out.index("once more") < out.index("→ shell_exec {\"command\": \"echo hello again\"}")
    assert "Allow tool" not in out[out.index("once more"):]  # the third call ran without asking

    store = open_store(riverse_home / "riverse.db")
    calls = list(reversed(store.tool_calls(tool="shell_exec")))
    assert [(c["status"], c["approval"]) for c in calls] == [
        ("refused", "refused"), ("ok", "approved-session"), ("ok", "approved-session"),
    ]
    [conversation] = store.conversations()
    assert [m.content for m in store.messages(conversation["id"])] == [
        "say hello from the shell", "You declined, so I did not run the command.",
        "please run it", "It printed: hello from the workspace",
        "once more", "It printed: hello again",
    ]
    logs = json.loads(CliRunner().invoke(cli, ["logs", "--json", "--tool", "shell_exec"]).output)
    assert [(c["name"], c["status"], c["approval"]) for c in logs] == [
        ("shell_exec", "ok", "approved-session"), ("shell_exec", "ok", "approved-session"), ("shell_exec", "refused", "refused"),
    ]
