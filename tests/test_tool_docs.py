"""The tool author's guides (docs/tools*.md) tell the truth: their code runs, their outputs are what
Riverse prints, and every ``riverse`` command they show works."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
import unicodedata
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


def write_the_test_example(language: str, tools: Path) -> Path:
    """The guide's dice tool, and its test example where the guide says to save it."""
    (tools / "dice.py").write_text(dice_source(language), encoding="utf-8")
    test_file = tools / "tests" / "test_dice.py"
    test_file.parent.mkdir(exist_ok=True)
    test_file.write_text(python_block(language, "def test_the_model_rolls_a_d20"), encoding="utf-8")
    return test_file


def test_the_test_example_passes(guide, tmp_path):
    language, tools = guide
    test_file = write_the_test_example(language, tools)
    namespace = {"__file__": str(test_file), "__name__": "doc_test_dice"}
    exec(compile(test_file.read_text(encoding="utf-8"), str(test_file), "exec"), namespace)
    tests = sorted(name for name in namespace if name.startswith("test_"))
    assert tests == ["test_the_model_rolls_a_d20", "test_two_d20"]
    for name in tests:
        namespace[name](tmp_path / name)


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
    write_the_test_example(language, tools)  # 'riverse tools test dice' runs it
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
    assert len(commands) >= 12 and "tools test dice" in commands and "tools test hello" in commands
    for command in commands:
        args = [a.replace("~/.riverse", str(tools.parent)) for a in shlex.split(command)]
        result = invoke(language, *args)
        expected = 1 if ("--min" in args or args[-1] == "sides=abc") else 0
        assert result.exit_code == expected, (command, result.output)
    assert (tools / "hello.py").exists()  # made by 'riverse tools new hello'


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces → '-'."""
    text = heading.strip().lower().replace("`", "")
    text = "".join(c for c in text if c.isalnum() or c in " -_" or unicodedata.category(c).startswith("M"))
    return text.replace(" ", "-")


SECTION_WORDS = {"en": r"section (\d+)", "zh": r"第 (\d+) 节", "ja": r"(\d+) 節"}


@pytest.mark.parametrize("language", sorted(GUIDES))
def test_cross_references_point_to_their_sections(language):
    text = (DOCS / GUIDES[language]).read_text(encoding="utf-8")
    headings = {slug(h): h for h in re.findall(r"^#{2,3} (.+)$", text, re.M)}
    links = re.findall(r"\[([^\]]+)\]\(#([^)]+)\)", text)
    assert len(links) >= 4
    for label, anchor in links:
        assert anchor in headings, (label, anchor, sorted(headings))
        number = re.fullmatch(SECTION_WORDS[language], label)
        if number:  # "section 8" leads to the heading "8. ..."
            assert headings[anchor].startswith(f"{number.group(1)}. "), (label, headings[anchor])
    # Every mention of a section by its number is a link to it.
    mentions = re.findall(SECTION_WORDS[language], re.sub(r"\[[^\]]+\]\(#[^)]+\)", "", text))
    assert mentions == []
    # Links to files lead to files of the repository.
    files = [target for target in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in target]
    assert "transcripts/tool-author-walkthrough.txt" in files
    assert [f for f in files if not (DOCS / f).is_file()] == []


APPROVAL_WORDS = {"en": "without asking for approval", "zh": "不询问批准", "ja": "承認を求めずに"}


@pytest.mark.parametrize("language", sorted(GUIDES))
def test_the_guides_say_tools_run_skips_approval_and_it_does(language, riverse_home):
    text = (DOCS / GUIDES[language]).read_text(encoding="utf-8")
    first_run = text.index("$ riverse tools run dice")
    paragraph = text[first_run:text.index("\n\n", text.index("```\n", first_run) + 5)]
    assert "`riverse tools run`" in paragraph and APPROVAL_WORDS[language] in paragraph
    risk_section = text[text.index("risk=\"read\""):text.index("\n### ", text.index("risk=\"read\""))]
    assert "`riverse tools run`" in risk_section and "approve=True" in risk_section

    tools = riverse_home / "tools"
    tools.mkdir()
    (tools / "dice.py").write_text(dice_source(language, '            risk="write",\n'), encoding="utf-8")
    ran = invoke(language, "tools", "run", "dice", "sides=6")
    assert ran.exit_code == 0 and ran.stdout.strip()
    script = riverse_home / "script.yaml"
    script.write_text("- {tool: dice, params: {sides: 6}}\n- done\n", encoding="utf-8")
    (riverse_home / "settings.yaml").write_text(f"llm: {{provider: fake, script: {script}}}\n", encoding="utf-8")
    asked = json.loads(invoke(language, "ask", "--json", "roll").stdout)
    assert asked["tool_calls"][0]["status"] == "refused"


CHECK_SAMPLE_TEXTS = {
    "en": ("Weather of a city", "Weather in Tokyo?"),
    "zh": ("查询城市的天气", "东京天气怎么样？"),
    "ja": ("都市の天気を調べる", "東京の天気はどうですか？"),
}


@pytest.mark.parametrize("language", sorted(GUIDES))
def test_the_samples_of_new_check_and_eval_are_what_riverse_prints(language, riverse_home, monkeypatch):
    found = blocks(language)
    new_block = next(b for b in found["console"] if b.startswith("$ riverse tools new hello\n"))
    home = "/home/you/.riverse/tools"
    assert new_block.split("\n", 1)[1].strip() == t(
        "new.wrote", language, tool=f"{home}/hello.py", test=f"{home}/tests/test_hello.py", name="hello")

    # The sample of 'riverse tools check': a class whose manifest() is on line 9.
    description, example = CHECK_SAMPLE_TEXTS[language]
    tools = riverse_home / "tools"
    tools.mkdir()
    (tools / "weather2.py").write_text(
        "from agent.tools import BaseTool, ToolManifest, ToolResult\n\n\n"
        "class WeatherTool(BaseTool):\n    def __init__(self, config):\n        self.config = config\n\n\n"
        f"    def manifest(self):\n        return ToolManifest(name='weather2', description={description!r}, "
        f"parameters={{'city': ''}}, examples=[{example!r}])\n\n"
        "    def execute(self, params):\n        return ToolResult(success=True, data='sunny')\n",
        encoding="utf-8")
    monkeypatch.chdir(riverse_home)
    checked = invoke(language, "tools", "check", "tools/weather2.py")
    sample = next(b for b in found["text"] if "weather2.py" in b)
    assert checked.stdout == sample

    wrong = next(b for b in found["text"] if "✗" in b)
    assert wrong.splitlines()[0] == t("eval.wrong_params", language)
    running = next(b for b in found["console"] if b.startswith("$ riverse tools test hello\n")).splitlines()[1]
    assert running.startswith(t("test.running", language, command="/home/you/.venv/bin/python -m pytest"))
