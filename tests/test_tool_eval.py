"""``riverse tools eval``: routing cases from manifests and a YAML file, run against a scripted model
that answers from the message; per-tool accuracy, parameter accuracy, confusions, ``--json``, ``--min``."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.config import load_settings
from agent.evaluation import CasesError, Case, decide, evaluate, load_cases, manifest_cases, params_match
from agent.loop import Agent
from agent.providers import PROVIDERS
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.tools import ToolManifest, ToolRegistry

TOOLS = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class Weather(BaseTool):
    runs = 0
    def manifest(self):
        return ToolManifest(name="forecast", description="Weather of a city", parameters={"city": "the city"},
                            examples=["What's the forecast in Tokyo?", "Will it rain in Oslo tomorrow?"])
    def execute(self, params):
        Weather.runs += 1
        return ToolResult(success=True, data="sunny")

class Clock(BaseTool):
    runs = 0
    def manifest(self):
        return ToolManifest(name="clock", description="Current time", parameters={"zone": "time zone"},
                            parameter_types={"zone": ["UTC", "JST"]},
                            examples=["What time is it in Tokyo?", "What's the date today?"])
    def execute(self, params):
        Clock.runs += 1
        return ToolResult(success=True, data="noon")
'''

CASES = """\
- message: Forecast for Paris please
  tool: forecast
  params: {city: paris}
- message: Is it raining in Rome?
  tool: forecast
  params: {city: Milan}
- message: thanks!
  tool: null
- message: what is the forecast like
  tool: null
- message: What's the price of gold?
  tool: stock_price
"""


def route(messages: list, tools) -> object:
    """A scripted 'model' that reads the user's message; it confuses time-in-Tokyo with the forecast."""
    text = messages[-1]["content"]
    city = re.search(r"(?:in|for) ([A-Z][a-z]+)", text)
    if "time" in text and "Tokyo" in text:
        return ToolCall("forecast", {"city": "Tokyo"})
    if "forecast" in text.lower() or "rain" in text:
        return ToolCall("forecast", {"city": city.group(1) if city else ""})
    if "date" in text:
        return ToolCall("clock", {"zone": "utc"})
    return "You're welcome!"


def tools_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tools"
    folder.mkdir(exist_ok=True)
    (folder / "mine.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    return folder


def make_agent(tmp_path: Path, native: bool = True) -> tuple[Agent, ScriptedProvider]:
    # In-process (isolation: thread): the tests read how often each tool class ran.
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tools_folder(tmp_path)], builtin=False, packages=False,
                            isolation="thread")
    provider = ScriptedProvider(native_tools=native, default=route)
    return Agent(provider, registry), provider


def test_decide_asks_once_and_runs_nothing(tmp_path):
    agent, provider = make_agent(tmp_path)
    assert decide(agent, "Is it raining in London?") == ("forecast", {"city": "London"})
    assert decide(agent, "thanks!") == (None, {})
    assert len(provider.requests) == 2
    assert [t["function"]["name"] for t in provider.requests[0]["tools"]] == ["clock", "forecast"]
    assert type(agent.registry.get("forecast")).runs == 0 and type(agent.registry.get("clock")).runs == 0
    assert agent.store.conversations() == []


def test_decide_through_the_json_protocol(tmp_path):
    agent, provider = make_agent(tmp_path, native=False)
    provider.default = lambda messages, tools: '{"tool_calls": [{"name": "clock", "params": {"zone": "JST"}}]}'
    assert decide(agent, "What time is it?") == ("clock", {"zone": "JST"})
    system = provider.requests[0]["messages"][0]["content"]
    assert "What's the date today?" in system and provider.requests[0]["tools"] is None


