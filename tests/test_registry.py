"""Discovery: every kind of broken tool is reported with file, line, class and reason; the rest load."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agent.tools import ToolRegistry

GOOD = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class {cls}(BaseTool):
    def __init__(self, config):
        self.config = config
    def manifest(self):
        return ToolManifest(name="{name}", description="Say hello", parameters={{"who": "name"}},
                            examples=["say hello", "greet me"])
    def execute(self, params):
        return ToolResult(success=True, data="hello " + params.get("who", ""))
'''


def write(folder: Path, filename: str, source: str) -> Path:
    path = folder / filename
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def registry(folder: Path, config: dict | None = None, **kw) -> ToolRegistry:
    return ToolRegistry(config or {"language": "en", "tools": {}}, folders=[folder], builtin=False, packages=False, **kw)


def only_problem(reg: ToolRegistry, filename: str):
    found = [p for p in reg.errors if Path(p.path).name == filename]
    assert len(found) == 1, [str(p) for p in reg.problems]
    return found[0]


@pytest.mark.parametrize(
    "source,line,class_name,message",
    [
        ("def broken(:\n    pass\n", 1, None, "cannot import: SyntaxError"),
        ("import not_a_real_module_xyz\n", 1, None, "pip install not_a_real_module_xyz"),
        ("raise RuntimeError('boom at import')\n", 1, None, "RuntimeError: boom at import"),
        ("import sys\nsys.exit(3)\n", 2, None, "SystemExit"),
        (GOOD.format(cls="T", name="t").replace("self.config = config", "raise ValueError('no config')"), 6, "T",
         "__init__(config) raised ValueError: no config"),
        (GOOD.format(cls="T", name="t").replace("return ToolManifest(", "raise KeyError('x')\n        return ToolManifest("),
         8, "T", "manifest() raised KeyError"),
        (GOOD.format(cls="T", name="t").replace('name="t"', 'name=""'), 7, "T", "manifest name is empty"),
        (GOOD.format(cls="T", name="t").replace('name="t"', 'name="bad name!"'), 7, "T", "not a valid tool name"),
        (GOOD.format(cls="T", name="t").replace('description="Say hello"', "description=42"), 7, "T",
         "description must be a string, got int"),
        (GOOD.format(cls="T", name="t").replace('{"who": "name"}', '{"who": 3}'), 7, "T",
         "parameter 'who': description must be a string"),
        (GOOD.format(cls="T", name="t").replace('{"who": "name"}', '["who"]'), 7, "T", "parameters must be a dict"),
        (GOOD.format(cls="T", name="t").replace("return ToolManifest(", "return dict(") , 7, "T",
         "manifest() must return a ToolManifest, got dict"),
        ("from agent.tools import BaseTool, ToolManifest\nclass Half(BaseTool):\n    def manifest(self):\n"
         "        return ToolManifest('h', 'd', {}, [])\n", 2, "Half", "does not implement execute()"),
    ],
    ids=["syntax", "missing-module", "raise-at-import", "sys-exit-at-import", "init-raises", "manifest-raises",
         "empty-name", "bad-name", "description-type", "param-desc-type", "params-not-dict", "not-a-manifest", "abstract"],
)
def test_broken_tool_is_reported_and_others_still_load(tmp_path, source, line, class_name, message):
    write(tmp_path, "good.py", GOOD.format(cls="Good", name="good"))
    write(tmp_path, "broken.py", source)
    reg = registry(tmp_path)
    assert reg.names() == ["good"]
    problem = only_problem(reg, "broken.py")
    assert message in problem.message
    assert problem.line == line
    assert problem.class_name == class_name
    assert str(problem).startswith(f"{tmp_path / 'broken.py'}:{line}:")


def test_is_available_raising_marks_the_tool_unavailable_with_the_reason(tmp_path):
    write(tmp_path, "t.py", GOOD.format(cls="T", name="t") + "    def is_available(self):\n        return 1 / 0\n")
    reg = registry(tmp_path)
    assert reg.names() == []
    entry = reg.entries(include_unavailable=True)[0]
    assert entry.available is False and "ZeroDivisionError" in entry.reason
    assert "is_available() raised ZeroDivisionError" in only_problem(reg, "t.py").message


def test_duplicate_names_in_one_folder_first_file_wins(tmp_path):
    write(tmp_path, "a.py", GOOD.format(cls="A", name="same"))
    write(tmp_path, "b.py", GOOD.format(cls="B", name="same"))
    reg = registry(tmp_path)
    assert reg.entry("same").class_name == "A"
    problem = only_problem(reg, "b.py")
    assert "duplicate tool name 'same'" in problem.message and "a.py" in problem.message


def test_user_folder_overrides_builtin_and_says_so(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    write(user, "weather.py", GOOD.format(cls="MyWeather", name="weather"))
    reg = ToolRegistry({"language": "en", "tools": {}}, packages=False, user_folder=user)
    assert reg.entry("weather").class_name == "MyWeather"
    notes = [p for p in reg.problems if p.level == "info"]
    assert any("user tool 'weather' overrides the built-in one" in p.message for p in notes)


def test_enabled_false_removes_a_tool_and_other_sections_are_not_shared(tmp_path):
    write(tmp_path, "a.py", GOOD.format(cls="A", name="a"))
    write(tmp_path, "b.py", GOOD.format(cls="B", name="b"))
    config = {"language": "zh", "tools": {"a": {"enabled": False}, "b": {"secret": "only-b", "x": 1}}}
    reg = registry(tmp_path, config)
    assert reg.names() == ["b"]
    assert reg.get("b").config == {"language": "zh", "tools": {"b": {"secret": "only-b", "x": 1}}}
    unavailable = [e for e in reg.entries(include_unavailable=True) if not e.available]
    assert [(e.name, e.reason) for e in unavailable] == [("a", "disabled in settings (tools.a.enabled: false)")]


def test_classes_imported_from_elsewhere_are_not_registered_twice(tmp_path):
    write(tmp_path, "a.py", GOOD.format(cls="A", name="a"))
    write(tmp_path, "b.py", "from agent.tools.calculator import *\n" + GOOD.format(cls="B", name="b"))
    reg = registry(tmp_path)
    assert reg.names() == ["a", "b"]
    assert reg.errors == []


@pytest.mark.parametrize("section", [False, {"enabled": False}])
def test_a_boolean_section_is_short_for_enabled(tmp_path, section):
    write(tmp_path, "a.py", GOOD.format(cls="A", name="a"))
    reg = registry(tmp_path, {"language": "en", "tools": {"a": section}})
    assert reg.names() == []


def test_builtin_classes_stay_the_importable_ones():
    """In-process discovery (isolation: thread) imports built-ins as ordinary modules."""
    from agent.tools.calculator import CalculatorTool

    reg = ToolRegistry({"language": "en", "tools": {}}, packages=False, isolation="thread")
    assert type(reg.get("calculator")) is CalculatorTool
