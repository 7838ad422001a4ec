"""``riverse tools new`` and ``riverse tools check``: a fresh tool in seconds, and every kind of mistake
reported as ``file:line: level: message``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.toolkit.scaffold import create_tool
from agent.tools import ToolRegistry
from agent.i18n import detect_language

SPEC_EXAMPLES = Path(__file__).parent / "spec_examples"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# ------------------------------------------------------------------------------------------ new
def test_new_check_run_in_a_fresh_home(riverse_home):
    made = invoke("tools", "new", "hello")
    assert made.exit_code == 0, made.output
    tool_file = riverse_home / "tools" / "hello.py"
    test_file = riverse_home / "tools" / "tests" / "test_hello.py"
    assert f"Wrote the tool {tool_file}" in made.stdout and str(test_file) in made.stdout

    checked = invoke("tools", "check")
    assert checked.exit_code == 0, checked.output
    assert "error" not in checked.stdout
    assert "0 error(s)" in checked.stderr

    ran = invoke("tools", "run", "hello", "text=world")
    assert ran.exit_code == 0, ran.output
    assert ran.stdout.strip() == "hello: world"

    listed = json.loads(invoke("tools", "list", "--json").stdout)
    names = [(t["name"], t["origin"]) for t in listed["tools"]]
    assert ("hello", "user") in names
    # The test file sits in a subfolder the registry does not scan.
    assert not any(p["path"].endswith("test_hello.py") for p in listed["problems"])


@pytest.mark.parametrize("language", ["en", "zh", "ja"])
def test_generated_files_are_in_the_chosen_language(tmp_path, language):
    made = create_tool("greeter", tmp_path / "tools", language)
    for path in (made.tool_path, made.test_path):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    manifest = ToolRegistry({"language": language}, folders=[made.tool_path], builtin=False, packages=False).get("greeter").manifest()
    assert {detect_language(text, default="") for text in [manifest.description, *manifest.examples]} == {language}
    assert len(manifest.examples) == 2 and all(manifest.parameters.values())
    test_doc = made.test_path.read_text(encoding="utf-8").split('"""')[1]
    assert detect_language(test_doc, default="") == language
    # (tests/test_tool_testing.py runs the generated test in each language with 'riverse tools test')


def test_new_refuses_to_overwrite_and_says_where(riverse_home):
    assert invoke("tools", "new", "hello").exit_code == 0
    tool_file = riverse_home / "tools" / "hello.py"
    tool_file.write_text("# my edits\n", encoding="utf-8")
    again = invoke("tools", "new", "hello")
    assert again.exit_code == 1
    assert f"Error: {tool_file} already exists" in again.stderr
    assert tool_file.read_text(encoding="utf-8") == "# my edits\n"
    # The test file alone also blocks: neither file is ever overwritten.
    tool_file.unlink()
    blocked = invoke("tools", "new", "hello")
    assert blocked.exit_code == 1 and "test_hello.py already exists" in blocked.stderr
    assert not tool_file.exists()


@pytest.mark.parametrize("name", ["9lives", "my-tool", "天气", "a b", "_private", "x" * 65])
def test_new_refuses_an_invalid_name(riverse_home, name):
    result = invoke("tools", "new", name)
    assert result.exit_code == 1
    assert f"invalid tool name {name!r}" in result.stderr and "my_tool" in result.stderr
    assert not (riverse_home / "tools").exists()


def test_new_in_other_languages_and_folders(riverse_home, tmp_path):
    zh = invoke("-l", "zh", "tools", "new", "天气")
    assert zh.exit_code == 1 and "无效的工具名" in zh.stderr
    elsewhere = tmp_path / "elsewhere"
    made = invoke("tools", "new", "weather", "--lang", "ja", "--dir", str(elsewhere))
    assert made.exit_code == 0, made.output
    # A folder Riverse does not scan: the file's tool is not used at all, so it overrides nothing.
    assert made.stderr.splitlines() == [
        f"Note: Riverse does not scan {elsewhere}; add it to tool_dirs in settings.yaml to use the tool."]
    assert "天気" not in (elsewhere / "weather.py").read_text(encoding="utf-8")  # texts are the template's, in Japanese
    assert "で処理するテキスト" in (elsewhere / "weather.py").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------- check
HEAD = "from agent.tools import BaseTool, ToolManifest, ToolResult\n\n"


