"""The decision of a provider that cannot score options (a remote model, a server without log-probabilities):
it writes the call as JSON under the decision's schema, and the call is checked against the tools."""

from __future__ import annotations

from typing import Any

from agent.loop.replies import parse_reply
from agent.providers.base import Provider
from agent.router.context import Context
from agent.router.forms import value_form
from agent.router.prompt import Decision, DecisionPrompt, ExtendedPrompt
from agent.router.values import unsaid_left_out


def decide_by_schema(provider: Provider, prompt: DecisionPrompt | ExtendedPrompt, text: str, context: Context,
                     leave_out_unsaid: bool = True) -> Decision:
    """The call ``provider`` writes for ``text`` (with the conversation's ``context``) under the prompt's schema."""
    messages = prompt.messages(text, context.turns(prompt.none))
    completion = provider.complete(messages, json_schema=prompt.schema(), max_tokens=200)
    if completion.tool_calls:  # a provider may answer with a structured call anyway
        call = completion.tool_calls[0]
        return validated(prompt, call.name, call.arguments, leave_out_unsaid)
    parsed = parse_reply(completion.text)
    if parsed.kind == "calls":
        call = parsed.calls[0]
        return validated(prompt, call.name, call.arguments, leave_out_unsaid)
    if parsed.kind == "malformed":
        return Decision(None, error=parsed.error)
    return Decision(None)  # {"tool": "none"}, or plain text: no tool


def validated(prompt: DecisionPrompt | ExtendedPrompt, name: str, arguments: Any, leave_out_unsaid: bool = True) -> Decision:
    """The decision for a call written as JSON: an unknown tool or parameters that are no object are an error;
    parameters the tool lacks and empty values are dropped, values are put in the form their parameter asks
    for (:mod:`agent.router.forms`) and, with ``leave_out_unsaid``, optional values that state nothing left out."""
    if name == prompt.none:
        return Decision(None)
    manifest = prompt.manifests.get(name)
    if manifest is None:
        known = ", ".join(prompt.manifests)
        return Decision(None, error=f"unknown tool {name!r}; the tools are: {known}")
    if not isinstance(arguments, dict):
        return Decision(None, error=f"the parameters of {name} are not a JSON object: {str(arguments)[:80]!r}")
    params = {k: v for k, v in arguments.items() if k in manifest.parameters and v not in (None, "")}
    for key, value in params.items():
        form = value_form(manifest, key) if isinstance(value, str) else None
        params[key] = (form.normal(value) if form else None) or value
    return Decision(name, unsaid_left_out(manifest, params) if leave_out_unsaid else params)
