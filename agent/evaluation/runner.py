"""Routing evaluation: does the model pick the right tool, with the right parameters, for a message?

A case is a message, the tool it should pick (``None``: no tool) and, optionally, the parameters it
should pass. Cases come from every manifest's ``examples`` (each should pick its own tool) and from
a YAML file in the format of ``bench/routing/cases.yaml``::

    - message: "What's the weather in Tokyo?"
      tool: weather
      params: {city: Tokyo}
    - message: "Thanks, that's all!"
      tool: null

Only the model's first decision is asked for, through the agent's own protocol (the same prompt and
parsing as a chat turn); no tool runs. ``riverse tools eval`` prints the report.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from agent.config import read_yaml
from agent.errors import RiverseError
from agent.toolkit.base import ToolManifest
from agent.evaluation.scoring import params_match

if TYPE_CHECKING:
    from agent.loop.agent import Agent


class CasesError(RiverseError):
    """A cases file cannot be read; the message names the file, the case and what to fix."""


@dataclass
class Case:
    message: str
    tool: str | None
    params: dict[str, Any] | None = None  # None: the parameters are not checked
    source: str = ""  # where the case comes from: "weather example 2", "cases.yaml en-weather-001"


@dataclass
class CaseResult:
    case: Case
    tool: str | None  # what the model chose
    params: dict[str, Any]
    seconds: float
    params_ok: bool | None = None  # None: not checked (no expected params, or the wrong tool)

    @property
    def correct(self) -> bool:
        return self.tool == self.case.tool

    def as_dict(self) -> dict[str, Any]:
        return {
            "message": self.case.message,
            "source": self.case.source,
            "expected": self.case.tool,
            "expected_params": self.case.params,
            "chosen": self.tool,
            "params": self.params,
            "correct": self.correct,
            "params_ok": self.params_ok,
            "seconds": round(self.seconds, 4),
        }


@dataclass
class ToolScore:
    """How the cases that expect one tool (or no tool) went."""

    cases: int = 0
    correct: int = 0
    params_checked: int = 0
    params_correct: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.cases if self.cases else math.nan

    @property
    def param_accuracy(self) -> float:
        return self.params_correct / self.params_checked if self.params_checked else math.nan

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "correct": self.correct,
            "accuracy": _number(self.accuracy),
            "params_checked": self.params_checked,
            "params_correct": self.params_correct,
            "param_accuracy": _number(self.param_accuracy),
        }


@dataclass
class EvalReport:
    results: list[CaseResult] = field(default_factory=list)
    skipped: list[Case] = field(default_factory=list)  # cases whose expected tool is not available

    @property
    def total(self) -> ToolScore:
        score = ToolScore()
        for score_of_tool in self.per_tool().values():
            score.cases += score_of_tool.cases
            score.correct += score_of_tool.correct
            score.params_checked += score_of_tool.params_checked
            score.params_correct += score_of_tool.params_correct
        return score

    @property
    def accuracy(self) -> float:
        return self.total.accuracy

    @property
    def seconds_per_case(self) -> float:
        return sum(r.seconds for r in self.results) / len(self.results) if self.results else math.nan

    def per_tool(self) -> dict[str | None, ToolScore]:
        """Scores by expected tool; ``None`` holds the "should pick no tool" cases."""
        scores: dict[str | None, ToolScore] = {}
        for result in self.results:
            score = scores.setdefault(result.case.tool, ToolScore())
            score.cases += 1
            score.correct += result.correct
            if result.params_ok is not None:
                score.params_checked += 1
                score.params_correct += result.params_ok
        return dict(sorted(scores.items(), key=lambda item: (item[0] is None, item[0] or "")))

    def confusions(self) -> list[tuple[str | None, str | None, int]]:
        """(expected, chosen, count) for every wrong pair, the most frequent first."""
        pairs = Counter((r.case.tool, r.tool) for r in self.results if not r.correct)
        return sorted(((e, c, n) for (e, c), n in pairs.items()), key=lambda x: (-x[2], x[0] or "", x[1] or ""))

    def wrong_params(self) -> list[CaseResult]:
        """The cases whose tool was right but whose parameters were not, in the order run."""
        return [r for r in self.results if r.params_ok is False]

    def as_dict(self) -> dict[str, Any]:
        total = self.total
        return {
            "accuracy": _number(total.accuracy),
            "param_accuracy": _number(total.param_accuracy),
            "cases": total.cases,
            "correct": total.correct,
            "seconds_per_case": _number(self.seconds_per_case),
            "tools": {name if name is not None else "(none)": score.as_dict() for name, score in self.per_tool().items()},
            "confusions": [{"expected": e, "chosen": c, "count": n} for e, c, n in self.confusions()],
            "wrong_params": [
                {"message": r.case.message, "source": r.case.source, "tool": r.tool, "expected": r.case.params, "chosen": r.params}
                for r in self.wrong_params()
            ],
            "skipped": [{"message": c.message, "source": c.source, "expected": c.tool} for c in self.skipped],
            "results": [r.as_dict() for r in self.results],
        }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def decide(agent: "Agent", message: str) -> tuple[str | None, dict[str, Any]]:
    """The tool (or None) and parameters the agent's model chooses first for ``message``.

    The model gets exactly what a chat turn would send it first; nothing is stored and no tool runs.
    When the model calls several tools, the first call is its decision.
    """
    manifests = agent.registry.manifests()
    messages = agent.opening_messages(message, manifests)
    reply = agent.protocol.next(agent, messages, manifests, lambda event: None)
    if not reply.calls:
        return None, {}
    call = reply.calls[0]
    return call.name, call.arguments if isinstance(call.arguments, dict) else {}


def manifest_cases(manifests: Iterable[ToolManifest]) -> list[Case]:
    """One case per example of every manifest: that example should pick that tool."""
    return [
        Case(example, m.name, None, f"{m.name} example {i}")
        for m in manifests
        for i, example in enumerate(m.examples or [], 1)
        if isinstance(example, str) and example.strip()
    ]


def load_cases(path: str | Path) -> list[Case]:
    """Read a YAML list of ``{message, tool (or null), params}``; an ``id`` names the case in the
    report, other keys are ignored."""
    path = Path(path)
    data = read_yaml(path, CasesError, "cases file")
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if not isinstance(data, list):
        raise CasesError(f"{path}: expected a list of cases such as '- {{message: ..., tool: weather, params: {{...}}}}'")
    cases = []
    for index, item in enumerate(data, 1):
        where = f"{path} case {index}"
        if not isinstance(item, dict):
            raise CasesError(f"{where}: each case must be a mapping with 'message' and 'tool', got {item!r}")
        message, tool, params = item.get("message"), item.get("tool"), item.get("params")
        if not isinstance(message, str) or not message.strip():
            raise CasesError(f"{where}: 'message' must be a non-empty string")
        if "tool" not in item:
            raise CasesError(f"{where}: 'tool' is missing; name the tool the message should pick, or write 'tool: null'")
        if tool is not None and not isinstance(tool, str):
            raise CasesError(f"{where}: 'tool' must be a tool name or null, got {tool!r}")
        if params is not None and not isinstance(params, dict):
            raise CasesError(f"{where}: 'params' must be a mapping of parameter: expected value, got {params!r}")
        case_id = item.get("id")
        source = f"{path.name} {case_id}" if isinstance(case_id, str) and case_id else where
        cases.append(Case(message, tool, params if params else None, source))
    return cases


def evaluate(
    agent: "Agent", cases: Iterable[Case], on_result: Callable[[CaseResult], None] | None = None
) -> EvalReport:
    """Ask the model for each case's decision and score it. Cases whose expected tool is not
    available are skipped (they could only fail) and listed in the report."""
    report = EvalReport()
    for case in cases:
        if case.tool is not None and case.tool not in agent.registry:
            report.skipped.append(case)
            continue
        started = time.perf_counter()
        tool, params = decide(agent, case.message)
        result = CaseResult(case, tool, params, time.perf_counter() - started)
        if result.correct and case.tool is not None and case.params:
            entry = agent.registry.entry(case.tool)
            result.params_ok = params_match(entry.manifest, case.params, params, entry.tool)
        report.results.append(result)
        if on_result:
            on_result(result)
    return report