def test_report_scores_tools_parameters_and_confusions(tmp_path):
    agent, _ = make_agent(tmp_path)
    cases_file = tmp_path / "cases.yaml"
    cases_file.write_text(CASES, encoding="utf-8")
    cases = manifest_cases(agent.registry.manifests()) + load_cases(cases_file)
    assert [c.source for c in cases[:2]] == ["clock example 1", "clock example 2"]
    seen = []
    report = evaluate(agent, cases, on_result=seen.append)
    assert len(seen) == 8 and [c.tool for c in report.skipped] == ["stock_price"]
    scores = {name: (s.cases, s.correct, s.params_checked, s.params_correct) for name, s in report.per_tool().items()}
    assert scores == {"clock": (2, 1, 0, 0), "forecast": (4, 4, 2, 1), None: (2, 1, 0, 0)}
    assert report.accuracy == 6 / 8
    assert report.total.param_accuracy == 0.5
    assert report.confusions() == [(None, "forecast", 1), ("clock", "forecast", 1)]
    data = report.as_dict()
    assert data["tools"]["(none)"] == {"cases": 2, "correct": 1, "accuracy": 0.5, "params_checked": 0,
                                       "params_correct": 0, "param_accuracy": None}
    wrong = [r for r in data["results"] if not r["correct"]]
    assert [(r["message"], r["expected"], r["chosen"]) for r in wrong] == [
        ("What time is it in Tokyo?", "clock", "forecast"),
        ("what is the forecast like", None, "forecast"),
    ]


def test_params_match_uses_the_manifest_types():
    m = ToolManifest("t", "d", {"n": "a number", "unit": "unit", "tags": "tags"},
                     parameter_types={"n": "int", "tags": "array"})
    assert params_match(m, {"n": 3}, {"n": "3"})
    assert params_match(m, {"unit": " Celsius "}, {"unit": "celsius", "n": 1})
    assert params_match(m, {"unit": ["km", "kilometre"]}, {"unit": "Kilometre"})  # alternatives
    assert params_match(m, {"tags": ["a", "b"]}, {"tags": "a, b"})  # an array is a value, not alternatives
    assert not params_match(m, {"n": 3}, {"n": "three"})
    assert not params_match(m, {"unit": "km"}, {})
    # each value is typed on its own, also when the tool has other required values
    slots = ToolManifest("slots", "d", {"who": "attendees", "minutes": "how long"},
                         parameter_types={"who": {"type": "array", "items": {"type": "string"}}, "minutes": "integer"},
                         required=["who", "minutes"])
    assert params_match(slots, {"who": ["tom@acme.com", "li@acme.com"]}, {"who": "tom@acme.com, li@acme.com"})
    assert not params_match(slots, {"who": ["tom@acme.com", "li@acme.com"]}, {"who": "tom@acme.com"})


@pytest.mark.parametrize(
    "text,message",
    [
        ("- {message: hi}\n", "case 1: 'tool' is missing; name the tool the message should pick, or write 'tool: null'"),
        ("- {message: '', tool: x}\n", "case 1: 'message' must be a non-empty string"),
        ("- {message: hi, tool: null}\n- {message: hi, tool: [a]}\n", "case 2: 'tool' must be a tool name or null"),
        ("- {message: hi, tool: a, params: [1]}\n", "case 1: 'params' must be a mapping"),
        ("message: hi\n", "expected a list of cases"),
        ("- [unclosed\n", ":2: not valid YAML"),
    ],
)
def test_bad_cases_files_say_what_and_where(tmp_path, text, message):
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CasesError, match=re.escape(message)):
        load_cases(path)


