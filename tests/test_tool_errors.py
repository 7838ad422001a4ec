"""What a tool author is told when a tool goes wrong: where a tool raised (file, line, traceback), in
both isolation modes, through ``riverse ask``, ``chat`` and ``logs``; what to install for a missing
module; and which file failed to load a tool that is asked for by name."""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.storage import open_store
from agent.storage.migrations import MIGRATIONS
from agent.toolkit import install_hint as hints
from agent.toolkit.install_hint import distribution_for, install_hint
from agent.toolkit.runtime import ToolRunner
from agent.tools import ToolRegistry

PYTHON = shlex.quote(sys.executable)

RAISER = '''from agent.tools import BaseTool, ToolManifest, ToolResult


def lookup(params):
    return params["missing"]


class RaiserTool(BaseTool):
    def manifest(self):
        return ToolManifest("raiser", "Raises on purpose", {"x": "anything"}, ["raise now", "fail please"])

    def execute(self, params):
        if params.get("x") == "here":
            raise ValueError("raised in the method")
        return ToolResult(True, "fine" if params.get("x") == "ok" else lookup(params))
'''

LAZY_IMPORT = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class Photo(BaseTool):
    def manifest(self):
        return ToolManifest("photo", "Resize a photo", {"path": "the photo"}, ["resize my photo", "make it smaller"])

    def execute(self, params):
        import PIL.Image
        return ToolResult(True, "resized")
