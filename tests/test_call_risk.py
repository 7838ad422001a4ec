"""Risk per call: a tool whose actions differ declares ``risk_by_value``; it is checked at discovery,
travels with the manifest from a worker process, and decides each call's approval (the built-in
``notes``: list and search read, add and delete write). ``riverse ask`` exits with status 3 when a call
of its turn was refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.toolkit.runtime import ApprovalGate, ToolRunner
from agent.toolkit.validate import manifest_problems
from agent.tools import ToolManifest, ToolRegistry

TODO = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class Todo(BaseTool):
    def manifest(self):
        return ToolManifest(
            "todo", "The user's todo list", {"action": "list, add or clear", "text": "the item", "dry_run": "only show"},
            ["show my todos", "add milk to my list"],
            parameter_types={"action": ["list", "add", "clear"], "dry_run": "boolean"},
            risk=RISK,
            risk_by_value={"action": {"list": "read", "add": "write"}, "dry_run": {"true": "read"}},
        )

    def execute(self, params):
        return ToolResult(True, f"done: {params.get('action')}")
'''


def todo_manifest(**changes) -> ToolManifest:
    fields = dict(name="todo", description="The todo list", parameters={"action": "what to do", "text": "the item"},
                  examples=["show my todos", "add milk"], parameter_types={"action": ["list", "add", "clear"]},
                  risk="write", risk_by_value={"action": {"list": "read", "add": "write"}})
    return ToolManifest(**{**fields, **changes})


def problems(manifest: ToolManifest) -> list[tuple[str, str]]:
    return [(p.level, p.message) for p in manifest_problems(manifest)]


def test_a_valid_declaration_has_no_problem_and_gives_each_call_its_risk():
    manifest = todo_manifest()
    assert problems(manifest) == []
    assert [manifest.risk_of({"action": a}) for a in ("list", "add", "clear")] == ["read", "write", "write"]
    assert manifest.risk_of({}) == "write" and manifest.risk_of(None) == "write"
    several = todo_manifest(parameters={"action": "a", "force": "b"}, parameter_types={"force": "boolean"},
                            risk_by_value={"action": {"list": "read"}, "force": {"true": "execute"}})
    assert several.risk_of({"action": "list", "force": True}) == "execute"  # the highest named risk counts
    assert several.risk_of({"action": "list", "force": False}) == "read"
    assert manifest.to_dict()["risk_by_value"] == {"action": {"list": "read", "add": "write"}}


@pytest.mark.parametrize("risk_by_value,message", [
    (["action"], "risk_by_value must be a dict of {parameter: {value: risk}}, got list"),
    ({"mode": {"x": "read"}}, "risk_by_value names 'mode', which is not in parameters"),
    ({"action": {}}, "risk_by_value['action'] must be a non-empty dict of {value: risk}, e.g. {'list': 'read'}"),
    ({"action": {"lst": "read"}}, "risk_by_value['action'] names the value 'lst', which 'action' cannot take "
                                  "(its values: add, clear, list)"),
    ({"action": {"list": "harmless"}}, "risk_by_value['action']['list'] is 'harmless'; use one of read, write, network, execute"),
    ({"text": {1: "read"}}, "risk_by_value['text']: the value 1 must be written as a string"),
])
def test_a_wrong_declaration_is_an_error_at_discovery(risk_by_value, message):
    assert ("error", message) in problems(todo_manifest(risk_by_value=risk_by_value))


def test_values_it_does_not_list_fall_back_to_risk_which_should_be_declared():
    manifest = todo_manifest(risk=None)
    assert problems(manifest) == [("warning", "risk_by_value is set but risk is not: calls whose values it does not "
                                              "list count as 'read'; declare risk, the risk of those calls")]
    asked = []
    gate = ApprovalGate({"read": "ask", "write": "ask"}, approver=lambda request: asked.append(request) or "no")
    gate.check(manifest, {"action": "clear"})
    gate.check(manifest, {"action": "add"})
    assert [(r.risk, r.declared) for r in asked] == [("read", False), ("write", True)]


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_each_call_is_approved_by_its_own_risk_through_the_worker(tmp_path, isolation):
    (tmp_path / "todo.py").write_text(TODO.replace("RISK", '"write"'), encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False,
                            isolation=isolation)
    try:
        assert registry.errors == []
        assert registry.entry("todo").manifest.risk_by_value == {"action": {"list": "read", "add": "write"},
                                                                 "dry_run": {"true": "read"}}
        runner = ToolRunner(registry, gate=ApprovalGate({"read": "never", "write": "ask"}))  # nobody to ask
        listed = runner.run("todo", {"action": "List"})  # the enum's spelling is restored first
        added = runner.run("todo", {"action": "add", "text": "milk"})
        trial = runner.run("todo", {"action": "clear", "dry_run": "yes"})
        cleared = runner.run("todo", {"action": "clear"})
    finally:
        registry.close()
    assert (listed.status, listed.data, listed.approval) == ("ok", "done: list", "policy")
    assert (added.status, added.approval) == ("refused", "refused")
    assert added.error == ("tool 'todo' (write) needs the user's approval and nobody could be asked; "
                           "run 'riverse ask' with --yes, or use 'riverse chat' to approve it")
    assert trial.status == "ok" and cleared.status == "refused"


def setup_home(home: Path, script: str) -> None:
    (home / "script.yaml").write_text(script, encoding="utf-8")
    (home / "settings.yaml").write_text(f"llm:\n  provider: fake\n  script: {home / 'script.yaml'}\n", encoding="utf-8")


def test_riverse_ask_lists_notes_but_refuses_to_add_one_and_exits_3(riverse_home):
    runner = CliRunner()
    setup_home(riverse_home, "- {tool: notes, params: {action: list}}\n- No notes yet.\n")
    listed = runner.invoke(cli, ["ask", "what notes do I have?"])
    assert listed.exit_code == 0, listed.output
    assert "✓ notes" in listed.stderr and "There are no notes yet." in listed.stderr
    setup_home(riverse_home, "- {tool: notes, params: {action: add, text: buy milk}}\n- I could not save it.\n")
    added = runner.invoke(cli, ["ask", "remember to buy milk"])
    assert added.exit_code == 3, added.output
    assert "✗ notes" in added.stderr and "tool 'notes' (write) needs the user's approval" in added.stderr
    assert "I could not save it." in added.stdout
    as_json = runner.invoke(cli, ["ask", "--json", "remember to buy milk"])
    assert as_json.exit_code == 3 and json.loads(as_json.stdout)["tool_calls"][0]["status"] == "refused"
    approved = runner.invoke(cli, ["ask", "--yes", "remember to buy milk"])
    assert approved.exit_code == 0 and "Saved note #1: buy milk" in approved.stderr
    logged = json.loads(runner.invoke(cli, ["logs", "--json"]).stdout)
    assert [(c["params"]["action"], c["status"], c["approval"]) for c in logged] == [
        ("add", "ok", "approved"), ("add", "refused", "refused"), ("add", "refused", "refused"), ("list", "ok", "policy")]


def test_the_refusal_in_chinese_and_the_exit_status_in_the_help(riverse_home):
    setup_home(riverse_home, "- {tool: notes, params: {action: delete, id: 1}}\n- 没有删除。\n")
    result = CliRunner().invoke(cli, ["-l", "zh", "ask", "删除第 1 条笔记"])
    assert result.exit_code == 3 and "没有删除。" in result.stdout
    assert "tool 'notes' (write) needs the user's approval" in result.stderr
    shown = CliRunner().invoke(cli, ["ask", "--help"]).stdout
    assert "3 answered, but a tool call was refused because it needed approval" in " ".join(shown.split())


def test_tools_list_shows_the_risk_of_each_action(riverse_home):
    listed = CliRunner().invoke(cli, ["tools", "list"])
    [line] = [line for line in listed.stdout.splitlines() if line.startswith("notes ")]
    assert "risk: write · action=list: read, search: read, add: write, delete: write" in line
    described = json.loads(CliRunner().invoke(cli, ["tools", "list", "--json"]).stdout)
    [notes] = [tool for tool in described["tools"] if tool["name"] == "notes"]
    assert notes["risk_by_value"] == {"action": {"list": "read", "search": "read", "add": "write", "delete": "write"}}
