"""Answer benchmark: after the tools ran (or when none did), is the embedded model's answer faithful?

Every case of ``cases.yaml`` (``make_cases.py`` writes it) is answered, on the embedded model and in
the same run, by

- ``riverse``: the answer step as it is now (``Agent.answer_after`` with the router and grounding on:
  Riverse's own failure wording, the small answer prompt, the grounding check, decoding that stops),
  and for messages no tool answered, a whole ``Agent.ask`` (the router's decision, then the answer);
- ``baseline``: the answer step of the router before grounded answers (``baseline.py``: the old answer
  prompt with the earlier turns and every result, the model's text as it came), and for messages no
  tool answered, the same router decision followed by the old answer.

The tool results are given by the case: no tool runs and nothing goes to the network. Methods
alternate case by case. Per case: figures in the answer that are in neither the results nor the
question (``invented``; also named values), whether every result is mentioned (a successful one by
one of its own figures or names, a failed one by its tool's name or a failure stated), the answer's
language, an echo of the question, a loop, and the seconds to the full answer (a decision included
when no tool ran).

    .venv/bin/python -m bench.answers.run --write            # all cases, into bench/RESULTS.md
    .venv/bin/python -m bench.answers.run --split tune       # what the answer step was tuned on
    .venv/bin/python -m bench.answers.run --split holdout --split blind --no-refusals --write
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

from agent.config import load_settings
from agent.i18n import detect_language
from agent.loop import Agent, Event, answers
from agent.loop.grounding import claims_failure, is_echo, loop_start, mentions, unsupported_figures, unsupported_names
from agent.providers.llama import LocalProvider
from agent.storage import open_store
from agent.toolkit.runtime import ToolOutcome, ToolRunner
from agent.tools import ToolRegistry
from agent.router.texts import NOT_LOOKED_UP
from bench.answers import baseline
from bench.results import write_section

CASES = Path(__file__).resolve().parent / "cases.yaml"
#: written by someone who had seen neither the answer step, its prompts nor the other cases
BLIND_CASES = Path(__file__).resolve().parent / "cases_blind.yaml"


def load_cases() -> list[dict[str, Any]]:
    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    if BLIND_CASES.exists():
        cases += yaml.safe_load(BLIND_CASES.read_text(encoding="utf-8"))
    return cases
USER_TOOLS = ["currency", "stock_quote"]


def riverse_wording() -> list[str]:
    """Riverse's own wording of failures and of live data not looked up, for every tool, with the
    tools' example messages it quotes: no claim about the world, so not counted as invented."""
    registry = ToolRegistry({"language": "en", "tools": {}}, packages=False)
    names = [entry.name for entry in registry.entries(include_unavailable=True)] + USER_TOOLS
    examples = [e for language in ("en", "zh", "ja") for m in registry.manifests(language) for e in m.examples]
    examples += [e for entry in registry.entries(include_unavailable=True) if not entry.available
                 for language in ("en", "zh", "ja") for e in entry.manifest_in(language).examples]
    tables = [*answers.FAILED.values(), *answers.LIVE_DATA.values()]
    filled = [text.format(tool=name, error="", detail="", example="") for table in tables for text in table.values()
              for name in names]
    return filled + examples


RIVERSE_WORDING = riverse_wording()
KINDS = ("success", "failed", "partial", "live")


@dataclass
class Answer:
    case: dict[str, Any]
    method: str
    text: str
    seconds: float
    model_calls: int = 0
    replaced: bool = False
    tool_chosen: bool = False
    scores: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


def outcomes_of(case: dict[str, Any]) -> list[ToolOutcome]:
    return [ToolOutcome(r["tool"], r["params"], r["ok"], r.get("data", ""), r.get("error", ""), status=r["status"])
            for r in case.get("results", [])]


# ------------------------------------------------------------------------------------- scoring
def score(answer: Answer) -> dict[str, Any]:
    case, text = answer.case, answer.text
    results = case.get("results", [])
    sources = [case["question"], *(json.dumps(r["params"], ensure_ascii=False) for r in results),
               *(r.get("data", "") or r.get("error", "") for r in results), *case.get("failed_before", {}).values(),
               *RIVERSE_WORDING]
    invented = [f.text for f in unsupported_figures(text, sources)]
    names = unsupported_names(text, sources)
    mentioned = all(
        mentions(text, r["data"], case["question"]) if r["ok"] else (r["tool"] in text or claims_failure(text))
        for r in results
    )
    return {
        "invented": invented, "invented_names": names, "mentioned": mentioned,
        "faithful": not invented and not names and mentioned,
        "language": detect_language(text, case["lang"]) == case["lang"], "echo": is_echo(text, case["question"]),
        "loop": loop_start(text) is not None,
    }


