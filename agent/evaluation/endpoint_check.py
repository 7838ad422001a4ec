"""``riverse model --check``: which tool protocol works with a remote endpoint and its model.

A short probe, a handful of requests with a calculator tool of its own:

- ``native``: asked with ``tools``, does the model call the tool with an expression?
- ``schema``: does the router, sending its JSON schema, pick the tool for an arithmetic question and no
  tool for small talk?
- ``json``: with the tools described in the prompt, does the reply hold a readable call?
- ``results``: given the tool's result, does the answer use it?

The best protocol that passed (native, then router, then json; native and router also need
``results``) is remembered for the endpoint (:mod:`agent.providers.endpoints`), and ``tool_protocol:
auto`` uses it from then on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from agent.i18n import pick
import agent.loop.prompts as prompts
from agent.loop.protocols import JsonProtocol
from agent.loop.replies import parse_reply
from agent.providers.base import Provider, ProviderError, ToolsUnsupportedError
from agent.router import Router
from agent.router.texts import GROUNDED
from agent.toolkit.base import ToolManifest

PROBE_TOOL = ToolManifest(
    name="calculator",
    description="Evaluate an arithmetic expression and return the exact result",
    parameters={"expression": "the arithmetic expression, e.g. 17*23"},
    required=["expression"],
    examples=["what is 12*7?", "compute 2**10", "how much is 345 + 678?"],
)
QUESTION = "What is 17*23?"
SMALL_TALK = "Hello! How are you today?"
RESULT = "17*23 = 391"


@dataclass
class Check:
    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class EndpointReport:
    checks: list[Check] = field(default_factory=list)
    protocol: str | None = None  # the best that passed; None: none did

    def as_dict(self) -> dict[str, Any]:
        return {"protocol": self.protocol,
                "checks": {c.name: {"ok": c.ok, "seconds": round(c.seconds, 2), "detail": c.detail} for c in self.checks}}


def _called(calls: list[Any]) -> tuple[bool, str]:
    for call in calls:
        if call.name == PROBE_TOOL.name and isinstance(call.arguments, dict) and call.arguments.get("expression"):
            return True, f"{call.name}({json.dumps(call.arguments, ensure_ascii=False)})"
    return False, ", ".join(f"{c.name}({c.arguments})" for c in calls) or "no tool call"


def _native(provider: Provider) -> tuple[bool, str]:
    messages = [{"role": "system", "content": pick(prompts.SYSTEM, "en")}, {"role": "user", "content": QUESTION}]
    completion = provider.complete(messages, tools=[PROBE_TOOL.openai_tool()])
    ok, detail = _called(completion.tool_calls)
    return ok, detail if completion.tool_calls else f"no tool call; text: {completion.text[:80]!r}"


def _schema(provider: Provider) -> tuple[bool, str]:
    router = Router()
    decision = router.decide(provider, [PROBE_TOOL], QUESTION, "en")
    if decision.tool != PROBE_TOOL.name or not decision.params.get("expression"):
        return False, f"{QUESTION!r} -> {decision.tool or 'none'} {decision.error}".strip()
    talk = router.decide(provider, [PROBE_TOOL], SMALL_TALK, "en")
    if talk.tool is not None:
        return False, f"{SMALL_TALK!r} -> {talk.tool}"
    return True, f"{decision.tool}({json.dumps(decision.params)}); small talk -> none"


def _json(provider: Provider) -> tuple[bool, str]:
    system = JsonProtocol().system_prompt("en", [PROBE_TOOL])
    completion = provider.complete([{"role": "system", "content": system}, {"role": "user", "content": QUESTION}])
    parsed = parse_reply(completion.text)
    ok, detail = _called(parsed.calls)
    return ok, detail if parsed.calls else f"{parsed.kind}: {completion.text[:80]!r}"


def _results(provider: Provider) -> tuple[bool, str]:
    results = f"- {PROBE_TOOL.name}({json.dumps({'expression': '17*23'})}): {RESULT}"
    messages = [{"role": "system", "content": pick(prompts.SYSTEM, "en")},
                {"role": "user", "content": pick(GROUNDED, "en").format(question=QUESTION, results=results)}]
    text = provider.complete(messages, max_tokens=80).text
    return "391" in text, text.strip()[:80]


CHECKS: dict[str, Callable[[Provider], tuple[bool, str]]] = {
    "native": _native, "schema": _schema, "json": _json, "results": _results,
}


def check_endpoint(provider: Provider, on_check: Callable[[Check], None] = lambda check: None) -> EndpointReport:
    """Run every check; an endpoint that cannot be reached stops the probe (``ProviderError``)."""
    report = EndpointReport()
    for name, probe in CHECKS.items():
        started = time.monotonic()
        try:
            ok, detail = probe(provider)
        except ToolsUnsupportedError as exc:
            ok, detail = False, exc.reason
        except ProviderError as exc:
            if name == "native" and "cannot reach" in str(exc):
                raise
            ok, detail = False, str(exc)
        check = Check(name, ok, time.monotonic() - started, detail)
        report.checks.append(check)
        on_check(check)
    passed = {c.name for c in report.checks if c.ok}
    if {"native", "results"} <= passed:
        report.protocol = "native"
    elif {"schema", "results"} <= passed:
        report.protocol = "router"
    elif "json" in passed:
        report.protocol = "json"
    return report


def checked_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
