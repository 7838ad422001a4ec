"""An enum member the message names.

The small model picks an enum's member by its probabilities alone, and among a dozen members it
sometimes takes one the message does not speak of: "utilities" for "a monthly grocery budget",
though "groceries" is a member. When the message names members by their words (stemmed, so "grocery"
names "groceries"; a Chinese or Japanese message through its word-by-word English gloss, its dates left
out so that the 月 of "12月" names no "monthly") and the model's pick is none of them, the likeliest
of the named members is taken instead. A pick the message names, or a message that names none, is
left as the model wrote it.

Where no member is named, a member may still be meant ("eating out" for "dining", 実行中, "in process", for
"in_progress"): with the sentence encoder installed (``riverse[retrieval]``), each member's score adds
``member_weight`` times how close its words come to a run of one to three of the message's words (in English,
or in its gloss), the best run's cosine similarity (:class:`MemberMeaning`). The model's own probabilities
still count: a member it is sure of stays chosen. Only for tools that came without examples of their own (whose
examples show the model their members; and a note about the trash is still no note to delete).
"""

from __future__ import annotations

import re

from agent.i18n import CJK
from agent.providers.base import SentenceVectors
from agent.router.candidates import terms
from agent.router.glossary import gloss
from agent.toolkit.dates import without_dates

#: a year, month or day named by its number ("2026年11月", "十一月"): no "yearly" or "monthly" of its own
_NUMBERED = re.compile(r"[0-9０-９]+\s*[年月日号號]|[一二三四五六七八九十〇两]+\s*[年月日号號]")
#: members whose words say nothing of a choice of their own
_VAGUE = frozenset(terms("other others all any none default auto unknown misc custom normal standard true false yes no"))


def named_members(values: list[str], message: str) -> list[str]:
    """The members of ``values`` whose every word ``message`` says (see the module's note)."""
    heard = _heard(message)
    named = []
    for value in values:
        words = set(terms(re.sub(r"([a-z])([A-Z])", r"\1 \2", value)))
        if words and not words <= _VAGUE and words <= heard:
            named.append(value)
    return named


def named_items(items: list[str], value: str, message: str) -> str:
    """A list of choices among ``items`` (an array parameter's members) as ``message`` names them: ``value`` when it
    holds a member, or when the message names none; else the members it names, joined by commas (the model wrote
    "酒店" for the amenities of "要含早餐的"; the gloss of 早餐 is "breakfast")."""
    members = {item.casefold() for item in items}
    if any(part.strip().casefold() in members for part in re.split(r"[,，、;]", value)):
        return value
    return ", ".join(named_members(items, message)) or value


def chosen_member(values: list[str], scores: dict[str, float], message: str, meaning: MemberMeaning | None = None,
                  weight: float = 0.0, default: object = None) -> str:
    """The model's likeliest member (``scores`` by member), or the likeliest one ``message`` names when
    it names some and not that one; with ``meaning``, where it names none, each score adds ``weight``
    times the member's closeness to the message's words. Not for a boolean (true and false are no words
    of a message), nor away from an optional parameter's ``default`` (which stands for a message that says
    nothing of it: "the cheapest day to fly" is no business class)."""
    best = max(values, key=lambda v: scores[v])
    named = named_members(values, message)
    if named:
        return best if best in named else max(named, key=lambda v: scores[v])
    ranked = sorted(scores[v] for v in values)
    if meaning is None or not weight or set(values) <= {"true", "false"} or default is not None and best == str(default) \
            or len(values) > 1 and ranked[-1] - ranked[-2] > weight * SPREAD:
        return best  # no closeness could change the model's choice: none is computed (a few dozen vectors)
    close = meaning.scores(values)
    return max(values, key=lambda v: scores[v] + weight * close.get(v, 0.0)) if close else best


#: members' closeness to a message's words differs by less than this: a model's lead of more than ``weight`` times
#: it stands without computing it
SPREAD = 0.6


#: runs of this many of the message's words at most are compared with a member
RUN = 3
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


class MemberMeaning:
    """How close each enum member's words come to a message's (see the module's note); the message's runs of
    words are embedded once, on the first enum it meets."""

    def __init__(self, encoder: SentenceVectors, message: str):
        self.encoder = encoder
        self.message = message
        self._runs: list[str] | None = None
        self._vectors = None

    def scores(self, values: list[str]) -> dict[str, float]:
        """Each member's best cosine similarity to a run of the message's words ({} when it has none)."""
        if self._runs is None:
            self._runs = _word_runs(self.message)
            self._vectors = self.encoder.embed(self._runs) if self._runs else None
        words = [" ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", v).replace("_", " ").replace("-", " ").split()) for v in values]
        if self._vectors is None or not all(words):
            return {}
        similarity = self._vectors @ self.encoder.embed(words).T
        return dict(zip(values, similarity.max(axis=0).tolist()))


def _word_runs(message: str) -> list[str]:
    """The runs of one to :data:`RUN` consecutive words of ``message`` in English (a Chinese or Japanese one's
    gloss), its dates and numbered days and months left out, words that say nothing alone (a, the, of …) not
    runs of their own."""
    said = _said(message)
    english = gloss(said) if CJK.search(said) else said
    words = [w for w in _ENGLISH_WORD.findall(english)]
    runs = {" ".join(words[i:i + n]) for n in range(1, RUN + 1) for i in range(len(words) - n + 1)
            if terms(" ".join(words[i:i + n]))}
    return sorted(runs)


def _said(message: str) -> str:
    """``message`` without its dates and numbered days and months."""
    return _NUMBERED.sub(" ", without_dates(message))


def _heard(message: str) -> set[str]:
    """The words of ``message``, with its English gloss when it is Chinese or Japanese."""
    said = _said(message)
    return set(terms(said)) | (set(terms(gloss(said))) if CJK.search(said) else set())
