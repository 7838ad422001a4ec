"""A stand-in router that decides by rules, for the tests of what is done around a decision."""

from __future__ import annotations

from agent.router.context import Context


class RuleRouter:
    """Decides by the message and the context it is given, and records what it was asked."""

    def __init__(self, rules):
        self.rules = rules
        self.asked: list[tuple[str, Context]] = []

    def decide(self, provider, manifests, text, language, context=None):
        context = context or Context()
        self.asked.append((text, context))
        return self.rules(text, context)