def test_cases_file_may_be_a_mapping_with_cases_and_ids(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text("cases:\n  - {message: hi, tool: null, id: greet-1, lang: en}\n  - {message: yo, tool: null}\n",
                    encoding="utf-8")
    assert load_cases(path) == [Case("hi", None, None, "cases.yaml greet-1"), Case("yo", None, None, f"{path} case 2")]


def test_the_bench_routing_cases_load():
    path = Path(__file__).resolve().parents[1] / "bench" / "routing" / "cases.yaml"
    if not path.exists():
        pytest.skip("bench/routing/cases.yaml is not there")
    cases = load_cases(path)
    assert len(cases) > 100 and any(c.tool is None for c in cases) and any(c.params for c in cases)


# ------------------------------------------------------------------------------------------- CLI
@pytest.fixture
def scripted(monkeypatch, riverse_home):
    """``-p scripted``: the routing fake above, registered the way any provider is; built-in tools
    (whatever they are) are answered by an oracle built from their own examples."""
    tools_folder(riverse_home)
    registry = ToolRegistry.from_settings(load_settings())
    mine = {"forecast", "clock"}
    oracle = {ex: m.name for m in registry.manifests() if m.name not in mine for ex in m.examples}

    def answer(messages, tools):
        text = messages[-1]["content"]
        return ToolCall(oracle[text], {}) if text in oracle else route(messages, tools)

    monkeypatch.setitem(PROVIDERS, "scripted", lambda settings: ScriptedProvider(default=answer))
    cases = riverse_home / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    return cases, len(oracle)


def test_cli_prints_the_table_confusions_and_misses(scripted):
    cases, builtin_cases = scripted
    result = CliRunner().invoke(cli, ["-p", "scripted", "tools", "eval", "--cases", str(cases)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert re.search(r"│ clock\s+│\s+2 │\s+1 │\s+50% │\s+– │", out)
    assert re.search(r"│ forecast\s+│\s+4 │\s+4 │\s+100% │\s+1/2 50% │", out)
    assert re.search(r"│ \(no tool\)\s+│\s+2 │\s+1 │\s+50% │", out)
    total = 8 + builtin_cases
    assert f"({total - 2}/{total}) · parameters 50% ·" in out and "native protocol" in out
    assert "Confused (expected → chosen):\n  (no tool) → forecast  ×1\n  clock → forecast  ×1\n" in out
    assert "✗ 'What time is it in Tokyo?'  clock → forecast  [clock example 1]" in out
    # The right tool with wrong values: the message, the expected and the chosen values.
    assert out.endswith(
        "Wrong parameters (expected → chosen):\n"
        f"  ✗ 'Is it raining in Rome?'  forecast  {{\"city\": \"Milan\"}} → {{\"city\": \"Rome\"}}  [{cases} case 2]\n"
    )
    assert "skipped 1 case(s) whose tool is not available: stock_price (1)" in result.stderr


def test_cli_json_and_min(scripted):
    cases, builtin_cases = scripted
    runner = CliRunner()
    args = ["-p", "scripted", "tools", "eval", "--cases", str(cases), "--no-examples", "--json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["provider"], data["protocol"], data["cases"], data["correct"]) == ("scripted", "native", 4, 3)
    assert data["accuracy"] == 0.75 and data["param_accuracy"] == 0.5
    assert data["confusions"] == [{"expected": None, "chosen": "forecast", "count": 1}]
    assert [s["expected"] for s in data["skipped"]] == ["stock_price"]

    assert data["wrong_params"] == [{"message": "Is it raining in Rome?", "source": f"{cases} case 2", "tool": "forecast",
                                     "expected": {"city": "Milan"}, "chosen": {"city": "Rome"}}]

    # --min covers the tool accuracy (75%) and the parameter accuracy (50%).
    assert runner.invoke(cli, args + ["--min", "0.5"]).exit_code == 0
    params_below = runner.invoke(cli, args + ["--min", "0.75"])
    assert params_below.exit_code == 1
    assert params_below.stderr.strip().splitlines()[-1] == "parameter accuracy 50.0% is below --min 75.0%"
    assert "accuracy 75.0% is below" not in params_below.stderr
    both = runner.invoke(cli, args + ["--min", "0.8"])
    assert both.exit_code == 1
    assert both.stderr.strip().splitlines()[-2:] == [
        "accuracy 75.0% is below --min 80.0%", "parameter accuracy 50.0% is below --min 80.0%"]
    assert runner.invoke(cli, args + ["--min", "2"]).exit_code == 2  # not an accuracy
    assert "or the parameter accuracy" in " ".join(runner.invoke(cli, ["tools", "eval", "--help"]).stdout.split())


def test_cli_tool_filter(scripted):
    cases, _ = scripted
    runner = CliRunner()
    base = ["-p", "scripted", "tools", "eval", "--cases", str(cases), "--json"]
    clock = json.loads(runner.invoke(cli, base + ["--tool", "clock"]).stdout)
    assert [(r["expected"], r["chosen"]) for r in clock["results"]] == [("clock", "forecast"), ("clock", "clock")]
    assert list(clock["tools"]) == ["clock"]
    both = json.loads(runner.invoke(cli, base + ["--tool", "clock", "--tool", "forecast"]).stdout)
    assert {r["expected"] for r in both["results"]} == {"clock", "forecast"} and both["cases"] == 6
    unknown = runner.invoke(cli, base + ["--tool", "nope"])
    assert unknown.exit_code == 1
    assert "no case expects nope (--tool); tools with cases: " in unknown.stderr and "clock, " in unknown.stderr


def test_cli_with_nothing_to_evaluate(scripted):
    result = CliRunner().invoke(cli, ["-l", "zh", "-p", "scripted", "tools", "eval", "--no-examples"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "错误: 没有可评估的内容：可用工具都没有示例，也没有提供 --cases 文件"
