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

from agent.router.candidates import terms
from agent.router.options import RouterOptions
from agent.router.prompt import DecisionPrompt, ExtendedPrompt, value_schema
from agent.router.values import ID_KEY, loose_numbers, named_tool, takes_number
from agent.toolkit.base import ToolManifest

#: at most this many close tools are written when the chosen one's call misses a required value
TRIED = 2


def others(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, params: dict[str, Any], text: str,
           numbers_said: str, missing: str, options: RouterOptions) -> list[str]:
    """The tools to write instead of ``chosen``, in turn, until one's call misses nothing (with ``number_fit``): for a
    required value ``missing``, for a thing ``text`` names by its number, for a number it states (``numbers_said``: as
    its numbers are counted) that the call has no place for, or the tool the call names as where to look."""
    if not options.number_fit:
        return []
    margin = options.number_margin
    if missing:
        return for_missing(prompt, scores, chosen, missing, numbers_said, margin, options.missing_margin)
    if identified := for_identifiers(prompt, scores, chosen, params, text, margin):
        return identified
    if numbered := for_numbers(prompt, scores, chosen, params, numbers_said, margin):
        return numbered
    named = named_tool(prompt.manifests, chosen, params, text)
    return [named] if named else []


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


#: a thing named by its number: "issue 101", "PR #15", "order no. 5521" (the word, the number)
_NUMBERED_THING = re.compile(r"(?<![\w./-])([A-Za-z][A-Za-z-]{1,20})\s*(?:no\.\s*|number\s+|#\s*)?([0-9]+)(?![\w.:/-])", re.IGNORECASE)
#: words before a number that name no thing ("at 15", "last 30", "top 5")
_NO_THING = frozenset("at on in by for to of from until till and or the is are was be about over under than with "
                      "last next first top every each per page after before since around only up down plus minus "
                      "times x".split())


def for_identifiers(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, params: dict[str, Any],
                    message: str, margin: float) -> list[str]:
    """When ``message`` names a thing by its number ("issue 101", "the details of PR 15") and ``chosen`` has no
    identifier parameter for that thing ("list_issues" of "看一下 acme/webapp 的 issue 101"): of the close tools with
    a required one (``issue_number``; ``pull_number``, "Pull request number", for "PR"), the one of the fewest
    parameters (the thing itself rather than something done to it, which the model would have chosen), the better
    scored of those."""
    things = [(word, number) for word, number in _NUMBERED_THING.findall(message) if word.casefold() not in _NO_THING]
    manifest = prompt.manifests[chosen]
    for word, number in things:
        if _identifies(manifest, word, manifest.parameters) or any(
                ID_KEY.search(key) and str(value) == number for key, value in params.items()):
            continue
        close = close_tools(prompt, scores, chosen, margin)  # the best first
        fitting = [name for name in close if _identifies(prompt.manifests[name], word, prompt.manifests[name].required)]
        if fitting:
            return [min(fitting, key=lambda name: len(prompt.manifests[name].parameters))]
    return []


def _identifies(manifest: ToolManifest, word: str, keys: Any) -> bool:
    """Whether one of ``keys`` of ``manifest`` is an identifier (``*_id``, ``*_number`` …) of the thing ``word``
    names: a word of the key, its description or the tool's description ("Add a comment to an issue or pull
    request"), or those words' initials ("PR" of "Pull request number")."""
    for key in keys:
        if not ID_KEY.search(key):
            continue
        said = f"{key} {manifest.parameters.get(key, '')} {manifest.description}".replace("_", " ")
        if set(terms(word)) <= set(terms(said)):
            return True
        words = re.findall(r"[a-z]+", said.casefold())
        initials = ["".join(w[0] for w in words[i:i + len(word)]) for i in range(len(words))]
        if len(word) >= 2 and word.casefold() in initials:
            return True
    return False


def for_missing(prompt: DecisionPrompt | ExtendedPrompt, scores: dict[str, float], chosen: str, missing: str,
                numbers_said: str, margin: float, preferred_margin: float) -> list[str]:
    """When the message has nothing for ``chosen``'s required ``missing``: the close tools to write
    instead, the best first. A required number that a message stating no number lacks ("拉萨现在多少
    华氏度" chose the conversion) looks at every tool within ``margin``; any other missing value at those
    within ``preferred_margin`` that the model also prefers to no tool at all, so that a message no tool
    fits is not given one, and that do not require ``missing`` too: the message lacks it for them as well
    ("把大门打开" names no door to unlock: no locking one instead)."""
    if value_schema(prompt.manifests[chosen], missing).get("type") in ("number", "integer") and not re.search(r"\d", numbers_said):
        return close_tools(prompt, scores, chosen, margin)[:1]
    none = scores.get(prompt.none, float("-inf"))
    return [name for name in close_tools(prompt, scores, chosen, preferred_margin)
            if scores[name] > none and missing not in prompt.manifests[name].required][:TRIED]
