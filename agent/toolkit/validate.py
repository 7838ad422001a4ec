"""Checks of a tool's manifest, done once when the tool is discovered (not when it is first called)."""

from __future__ import annotations

import inspect
import json
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


class _Found(list):
    """The problems found so far."""

    def error(self, message: str) -> None:
        self.append(ManifestProblem("error", message))

    def warning(self, message: str) -> None:
        self.append(ManifestProblem("warning", message))


def manifest_problems(manifest: Any, language: str | None = None) -> list[ManifestProblem]:
    """Everything wrong with a manifest. Errors keep the tool out of the registry; warnings do not."""
    from agent.toolkit.base import ToolManifest

    found = _Found()
    if not isinstance(manifest, ToolManifest):
        found.error(f"manifest() must return a ToolManifest, got {type(manifest).__name__}")
        return list(found)
    _check_name_and_description(manifest, found)
    params = _check_parameters(manifest, found)
    _check_examples(manifest, found)
    _check_types_and_required(manifest, params, found)
    _check_limits(manifest, found)
    _check_risk_by_value(manifest, params, found)
    _check_language(manifest, language, found)
    return list(found)


def _check_name_and_description(manifest: Any, found: _Found) -> None:
    name = manifest.name
    if not isinstance(name, str) or not name.strip():
        found.error("manifest name is empty; give the tool a unique name such as 'my_tool'")
    elif not NAME_RE.match(name):
        found.error(
            f"manifest name {name!r} is not a valid tool name: use letters, digits and '_', "
            "starting with a letter, at most 64 characters"
        )
    if not isinstance(manifest.description, str):
        found.error(f"description must be a string, got {type(manifest.description).__name__}")
    elif not manifest.description.strip():
        found.error("description is empty; write one sentence that says when the model should use this tool")


def _check_parameters(manifest: Any, found: _Found) -> dict:
    """Checks ``parameters``; returns them (empty when they are not a dict)."""
    params = manifest.parameters
    if not isinstance(params, dict):
        found.error(f"parameters must be a dict of {{name: description}}, got {type(params).__name__}")
        return {}
    for key, desc in params.items():
        if not isinstance(key, str) or not NAME_RE.match(key):
            found.error(f"parameter name {key!r} must be a string of letters, digits and '_'")
        if not isinstance(desc, str):
            found.error(f"parameter {key!r}: description must be a string, got {type(desc).__name__}")
        elif not desc.strip():
            found.error(f"parameter {key!r} has no description; say what value the model should fill in")
    return params


def _check_examples(manifest: Any, found: _Found) -> None:
    examples = manifest.examples
    if not isinstance(examples, (list, tuple)) or not all(isinstance(e, str) for e in examples):
        found.error("examples must be a list of strings")
    else:
        if not examples:
            found.warning("no examples; add 2-3 messages that should trigger this tool (they guide the model)")
        elif len(examples) < 2:
            found.warning("only one example; 2-3 examples help the model choose this tool")
        elif len(examples) > 3:
            found.warning(f"{len(examples)} examples; keep 2-3 here (every model is shown them) and put more in extra_examples")
        if any(not e.strip() for e in examples):
            found.error("an example is empty")
    extra = manifest.extra_examples or []
    if not isinstance(extra, (list, tuple)) or not all(isinstance(e, str) and e.strip() for e in extra):
        found.error("extra_examples must be a list of non-empty strings")


def _check_types_and_required(manifest: Any, params: dict, found: _Found) -> None:
    types = manifest.parameter_types
    if not isinstance(types, dict):
        found.error(f"parameter_types must be a dict, got {type(types).__name__}")
    else:
        for key, spec in types.items():
            if key not in params:
                found.error(f"parameter_types names {key!r}, which is not in parameters")
            problem = describe_type_problem(spec)
            if problem:
                found.error(f"parameter {key!r}: {problem}")
    required = manifest.required
    if not isinstance(required, (list, tuple)):
        found.error(f"required must be a list of parameter names, got {type(required).__name__}")
    else:
        for key in required:
            if key not in params:
                found.error(f"required names {key!r}, which is not in parameters")


def _check_limits(manifest: Any, found: _Found) -> None:
    timeout = manifest.timeout
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        found.error(f"timeout must be a positive number of seconds, got {timeout!r}")
    if manifest.risk is not None and manifest.risk not in RISK_LEVELS:
        found.warning(f"unknown risk {manifest.risk!r}; use one of {', '.join(RISK_LEVELS)} (treated as 'read')")


def _check_risk_by_value(manifest: Any, params: dict, found: _Found) -> None:
    """``risk_by_value``: ``{parameter: {value: risk}}``, parameters of the manifest, values the
    parameter can take (when it is an enum), risks Riverse knows (an unknown one would count as read)."""
    by_value = manifest.risk_by_value
    if by_value is None or by_value == {}:
        return
    if not isinstance(by_value, dict):
        found.error(f"risk_by_value must be a dict of {{parameter: {{value: risk}}}}, got {type(by_value).__name__}")
        return
    for param, risks in by_value.items():
        if param not in params:
            found.error(f"risk_by_value names {param!r}, which is not in parameters")
        if not isinstance(risks, dict) or not risks:
            found.error(f"risk_by_value[{param!r}] must be a non-empty dict of {{value: risk}}, e.g. {{'list': 'read'}}")
            continue
        spec = (manifest.parameter_types or {}).get(param) if isinstance(manifest.parameter_types, dict) else None
        allowed = {v if isinstance(v, str) else json.dumps(v) for v in spec} if isinstance(spec, (list, tuple)) else None
        for value, risk in risks.items():
            if not isinstance(value, str):
                found.error(f"risk_by_value[{param!r}]: the value {value!r} must be written as a string")
            elif allowed is not None and value not in allowed:
                found.error(f"risk_by_value[{param!r}] names the value {value!r}, which {param!r} cannot take "
                            f"(its values: {', '.join(sorted(allowed))})")
            if risk not in RISK_LEVELS:
                found.error(f"risk_by_value[{param!r}][{value!r}] is {risk!r}; use one of {', '.join(RISK_LEVELS)}")
    if manifest.risk is None:
        found.warning("risk_by_value is set but risk is not: calls whose values it does not list count as 'read'; "
                      "declare risk, the risk of those calls")


def _check_language(manifest: Any, language: str | None, found: _Found) -> None:
    examples = manifest.examples
    if language and isinstance(examples, (list, tuple)) and isinstance(manifest.description, str):
        texts = [manifest.description, *[e for e in examples if isinstance(e, str)]]
        detected = {detect_language(t, default="") for t in texts if t.strip()}
        detected.discard("")  # no letters to tell by
        if detected and language not in detected:
            found.warning(
                f"manifest text looks like {'/'.join(sorted(detected))} but the configured language is "
                f"{language}; the model routes best when examples match the user's language"
            )


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
