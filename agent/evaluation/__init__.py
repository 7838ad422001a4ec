"""Evaluation: does the model pick the right tool, with the right parameters, for a message?

- :mod:`agent.evaluation.runner`: cases (from manifests' examples or a YAML file), asking the agent, the report.
- :mod:`agent.evaluation.scoring`: the one lenient scorer of parameters, shared with ``bench/routing``.
"""

from agent.evaluation.runner import Case, CaseResult, CasesError, EvalReport, ToolScore, decide, evaluate, load_cases, manifest_cases
from agent.evaluation.scoring import params_match, value_matches

__all__ = [
    "Case", "CaseResult", "CasesError", "EvalReport", "ToolScore",
    "decide", "evaluate", "load_cases", "manifest_cases", "params_match", "value_matches",
]