def tool_source(name: str = "t", cls: str = "T", manifest: str | None = None, execute: str = "def execute(self, params):",
                extra: str = "") -> str:
    manifest = manifest or (
        f'ToolManifest(name="{name}", description="Say hello to someone", parameters={{"who": "who to greet"}}, '
        'examples=["say hello to Ann", "greet Bob"])'
    )
    return HEAD + textwrap.dedent(f"""\
        class {cls}(BaseTool):
            def manifest(self):
                return {manifest}

            {execute}
                return ToolResult(success=True, data="hi")
        """) + extra


# file name -> (source, expected line, expected "level: Class: message" fragment)
MISTAKES = {
    "syntax.py": ("def broken(:\n    pass\n", 1, "error: cannot import: SyntaxError"),
    "missing_module.py": ("import not_a_real_module_xyz\n", 1, "error: cannot import: ModuleNotFoundError"),
    "not_a_tool.py": (
        tool_source(cls="Lookalike").replace("(BaseTool)", ""), 3,
        "error: Lookalike: has manifest() and execute() but does not subclass BaseTool",
    ),
    "no_execute.py": (
        HEAD + "class Half(BaseTool):\n    def manifest(self):\n        return ToolManifest('h', 'd', {}, [])\n", 3,
        "error: Half: does not implement execute()",
    ),
    "execute_no_params.py": (tool_source(name="noparams", execute="def execute(self):"), 7,
                             "error: T: execute() cannot be called as execute(params)"),
    "examples_type.py": (
        tool_source(manifest='ToolManifest(name="ex", description="d", parameters={}, examples="say hi")'), 4,
        "error: T: examples must be a list of strings",
    ),
    "no_description.py": (
        tool_source(manifest='ToolManifest(name="nodesc", description="  ", parameters={}, examples=["a b", "c d"])'), 4,
        "error: T: description is empty",
    ),
    "param_no_description.py": (
        tool_source(manifest='ToolManifest(name="pd", description="d", parameters={"city": ""}, examples=["a b", "c d"])'), 4,
        "error: T: parameter 'city' has no description",
    ),
    "bad_name.py": (tool_source(name="bad name!"), 4, "error: T: manifest name 'bad name!' is not a valid tool name"),
    "dup_a.py": (tool_source(name="dup", cls="First"), 3, None),
    "dup_b.py": (tool_source(name="dup", cls="Second"), 3, "error: Second: duplicate tool name 'dup'"),
    "available_raises.py": (
        tool_source(name="avail", extra="\n    def is_available(self):\n        return {}['missing']\n"), 11,
        "error: T: is_available() raised KeyError",
    ),
    "one_example.py": (
        tool_source(manifest='ToolManifest(name="one", description="d e", parameters={}, examples=["only one"])'), 4,
        "warning: T: only one example",
    ),
    "chinese.py": (
        tool_source(manifest='ToolManifest(name="zh", description="查询天气", parameters={}, examples=["东京天气", "下雨吗"])'), 4,
        "warning: T: manifest text looks like zh but the configured language is en",
    ),
    "helper.py": ("def helper():\n    return 1\n", None, "warning: defines no BaseTool subclass"),
}


def test_check_reports_every_kind_of_mistake_with_file_and_line(tmp_path, monkeypatch):
    folder = tmp_path / "mistakes"
    folder.mkdir()
    for filename, (source, _, _) in MISTAKES.items():
        (folder / filename).write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke("tools", "check", "mistakes")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    for filename, (_, line, fragment) in MISTAKES.items():
        if fragment is None:
            continue
        where = f"mistakes/{filename}:{line}: " if line else f"mistakes/{filename}: "
        assert any(l.startswith(where) and fragment in l for l in lines), (filename, lines)
    # Exactly one line per problem, and the good half of the duplicate is not blamed.
    assert not any(l.startswith("mistakes/dup_a.py") for l in lines)
    assert len(lines) == len([f for f in MISTAKES.values() if f[2]])
    errors = sum(": error: " in l for l in lines)
    warnings = sum(": warning: " in l for l in lines)
    assert f"{errors} error(s), {warnings} warning(s)" in result.stderr


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_check_on_the_spec_examples_reports_no_error(language):
    result = invoke("-l", language, "tools", "check", str(SPEC_EXAMPLES / language))
    assert result.exit_code == 0, result.output
    assert ": error: " not in result.stdout
    assert "2 tool(s)" in result.stderr or "2 个工具" in result.stderr or "ツール 2 個" in result.stderr
    # The contract's example weather tool overrides the built-in one: a note, not a failure; the
    # level word is in the configured language.
    note = {"zh": "提示", "ja": "注記"}[language]
    assert f"{language}/weather.py:4: {note}: WeatherTool: user tool 'weather' overrides the built-in one" in result.stdout


