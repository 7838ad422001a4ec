"""Checks of a tool's manifest, done once when the tool is discovered (not when it is first called)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

from agent.i18n import detect_language
from agent.toolkit.schema import RISK_LEVELS, describe_type_problem

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


@dataclass(frozen=True)
class ManifestProblem:
    level: str  # "error" or "warning"
    message: str


def manifest_problems(manifest: Any, language: str | None = None) -> list[ManifestProblem]:
    """Everything wrong with a manifest. Errors keep the tool out of the registry; warnings do not."""
    from agent.toolkit.base import ToolManifest

    out: list[ManifestProblem] = []

    def error(msg: str) -> None:
        out.append(ManifestProblem("error", msg))

    def warning(msg: str) -> None:
        out.append(ManifestProblem("warning", msg))

    if not isinstance(manifest, ToolManifest):
        error(f"manifest() must return a ToolManifest, got {type(manifest).__name__}")
        return out

    name = manifest.name
    if not isinstance(name, str) or not name.strip():
        error("manifest name is empty; give the tool a unique name such as 'my_tool'")
    elif not NAME_RE.match(name):
        error(
            f"manifest name {name!r} is not a valid tool name: use letters, digits and '_', "
            "starting with a letter, at most 64 characters"
        )

    if not isinstance(manifest.description, str):
        error(f"description must be a string, got {type(manifest.description).__name__}")
    elif not manifest.description.strip():
        error("description is empty; write one sentence that says when the model should use this tool")

    params = manifest.parameters
    if not isinstance(params, dict):
        error(f"parameters must be a dict of {{name: description}}, got {type(params).__name__}")
        params = {}
    for key, desc in params.items():
        if not isinstance(key, str) or not NAME_RE.match(key):
            error(f"parameter name {key!r} must be a string of letters, digits and '_'")
        if not isinstance(desc, str):
            error(f"parameter {key!r}: description must be a string, got {type(desc).__name__}")
        elif not desc.strip():
            error(f"parameter {key!r} has no description; say what value the model should fill in")

    examples = manifest.examples
    if not isinstance(examples, (list, tuple)) or not all(isinstance(e, str) for e in examples):
        error("examples must be a list of strings")
    else:
        if not examples:
            warning("no examples; add 2-3 messages that should trigger this tool (they guide the model)")
        elif len(examples) < 2:
            warning("only one example; 2-3 examples help the model choose this tool")
        elif len(examples) > 3:
            warning(f"{len(examples)} examples; keep 2-3 here (every model is shown them) and put more in extra_examples")
        if any(not e.strip() for e in examples):
            error("an example is empty")
    extra = getattr(manifest, "extra_examples", None) or []
    if not isinstance(extra, (list, tuple)) or not all(isinstance(e, str) and e.strip() for e in extra):
        error("extra_examples must be a list of non-empty strings")

    types = manifest.parameter_types
    if not isinstance(types, dict):
        error(f"parameter_types must be a dict, got {type(types).__name__}")
    else:
        for key, spec in types.items():
            if key not in params:
                error(f"parameter_types names {key!r}, which is not in parameters")
            problem = describe_type_problem(spec)
            if problem:
                error(f"parameter {key!r}: {problem}")

    required = manifest.required
    if not isinstance(required, (list, tuple)):
        error(f"required must be a list of parameter names, got {type(required).__name__}")
    else:
        for key in required:
            if key not in params:
                error(f"required names {key!r}, which is not in parameters")

    timeout = manifest.timeout
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        error(f"timeout must be a positive number of seconds, got {timeout!r}")

    if manifest.risk is not None and manifest.risk not in RISK_LEVELS:
        warning(f"unknown risk {manifest.risk!r}; use one of {', '.join(RISK_LEVELS)} (treated as 'read')")

    if language and isinstance(examples, (list, tuple)) and isinstance(manifest.description, str):
        texts = [manifest.description, *[e for e in examples if isinstance(e, str)]]
        detected = {detect_language(t, default="") for t in texts if t.strip()}
        detected.discard(None)
        if detected and language not in detected:
            warning(
                f"manifest text looks like {'/'.join(sorted(detected))} but the configured language is "
                f"{language}; the model routes best when examples match the user's language"
            )
    return out


def execute_problem(tool: Any) -> str | None:
    """Why the runner could not call ``tool.execute(params)`` with one dict, or None when it can."""
    try:
        signature = inspect.signature(tool.execute)
    except (TypeError, ValueError):  # a builtin or C callable: nothing to inspect
        return None
    try:
        signature.bind({})
    except TypeError:
        return (
            f"execute{signature} cannot be called as execute(params); "
            "define it as 'def execute(self, params: dict) -> ToolResult'"
        )
    return None