'''


def registry_of(folder: Path, isolation: str) -> ToolRegistry:
    return ToolRegistry({"language": "en", "tools": {}}, folders=[folder], builtin=False, packages=False,
                        isolation=isolation)


@pytest.fixture
def tool_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "my-tools"
    folder.mkdir()
    (folder / "raiser.py").write_text(RAISER, encoding="utf-8")
    (folder / "photo.py").write_text(LAZY_IMPORT, encoding="utf-8")
    return folder


# ------------------------------------------------------------------------ row 2: where a tool raised
@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_the_error_names_the_file_and_line_and_the_traceback_comes_back(tool_folder, isolation):
    registry = registry_of(tool_folder, isolation)
    try:
        runner = ToolRunner(registry, timeout=20)
        path = str((tool_folder / "raiser.py").resolve())
        helper = runner.run("raiser", {"x": "1"})
        assert (helper.status, helper.success) == ("error", False)
        # The innermost frame in the tool's own file: the helper function it called.
        assert helper.error == f"tool 'raiser' raised KeyError: 'missing' (at {path}:5, in lookup)"
        assert f'File "{path}", line 15, in execute\n    return ToolResult(True, "fine" if' in helper.traceback
        assert f'File "{path}", line 5, in lookup\n    return params["missing"]' in helper.traceback
        assert helper.traceback.startswith("Traceback (most recent call last):")
        assert helper.traceback.rstrip().endswith("KeyError: 'missing'")
        assert "worker_process.py" not in helper.traceback and "runtime.py" not in helper.traceback
        method = runner.run("raiser", {"x": "here"})
        assert method.error == f"tool 'raiser' raised ValueError: raised in the method (at {path}:14, in RaiserTool.execute)"
        fine = runner.run("raiser", {"x": "ok"})
        assert (fine.data, fine.error, fine.traceback) == ("fine", "", "")
    finally:
        registry.close()


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_a_module_missing_at_call_time_says_what_to_install_and_where(tool_folder, isolation):
    registry = registry_of(tool_folder, isolation)
    try:
        outcome = ToolRunner(registry, timeout=20).run("photo", {"path": "a.jpg"})
    finally:
        registry.close()
    path = (tool_folder / "photo.py").resolve()
    assert outcome.error == (
        f"tool 'photo' raised ModuleNotFoundError: No module named 'PIL' (at {path}:9, in Photo.execute); "
        f"install it into the Python that runs Riverse: {PYTHON} -m pip install Pillow"
    )


def setup_home(home: Path, script: str, language: str = "en") -> None:
    (home / "tools").mkdir(exist_ok=True)
    (home / "tools" / "raiser.py").write_text(RAISER, encoding="utf-8")
    (home / "script.yaml").write_text(script, encoding="utf-8")
    (home / "settings.yaml").write_text(
        f"language: {language}\nllm:\n  provider: fake\n  script: {home / 'script.yaml'}\n", encoding="utf-8")


def test_ask_shows_where_it_raised_and_verbose_and_logs_show_the_traceback(riverse_home):
    setup_home(riverse_home, "- {tool: raiser, params: {x: '1'}}\n- It failed.\n" * 3)
    path = riverse_home / "tools" / "raiser.py"
    runner = CliRunner()
    plain = runner.invoke(cli, ["ask", "raise now"])
    assert plain.exit_code == 0, plain.output
    assert f"tool 'raiser' raised KeyError: 'missing' (at {path}:5, in lookup)" in plain.stderr
    assert "(riverse ask --verbose shows the traceback; riverse logs --verbose shows it later)" in plain.stderr
    assert "Traceback" not in plain.stderr and "It failed." in plain.stdout

    verbose = runner.invoke(cli, ["ask", "--verbose", "raise now"])
    assert f'File "{path}", line 5, in lookup\n    return params["missing"]' in verbose.stderr
    assert "--verbose shows the traceback" not in verbose.stderr

    as_json = runner.invoke(cli, ["ask", "--json", "raise now"])
    [call] = json.loads(as_json.stdout)["tool_calls"]
    assert call["error"] == f"tool 'raiser' raised KeyError: 'missing' (at {path}:5, in lookup)"
    assert call["traceback"].rstrip().endswith("KeyError: 'missing'")

    logged = json.loads(runner.invoke(cli, ["logs", "--json"]).stdout)
    assert len(logged) == 3 and all(f'File "{path}", line 5, in lookup' in c["traceback"] for c in logged)
    table = runner.invoke(cli, ["logs"])
    assert "3 of these calls raised; riverse logs --verbose shows their tracebacks." in table.stdout
    full = runner.invoke(cli, ["logs", "--verbose", "-n", "1"])
    assert f"  error: tool 'raiser' raised KeyError: 'missing' (at {path}:5, in lookup)" in full.stdout
    assert f'  File "{path}", line 15, in execute' in full.stdout and "  KeyError: 'missing'" in full.stdout


def test_chat_verbose_in_chinese(riverse_home):
    setup_home(riverse_home, "- {tool: raiser, params: {x: '1'}}\n- 失败了。\n" * 2, language="zh")
    path = riverse_home / "tools" / "raiser.py"
    plain = CliRunner().invoke(cli, ["chat"], input="出错吧\n/exit\n")
    assert f"tool 'raiser' raised KeyError: 'missing' (at {path}:5, in lookup)" in plain.stderr
    assert "（riverse chat --verbose 会显示回溯信息；之后也可用 riverse logs --verbose 查看）" in plain.stderr
    verbose = CliRunner().invoke(cli, ["chat", "-v"], input="出错吧\n/exit\n")
    assert f'File "{path}", line 15, in execute' in verbose.stderr
    table = CliRunner().invoke(cli, ["logs"])
    assert "其中 2 次调用抛出了异常；riverse logs --verbose 会显示回溯信息。" in table.stdout


def test_a_database_from_before_keeps_its_calls_and_gains_the_traceback_column(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for fn in MIGRATIONS[:3]:  # the database as the previous release left it
        fn(db)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    db.executemany("INSERT INTO _migrations VALUES (?, 0)", [(fn.__name__,) for fn in MIGRATIONS[:3]])
    db.execute("INSERT INTO tool_calls (name, params, success, status, created_at) VALUES ('old', '{}', 1, 'ok', 1)")
    db.commit()
    db.close()
    [call] = open_store(path).tool_calls()
    assert (call["name"], call["traceback"]) == ("old", "")


# ------------------------------------------------------------------ row 8: what to install, and where
@pytest.mark.parametrize("module,dist", [
    ("PIL", "Pillow"), ("PIL.Image", "Pillow"), ("cv2", "opencv-python"), ("yaml", "PyYAML"),
    ("sklearn.linear_model", "scikit-learn"), ("bs4", "beautifulsoup4"), ("dateutil.parser", "python-dateutil"),
    ("google.protobuf", "protobuf"),
])
def test_well_known_import_names_give_their_distribution(module, dist):
    assert distribution_for(module) == (dist, True)
    assert install_hint(module) == f"install it into the Python that runs Riverse: {PYTHON} -m pip install {dist}"


def test_installed_distributions_name_a_module_and_unknown_names_are_a_guess(monkeypatch):
    from importlib import metadata

    monkeypatch.setattr(metadata, "packages_distributions", lambda: {"shiny": ["shiny-widgets"], "google": ["protobuf"]})
    assert distribution_for("shiny") == ("shiny-widgets", True)
    assert distribution_for("google.cloud") == ("google", False)  # a namespace: protobuf would be wrong
    assert install_hint("riverse_nowhere.sub") == (
        f"install it into the Python that runs Riverse: {PYTHON} -m pip install riverse_nowhere; "
        "if 'riverse_nowhere' is not the name it is published under on PyPI, install that name instead")
    assert "opencv-python" in hints.WELL_KNOWN.values()


@pytest.mark.parametrize("isolation", ["process", "thread"])
def test_a_file_that_imports_a_missing_module_says_what_to_install(tmp_path, isolation):
    (tmp_path / "cam.py").write_text("import cv2\n", encoding="utf-8")
    registry = registry_of(tmp_path, isolation)
    try:
        [problem] = registry.errors
    finally:
        registry.close()
    assert problem.line == 1
    assert problem.message == ("cannot import: ModuleNotFoundError: No module named 'cv2' (install it into the Python "
                               f"that runs Riverse: {PYTHON} -m pip install opencv-python)")


# ---------------------------------------------------------- row 9: the file that failed to load a tool
NEEDS_PKG = "import PIL\nfrom agent.tools import BaseTool\n"
NAMED_INSIDE = 'import cv2\nfrom agent.tools import BaseTool, ToolManifest\n\nNAME = "imgtool"\n'
BAD_MANIFEST = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class Broken(BaseTool):
    def manifest(self):
        return ToolManifest("broken_one", "", {"x": "a value"}, ["a", "b"])

    def execute(self, params):
        return ToolResult(True, "")
'''


