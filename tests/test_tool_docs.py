"""The tool author's guides (docs/tools*.md) tell the truth: their code runs, their outputs are what
Riverse prints, and every ``riverse`` command they show works."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.config import load_settings
from agent.evaluation import load_cases
from agent.i18n import t
from agent.tools import ToolRegistry

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDES = {"en": "tools.md", "zh": "tools.zh.md", "ja": "tools.ja.md"}


def blocks(language: str) -> dict[str, list[str]]:
    text = (DOCS / GUIDES[language]).read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for kind, body in re.findall(r"```(\w+)\n(.*?)```", text, re.S):
        found.setdefault(kind, []).append(body)
    return found


def python_block(language: str, marker: str) -> str:
    """The guide's python block that contains ``marker``."""
    return next(b for b in blocks(language)["python"] if marker in b)


def as_pattern(output: str) -> str:
    """A doc's sample output as a regex: the dice may roll other numbers."""
    return re.sub(r"\d+", r"\\d+", re.escape(output.strip()))


def dice_source(language: str, *extensions: str) -> str:
    """The guide's DiceTool, with manifest extension snippets inserted after its examples."""
    source = blocks(language)["python"][0]
    lines = source.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("examples="))
    return "".join(lines[: at + 1]) + "".join(extensions) + "".join(lines[at + 1 :])


def invoke(language: str, *args: str):
    return CliRunner().invoke(cli, ["-l", language, *args])


@pytest.fixture(params=sorted(GUIDES))
def guide(request, riverse_home):
    tools = riverse_home / "tools"
    tools.mkdir()
    return request.param, tools


def test_the_dice_tool_loads_cleanly_and_runs_as_shown(guide):
    language, tools = guide
    (tools / "dice.py").write_text(dice_source(language), encoding="utf-8")
    checked = invoke(language, "tools", "check", str(tools / "dice.py"))
    assert (checked.exit_code, checked.stdout) == (0, ""), checked.output
    console = blocks(language)["console"][0]
    command, shown = console.split("\n", 1)
    result = invoke(language, *shlex.split(command.removeprefix("$ riverse ")))
    assert result.exit_code == 0
    assert re.fullmatch(as_pattern(shown), result.stdout.strip())


def test_the_extensions_shown_work(guide, monkeypatch):
    language, tools = guide
    typed, limits = python_block(language, "parameter_types="), python_block(language, "timeout=")
    reason, extra = python_block(language, "def unavailable_reason"), python_block(language, "extra_examples=")
    (tools / "dice.py").write_text(dice_source(language, typed, limits), encoding="utf-8")
    manifest = ToolRegistry({"language": language}, folders=[tools], builtin=False, packages=False).get("dice").manifest()
    assert (manifest.parameter_types, manifest.required, manifest.timeout, manifest.risk) == (
        {"sides": "integer", "count": "integer"}, ["sides"], 5, "read")
    console = blocks(language)["console"][1]
    command, shown = console.split("\n", 1)
    result = invoke(language, *shlex.split(command.removeprefix("$ riverse ")))
    assert result.exit_code == 1 and result.stderr.strip() == shown.strip()

    # extra_examples: part of the manifest, and the check has nothing to say about them
    (tools / "dice.py").write_text(dice_source(language, extra), encoding="utf-8")
    manifest = ToolRegistry({"language": language}, folders=[tools], builtin=False, packages=False).get("dice").manifest()
    assert len(manifest.examples) <= 3 and len(manifest.extra_examples) == 3
    checked = invoke(language, "tools", "check", str(tools / "dice.py"))
    assert checked.exit_code == 0
    assert checked.output.strip() == t("check.summary", language, files=1, tools=1, errors=0, warnings=0)

    # unavailable_reason: with no ffmpeg on PATH, the tool is listed as unavailable with that reason.
    (tools / "dice.py").write_text("import shutil\n" + dice_source(language) + reason, encoding="utf-8")
    monkeypatch.setenv("PATH", str(tools))
    entry = ToolRegistry({"language": language}, folders=[tools], builtin=False, packages=False).entries(True)[0]
    assert not entry.available
    assert entry.reason == re.search(r'return "(.*)"', reason).group(1)


def test_the_settings_example_scopes_the_configuration(guide):
    language, tools = guide
    settings_yaml = next(b for b in blocks(language)["yaml"] if "share:" in b)
    (tools.parent / "settings.yaml").write_text(settings_yaml, encoding="utf-8")
    (tools / "dice.py").write_text(dice_source(language), encoding="utf-8")
    settings = load_settings()
    registry = ToolRegistry.from_settings(settings)
    assert registry.get("dice").config["tools"] == {"dice": {"max_count": 20, "share": ["weather"]}, "weather": {"enabled": False}}
    assert registry.get("dice").tool_config()["max_count"] == 20
    assert "weather" not in registry


def test_the_test_example_passes(guide):
    language, tools = guide
    (tools / "dice.py").write_text(dice_source(language), encoding="utf-8")
    test_file = tools / "tests" / "test_dice.py"
    test_file.parent.mkdir()
    test_file.write_text(python_block(language, "def test_the_model_rolls_a_d20"), encoding="utf-8")
    namespace = {"__file__": str(test_file), "__name__": "doc_test_dice"}
    exec(compile(test_file.read_text(encoding="utf-8"), str(test_file), "exec"), namespace)
    namespace["test_the_model_rolls_a_d20"]()


def test_the_cases_file_and_the_package_metadata_are_valid(guide, tmp_path):
    language, _ = guide
    cases_yaml = next(b for b in blocks(language)["yaml"] if "message:" in b)
    path = tmp_path / "my_cases.yaml"
    path.write_text(cases_yaml, encoding="utf-8")
    cases = load_cases(path)
    assert [(c.tool, c.params) for c in cases] == [("dice", {"sides": 20, "count": 2}), (None, None)]
    pyproject = tomllib.loads(blocks(language)["toml"][0])
    assert pyproject["project"]["entry-points"]["riverse.tools"] == {"dice": "riverse_dice:DiceTool"}


def test_every_riverse_command_shown_works(guide, tmp_path, monkeypatch):
    language, tools = guide
    (tools / "dice.py").write_text(dice_source(language), encoding="utf-8")
    cases_yaml = next(b for b in blocks(language)["yaml"] if "message:" in b)
    (tmp_path / "my_cases.yaml").write_text(cases_yaml, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RIVERSE_PROVIDER", "fake")  # the scripted model answers without a tool
    commands = [
        line.removeprefix("$ riverse ")
        for body in blocks(language)["console"]
        for line in body.splitlines()
        if line.startswith("$ riverse ")
    ]
    assert len(commands) >= 9
    for command in commands:
        args = [a.replace("~/.riverse", str(tools.parent)) for a in shlex.split(command)]
        result = invoke(language, *args)
        expected = 1 if ("--min" in args or args[-1] == "sides=abc") else 0
        assert result.exit_code == expected, (command, result.output)
    assert (tools / "hello.py").exists()  # made by 'riverse tools new hello'
