"""Another tool, when the chosen one's call cannot be made as the message says it.

The model's likeliest tool is sometimes one whose call the message does not fill, while a tool scored
close to it fits: "set the thermostat to 68" chose the mode (no parameter takes 68), "cancel booking
QX7F2K" chose modifying it (whose required ``changes`` the message has nothing for). The router then
writes the close tool's call and keeps it when nothing it requires is missing
(:meth:`~agent.router.decision.Router._decide_scored`).
"""

from __future__ import annotations

import re
from typing import Any

from agent.router.prompt import DecisionPrompt, ExtendedPrompt, value_schema
from agent.router.values import loose_numbers, takes_number

#: at most this many close tools are written when the chosen one's call misses a required value
TRIED = 2


def close_tools(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, margin: float) -> list[str]:
    """The tools other than ``chosen`` within ``margin`` of its score, the best first."""
    return sorted((name for name in prompt.manifests if name != chosen and scores[chosen] - scores.get(name, float("-inf")) <= margin),
                  key=lambda name: -scores[name])


def for_numbers(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, params: dict[str, Any],
                numbers_said: str, margin: float) -> list[str]:
    """When the message (``numbers_said``: as its numbers are counted) states a number that no value
    of the call holds and no numeric parameter of ``chosen`` can take ("lights to twenty percent"
    chose the colour, whose Kelvin start at 2000): the best close tool that has a parameter for it."""
    loose = loose_numbers(numbers_said, params)
    if not loose or takes_number(prompt.manifests[chosen], loose):
        return []
    return [name for name in close_tools(prompt, scores, chosen, margin) if takes_number(prompt.manifests[name], loose)][:1]


def for_missing(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, missing: str,
                numbers_said: str, margin: float) -> list[str]:
    """When the message has nothing for ``chosen``'s required ``missing``: the close tools to write
    instead, the best first. A required number that a message stating no number lacks ("拉萨现在多少
    华氏度" chose the conversion) looks at every close tool; any other missing value at those that the
    model also prefers to no tool at all, so that a message no tool fits is not given one."""
    if value_schema(prompt.manifests[chosen], missing).get("type") in ("number", "integer") and not re.search(r"\d", numbers_said):
        return close_tools(prompt, scores, chosen, margin)[:1]
    none = scores.get(prompt.none, float("-inf"))
    return [name for name in close_tools(prompt, scores, chosen, margin) if scores[name] > none][:TRIED]
