"""Reload without restart: a tool file added, changed, broken or deleted while ``riverse chat`` runs is
picked up before the next message; a broken edit keeps the last good version and is reported once.

The edits happen *during* a turn: the scripted model makes them when it is asked for its answer, so
the real ``riverse chat`` command (driven by CliRunner) sees them before the next message.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.providers import PROVIDERS
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.tools import ToolRegistry

GREET = '''
from pathlib import Path
from agent.tools import BaseTool, ToolManifest, ToolResult

with open(Path(__file__).with_suffix(".imports"), "a") as log:  # counts how often this file is imported
    log.write("x")

class Greet(BaseTool):
    def manifest(self):
        return ToolManifest(name="greet", description="Greet someone", parameters={{"who": "whom to greet"}},
                            examples=["greet Ann", "say hello to Bob"])
    def execute(self, params):
        return ToolResult(success=True, data="{version}: hello " + params.get("who", ""))
'''


def write_tool(path: Path, source: str) -> None:
    """Rewrite a tool file and move its mtime forward, as an editor saving it later would."""
    existed = path.exists()
    before = path.stat().st_mtime_ns if existed else 0
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    if existed:
        os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def greet_tool(version: str) -> str:
    return GREET.format(version=version)


def edit_then_answer(edit, answer: str = "ok"):
    """A scripted model step that edits tool files (the user, mid-session) and then answers."""

    def step(messages, tools):
        edit()
        return answer

    return step


def tool_results(provider: ScriptedProvider) -> list[str]:
    """What the model was shown as tool results, in order."""
    return [m["content"] for r in provider.requests for m in r["messages"][-1:] if m["role"] == "tool"]


def offered(provider: ScriptedProvider) -> list[list[str]]:
    return [sorted(t["function"]["name"] for t in (r["tools"] or [])) for r in provider.requests]


@pytest.fixture
def chat(monkeypatch, riverse_home):
    tools = riverse_home / "tools"
    tools.mkdir()

    def run(script: list, messages: list[str]):
        provider = ScriptedProvider(script)
        monkeypatch.setitem(PROVIDERS, "scripted", lambda settings: provider)
        result = CliRunner().invoke(cli, ["-p", "scripted", "chat"], input="\n".join(messages + ["/exit"]) + "\n",
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return provider, result

    return tools, run


def test_a_changed_tool_is_used_at_the_next_message(chat):
    tools, run = chat
    greet = tools / "greet.py"
    write_tool(greet, greet_tool("v1"))
    write_tool(tools / "other.py", greet_tool("other").replace('"greet"', '"other"'))
    provider, result = run(
        [ToolCall("greet", {"who": "Ann"}), edit_then_answer(lambda: write_tool(greet, greet_tool("v2"))),
         ToolCall("greet", {"who": "Ann"}), "ok",
         ToolCall("greet", {"who": "Ann"}), "ok"],
        ["first", "second", "third"],
    )
    assert tool_results(provider) == ["v1: hello Ann", "v2: hello Ann", "v2: hello Ann"]
    assert result.stderr.count("Tools reloaded: ~greet") == 1
    # Only the edited file was imported again; the untouched one once, at start-up.
    assert greet.with_suffix(".imports").read_text() == "xx"
    assert (tools / "other.imports").read_text() == "x"


def test_a_broken_edit_keeps_the_last_good_version_and_is_reported_once(chat):
    tools, run = chat
    greet = tools / "greet.py"
    write_tool(greet, greet_tool("v1"))
    provider, result = run(
        [ToolCall("greet", {"who": "Ann"}), edit_then_answer(lambda: write_tool(greet, "def broken(:\n")),
         ToolCall("greet", {"who": "Bob"}), "ok",
         ToolCall("greet", {"who": "Cy"}), edit_then_answer(lambda: write_tool(greet, greet_tool("v3"))),
         ToolCall("greet", {"who": "Di"}), "ok"],
        ["first", "second", "third", "fourth"],
    )
    assert tool_results(provider) == ["v1: hello Ann", "v1: hello Bob", "v1: hello Cy", "v3: hello Di"]
    assert result.stderr.count("SyntaxError") == 1
    assert f"{greet.resolve()}:1: error: cannot import: SyntaxError" in result.stderr  # the one problem format
    assert result.stderr.count("Tools reloaded: ~greet") == 1  # when it was fixed


def test_added_and_deleted_tools_come_and_go(chat):
    tools, run = chat
    greet = tools / "greet.py"
    write_tool(greet, greet_tool("v1"))
    wave = tools / "wave.py"
    provider, result = run(
        [edit_then_answer(lambda: write_tool(wave, greet_tool("w").replace('"greet"', '"wave"'))),
         edit_then_answer(greet.unlink),
         "ok"],
        ["first", "second", "third"],
    )
    mine = [[n for n in names if n in ("greet", "wave")] for names in offered(provider)]
    assert mine == [["greet"], ["greet", "wave"], ["wave"]]
    assert "Tools reloaded: +wave" in result.stderr and "Tools reloaded: -greet" in result.stderr


def test_an_edit_in_the_same_second_at_the_same_size_is_not_missed(tmp_path, monkeypatch):
    """Bytecode caches compare whole seconds and sizes; the registry compiles the current text."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as for most users
    path = tmp_path / "greet.py"
    path.write_text(textwrap.dedent(greet_tool("v1")), encoding="utf-8")
    registry = ToolRegistry({}, folders=[tmp_path], builtin=False, packages=False)
    assert registry.get("greet").execute({"who": "A"}).data == "v1: hello A"
    stat = path.stat()
    path.write_text(textwrap.dedent(greet_tool("v2")), encoding="utf-8")
    second = stat.st_mtime_ns - stat.st_mtime_ns % 1_000_000_000
    os.utime(path, ns=(second + 1, second + 1 if stat.st_mtime_ns != second + 1 else second + 2))
    assert path.stat().st_size == stat.st_size and int(path.stat().st_mtime) == int(stat.st_mtime)
    assert registry.refresh().changed == ["greet"]
    assert registry.get("greet").execute({"who": "A"}).data == "v2: hello A"
