"""Nearest-example retrieval on the model's own sentence vectors: the router's second opinion."""

from __future__ import annotations

import re
import weakref
from typing import Any

from agent.providers.base import SentenceVectors
from agent.toolkit.base import ToolManifest


def examples_of(m: ToolManifest) -> list[str]:
    """The manifest's ``examples``, then its optional ``extra_examples``."""
    return [*m.examples, *m.extra_examples]


#: a name the message quotes: 「おやすみ」, “健身”, "Groceries", 'Q3 plan' (an apostrophe is no quote)
_QUOTED = re.compile(r"「[^」\n]{1,60}」|『[^』\n]{1,60}』|“[^”\n]{1,60}”|‘[^’\n]{1,60}’|\"[^\"\n]{1,60}\"|(?<!\w)'[^'\n]{1,60}'(?!\w)")


def unquoted(text: str) -> str:
    """``text`` with what it quotes left out, the quotes kept: a name the message gives (a scene called
    「おやすみ」, a note titled "Thanks") says what it acts on, not whether it asks anything of a tool."""
    return _QUOTED.sub(lambda match: match.group(0)[0] + match.group(0)[-1], text)


#: how a text is put to the model for its sentence vector: the model's state where it is about to
#: sum the text up in one word (the "PromptEOL" template), which separates requests far better than
#: the text alone or averaged token states (``bench/routing``)
VECTOR_TEMPLATE = 'This sentence : "{text}" means in one word:"'


class ExampleVectors:
    """Nearest-example retrieval on the model's own sentence vectors (a :class:`SentenceVectors`
    provider): an option's score is the best cosine similarity between the message and one of its
    texts (a tool's examples, or its description when it has none). The texts' vectors are computed
    once per model and kept by the provider. ``template``: how a text is put to the model (an
    encoder made for sentence vectors takes it as it is, ``"{text}"``)."""

    def __init__(self, documents: dict[str, list[str]], template: str = VECTOR_TEMPLATE):
        self.names = list(documents)
        self.documents = documents
        self.template = template
        self.texts = [template.format(text=text) for name in self.names for text in documents[name]]
        self.owners = [name for name in self.names for _ in documents[name]]
        # per provider: the texts' vectors, one row each (forgotten with the provider)
        self._matrices: weakref.WeakKeyDictionary[SentenceVectors, Any] = weakref.WeakKeyDictionary()

    def is_ready(self, provider: SentenceVectors) -> bool:
        return not self.texts or provider in self._matrices or provider.has_embedded(self.texts)

    def prepare(self, provider: SentenceVectors) -> Any:
        if not self.texts:
            return None
        if provider not in self._matrices:
            self._matrices[provider] = provider.embed(self.texts, keep=True)
        return self._matrices[provider]

    def scores(self, provider: SentenceVectors, text: str) -> dict[str, float]:
        if not self.texts:
            return {}
        matrix = self.prepare(provider)
        similarity = matrix @ provider.embed([self.template.format(text=text)])[0]
        best: dict[str, float] = {}
        for owner, value in zip(self.owners, similarity.tolist()):
            best[owner] = max(best.get(owner, -1.0), value)
        return best
