"""Testing a tool: ``agent.testing`` runs it as the runtime does in a Riverse home of the test's own,
the generated test follows the manifest through the author's edits, and ``riverse tools test`` runs
it with the Python that runs Riverse."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import agent
from agent.cli import cli
from agent.cli import tool_tests
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.testing import ToolHarness, ToolTestError, run_tool, sample_params
from agent.tools import ToolManifest

RIVERSE_ROOT = Path(agent.__file__).resolve().parent.parent

# A typed tool with a fixed rate table that keeps its last conversion in its Riverse home.
CURRENCY = textwrap.dedent('''\
    from pathlib import Path

    from agent.tools import BaseTool, ToolManifest, ToolResult

    RATES = {"USD": 1.0, "EUR": 0.92, "JPY": 151.0}


    class CurrencyTool(BaseTool):

        def __init__(self, config: dict):
            self.config = config

        def manifest(self) -> ToolManifest:
            return ToolManifest(
                name="currency",
                description="Convert an amount of money between currencies when the user asks for a conversion",
                parameters={"amount": "How much money", "source": "The currency to convert from",
                            "target": "The currency to convert to"},
                parameter_types={"amount": "number", "source": list(RATES), "target": list(RATES)},
                required=["amount", "target"],
                examples=["How much is 20 dollars in yen?", "Convert 15 EUR to USD"],
                risk="write",
            )

        def execute(self, params: dict) -> ToolResult:
            amount = params["amount"]
            if amount < 0:
                return ToolResult(success=False, data="", error="the amount must not be negative")
            source = params.get("source", "USD")
            value = amount / RATES[source] * RATES[params["target"]]
            Path(self.config["home"], "last_conversion.txt").write_text(f"{amount} {source}", encoding="utf-8")
            return ToolResult(success=True, data=f"{amount:g} {source} = {value:.2f} {params['target']} ({type(amount).__name__})")
    ''')


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def riverse(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    """The real command line in a new process, importing the Riverse under test."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(RIVERSE_HOME=str(home), PYTHONPATH=str(RIVERSE_ROOT))
    code = "import sys; sys.argv[0] = 'riverse'; from agent.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


# ------------------------------------------------------------------------------ agent.testing
def test_run_tool_converts_checks_and_approves_as_the_runtime_does(tmp_path):
    tool = write(tmp_path / "tools" / "currency.py", CURRENCY)
    home = tmp_path / "test-home"
    refused = run_tool(tool, {"amount": "20", "target": "jpy"}, home=home)
    assert (refused.status, refused.approval) == ("refused", "refused")
    assert "needs the user's approval" in refused.error and "--yes" in refused.error
    assert not (home / "last_conversion.txt").exists()

    done = run_tool(tool, {"amount": "20", "target": "jpy", "other": 1}, home=home, approve=True)
    assert done.success, done.error
    assert done.params == {"amount": 20, "target": "JPY"}  # converted to the manifest's types, undeclared dropped
    assert done.data == "20 USD = 3020.00 JPY (int)"
    assert (home / "last_conversion.txt").read_text(encoding="utf-8") == "20 USD"  # config["home"] is the test's

    missing = run_tool(tool, {"amount": 3}, home=home, approve=True)
    assert missing.status == "invalid" and "parameter 'target': is required" in missing.error
    wrong = run_tool(tool, {"amount": "lots", "target": "EUR"}, home=home, approve=True)
    assert wrong.status == "invalid" and "parameter 'amount'" in wrong.error
    asked = []
    decided = run_tool(tool, {"amount": 1, "target": "EUR"}, home=home, approve=lambda r: asked.append(r) or "no")
    assert decided.status == "refused" and [(r.name, r.risk) for r in asked] == [("currency", "write")]