# ------------------------------------------------------------------------------------- methods
class Counting:
    """Counts a provider's ``complete`` calls (to tell a model's answer from Riverse's own)."""

    def __init__(self, provider: LocalProvider):
        self.provider = provider
        self.calls = 0
        original = provider.complete

        def complete(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        provider.complete = complete  # type: ignore[method-assign]


class NotRun(ToolRunner):
    """Runs nothing: a benchmark case never reaches a tool (a chosen tool marks the case)."""

    def run_many(self, calls: list[tuple[str, Any, str]], parallel: bool = True) -> list[ToolOutcome]:
        return [ToolOutcome(name, params if isinstance(params, dict) else {}, False, error="not run in the benchmark",
                            status="refused", call_id=call_id) for name, params, call_id in calls]


class Bench:
    def __init__(self, provider: LocalProvider, penalty: float):
        self.provider = provider
        self.counter = Counting(provider)
        self.penalty = penalty
        self._registries: dict[tuple[str, ...], ToolRegistry] = {}

    def registry(self, off: list[str]) -> ToolRegistry:
        key = tuple(sorted(off))
        if key not in self._registries:
            tools = {name: {"enabled": False} for name in key}
            self._registries[key] = ToolRegistry({"language": "en", "tools": tools}, packages=False)
        return self._registries[key]

    def agent(self, case: dict[str, Any]) -> Agent:
        registry = self.registry(case.get("off", []))
        agent = Agent(self.provider, registry, runner=NotRun(registry), store=open_store(":memory:"),
                      tool_protocol="router", grounding="on")
        return agent

    def prepare(self, cases: list[dict[str, Any]]) -> None:
        """Evaluate every tool prompt the live cases need before any case is timed."""
        seen = set()
        for case in cases:
            key = (tuple(sorted(case.get("off", []))), case["lang"])
            if case["kind"] == "live" and key not in seen:
                seen.add(key)
                agent = self.agent(case)
                agent.protocol.prepare(agent, [case["lang"]])

    def riverse(self, case: dict[str, Any]) -> Answer:
        self.provider.repeat_penalty = self.penalty
        agent = self.agent(case)
        events: list[Event] = []
        before = self.counter.calls
        started = time.perf_counter()
        if case["kind"] == "live":
            cid = seed(agent, case)
            result = agent.ask(case["question"], conversation_id=cid, on_event=events.append)
            text, chosen = result.answer, bool(result.tool_calls)
        else:
            text = agent.answer_after(case["question"], outcomes_of(case), case.get("history"), on_event=events.append)
            chosen = False
        seconds = time.perf_counter() - started
        replaced = any(e.kind == "notice" and "tool results" in e.text for e in events)
        notices = [e.text for e in events if e.kind == "notice"]
        return Answer(case, "riverse", text, seconds, self.counter.calls - before, replaced, chosen, notices=notices)

    def baseline(self, case: dict[str, Any]) -> Answer:
        self.provider.repeat_penalty = 1.0
        language = case["lang"]
        history = case.get("history") or []
        before = self.counter.calls
        started = time.perf_counter()
        chosen = False
        if case["kind"] == "live":
            agent = self.agent(case)
            manifests = agent.registry.manifests(language)
            decision = agent.protocol.router.decide(self.provider, manifests, case["question"], language)
            chosen = decision.tool is not None
            messages = baseline.answer_messages(case["question"], language, history, [])
        else:
            messages = baseline.answer_messages(case["question"], language, history, outcomes_of(case))
        text = "" if chosen else self.provider.complete(messages, on_text=lambda piece: None).text
        return Answer(case, "baseline", text, time.perf_counter() - started, self.counter.calls - before, False, chosen)


ROUTING_CASES = sorted((Path(__file__).resolve().parents[1] / "routing").glob("cases*.yaml"))


def refusals(bench: Bench) -> str:
    """How many messages of the routing benchmark that need no tool (and that the router, rightly,
    gave no tool) get a live-data refusal instead of the model's answer: a line of the report."""
    counts: dict[str, list[int]] = {}
    for path in ROUTING_CASES:
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            if case["tool"] is not None:
                continue
            agent = bench.agent({"lang": case["lang"]})
            events: list[Event] = []
            before = bench.counter.calls
            bench.provider.repeat_penalty = bench.penalty
            result = agent.ask(case["message"], on_event=events.append)
            if result.tool_calls:
                continue
            refused = bench.counter.calls == before or any(e.kind == "notice" and e.text == NOT_LOOKED_UP["en"] for e in events)
            split = "tune" if case["split"] == "tune" else "other"
            counts.setdefault(split, [0, 0])
            counts[split][0] += refused
            counts[split][1] += 1
            if refused:
                print(f"refused: {case['message']!r}: {result.answer[:100]!r}", file=sys.stderr, flush=True)
    tune, other = counts.get("tune", [0, 0]), counts.get("other", [0, 0])
    return (f"Messages of `bench/routing/cases*.yaml` that need no tool (and got none from the router) answered with a "
            f"live-data refusal instead of the model's answer: {tune[0]} of {tune[1]} in its tune split (the margins were "
            f"chosen on them), {other[0]} of {other[1]} in the others.")


def seed(agent: Agent, case: dict[str, Any]) -> str:
    """A conversation with the case's earlier turns (and its tool's failed last call)."""
    store = agent.store
    cid = store.new_conversation()
    for message in case.get("history") or []:
        store.add_message(cid, message["role"], message["content"])
    for tool, error in case.get("failed_before", {}).items():
        store.add_tool_call(cid, ToolOutcome(tool, {}, False, error=error, status="failed"))
    for tool, data in case.get("succeeded_before", {}).items():
        store.add_tool_call(cid, ToolOutcome(tool, {}, True, data=data))
    return cid


# -------------------------------------------------------------------------------------- report
def rate(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.1%}" if values else "–"


def row(method: str, label: str, answers: list[Answer], baseline_median: float | None) -> str:
    scored = [a for a in answers if not a.tool_chosen]
    times = sorted(a.seconds for a in scored) or [float("nan")]
    median = statistics.median(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    ratio = f"{median / baseline_median:.2f}×" if baseline_median else "–"
    invented = sum(1 for a in scored if a.scores["invented"])
    names = sum(1 for a in scored if a.scores["invented_names"])
    kept = rate([a.model_calls > 0 and not a.replaced for a in scored]) if method == "riverse" else "–"
    return (f"| {method} | {label} | {len(scored)} | {invented} | {names} | {rate([a.scores['faithful'] for a in scored])} "
            f"| {rate([a.scores['language'] for a in scored])} | {sum(a.scores['echo'] for a in scored)} "
            f"| {sum(a.scores['loop'] for a in scored)} | {kept} | {median:.2f} | {p90:.2f} | {ratio} |")


def table(results: dict[str, list[Answer]], splits: list[str]) -> list[str]:
    lines = ["| method | cases | n | invented figures | invented names | faithful and complete | language right | echoes | loops "
             "| model's answer kept | median s | p90 s | median vs baseline |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    groups = [(f"{split}: all", lambda a, s=split: a.case["split"] == s or s == "all") for split in splits]
    groups += [(f"all: {kind}", lambda a, k=kind: a.case["kind"] == k) for kind in KINDS]
    groups += [("all: in a conversation", lambda a: bool(a.case.get("history")))]
    for label, keep in groups:
        medians = {}
        for method in ("baseline", "riverse"):
            chosen = [a for a in results[method] if keep(a) and not a.tool_chosen]
            medians[method] = statistics.median([a.seconds for a in chosen]) if chosen else None
        for method in ("riverse", "baseline"):
            lines.append(row(method, label, [a for a in results[method] if keep(a)], medians["baseline"]))
    return lines


def report(results: dict[str, list[Answer]], splits: list[str], command: str, penalty: float, load: float | None,
           extra: list[str]) -> str:
    cases = results["riverse"]
    chosen = sum(1 for a in cases if a.tool_chosen)
    lines = [
        "## Answers",
        "",
        "Answers of the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, llama.cpp, 2 cores shared, times are noisy)",
        f"on {len(cases)} messages in English, Chinese and Japanese: `bench/answers/cases.yaml`, written by",
        "`bench/answers/make_cases.py`, and `cases_blind.yaml` (`blind`), written by someone who had seen neither",
        "the answer step, its prompts nor the other cases. Each: one or two tools that succeeded, failed or partly failed (results given by the",
        "case, no tool runs), and messages no tool answered although they ask for live data (a tool that is off, whose",
        "last call failed, that lacks a value, or none at all). A third are the second or third turn of a conversation",
        "whose earlier answers hold other figures. `holdout` (a third, by a hash of the id) was never looked at while",
        "the answer step was tuned; `tune` was. `riverse` is the answer step now; `baseline` the answer step of the",
        "router before (the old prompt construction, kept in `bench/answers/baseline.py`), in the same run, case by",
        "case in turn. \"invented\": answers with a figure (or a named value) in neither the results nor the question;",
        "\"faithful and complete\": none invented, and every result mentioned (a failure by its tool or by saying it",
        "failed); \"model's answer kept\": the model answered and its answer passed the check (the rest are Riverse's",
        "own: every tool failed, live data not looked up, or an answer replaced). Time: to the full answer (the",
        f"decision included when no tool ran). Repetition penalty of `riverse`: {penalty}; the baseline's: 1.0.",
        f"Command: `{command}`",
        "",
        *table(results, splits),
        "",
        f"Cases where the router chose a tool although the case has none (left out above): {chosen}.",
    ]
    lines.extend(extra)
    if load is not None:
        lines.append(f"Model load (llama.cpp, in this process): {load:.2f} s.")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["tune", "holdout", "blind"], action="append",
                        help="only these splits (default: all)")
    parser.add_argument("--kind", choices=KINDS, action="append", help="only these kinds of case")
    parser.add_argument("--lang", choices=["en", "zh", "ja"], action="append", help="only these languages")
    parser.add_argument("--penalty", type=float, default=None, help="the riverse method's repetition penalty")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline (while tuning)")
    parser.add_argument("--no-refusals", action="store_true",
                        help="skip counting live-data refusals of bench/routing's messages that need no tool")
    parser.add_argument("--dump", metavar="FILE", help="write every answer with its scores as JSON")
    parser.add_argument("--write", action="store_true", help="replace the Answers section of bench/RESULTS.md")
    args = parser.parse_args()

    cases = [c for c in load_cases()
             if (not args.split or c["split"] in args.split) and (not args.kind or c["kind"] in args.kind)
             and (not args.lang or c["lang"] in args.lang)]
    settings = load_settings()
    provider = LocalProvider(models_dir=settings.models_dir, cache_dir=settings.home / "cache", n_ctx=settings.llm.n_ctx,
                             n_threads=settings.llm.n_threads, temperature=settings.llm.temperature,
                             max_tokens=settings.llm.max_tokens, language="en")
    provider.load()
    penalty = provider.repeat_penalty if args.penalty is None else args.penalty
    bench = Bench(provider, penalty)
    bench.prepare(cases)
    methods = ["riverse"] if args.no_baseline else ["riverse", "baseline"]
    results: dict[str, list[Answer]] = {m: [] for m in ("riverse", "baseline")}
    for n, case in enumerate(cases, 1):
        for method in (methods if n % 2 else list(reversed(methods))):
            answer = getattr(bench, method)(case)
            answer.scores = score(answer)
            results[method].append(answer)
        shown = " | ".join(f"{a[-1].method}: {a[-1].text[:70]!r}" for a in results.values() if a)
        print(f"{case['id']:<16} {shown}", file=sys.stderr, flush=True)
    if args.no_baseline:
        results["baseline"] = [Answer(a.case, "baseline", "", float("nan"), scores=a.scores) for a in results["riverse"]]
    if args.dump:
        Path(args.dump).write_text(json.dumps(
            {m: [{"id": a.case["id"], "split": a.case["split"], "kind": a.case["kind"], "question": a.case["question"],
                  "answer": a.text, "seconds": a.seconds, "model_calls": a.model_calls, "replaced": a.replaced,
                  "tool_chosen": a.tool_chosen, "notices": a.notices, **a.scores} for a in answers] for m, answers in results.items()},
            ensure_ascii=False, indent=1), encoding="utf-8")
    splits = [*(args.split or ["tune", "holdout", "blind"]), "all"]
    extra = [] if args.no_refusals else [refusals(bench)]
    argv = " ".join(sys.argv[1:])
    text = report(results, splits, f".venv/bin/python -m bench.answers.run {argv}".strip(), penalty, provider.load_seconds,
                  extra)
    print(text)
    if args.write:
        write_section("answers", text)


if __name__ == "__main__":
    main()
