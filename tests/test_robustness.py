"""Robustness: faulty tools, malformed model output, path escapes, private addresses, a killed process.

- Fault injection over the registry and the loop: every kind of broken tool is contained, the agent
  keeps answering, and the conversation store keeps every message and tool call.
- Property tests (hypothesis) of the JSON-protocol parser and of parameter validation, through the
  runner's preparation of a call; the number of generated cases is printed in the test summary.
- The file tools' roots against ``..``, absolute paths, symbolic links and look-alike characters.
- web_fetch against loopback, private and other non-public addresses, directly and by redirect.
- ``kill -9`` in the middle of a turn leaves the database readable with earlier messages intact.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config import ApprovalSettings
from agent.loop import Agent
from agent.loop.replies import ARG_KEYS, NAME_KEYS, parse_reply
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.toolkit.runtime import ApprovalGate, ToolOutcome, ToolRunner
from agent.storage import open_store
from agent.tools import BaseTool, ToolManifest, ToolRegistry, ToolResult, web_fetch
from agent.toolkit.registry import ToolEntry
from agent.toolkit.schema import RISK_LEVELS, TYPE_ALIASES, ParameterError, coerce_params
from agent.tools.file_list import FileListTool
from agent.tools.file_read import FileReadTool
from agent.tools.grep import GrepTool
from agent.tools.web_fetch import WebFetchTool, address_kind
from tests.helpers.http_server import LocalServer, Reply

PROPERTY_EXAMPLES = 2000

# ================================================================= fault injection
TOOL = '''
import sys
import threading
from agent.tools import BaseTool, ToolManifest, ToolResult

RELEASE = threading.Event()  # the test sets it at teardown, so a hanging call can end


class Hostile:
    def __str__(self):
        raise ValueError("no str for you")

    def __repr__(self):
        raise ValueError("no repr either")


def deep(n):
    return deep(n + 1)


class {cls}(BaseTool):
    def manifest(self):
        return ToolManifest("{name}", "Fault: {name}", {{"text": "anything"}}, ["use {name}", "try {name}"])

    def execute(self, params):
        {body}
'''

# name -> body of execute(), expected status, text expected in the error (or data)
RUN_FAULTS: dict[str, tuple[str, str, str]] = {
    "echo": ("return ToolResult(True, 'echo: ' + params.get('text', ''))", "ok", "echo: x"),
    "raises": ("raise RuntimeError('disk on fire')", "error", "tool 'raises' raised RuntimeError: disk on fire"),
    "exits": ("sys.exit(2)", "error", "tool 'exits' raised SystemExit: 2"),
    "interrupts": ("raise KeyboardInterrupt()", "error", "tool 'interrupts' raised KeyboardInterrupt"),
    "recurses": ("return deep(0)", "error", "tool 'recurses' raised RecursionError"),
    "hangs": ("RELEASE.wait(60)\n        return ToolResult(True, 'late')", "timeout",
              "tool 'hangs' did not finish within 0.2 s and was abandoned"),
    "huge": ("return ToolResult(True, 'x' * 5_000_000)", "ok", "[... 4998000 more characters cut]"),
    "dict_data": ("return ToolResult(True, {'temp': 21, 'unit': 'C'})", "ok", '{"temp": 21, "unit": "C"}'),
    "bytes_data": ("return ToolResult(True, b'\\xff\\x00raw')", "ok", "\ufffd\x00raw"),  # decoded as UTF-8
    "hostile_data": ("return ToolResult(True, Hostile())", "ok", "<Hostile that cannot be shown as text: ValueError>"),
    "deep_data": ("data = []\n        for _ in range(100_000):\n            data = [data]\n        return ToolResult(True, data)",
                  "ok", "<list that cannot be shown as text: RecursionError>"),
    "not_a_result": ("return {'success': True}", "error", "tool 'not_a_result' returned dict, not a ToolResult"),
    "returns_none": ("return None", "error", "tool 'returns_none' returned NoneType, not a ToolResult"),
    "truthy_success": ("return ToolResult('yes', 'data')", "failed", "reported failure without an error message"),
    "error_object": ("return ToolResult(False, '', ValueError('bad input'))", "failed", "bad input"),
}

# file -> source, text expected in its load problem
LOAD_FAULTS: dict[str, tuple[str, str]] = {
    "import_error.py": ("import riverse_missing_dependency_xyz\n",
                        ("cannot import: ModuleNotFoundError: No module named 'riverse_missing_dependency_xyz' "
                         f"(install it into the Python that runs Riverse: {shlex.quote(sys.executable)} -m pip install "
                         "riverse_missing_dependency_xyz; if 'riverse_missing_dependency_xyz' is not the name it is "
                         "published under on PyPI, install that name instead)")),
    "import_exit.py": ("import sys\nsys.exit('bye at import')\n", "cannot import: SystemExit: bye at import"),
    "init_raises.py": (TOOL.format(cls="InitRaises", name="init_raises", body="pass")
                       + "\n    def __init__(self, config):\n        raise ValueError('bad config')\n",
                       "__init__(config) raised ValueError: bad config"),
    "manifest_raises.py": (TOOL.format(cls="ManifestRaises", name="manifest_raises", body="pass").replace(
                           "        return ToolManifest(", "        raise KeyError('name')\n        return ToolManifest("),
                           "manifest() raised KeyError: 'name'"),
    "manifest_recurses.py": (TOOL.format(cls="ManifestRecurses", name="manifest_recurses", body="pass").replace(
                             "        return ToolManifest(", "        return self.manifest()\n        return ToolManifest("),
                             "manifest() raised RecursionError"),
    "available_raises.py": (TOOL.format(cls="AvailableRaises", name="available_raises", body="pass")
                            + "\n    def is_available(self):\n        raise OSError('no device')\n",
                            "is_available() raised OSError: no device"),
}

REASON_EXITS = (TOOL.format(cls="ReasonExits", name="reason_exits", body="pass")
                + "\n    def is_available(self):\n        return False\n"
                + "\n    def unavailable_reason(self):\n        sys.exit(4)\n")


@pytest.fixture
def faulty_registry(tmp_path):
    folder = tmp_path / "faulty-tools"
    folder.mkdir()
    for name, (body, _, _) in RUN_FAULTS.items():
        (folder / f"{name}.py").write_text(TOOL.format(cls=name.title().replace("_", ""), name=name, body=body), encoding="utf-8")
    for filename, (source, _) in LOAD_FAULTS.items():
        (folder / filename).write_text(source, encoding="utf-8")
    (folder / "reason_exits.py").write_text(REASON_EXITS, encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[folder], builtin=False, packages=False)
    yield registry
    for entry in registry.entries(include_unavailable=True):
        release = getattr(sys.modules.get(type(entry.tool).__module__), "RELEASE", None)
        if release is not None:
            release.set()


def test_registry_contains_broken_files_and_loads_the_rest(faulty_registry):
    assert faulty_registry.names() == sorted(RUN_FAULTS)
    problems = {Path(p.path).name: p.message for p in faulty_registry.errors}
    for filename, (_, expected) in LOAD_FAULTS.items():
        assert expected in problems[filename], problems.get(filename)
    [exits] = [e for e in faulty_registry.entries(include_unavailable=True) if e.name == "reason_exits"]
    assert not exits.available and exits.reason == "is_available() returned False"  # sys.exit in unavailable_reason


def test_the_agent_keeps_answering_and_the_store_keeps_everything(faulty_registry, tmp_path):
    db = tmp_path / "riverse.db"
    runner = ToolRunner(faulty_registry, timeout=5, max_output_chars=2000, tool_settings={"hangs": {"timeout": 0.2}})
    names = [*RUN_FAULTS, "manifest_raises"]  # the last one failed to load: the model may still ask for it
    script: list[Any] = []
    for name in names:
        script += [ToolCall(name, {"text": "x"}), f"answer after {name}"]
    script += [[ToolCall("hangs", {}), ToolCall("echo", {"text": "parallel"})], "answer after both", "plain answer"]
    agent = Agent(ScriptedProvider(script), faulty_registry, runner=runner, store=open_store(db))

    cid = None
    for name in names:
        turn = agent.ask(f"please use {name}", conversation_id=cid)
        cid = turn.conversation_id
        assert turn.answer == f"answer after {name}"
        [outcome] = turn.tool_calls
        if name in RUN_FAULTS:
            _, status, expected = RUN_FAULTS[name]
            assert outcome.status == status, (name, outcome)
            assert expected in (outcome.data if status == "ok" else outcome.error), (name, outcome)
            assert len(outcome.data) <= 2000 + 100
        else:
            assert outcome.status == "unknown"  # the model is told which file failed to load it, and why
            problem = next(p for p in faulty_registry.errors if Path(p.path).name == "manifest_raises.py")
            assert "manifest() raised KeyError: 'name'" in str(problem)
            assert outcome.error.startswith(f"tool 'manifest_raises' is not loaded: {problem}; fix the file"), outcome
            assert "; available tools: bytes_data" in outcome.error
    both = agent.ask("two at once", conversation_id=cid)
    assert [(o.name, o.status) for o in both.tool_calls] == [("hangs", "timeout"), ("echo", "ok")]
    assert agent.ask("and now?", conversation_id=cid).answer == "plain answer"

    reopened = open_store(db)  # what a later process sees
    questions = [f"please use {name}" for name in names] + ["two at once", "and now?"]
    answers = [f"answer after {name}" for name in names] + ["answer after both", "plain answer"]
    assert [m.content for m in reopened.messages(cid)] == [text for pair in zip(questions, answers) for text in pair]
    calls = list(reversed(reopened.tool_calls(limit=1000, conversation=cid)))
    assert [(c["name"], c["status"]) for c in calls] == [
        *[(name, RUN_FAULTS[name][1]) for name in RUN_FAULTS], ("manifest_raises", "unknown"),
        ("hangs", "timeout"), ("echo", "ok"),
    ]
    assert [c["params"] for c in calls[:3]] == [{"text": "x"}] * 3


# ================================================================ property tests
class Echo(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest("echo", "Repeat text", {"text": "what to repeat"}, ["echo hi", "repeat this"])

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(True, params.get("text", ""))


class Count(BaseTool):
    def manifest(self) -> ToolManifest:
        return ToolManifest("count", "Count to n", {"n": "how far", "step": "by how much"}, ["count to 3", "count"],
                            parameter_types={"n": "integer", "step": "number"}, required=["n"])

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(True, "")


class Fixed(BaseTool):
    """A tool with a manifest made up by the test."""

    def __init__(self, manifest: ToolManifest):
        self._manifest = manifest

    def manifest(self) -> ToolManifest:
        return self._manifest

    def execute(self, params: dict) -> ToolResult:
        return ToolResult(True, "")


class StaticRegistry:
    """The part of ToolRegistry that ToolRunner uses, over fixed tools."""

    def __init__(self, *tools: BaseTool):
        self._entries = {
            tool.manifest().name: ToolEntry(tool.manifest().name, tool, tool.manifest(), "test", type(tool).__name__, None, "test", 0)
            for tool in tools
        }

    def entry(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def names(self) -> list[str]:
        return sorted(self._entries)


def default_gate() -> ApprovalGate:
    """The default approval policies with nobody to ask (``riverse ask`` without --yes)."""
    return ApprovalGate.from_settings(ApprovalSettings())


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(), st.text(max_size=20),
    st.sampled_from(["", " ", "3", "3.0", "1,234", "true", "no", "[1, 2]", '{"a": 1}', "NaN", "inf", "echo", "count"]),
)
values = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)
known_names = st.sampled_from(["echo", "count", "echo", " count "])
tool_names = st.one_of(known_names, known_names, st.sampled_from(["ECHO", "none", "null", "", "no_such_tool"]), scalars)
good_arguments = st.fixed_dictionaries({"n": st.integers(0, 9) | st.sampled_from(["3", "4.0"])}, optional={"text": st.text(max_size=8)})
arguments = st.one_of(good_arguments, st.dictionaries(st.sampled_from(["text", "n", "step", "x"]), values, max_size=3), values)
call_like = st.one_of(
    st.builds(  # shaped like a call: a name key and an arguments key, plus odd extras
        lambda name_key, name, arg_key, args, extra: {**extra, name_key: name, arg_key: args},
        st.sampled_from(NAME_KEYS), tool_names, st.sampled_from(ARG_KEYS), st.one_of(arguments, arguments.map(json.dumps)),
        st.dictionaries(st.text(max_size=6), values, max_size=2),
    ),
    st.dictionaries(st.one_of(st.sampled_from([*NAME_KEYS, *ARG_KEYS, "id", "answer"]), st.text(max_size=6)),
                    st.one_of(tool_names, values, arguments), max_size=4),
)
replies = st.one_of(
    call_like, call_like, st.lists(call_like, max_size=3), st.fixed_dictionaries({"tool_calls": st.one_of(st.lists(call_like, max_size=3), values)}),
    values,
)


@st.composite
def model_outputs(draw: Any) -> str:
    """What a small model may answer: prose, JSON, Python literals, cut, mangled, fenced or wrapped in prose."""
    form = draw(st.sampled_from(["text", "json", "json", "python", "fenced", "prose"]))
    if form == "text":
        return draw(st.text(max_size=200))
    value = draw(replies)
    text = repr(value) if form == "python" else json.dumps(value, ensure_ascii=draw(st.booleans()))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):  # half of them intact, half mangled
        position = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["cut", "insert", "delete", "single-quotes", "trailing-comma"]))
        if edit == "cut":
            text = text[:position]
        elif edit == "insert":
            piece = draw(st.sampled_from(list("{}[]\",:\\'` \n") + ["True", "null", "```", "\u3000", "，"]))
            text = text[:position] + piece + text[position:]
        elif edit == "delete":
            text = text[:position] + text[position + 1 :]
        elif edit == "single-quotes":
            text = text.replace('"', "'")
        else:
            text = text.replace("}", ",}", 1)
    if form == "fenced":
        text = f"```json\n{text}\n```"
    elif form == "prose":
        text = draw(st.text(max_size=30)) + text + draw(st.text(max_size=30))
    return text


# ast.literal_eval, the parser's last resort, warns about invalid escapes such as "\d" in generated text.
@pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")
def test_parse_reply_and_prepare_never_raise(generated_cases):
    runner = ToolRunner(StaticRegistry(Echo(), Count()), gate=default_gate())
    outcomes: Counter[str] = Counter()

    @settings(max_examples=PROPERTY_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(model_outputs())
    def check(text: str) -> None:
        reply = parse_reply(text)
        assert reply.kind in ("text", "calls", "malformed")
        if reply.kind == "text":
            assert isinstance(reply.text, str)
            outcomes["text"] += 1
            return
        if reply.kind == "malformed":
            assert reply.error.strip()
            outcomes["malformed"] += 1
            return
        assert reply.calls
        outcomes["calls"] += 1
        for i, call in enumerate(reply.calls):
            assert isinstance(call.name, str) and call.name.strip()
            assert isinstance(call.arguments, (dict, str))
            prepared = runner._prepare(call.name, call.arguments, f"call_{i}")
            if isinstance(prepared, ToolOutcome):
                assert prepared.status in ("unknown", "invalid") and prepared.error.strip()
                outcomes[f"call refused as {prepared.status}"] += 1
            else:
                entry, clean, _, _ = prepared
                assert set(clean) <= set(entry.manifest.parameters)
                outcomes["call ready to run"] += 1

    check()
    generated = outcomes["text"] + outcomes["malformed"] + outcomes["calls"]
    generated_cases["parse_reply + ToolRunner._prepare: generated model outputs"] = generated
    print("parse_reply outcomes:", dict(outcomes))
    assert generated >= PROPERTY_EXAMPLES
    assert min(outcomes["text"], outcomes["malformed"], outcomes["call ready to run"]) > 30  # every outcome is reached


type_specs = st.one_of(
    st.none(), st.sampled_from(sorted(TYPE_ALIASES)), st.sampled_from([str, int, float, bool, list, dict]),
    st.lists(st.one_of(st.text(max_size=5), st.integers(-5, 5)), min_size=1, max_size=4),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean", "array", "object"])}),
    st.fixed_dictionaries({"enum": st.lists(st.text(max_size=5), min_size=1, max_size=3)}),
)


@st.composite
def manifests(draw: Any) -> ToolManifest:
    names = draw(st.lists(st.sampled_from(["city", "n", "when", "flag", "items", "options", "unit"]), min_size=0, max_size=5, unique=True))
    types = {name: draw(type_specs) for name in names if draw(st.booleans())}
    required = [name for name in names if draw(st.sampled_from([True, False, False]))]
    risk = draw(st.sampled_from([None, *RISK_LEVELS, "bogus"]))
    return ToolManifest("generated", "A generated tool", {n: f"the {n}" for n in names}, ["a", "b"],
                        parameter_types=types, required=required, risk=risk)


parameter_names = st.one_of(st.sampled_from(["city", "n", "when", "flag", "items", "options", "unit"]), st.text(max_size=5))
plausible = st.one_of(st.text(max_size=5), st.integers(0, 10), st.booleans(), st.sampled_from(["3", "true", "a,b", "[1]", "{}"]))
usual = st.dictionaries(parameter_names, plausible, max_size=6)  # what a model usually sends
parameter_sets = st.one_of(usual, usual, usual, st.dictionaries(parameter_names, values, max_size=6), values)


def conforms(value: Any, spec: Any) -> bool:
    """The test's own statement of what a coerced value of each declared type looks like."""
    if isinstance(spec, type):
        spec = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}[spec]
    if isinstance(spec, str):
        spec = TYPE_ALIASES[spec.lower()]
    if spec is None or spec == "string":
        return isinstance(value, str)
    if isinstance(spec, list):
        return value in spec
    if isinstance(spec, dict):
        return value in spec["enum"] if "enum" in spec else conforms(value, spec["type"])
    return {
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }[spec](value)


