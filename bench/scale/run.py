"""Many tools: the same questions asked with about 10, 100 and 1,000 tools present.

The questions are a fixed sample of the blind single-message set (``bench/routing/cases_blind3.yaml``:
built-in tools and messages that need none, in English, Chinese and Japanese), and questions for five
generated tools that have no examples (``bench/scale/tools.py``). The tools present are the built-in
ones, those five, and generated tools from thirty other domains as distractors (a fifth with examples,
the rest with a description and a schema only, as MCP servers send them).

Two methods, in the same run:

- ``riverse``: the router as shipped; above ``RouterOptions.candidates`` tools it decides among the
  candidates that retrieval finds (``agent/router/candidates.py``);
- ``every tool``: the same router with every tool in its prompt (no retrieval), where it still fits.

Reported per size: recall@k of the right tool among the candidates, tool and tool+parameter accuracy,
no-tool accuracy, prompt tokens per decision (median), median decision time, the time of the first
decision after one tool was added against one with no change, and peak memory.

    .venv/bin/python -m bench.scale.run [--sizes 10 100 1000] [--per-language 15] [--write]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from agent.evaluation.scoring import params_match
from agent.providers.base import ProviderError
from agent.providers.llama import LocalProvider
from agent.router import Router, RouterOptions
from agent.router.context import Context
from agent.router.requests import decide_requests
from agent.toolkit.base import ToolManifest
from bench.model import decision_model
from bench.results import write_section
from bench.routing.run import levers, manifests_for, scored_tools
from bench.scale.tools import QUESTIONS, distractors, targets

CASES = Path(__file__).resolve().parent.parent / "routing" / "cases_blind3.yaml"


def sample(per_language: int) -> list[dict[str, Any]]:
    """``per_language`` cases per language: two thirds for a tool (spread over the tools), a third for none."""
    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    out: list[dict[str, Any]] = []
    for language in ("en", "zh", "ja"):
        own = [c for c in cases if c["lang"] == language]
        tools = [c for c in own if c.get("tool")]
        nones = [c for c in own if not c.get("tool")]
        want_none = per_language // 3
        want_tool = per_language - want_none
        out += [tools[i * len(tools) // want_tool] for i in range(want_tool)]
        out += [nones[i * len(nones) // want_none] for i in range(want_none)]
        out += [{"id": f"target-{language}-{tool}", "lang": language, "message": message, "tool": tool, "params": params}
                for tool, lang, message, params in QUESTIONS if lang == language]
    return out


@dataclass
class Tally:
    recall: list[bool] = field(default_factory=list)
    tool: list[bool] = field(default_factory=list)
    full: list[bool] = field(default_factory=list)
    none: list[bool] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    failed: str = ""


def _rate(values: list[bool]) -> str:
    return f"{100 * sum(values) / len(values):.1f}%" if values else "–"


class Bench:
    def __init__(self, provider: LocalProvider, options: RouterOptions):
        self.provider = provider
        self.riverse = Router(options)
        # the naive baseline: every tool in the prompt; no examples are written for 1,000 tools
        self.every = Router(replace(options, candidates=10**6, write_examples=False))

    def tools(self, language: str, size: int) -> list[ToolManifest]:
        """The built-in tools, the target tools, and distractors up to ``size`` (at least those)."""
        base = manifests_for(language) + targets()
        return base + distractors(max(size - len(base), 0))

    def prompt_tokens(self, router: Router, manifests: list[ToolManifest], text: str, language: str) -> int:
        prompt = router.decision_prompt(self.provider, manifests, text, language)
        return len(self.provider.render(prompt.messages(text)))

    def run(self, router: Router, cases: list[dict[str, Any]], size: int, with_recall: bool) -> Tally:
        tally = Tally()
        for case in cases:
            language, text, expected = case["lang"], case["message"], case.get("tool")
            manifests = self.tools(language, size)
            try:
                started = time.perf_counter()
                decisions = decide_requests(router, self.provider, manifests, text, language, Context())
                seconds = time.perf_counter() - started
            except ProviderError as exc:
                tally.failed = str(exc).split(";")[0]
                print(f"  {case['id']}: {tally.failed}", file=sys.stderr, flush=True)
                return tally
            tally.seconds.append(seconds)
            tally.tokens.append(self.prompt_tokens(router, manifests, text, language))
            tools = [d.tool for d in decisions if d.tool is not None]
            got = tools[0] if len(tools) == 1 else (None if not tools else "+".join(tools))
            if expected:
                entry = scored_tools().get(expected)
                manifest = entry.manifest if entry else next(m for m in manifests if m.name == expected)
                tally.tool.append(got == expected)
                tally.full.append(got == expected and params_match(manifest, case.get("params") or {},
                                                                   decisions[0].params, entry.tool if entry else None))
                _, rest = router.split(manifests, self.provider)
                if with_recall and any(m.name == expected for m in rest):  # a tool retrieval must find
                    chosen = [m.name for m in router.candidates(self.provider, manifests, text, language=language)]
                    tally.recall.append(expected in chosen)
            else:
                tally.none.append(got is None)
            mark = "✓" if (got == expected) else "✗"
            shown = got
            if expected and got == expected:  # whether its parameters are right too, and the values written
                params = json.dumps(decisions[0].params, ensure_ascii=False, default=str)
                shown = f"{got} params {'✓' if tally.full[-1] else '✗'} {params}"
            print(f"  {case['id']:<26} {mark} {shown} {seconds:.2f}s", file=sys.stderr, flush=True)
        return tally

    def after_adding_one(self, cases: list[dict[str, Any]], size: int) -> tuple[float, float]:
        """Median time of a decision with no change, and of the first decision after one tool was added
        (a new tool each time), over the tool cases."""
        same, added = [], []
        for i, case in enumerate(c for c in cases if c.get("tool")):
            language, text = case["lang"], case["message"]
            manifests = self.tools(language, size)
            decide_requests(self.riverse, self.provider, manifests, text, language, Context())  # warm
            started = time.perf_counter()
            decide_requests(self.riverse, self.provider, manifests, text, language, Context())
            same.append(time.perf_counter() - started)
            extra = ToolManifest(f"added_tool_{i}", f"Look up the opening hours of shop number {i}",
                                 {"shop": "Shop number"}, required=["shop"])
            started = time.perf_counter()
            self.riverse.prepare(self.provider, [*manifests, extra], language)
            decide_requests(self.riverse, self.provider, [*manifests, extra], text, language, Context())
            added.append(time.perf_counter() - started)
        return statistics.median(same), statistics.median(added)


def report(rows: list[tuple[int, str, Tally, float]], adding: tuple[float, float] | None, options: RouterOptions,
           command: str, cases: int) -> str:
    k, retrieved = options.candidates, options.retrieved
    lines = [
        "## Many tools (`bench/scale`)", "",
        f"Command: `{command}`. {cases} questions: a sample of `bench/routing/cases_blind3.yaml` (built-in tools, and a",
        "third that need no tool) and 15 for five generated tools without examples, asked with the built-in tools, those",
        "five and generated distractors from thirty other domains (a fifth with examples). With more than",
        f"{max(k, options.one_prompt_up_to)} tools, `riverse` decides among a fixed core of {k - retrieved} (tools with examples first; its prompt is prepared once)",
        f"and {retrieved} more that retrieval finds for the message; recall is over the questions whose tool is outside the core.",
        "`every tool` puts every tool in one prompt (few-shot turns cut to fit) and writes no examples for tools without",
        "them (for 1,000 tools that would take hours).",
        "",
        f"| tools | method | recall (core + {retrieved}) | tool | tool+params | no tool | prompt tokens (median) | median decision s | peak memory MB |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, method, tally, memory in rows:
        if tally.failed and not tally.seconds:
            lines.append(f"| {size} | {method} | – | – | – | – | {tally.failed} | – | {memory:.0f} |")
            continue
        tokens = statistics.median(tally.tokens) if tally.tokens else 0
        seconds = statistics.median(tally.seconds) if tally.seconds else 0.0
        lines.append(f"| {size} | {method} | {_rate(tally.recall)} | {_rate(tally.tool)} | {_rate(tally.full)} | "
                     f"{_rate(tally.none)} | {tokens:.0f} | {seconds:.2f} | {memory:.0f} |")
    if adding:
        same, added = adding
        lines += ["", f"Adding one tool to the largest set: the first decision after it took a median {added:.2f} s, against "
                      f"{same:.2f} s with no change ({added / same:.1f}×)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 100, 1000])
    parser.add_argument("--per-language", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=RouterOptions().candidates)
    parser.add_argument("--set", metavar="LEVER=VALUE", action="append", default=[],
                        help="change a router lever for this run, e.g. --set retrieved=8 (see RouterOptions)")
    parser.add_argument("--no-baseline", action="store_true", help="only riverse")
    parser.add_argument("--write", action="store_true", help="replace the section of bench/RESULTS.md")
    args = parser.parse_args()
    provider = decision_model()
    cases = sample(args.per_language)
    bench = Bench(provider, replace(levers(args.set), candidates=args.candidates))
    rows: list[tuple[int, str, Tally, float]] = []
    for size in args.sizes:
        methods = [("riverse", bench.riverse)] + ([] if args.no_baseline else [("every tool", bench.every)])
        for name, router in methods:
            print(f"{size} tools · {name}", file=sys.stderr, flush=True)
            tally = Tally()
            try:
                for language in ("en", "zh", "ja"):  # preparation is not part of a decision's time
                    router.prepare(provider, bench.tools(language, size), language)
            except ProviderError as exc:
                tally.failed = str(exc).split(";")[0]
            if not tally.failed:
                tally = bench.run(router, cases, size, with_recall=name == "riverse")
            rows.append((len(bench.tools("en", size)), name, tally, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
            print(report(rows[-1:], None, bench.riverse.options, "", len(cases)).splitlines()[-1],
                  file=sys.stderr, flush=True)
    adding = bench.after_adding_one(cases[: max(3, len(cases) // 5)], max(args.sizes))
    argv = " ".join(sys.argv[1:])
    text = report(rows, adding, bench.riverse.options, f".venv/bin/python -m bench.scale.run {argv}".strip(), len(cases))
    print(text)
    if args.write:
        write_section("scale", text)


if __name__ == "__main__":
    main()
