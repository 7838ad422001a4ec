"""The tool contract's own documents and example tools work unchanged.

``spec_examples/<language>/`` holds the Chinese and Japanese texts that define the tool contract
(``custom-tool.<language>.txt``) and the example tools they show, copied from them verbatim.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from agent.cli import cli

EXAMPLES = Path(__file__).parent / "spec_examples"


def install(home: Path, language: str) -> None:
    tools = home / "tools"
    tools.mkdir(exist_ok=True)
    for path in (EXAMPLES / language).glob("*.py"):
        shutil.copy(path, tools / path.name)


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_examples_are_verbatim_copies_of_the_contract_text(language):
    text = (EXAMPLES / language / f"custom-tool.{language}.txt").read_text(encoding="utf-8")
    examples = sorted((EXAMPLES / language).glob("*.py"))
    assert [p.name for p in examples] == ["my_tool.py", "weather.py"]
    for path in examples:
        assert path.read_text(encoding="utf-8").strip() in text, path.name


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_verbatim_examples_are_listed_and_run(riverse_home, language, monkeypatch):
    monkeypatch.setenv("RIVERSE_TOOL_ISOLATION", "thread")  # in-process: the test replaces requests.get below
    install(riverse_home, language)
    runner = CliRunner()
    result = runner.invoke(cli, ["tools", "list", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    by_origin = {(t["name"], t["origin"]): t for t in listed["tools"]}
    my_tool = by_origin[("my_tool", "user")]
    assert my_tool["available"] and my_tool["active"]
    assert list(my_tool["parameters"]) == ["param_name"]
    assert my_tool["source"] == str((riverse_home / "tools" / "my_tool.py").resolve())
    # The user's weather.py overrides the built-in weather tool, and says so.
    assert by_origin[("weather", "user")]["active"] is True
    assert by_origin[("weather", "built-in")]["active"] is False
    assert any("overrides the built-in" in p["message"] for p in listed["problems"])
    assert [p for p in listed["problems"] if p["level"] == "error"] == []

    result = runner.invoke(cli, ["tools", "run", "my_tool", "param_name=x", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["success"] is True
    assert "x" in json.loads(result.output)["data"]

    # No internet in tests: the verbatim weather tool's own error path reports it.
    def offline(url, *args, **kwargs):
        raise requests.ConnectionError(f"offline: cannot reach {url}")

    monkeypatch.setattr(requests, "get", offline)
    result = runner.invoke(cli, ["tools", "run", "weather", "city=东京", "--json"])
    assert result.exit_code == 1
    out = json.loads(result.output)
    assert out == {"success": False, "data": "", "error": "offline: cannot reach https://wttr.in/东京?format=j1"}
    result = runner.invoke(cli, ["tools", "run", "weather", "city=", "--json"])
    assert json.loads(result.output)["error"] in ("缺少城市名", "都市名がありません")


def test_is_available_snippet_from_the_spec_disables_the_tool(riverse_home):
    tools = riverse_home / "tools"
    tools.mkdir()
    source = (EXAMPLES / "zh" / "my_tool.py").read_text(encoding="utf-8")
    source += (
        "\n    def is_available(self) -> bool:\n"
        '        return self.config.get("tools", {}).get("my_tool", {}).get("enabled", True)\n'
    )
    (tools / "my_tool.py").write_text(source, encoding="utf-8")
    (riverse_home / "settings.yaml").write_text("tools:\n  my_tool:\n    enabled: false\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", "--json"])
    entry = next(t for t in json.loads(result.output)["tools"] if t["name"] == "my_tool")
    assert entry["available"] is False
    assert "enabled: false" in entry["reason"]
    result = CliRunner().invoke(cli, ["tools", "run", "my_tool", "param_name=x"])
    assert result.exit_code == 2
    assert "unavailable" in result.output


def test_underscore_files_are_not_loaded(riverse_home):
    tools = riverse_home / "tools"
    tools.mkdir()
    source = (EXAMPLES / "zh" / "my_tool.py").read_text(encoding="utf-8").replace('"my_tool"', '"hidden_tool"')
    (tools / "_hidden.py").write_text(source, encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", "--json"])
    assert "hidden_tool" not in [t["name"] for t in json.loads(result.output)["tools"]]