def test_parameter_validation_ends_in_clean_parameters_or_a_clear_error(generated_cases):
    counted: Counter[str] = Counter()

    @settings(max_examples=PROPERTY_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(manifests(), parameter_sets)
    def check(manifest: ToolManifest, params: Any) -> None:
        try:
            clean = coerce_params(manifest, params)
        except ParameterError as exc:
            assert exc.param == "*" or exc.param in manifest.parameters
            assert str(exc).startswith(f"parameter '{exc.param}': ") and exc.reason
            clean = None
        if clean is not None:
            assert set(clean) <= set(manifest.parameters)
            for name, value in clean.items():
                assert conforms(value, manifest.parameter_types.get(name)), (name, value, manifest.parameter_types.get(name))
            for name in manifest.required:
                assert name in clean and clean[name] not in ("", None)
        runner = ToolRunner(StaticRegistry(Fixed(manifest)), gate=default_gate())
        prepared = runner._prepare("generated", params, "call_1")
        if isinstance(prepared, ToolOutcome):
            assert prepared.error.strip()
            if isinstance(params, str):
                assert prepared.status == "invalid" and "are not a JSON object" in prepared.error
            elif clean is None:
                assert prepared.status == "invalid" and prepared.error.startswith("generated: parameter '")
            else:
                assert prepared.status == "refused" and manifest.risk in ("write", "execute")
            counted[prepared.status] += 1
        else:
            assert clean is not None and prepared[1] == clean
            counted["ready"] += 1

    check()
    generated_cases["coerce_params + ToolRunner._prepare: generated parameter sets"] = counted.total()
    print("parameter outcomes:", dict(counted))
    assert counted.total() >= PROPERTY_EXAMPLES
    assert min(counted["invalid"], counted["refused"], counted["ready"]) > 30  # every outcome is reached


# ================================================================== path escapes
SECRET = "the secret outside the roots"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("inside\n", encoding="utf-8")
    (root / "sub" / "plan.txt").write_text("inside too\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (root / "link-file.txt").symlink_to(outside / "secret.txt")
    (root / "link-dir").symlink_to(outside)
    (root / "up").symlink_to("..")
    (root / "loop").symlink_to("loop")
    (root / "inner-link.txt").symlink_to(root / "sub" / "plan.txt")
    (Path(os.environ["HOME"]) / "home-secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    return root


ESCAPES = [
    ("../outside/secret.txt", "uses '..' to leave the allowed folders"),
    ("sub/../../outside/secret.txt", "uses '..' to leave the allowed folders"),
    ("../../../../../../../../etc/passwd", "uses '..' to leave the allowed folders"),
    ("{outside}/secret.txt", "is outside the allowed folders"),
    ("/etc/passwd", "is outside the allowed folders"),
    ("~/home-secret.txt", "is outside the allowed folders"),
    ("link-file.txt", "symbolic link"),
    ("link-dir/secret.txt", "symbolic link"),
    ("link-dir", "symbolic link"),
    ("up/outside/secret.txt", "symbolic link"),
    ("loop", "symbolic link"),
    ("．．／outside/secret.txt", "look-alike characters"),
    ("..／outside／secret.txt", "look-alike characters"),
    ("‥/outside/secret.txt", "look-alike characters"),
    ("sub/．．/．．/outside/secret.txt", "look-alike characters"),
    ("notes.txt\u202e", "invisible control or text-direction characters"),
    ("notes.txt\x00../../outside/secret.txt", "invisible control or text-direction characters"),
]


@pytest.mark.parametrize("tool_class,param", [(FileReadTool, "path"), (FileListTool, "path"), (GrepTool, "path")])
@pytest.mark.parametrize("attack,message", ESCAPES)
def test_file_tools_refuse_paths_that_leave_the_roots(tree, tool_class, param, attack, message):
    attack = attack.format(outside=tree.parent / "outside")
    params = {param: attack, "pattern": "secret"}
    result = tool_class({"language": "en", "file_roots": [str(tree)], "tools": {}}).execute(params)
    assert not result.success
    assert message in result.error and str(tree) in result.error
    assert SECRET not in result.data + result.error


@pytest.mark.parametrize("language,expected", [("zh", "已拒绝"), ("ja", "拒否しました")])
def test_refusals_are_translated(tree, language, expected):
    result = FileReadTool({"language": language, "file_roots": [str(tree)], "tools": {}}).execute({"path": "link-file.txt"})
    assert result.error.startswith(expected) and str(tree) in result.error


def test_walking_a_root_never_follows_links_out(tree):
    config = {"language": "en", "file_roots": [str(tree)], "tools": {}}
    found = GrepTool(config).execute({"pattern": "secret|inside"})
    assert SECRET not in found.data
    assert sorted(found.data.splitlines()[1:]) == ["inner-link.txt:1: inside too", "notes.txt:1: inside", "sub/plan.txt:1: inside too"]
    listed = FileListTool(config).execute({}).data
    assert "link-dir@ (link outside the allowed folders)" in listed and "link-file.txt@ (link outside" in listed


def test_paths_that_stay_inside_are_fine(tree):
    config = {"language": "en", "file_roots": [str(tree)], "tools": {}}
    for path in ("notes.txt", "sub/../notes.txt", str(tree / "notes.txt"), "inner-link.txt", "./sub/plan.txt"):
        assert FileReadTool(config).execute({"path": path}).success, path
    odd = FileReadTool(config).execute({"path": "%2e%2e/outside/secret.txt"})  # a file name, not an escape
    assert not odd.success and "does not exist" in odd.error


# ============================================================ web_fetch addresses
@pytest.fixture
def site():
    with LocalServer({"/": Reply(body="<p>local admin page</p>")}) as server:
        yield server


@pytest.mark.parametrize(
    "url,kind",
    [
        ("http://127.0.0.1:{port}/", "loopback"),
        ("http://localhost:{port}/", "loopback"),
        ("http://127.1:{port}/", "loopback"),
        ("http://2130706433:{port}/", "loopback"),
        ("http://[::1]:{port}/", "loopback"),
        ("http://[::ffff:127.0.0.1]:{port}/", "loopback"),
        ("http://0.0.0.0:{port}/", "reserved or non-public"),
        ("http://10.1.2.3/", "private-network"),
        ("http://172.16.5.4/", "private-network"),
        ("http://192.168.1.1/admin", "private-network"),
        ("http://[fc00::1]/", "private-network"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://100.64.0.1/", "reserved or non-public"),
        ("http://224.0.0.1/", "multicast"),
    ],
)
def test_web_fetch_refuses_non_public_addresses(site, url, kind):
    url = url.format(port=site.port)
    result = WebFetchTool({"language": "en", "tools": {}}).execute({"url": url})
    assert not result.success
    assert f"a {kind} address, which web_fetch does not visit" in result.error
    assert "tools.web_fetch.allow_hosts" in result.error
    assert site.requests == []  # refused before any connection


def test_every_address_of_a_host_must_be_public(monkeypatch):
    monkeypatch.setattr(web_fetch, "resolve_addresses", lambda host, port: ["93.184.216.34", "10.0.0.5"])
    result = WebFetchTool({"language": "en", "tools": {}}).execute({"url": "https://mixed.example/"})
    assert not result.success and "mixed.example resolves to 10.0.0.5, a private-network address" in result.error


@pytest.mark.parametrize(
    "target,expected",
    [
        ("http://localhost:{port}/secret", "localhost resolves to"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 resolves to 169.254.169.254, a link-local address"),
        ("http://[::1]:{port}/secret", "::1 resolves to ::1, a loopback address"),
        ("file:///etc/passwd", "is not an http or https address"),
    ],
)
def test_a_redirect_to_a_private_address_is_refused_before_it_is_followed(site, target, expected):
    site.routes["/jump"] = Reply(302, headers={"Location": target.format(port=site.port)})
    site.routes["/secret"] = Reply(body="<p>admin secret</p>")
    first = site.url("/jump")
    tool = WebFetchTool({"language": "en", "tools": {"web_fetch": {"allow_hosts": ["127.0.0.1"]}}})  # only the first hop
    result = tool.execute({"url": first})
    assert not result.success
    assert result.error.startswith(f"(after a redirect from {first}) ") and expected in result.error
    assert site.requests == ["/jump"]  # the second hop was never requested


@pytest.mark.parametrize(
    "address,kind",
    [("8.8.8.8", None), ("2606:4700::1111", None), ("127.0.0.53", "loopback"), ("::1", "loopback"), ("10.0.0.1", "private"),
     ("fe80::1%eth0", "link-local"), ("2002:7f00:1::", "loopback"), ("::ffff:192.168.0.1", "private"), ("0.0.0.0", "reserved"),
     ("255.255.255.255", "reserved"), ("ff02::1", "multicast")],
)
def test_address_kinds(address, kind):
    assert address_kind(address) == kind


# ======================================================== kill -9 during a turn
BLOCKER = '''
from pathlib import Path

from agent.storage.note_store import NoteStore
from agent.storage import open_store
from agent.tools import BaseTool, ToolManifest, ToolResult


class Blocker(BaseTool):
    """Writes notes until the process is killed, so the kill lands in the middle of writes."""

    def manifest(self):
        return ToolManifest("blocker", "Writes notes forever", {}, ["block", "keep writing"], risk="read")

    def execute(self, params):
        home = Path(self.config["home"])
        notes = NoteStore(open_store(home / "riverse.db"))
        i = 0
        while True:
            notes.add(f"note {i:06d} " + "x" * 500)
            i += 1
            if i == 20:
                (home / "tool-started").write_text("yes")
'''


def _riverse(home: Path, *args: str, **kwargs: Any) -> subprocess.Popen:
    env = {**os.environ, "RIVERSE_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-c", "from agent.cli import main; main()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def test_kill_9_in_the_middle_of_a_turn_leaves_the_database_intact(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "blocker.py").write_text(textwrap.dedent(BLOCKER), encoding="utf-8")
    script = riverse_home / "script.yaml"
    (riverse_home / "settings.yaml").write_text(
        f"llm:\n  provider: fake\n  script: {script}\ntools:\n  blocker:\n    timeout: 600\n", encoding="utf-8"
    )
    script.write_text("- The first answer.\n", encoding="utf-8")
    first = _riverse(riverse_home, "ask", "first question")
    assert first.wait(120) == 0, first.stdout.read().decode()
    cid = open_store(riverse_home / "riverse.db").latest_conversation()

    script.write_text("- {tool: blocker, params: {}}\n- never reached\n", encoding="utf-8")
    second = _riverse(riverse_home, "ask", "--conversation", cid, "second question")
    marker = riverse_home / "tool-started"
    deadline = time.monotonic() + 120
    while not marker.exists() and second.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # polling a file another process writes
    assert marker.exists(), second.stdout.read().decode() if second.poll() is not None else "the tool did not start in time"
    os.kill(second.pid, signal.SIGKILL)
    assert second.wait(30) == -signal.SIGKILL

    db = sqlite3.connect(riverse_home / "riverse.db")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    rows = db.execute("SELECT role, content FROM messages WHERE conversation_id = ? ORDER BY id", (cid,)).fetchall()
    assert rows == [("user", "first question"), ("assistant", "The first answer."), ("user", "second question")]
    notes = [text for (text,) in db.execute("SELECT text FROM notes ORDER BY id")]
    assert len(notes) >= 20
    assert notes == [f"note {i:06d} " + "x" * 500 for i in range(len(notes))]  # every committed write is whole
    db.close()
    store = open_store(riverse_home / "riverse.db")  # and Riverse itself opens it again
    assert store.history(cid, 8)[-1] == {"role": "user", "content": "second question"}


def test_a_port_nobody_listens_on_is_unreachable_not_a_crash():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tool = WebFetchTool({"language": "en", "tools": {"web_fetch": {"allow_hosts": ["127.0.0.1"], "request_timeout": 2}}})
    result = tool.execute({"url": f"http://127.0.0.1:{port}/"})
    assert not result.success and "could not be reached: ConnectionError" in result.error