def test_the_home_is_the_tests_own_and_the_users_settings_are_not_read(tmp_path, monkeypatch, riverse_home):
    tool = write(tmp_path / "where.py", textwrap.dedent('''\
        from agent.tools import BaseTool, ToolManifest, ToolResult

        class Where(BaseTool):
            def __init__(self, config):
                self.config = config
            def manifest(self):
                return ToolManifest(name="where", description="Say where the Riverse home is",
                                    parameters={}, examples=["where is home?", "which home?"])
            def execute(self, params):
                return ToolResult(success=True, data=f"{self.config['home']} {self.config['language']}")
        '''))
    write(riverse_home / "settings.yaml", "language: ja\n")
    monkeypatch.setenv("RIVERSE_LANGUAGE", "zh")
    monkeypatch.setenv("RIVERSE_CONFIG", str(tmp_path / "no-such-settings.yaml"))
    with ToolHarness(tool) as harness:
        temporary = harness.home
        assert harness.run().data == f"{temporary} en"
        assert temporary.is_dir() and riverse_home not in temporary.parents
    assert not temporary.exists()  # a temporary home is deleted afterwards
    home = tmp_path / "test-home"
    write(home / "settings.yaml", "language: zh\n")  # a settings file in the test's home is read
    assert run_tool(tool, home=home).data == f"{home} zh"
    assert run_tool(tool, home=home, settings={"language": "ja"}).data == f"{home} ja"


def test_a_timeout_and_a_crash_end_as_in_a_chat_turn(tmp_path):
    tool = write(tmp_path / "bad.py", textwrap.dedent('''\
        import threading

        from agent.tools import BaseTool, ToolManifest, ToolResult

        class Hang(BaseTool):
            def __init__(self, config):
                self.config = config
            def manifest(self):
                return ToolManifest(name="hang", description="Never answers", parameters={},
                                    examples=["wait forever", "hang please"])
            def execute(self, params):
                threading.Event().wait()

        class Crash(BaseTool):
            def __init__(self, config):
                self.config = config
            def manifest(self):
                return ToolManifest(name="crash", description="Raises", parameters={},
                                    examples=["crash now", "break it"])
            def execute(self, params):
                return 1 / 0
        '''))
    with ToolHarness(tool, home=tmp_path / "home", settings={"tools": {"hang": {"timeout": 0.5}}}) as harness:
        assert harness.name is None  # two tools: each call names one
        with pytest.raises(ToolTestError, match=r"more than one tool was loaded \(crash, hang\); say which with name="):
            harness.run()
        hung = harness.run(name="hang")
        assert hung.status == "timeout" and "did not finish within 0.5 s" in hung.error
        crashed = harness.run(name="crash")
        assert crashed.status == "error" and "raised ZeroDivisionError" in crashed.error


def test_a_turn_with_the_scripted_model_in_the_tests_home(tmp_path):
    tool = write(tmp_path / "currency.py", CURRENCY)
    with ToolHarness(tool, home=tmp_path / "home", approve=True) as harness:
        provider = ScriptedProvider([ToolCall("currency", {"amount": "15", "source": "eur", "target": "usd"}), "16.30 USD."])
        turn = harness.ask("Convert 15 EUR to USD", provider)
        assert turn.answer == "16.30 USD." and turn.tool_calls[0].data == "15 EUR = 16.30 USD (int)"
        assert "16.30 USD" in provider.requests[1]["messages"][-1]["content"]
        assert [c["name"] for c in harness.store.tool_calls()] == ["currency"]
        refused = harness.ask("Convert 15 EUR to USD", [ToolCall("currency", {"amount": 15, "target": "USD"}), "No."],
                              approve=False)
        assert refused.tool_calls[0].status == "refused"


def test_a_tool_by_name_and_the_errors_that_say_what_to_fix(tmp_path):
    assert run_tool("calculator", {"expression": "2**10"}).data == "2**10 = 1024"
    with pytest.raises(ToolTestError, match="no tool named 'no_such_tool' was loaded; loaded: .*calculator"):
        run_tool("no_such_tool")
    with pytest.raises(ToolTestError, match=r"missing\.py does not exist; give the path of a tool file"):
        run_tool(tmp_path / "missing.py")
    broken = write(tmp_path / "broken.py", "import not_a_real_module_xyz\n")
    with pytest.raises(ToolTestError, match=r"(?s)broken\.py does not load \(run 'riverse tools check .*broken\.py'\):\n"
                                            r"  .*broken\.py:1: cannot import: ModuleNotFoundError"):
        run_tool(broken)
    empty = write(tmp_path / "empty.py", "x = 1\n")
    with pytest.raises(ToolTestError, match=r"empty\.py defines no tool: write a BaseTool subclass"):
        run_tool(empty)