@pytest.fixture
def broken_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "needspkg.py").write_text(NEEDS_PKG, encoding="utf-8")
    (folder / "images.py").write_text(NAMED_INSIDE, encoding="utf-8")
    (folder / "zz_manifest.py").write_text(BAD_MANIFEST, encoding="utf-8")
    (folder / "fine.py").write_text(RAISER, encoding="utf-8")
    return folder


def test_a_tool_asked_for_by_name_points_at_the_file_that_failed_to_load_it(broken_folder):
    registry = registry_of(broken_folder, "process")
    try:
        problems = {Path(p.path).name: p for p in registry.errors}
        runner = ToolRunner(registry)
        needs = runner.run("needspkg", {})
        by_text = runner.run("imgtool", {})
        by_manifest = runner.run("broken_one", {})
        unknown = runner.run("nothing_like_it", {})
    finally:
        registry.close()
    path = broken_folder / "needspkg.py"
    assert needs.status == "unknown"
    assert needs.error == (f"tool 'needspkg' is not loaded: {problems['needspkg.py']}; fix the file, then check it "
                           f"with: riverse tools check {path}; available tools: raiser")
    assert str(problems["needspkg.py"]).startswith(f"{path}:1: cannot import: ModuleNotFoundError: No module named 'PIL'")
    assert by_text.error.startswith(f"tool 'imgtool' is not loaded: {broken_folder / 'images.py'}:1: cannot import")
    assert by_manifest.error.startswith(f"tool 'broken_one' is not loaded: {problems['zz_manifest.py']}")
    assert unknown.error == "unknown tool 'nothing_like_it'; available tools: raiser"


def test_tools_run_names_the_failed_file_in_the_users_language(riverse_home):
    setup_home(riverse_home, "- unused\n")
    (riverse_home / "tools" / "needspkg.py").write_text(NEEDS_PKG, encoding="utf-8")
    path = riverse_home / "tools" / "needspkg.py"
    for language, head, tail in [
        ("en", "tool 'needspkg' is not loaded: ", "; fix the file, then check it with: riverse tools check"),
        ("ja", "ツール「needspkg」は読み込まれていません：", "。ファイルを直してから riverse tools check"),
    ]:
        result = CliRunner().invoke(cli, ["-l", language, "tools", "run", "needspkg"])
        assert result.exit_code == 2
        assert result.stderr.startswith(f"{head}{path}:1: cannot import: ModuleNotFoundError: No module named 'PIL' "
                                        f"(install it into the Python that runs Riverse: {PYTHON} -m pip install Pillow)")
        assert tail in result.stderr and "raiser" in result.stderr
    as_json = CliRunner().invoke(cli, ["tools", "run", "needspkg", "--json"])
    assert json.loads(as_json.stdout)["error"].startswith(f"tool 'needspkg' is not loaded: {path}:1: cannot import")