def test_check_warns_when_examples_are_not_in_the_configured_language():
    result = invoke("-l", "en", "tools", "check", str(SPEC_EXAMPLES / "zh" / "my_tool.py"))
    assert result.exit_code == 0
    assert result.stdout.strip().endswith(
        "my_tool.py:8: warning: MyTool: manifest text looks like zh but the configured language is en; "
        "the model routes best when examples match the user's language"
    )


def test_check_one_file_only_reports_that_file(tmp_path):
    (tmp_path / "good.py").write_text(tool_source(name="good"), encoding="utf-8")
    (tmp_path / "bad.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    good = invoke("tools", "check", str(tmp_path / "good.py"))
    assert good.exit_code == 0 and good.stdout == ""
    assert "1 file(s), 1 tool(s): 0 error(s), 0 warning(s)" in good.stderr
    bad = invoke("tools", "check", str(tmp_path / "bad.py"))
    assert bad.exit_code == 1
    assert bad.stdout.strip() == f"{tmp_path / 'bad.py'}:1: error: cannot import: RuntimeError: boom"


def test_check_explains_skipped_and_non_python_files(tmp_path):
    (tmp_path / "_helper.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x\n", encoding="utf-8")
    skipped = invoke("tools", "check", str(tmp_path / "_helper.py"))
    assert skipped.exit_code == 0 and "Riverse skips files whose names start with '_'" in skipped.stdout
    wrong = invoke("tools", "check", str(tmp_path / "notes.txt"))
    assert wrong.exit_code == 1 and "notes.txt is not a .py file" in wrong.stderr


def test_check_without_path_covers_the_user_folder_and_notes_unavailable_tools(riverse_home):
    tools = riverse_home / "tools"
    tools.mkdir()
    (tools / "off.py").write_text(
        tool_source(name="off", extra="\n    def is_available(self):\n        return False\n"), encoding="utf-8"
    )
    (tools / "broken.py").write_text("import not_a_real_module_xyz\n", encoding="utf-8")
    result = invoke("tools", "check")
    assert result.exit_code == 1
    assert f"{tools / 'broken.py'}:1: error: cannot import: ModuleNotFoundError" in result.stdout
    assert "pip install not_a_real_module_xyz" in result.stdout
    assert f"{tools / 'off.py'}:3: note: T: tool 'off' is unavailable: is_available() returned False" in result.stdout
    builtin = [line for line in result.stdout.splitlines() if "agent/tools/" in line]
    assert not [line for line in builtin if ": note: " not in line]  # the built-in tools are clean


# --------------------------------------------------------------------- one format for load problems
@pytest.mark.parametrize("language,level", [("en", "error"), ("zh", "错误"), ("ja", "エラー")])
def test_check_and_list_show_a_load_problem_the_same_way(riverse_home, monkeypatch, language, level):
    tools = riverse_home / "tools"
    tools.mkdir()
    (tools / "broken.py").write_text("import not_a_real_module_xyz\n", encoding="utf-8")
    monkeypatch.chdir(riverse_home)
    checked = invoke("-l", language, "tools", "check")
    line = next(l for l in checked.stdout.splitlines() if l.startswith("tools/broken.py"))
    assert line.startswith(f"tools/broken.py:1: {level}: cannot import: ModuleNotFoundError")
    listed = invoke("-l", language, "tools", "list")
    assert f"\n  {line}\n" in listed.stdout  # the same line, under the heading of load problems
    heading = {"en": "Problems found while loading tools:", "zh": "加载工具时发现的问题：", "ja": "ツールの読み込み中に見つかった問題："}
    assert listed.stdout.index(heading[language]) < listed.stdout.index(line)
    skipped = tools / "_helper.py"
    skipped.write_text("x = 1\n", encoding="utf-8")
    warning = {"en": "warning", "zh": "警告", "ja": "警告"}[language]
    assert invoke("-l", language, "tools", "check", str(skipped)).stdout.startswith(f"tools/_helper.py: {warning}: ")
