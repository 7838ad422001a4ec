"""Routing in conversations: follow-ups, several requests in one message, and tools that come without
examples (as from MCP servers or OpenAPI), decided by the embedded model.

Case files (in ``bench/routing/sets/``; ``blind_*`` files written by someone who had seen neither the
router, its prompts nor the other cases):

- ``conversations.yaml``: a message after 1-3 earlier exchanges (their calls and results), and the
  calls it should lead to (follow-ups, references to an earlier result, a switch of subject, small talk);
- ``multi.yaml``: messages with two or three requests, and every call they should lead to (``chain``
  cases: the calls that need an earlier result are counted apart, see below);
- ``toolsets/NAME.json`` (tools as an MCP server's ``tools/list`` gives them) with ``toolsets/NAME.yaml``
  (messages, a third of them fitting no tool of the set).

Methods, in the same run, case by case in turn:

- ``riverse``: the router as the agent loop uses it (the previous exchange as context, every request
  of the message, see :mod:`agent.router.requests`);
- ``message alone``: the router deciding the message alone, once (how it decided before).

A case is right when the calls made are exactly the expected ones (tool, and the expected parameters
by ``params_match``), none missing and none extra. For chains, ``riverse`` is given the first calls'
results and the second step is decided as the loop would (bounded by ``llm.max_steps``).

With ``--pool N`` a tool-set case is decided among N tools: its own set's, every other set's and generated
distractors from thirty other domains (``bench/scale/tools.py``, a fifth of them with examples), as a user with
several MCP servers and a tools folder has them; the router then decides among a core and the tools retrieval
finds for the message (``RouterOptions.candidates``).

    .venv/bin/python -m bench.routing.conversations --write
    .venv/bin/python -m bench.routing.conversations --set multi --split tune
    .venv/bin/python -m bench.routing.conversations --set toolsets --pool 1000 --only riverse
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent.evaluation.scoring import params_match
from agent.providers.llama import LocalProvider
from agent.router import Router
from agent.router.context import Call, Context, Exchange
from agent.router.requests import decide_next_step, decide_requests
from agent.toolkit.base import ToolManifest
from bench.model import decision_model
from bench.results import write_section
from bench.routing.run import levers, manifests_for, scored_tools
from bench.scale.tools import distractors

SETS = Path(__file__).resolve().parent / "sets"
KINDS = ("conversations", "multi", "toolsets")


@dataclass
class Outcome:
    case: dict[str, Any]
    method: str
    calls: list[tuple[str, dict[str, Any]]]
    seconds: float
    right: bool = False
    tool_right: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    unasked: bool | None = None  # a call of an expected tool states a value the case does not ask for (None: no such call)


# ------------------------------------------------------------------------------------------ cases
def load(kind: str) -> list[dict[str, Any]]:
    if kind == "toolsets":
        cases = []
        for path in sorted((SETS / "toolsets").glob("*.yaml")):
            for case in yaml.safe_load(path.read_text(encoding="utf-8")):
                cases.append({**case, "set": "toolsets", "toolset": path.stem})
        return cases
    cases = []
    for path in sorted(SETS.glob(f"*{kind}.yaml")):
        cases.extend({**case, "set": kind} for case in yaml.safe_load(path.read_text(encoding="utf-8")))
    return cases


def toolset_manifests(name: str) -> tuple[list[ToolManifest], dict[str, ToolManifest]]:
    """The tools of ``toolsets/NAME.json`` as manifests: description and JSON schema, no examples."""
    data = json.loads((SETS / "toolsets" / f"{name}.json").read_text(encoding="utf-8"))
    manifests = []
    for tool in data["tools"]:
        schema = tool.get("inputSchema") or {}
        properties = schema.get("properties") or {}
        manifests.append(ToolManifest(
            name=tool["name"], description=tool.get("description", ""),
            parameters={key: str(prop.get("description", "")) for key, prop in properties.items()},
            parameter_types={key: prop for key, prop in properties.items()},
            required=[key for key in schema.get("required") or [] if key in properties],
        ))
    return manifests, {m.name: m for m in manifests}


def context_of(case: dict[str, Any]) -> Context:
    """The case's last earlier exchange (its user message and the calls of the assistant's turn)."""
    history = case.get("history") or []
    exchanges: list[Exchange] = []
    for message in history:
        if message["role"] == "user":
            exchanges.append(Exchange(message["content"]))
        elif exchanges:
            exchanges[-1].calls.extend(Call(c["tool"], c.get("params") or {}, str(c.get("result", "")), True)
                                       for c in message.get("calls") or [])
    return Context(exchanges[-1:])


def expected_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    if case["set"] == "toolsets":
        return [] if case.get("tool") is None else [{"tool": case["tool"], "params": case.get("params") or {}}]
    return list(case.get("calls") or [])


# ---------------------------------------------------------------------------------------- scoring
def matches(expected: list[dict[str, Any]], got: list[tuple[str, dict[str, Any]]], manifests: dict[str, Any]) -> tuple[bool, bool]:
    """(every call right and none extra, the same tools chosen)."""
    tools_right = sorted(e["tool"] for e in expected) == sorted(name for name, _ in got)
    left = list(got)
    for want in expected:
        found = next((i for i, (name, params) in enumerate(left) if name == want["tool"]
                      and _params_ok(manifests.get(name), want.get("params") or {}, params)), None)
        if found is None:
            return False, tools_right
        left.pop(found)
    return not left, tools_right


def unasked(expected: list[dict[str, Any]], got: list[tuple[str, dict[str, Any]]]) -> bool | None:
    """Whether a call of an expected tool carries a parameter that no expected call of it names (an
    optional value the message did not state); None when no call is of an expected tool."""
    asked: dict[str, set[str]] = {}
    for want in expected:
        asked.setdefault(want["tool"], set()).update(want.get("params") or {})
    mine = [(name, params) for name, params in got if name in asked]
    return any(set(params) - asked[name] for name, params in mine) if mine else None


def _params_ok(entry: Any, expected: dict[str, Any], params: dict[str, Any]) -> bool:
    if entry is None:
        return False
    if isinstance(entry, ToolManifest):
        return params_match(entry, expected, params)
    return params_match(entry.manifest, expected, params, entry.tool)


# ---------------------------------------------------------------------------------------- running
def pooled(name: str, size: int) -> list[ToolManifest]:
    """The tools of set ``name``, then those of every other set, then generated distractors, ``size`` in all."""
    names = [name, *sorted(p.stem for p in (SETS / "toolsets").glob("*.json") if p.stem != name)]
    tools = [m for each in names for m in toolset_manifests(each)[0]]
    return tools + distractors(max(size - len(tools), 0))


class Bench:
    def __init__(self, provider: LocalProvider, router: Router, pool: int = 0):
        self.provider = provider
        self.router = router
        self.pool = pool
        self._manifests: dict[str, list[ToolManifest]] = {}
        self._prepared: set[tuple[str, str]] = set()

    def manifests(self, case: dict[str, Any]) -> tuple[list[ToolManifest], dict[str, Any]]:
        if case["set"] == "toolsets":
            own, scorers = toolset_manifests(case["toolset"])
            if not self.pool:
                return own, scorers
            if (key := f"pool:{case['toolset']}") not in self._manifests:  # read and generated once per set
                self._manifests[key] = pooled(case["toolset"], self.pool)
            return self._manifests[key], scorers
        language = case["lang"]
        if language not in self._manifests:
            self._manifests[language] = manifests_for(language)
        return self._manifests[language], scored_tools()

    def decide(self, case: dict[str, Any], method: str) -> Outcome:
        manifests, scorers = self.manifests(case)
        language = case["lang"]
        if (case.get("toolset", ""), language) not in self._prepared:  # as chat and the server do, not timed
            self.router.prepare(self.provider, manifests, language)
            self._prepared.add((case.get("toolset", ""), language))
        started = time.perf_counter()
        if method == "riverse":
            context = context_of(case) if case["set"] == "conversations" else Context()
            decisions = decide_requests(self.router, self.provider, manifests, case["message"], language, context)
        else:
            decisions = [self.router.decide(self.provider, manifests, case["message"], language)]
        calls = [(d.tool, d.params) for d in decisions if d.tool is not None]
        if method == "riverse" and case.get("results") and decisions[0].follows:
            step = self.second_step(case, manifests, scorers, calls)
            if step is not None:
                calls.append(step)
        seconds = time.perf_counter() - started
        expected = expected_calls(case)
        right, tool_right = matches(expected, calls, scorers)
        return Outcome(case, method, calls, seconds, right, tool_right, unasked=unasked(expected, calls))


    def second_step(self, case: dict[str, Any], manifests: list[ToolManifest], scorers: dict[str, Any],
                    calls: list[tuple[str, dict[str, Any]]]) -> tuple[str, dict[str, Any]] | None:
        """The chain's next call, given the case's results for the first calls that were made right."""
        expected = expected_calls(case)
        made = []
        for index, result in (case.get("results") or {}).items():
            want = expected[int(index)]
            if any(name == want["tool"] and _params_ok(scorers.get(name), want.get("params") or {}, params)
                   for name, params in calls):
                made.append(Call(want["tool"], want.get("params") or {}, str(result), True))
        if not made:
            return None
        context = Context([Exchange(case["message"], made)])
        decision = decide_next_step(self.router, self.provider, manifests, case["message"], case["lang"], context)
        return (decision.tool, decision.params) if decision is not None and decision.tool else None


def run(bench: Bench, cases: list[dict[str, Any]], methods: list[str]) -> dict[str, list[Outcome]]:
    results: dict[str, list[Outcome]] = {m: [] for m in methods}
    for n, case in enumerate(cases, 1):
        for method in methods if n % 2 else list(reversed(methods)):
            results[method].append(bench.decide(case, method))
        shown = "  ".join(f"{m}={'✓' if r[-1].right else '✗'}{r[-1].calls}" for m, r in results.items())
        print(f"{case['id']:<28} {shown}"[:300], file=sys.stderr, flush=True)
    return results


# ----------------------------------------------------------------------------------------- report
def _rate(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.1%}" if values else "–"


def groups(cases_of: list[Outcome]) -> list[tuple[str, list[Outcome]]]:
    out: list[tuple[str, list[Outcome]]] = []
    for kind in KINDS:
        of_kind = [o for o in cases_of if o.case["set"] == kind]
        if not of_kind:
            continue
        for split in ("tune", "holdout", "blind"):
            part = [o for o in of_kind if o.case["split"] == split]
            if part:
                out.append((f"{kind} · {split}", part))
        sub = "kind" if kind != "toolsets" else "toolset"
        for value in sorted({str(o.case.get(sub)) for o in of_kind}):
            out.append((f"{kind} · {value}", [o for o in of_kind if str(o.case.get(sub)) == value]))
        for language in ("en", "zh", "ja"):
            if part := [o for o in of_kind if o.case["lang"] == language]:  # none with --lang of another
                out.append((f"{kind} · {language}", part))
    return out


def table(results: dict[str, list[Outcome]]) -> list[str]:
    lines = ["| cases | n | method | all calls right | tools right | no tool right | values not asked for | median s |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    methods = list(results)
    for label, outcomes in groups(results[methods[0]]):
        ids = {o.case["id"] for o in outcomes}
        for method in methods:
            chosen = [o for o in results[method] if o.case["id"] in ids]
            nones = [o for o in chosen if not expected_calls(o.case)]
            median = statistics.median(o.seconds for o in chosen)
            unasked_ = [o.unasked for o in chosen if o.unasked is not None]
            lines.append(f"| {label} | {len(chosen)} | {method} | {_rate([o.right for o in chosen])} "
                         f"| {_rate([o.tool_right for o in chosen])} | {_rate([o.right for o in nones])} "
                         f"| {_rate(unasked_)} | {median:.2f} |")
    return lines


def report(results: dict[str, list[Outcome]], command: str, load: float) -> str:
    return "\n".join([
        "## Routing in conversations",
        "",
        "Decisions of the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, llama.cpp, 2 cores shared, times noisy)",
        "on `bench/routing/sets/`: follow-ups after earlier exchanges (`conversations`), messages with two or three",
        "requests (`multi`), and tool sets without examples written as MCP or OpenAPI tool lists (`toolsets`, a third",
        "of their messages fitting no tool). `riverse`: the router with the previous exchange as context and every",
        "request of a message; `message alone`: the router deciding the message alone, once, as before. Right: the",
        "calls made are exactly the expected ones (tools and their key parameters), none extra. Values not asked",
        "for: of the cases with a call of an expected tool, the share where such a call states a parameter the case",
        "does not name (an optional value the message did not state; lower is better). `blind` sets were",
        "written by someone who had seen neither the router nor the other cases.",
        f"Command: `{command}`",
        "",
        *table(results),
        "",
        f"Model load: {load:.2f} s.",
    ]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=KINDS, action="append", help="only these case sets")
    parser.add_argument("--split", choices=["tune", "holdout", "blind", "all"], default="all")
    parser.add_argument("--lang", choices=["en", "zh", "ja"], action="append")
    parser.add_argument("--kind", action="append", help="only cases of these kinds (follow_up, chain, ...)")
    parser.add_argument("--toolset", action="append", help="only cases of these tool sets (finance, devops, ...)")
    parser.add_argument("--lever", metavar="NAME=VALUE", action="append", default=[],
                        help="change a router lever for this run (see RouterOptions)")
    parser.add_argument("--case", metavar="ID", action="append", help="only these cases (ids), e.g. to decide a few again")
    parser.add_argument("--only", choices=["riverse", "message alone"], help="one method (while tuning)")
    parser.add_argument("--pool", metavar="N", type=int, default=0,
                        help="decide each tool-set case among N tools: its set's, the other sets' and generated ones")
    parser.add_argument("--dump", metavar="FILE")
    parser.add_argument("--write", action="store_true", help="replace the section of bench/RESULTS.md")
    args = parser.parse_args()
    if args.pool and args.write:
        parser.error("--pool measures the tool sets among many tools: its table is not the section --write replaces")
    cases = [c for kind in (args.set or KINDS) for c in load(kind)
             if (args.split == "all" or c["split"] == args.split) and (not args.lang or c["lang"] in args.lang)
             and (not args.kind or c.get("kind") in args.kind) and (not args.toolset or c.get("toolset") in args.toolset)
             and (not args.case or c["id"] in args.case)]
    provider = decision_model()
    methods = [args.only] if args.only else ["riverse", "message alone"]
    results = run(Bench(provider, Router(levers(args.lever)), args.pool), cases, methods)
    if args.dump:
        Path(args.dump).write_text(json.dumps({m: [{"id": o.case["id"], "calls": o.calls, "right": o.right,
                                                    "expected": expected_calls(o.case), "seconds": o.seconds}
                                                   for o in outs] for m, outs in results.items()},
                                              ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    argv = " ".join(sys.argv[1:])
    text = report(results, f".venv/bin/python -m bench.routing.conversations {argv}".strip(), provider.load_seconds)
    print(text)
    if args.write:
        write_section("routing-conversations", text)


if __name__ == "__main__":
    main()