def test_sample_params_follow_the_declared_types():
    manifest = ToolManifest(
        "t", "d",
        {"n": "a count", "x": "a ratio", "flag": "on?", "unit": "unit", "tags": "tags", "opts": "options",
         "link": "a page", "text": "words", "year": "a year", "city": "a city"},
        parameter_types={"n": "int", "x": "number", "flag": "bool", "unit": ["celsius", "fahrenheit"],
                         "tags": {"type": "array", "items": {"type": "string"}}, "opts": "object",
                         "link": {"type": "string", "format": "uri"}, "year": {"type": "integer", "minimum": 1900},
                         "city": {"type": "string", "examples": ["Tokyo", "Oslo"]}},
        required=["n", "unit"],
    )
    assert sample_params(manifest) == {
        "n": 1, "x": 1, "flag": True, "unit": "celsius", "tags": ["sample"], "opts": {},
        "link": "https://example.com/", "text": "sample", "year": 1900, "city": "Tokyo",
    }
    assert sample_params(manifest, required_only=True) == {"n": 1, "unit": "celsius"}


# ------------------------------------------------------------------- the generated test (row 5)
def test_the_generated_test_follows_the_manifest_through_the_authors_edits(tmp_path, riverse_home):
    assert CliRunner().invoke(cli, ["tools", "new", "currency"]).exit_code == 0
    tool_file = riverse_home / "tools" / "currency.py"
    test_file = riverse_home / "tools" / "tests" / "test_currency.py"
    generated = test_file.read_text(encoding="utf-8")
    assert "from agent.testing import ToolHarness, sample_params" in generated
    assert ".execute(" not in generated  # every call goes through the runtime

    fresh = riverse("tools", "test", "currency", "-rs", home=riverse_home, cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "5 passed, 1 skipped" in fresh.stdout
    assert "no expected results yet: add (parameters, text) pairs to EXPECTED" in fresh.stdout

    # The author rewrites the tool (other parameters, types, required ones, risk "write") and lists
    # results they expect: the generated test still passes, and runs the tool in a home of its own.
    tool_file.write_text(CURRENCY, encoding="utf-8")
    test_file.write_text(generated.replace(
        "EXPECTED: list[tuple[dict, str]] = [\n]",
        'EXPECTED: list[tuple[dict, str]] = [\n    ({"amount": "20", "target": "jpy"}, "3020.00 JPY"),\n]'),
        encoding="utf-8")
    edited = riverse("tools", "test", "currency", home=riverse_home, cwd=tmp_path)
    assert edited.returncode == 0, edited.stdout + edited.stderr
    assert "6 passed" in edited.stdout
    assert not (riverse_home / "last_conversion.txt").exists()

    # A tool that breaks is caught, with the reason.
    tool_file.write_text(CURRENCY.replace('params["amount"]\n', 'params["amount"] / 0\n'), encoding="utf-8")
    broken = riverse("tools", "test", str(tool_file), home=riverse_home, cwd=tmp_path)
    assert broken.returncode == 1
    assert "raised ZeroDivisionError" in broken.stdout


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_the_generated_test_passes_in_every_language(tmp_path, riverse_home, language):
    made = CliRunner().invoke(cli, ["tools", "new", "greeter", "--lang", language])
    assert made.exit_code == 0, made.output
    run = riverse("-l", language, "tools", "test", "greeter", "-q", home=riverse_home, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 passed, 1 skipped" in run.stdout


# ---------------------------------------------------------------------- riverse tools test (row 4)
def test_tools_test_runs_pytest_in_the_python_that_runs_riverse(tmp_path, riverse_home):
    assert CliRunner().invoke(cli, ["tools", "new", "hello"]).exit_code == 0
    run = riverse("tools", "test", "hello", home=riverse_home, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    test_file = riverse_home / "tools" / "tests" / "test_hello.py"
    assert f"Running {sys.executable} -m pytest --import-mode=importlib {test_file}\n" == run.stderr
    assert "5 passed, 1 skipped" in run.stdout


def test_tools_test_says_what_to_install_when_pytest_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pytest", None)  # this Python cannot import pytest
    for language, fragment in [("en", "pytest is not installed in the Python that runs Riverse"),
                               ("zh", "运行 Riverse 的 Python"), ("ja", "pytest がありません")]:
        result = CliRunner().invoke(cli, ["-l", language, "tools", "test"])
        assert result.exit_code == 1
        assert fragment in result.stderr
        assert f"{sys.executable} -m pip install 'riverse[dev]'" in result.stderr


@pytest.fixture
def commands(monkeypatch):
    """The pytest command lines ``riverse tools test`` would run (none is started)."""
    ran: list[list[str]] = []
    monkeypatch.setattr(tool_tests.subprocess, "call", lambda command, env: ran.append(command) or 0)
    return ran


def test_tools_test_finds_the_tests_of_a_name_a_file_or_a_folder(riverse_home, tmp_path, commands):
    runner = CliRunner()
    shared = tmp_path / "shared"
    write(riverse_home / "settings.yaml", f"tool_dirs: [{shared}]\n")
    assert runner.invoke(cli, ["tools", "new", "hello"]).exit_code == 0
    assert runner.invoke(cli, ["tools", "new", "team_tool", "--dir", str(shared)]).exit_code == 0
    mine, theirs = riverse_home / "tools", shared
    cases = {
        (): [str(mine / "tests"), str(theirs / "tests")],
        ("hello",): [str(mine / "tests" / "test_hello.py")],
        ("team_tool", "-x", "-k", "model"): [str(theirs / "tests" / "test_team_tool.py"), "-x", "-k", "model"],
        (str(mine / "hello.py"),): [str(mine / "tests" / "test_hello.py")],
        (str(mine / "tests" / "test_hello.py"),): [str(mine / "tests" / "test_hello.py")],
        (str(theirs),): [str(theirs)],
        ("-q",): [str(mine / "tests"), str(theirs / "tests"), "-q"],
    }
    for args, expected in cases.items():
        commands.clear()
        result = runner.invoke(cli, ["tools", "test", *args])
        assert result.exit_code == 0, (args, result.output)
        assert commands == [[sys.executable, "-m", "pytest", "--import-mode=importlib", *expected]], args


def test_tools_test_says_where_it_looked(riverse_home, tmp_path, commands):
    runner = CliRunner()
    none = runner.invoke(cli, ["tools", "test"])
    assert none.exit_code == 1
    assert f"no tool tests found in {riverse_home / 'tools' / 'tests'}; 'riverse tools new NAME' writes" in none.stderr
    missing = runner.invoke(cli, ["tools", "test", "calculator"])
    assert missing.exit_code == 1
    assert f"no test for 'calculator': looked for {riverse_home / 'tools' / 'tests' / 'test_calculator.py'}" in missing.stderr
    lone = write(tmp_path / "lone.py", "x = 1\n")
    no_test = runner.invoke(cli, ["-l", "ja", "tools", "test", str(lone)])
    assert no_test.exit_code == 1
    assert f"{lone} のテストがありません（{tmp_path / 'tests' / 'test_lone.py'} を探しました）" in no_test.stderr
    assert "is neither a file, a folder nor a tool's name" in runner.invoke(cli, ["tools", "test", "no/such"]).stderr
    notes = write(tmp_path / "notes.txt", "x\n")
    assert "notes.txt is not a .py file" in runner.invoke(cli, ["tools", "test", str(notes)]).stderr
    assert commands == []


def test_the_tests_import_the_riverse_that_runs_them(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = tool_tests.tests_environment()
    assert env["PYTHONPATH"].split(os.pathsep) == [str(RIVERSE_ROOT), "/elsewhere"]
