"""Retrieval before decision: from many tools, the few a message may be for.

The router's prompt lists every tool with few-shot turns, which stops fitting the model's context at
a few dozen tools. With more than ``RouterOptions.candidates`` tools, a decision reads a fixed core
(:meth:`~agent.router.decision.Router.split`, whose prompt is prepared once) and the few others that
this index finds for the message (``RouterOptions.retrieved``), listed in the message's turn; remote
models are sent the likeliest tools (:func:`narrowed`). The index is cheap, over each tool's name,
description, parameters (with the values and members their schemas name) and examples:

- **words**: BM25 over the tools' texts, stemmed words for Latin script and character pairs for Chinese
  and Japanese (so "天气" finds a description that says "天气预报");
- **sentence vectors**: the model's own vectors of the tools' examples (or descriptions), the same that
  the decision weighs (:class:`~agent.router.examples.ExampleVectors`), when the provider has them.

The two rankings are fused by reciprocal rank. A Chinese or Japanese message shares no words with tools
described in English (:func:`needs_english`): it is also compared glossed word by word in English
(:mod:`agent.router.glossary`, when installed), and for a remote model's tools translated by that model
(:func:`in_english`). A tool the message names (``weather_forecast``, or
"weather forecast") and the tools of the previous exchange (for follow-ups) are always candidates.
An index is built per tool set; adding a tool costs its own words and vectors (the provider keeps
vectors per text), not a new prompt for the whole set.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections import Counter
from typing import Iterable

import numpy
import snowballstemmer

from agent.i18n import CJK
from agent.providers.base import Provider, ProviderError, SentenceVectors
from agent.router.examples import ExampleVectors, examples_of
from agent.router.glossary import RETRIEVAL_SENSES, gloss
from agent.router.tool_texts import IDENTIFIED, abbreviates, described, indexed, kinds_of_values, prefixes
from agent.toolkit.base import ToolManifest

#: BM25's usual constants
_K1, _B = 1.2, 0.75
#: reciprocal-rank fusion's constant (a rank's weight is 1 / (K + rank)); chosen on the tune split of
#: ``bench/scale/recall.py``'s messages (10 against 20 and 60: a ranking's first places count for more)
_RRF_K = 10
#: the weight of a sentence encoder's ranking beside the words' and the chat model's vectors' (``bench/scale/recall.py``)
ENCODER_WEIGHT = 1.0

_LATIN = re.compile(r"[a-z0-9]+")
_STEMMER = snowballstemmer.stemmer("english")
_STOP = frozenset("a an the of to in on for and or is are be with from by at as it this that what how me my i you "
                  "your please can could would do does get e g etc".split())


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def terms(text: str) -> list[str]:
    """The words of ``text`` as the index compares them: Latin words (lower case, snake_case split,
    stemmed: "deletion", "deleted" and "delete" are one term) and pairs of Chinese/Japanese characters."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("_", " ")
    out = [_stem(w) for w in _LATIN.findall(text) if w not in _STOP]
    for run in CJK.findall(text):
        out.extend(run[i:i + 2] for i in range(max(len(run) - 1, 1)))
    return out


class Words:
    """BM25 over one text per tool."""

    def __init__(self, texts: list[str]):
        docs = [Counter(terms(t)) for t in texts]
        self.vocabulary = {term: i for i, term in enumerate(sorted({t for d in docs for t in d}))}
        counts = numpy.zeros((len(docs), len(self.vocabulary)), dtype=numpy.float32)
        for row, doc in enumerate(docs):
            for term, n in doc.items():
                counts[row, self.vocabulary[term]] = n
        lengths = counts.sum(axis=1, keepdims=True)
        average = float(lengths.mean()) if len(docs) else 1.0
        frequency = (counts > 0).sum(axis=0)
        self.idf = numpy.log(1.0 + (len(docs) - frequency + 0.5) / (frequency + 0.5)).astype(numpy.float32)
        self.weights = counts * (_K1 + 1) / (counts + _K1 * (1 - _B + _B * lengths / max(average, 1e-6)))

    def scores(self, text: str) -> numpy.ndarray:
        columns = [self.vocabulary[t] for t in set(terms(text)) if t in self.vocabulary]
        if not columns:
            return numpy.zeros(self.weights.shape[0], dtype=numpy.float32)
        return self.weights[:, columns] @ self.idf[columns]


class ToolIndex:
    """The candidate index of one tool set."""

    def __init__(self, manifests: list[ToolManifest]):
        self.names = [m.name for m in manifests]
        authored = [indexed(m, examples=False) for m in manifests]
        self.words = Words([" ".join([text, *examples_of(m)]) for text, m in zip(authored, manifests)])
        # the Chinese/Japanese character pairs of what the tools' authors wrote (not of examples written for them: the
        # model writes a tool described in English examples in the user's language, and they do not make its
        # description one that a Chinese or Japanese message can be compared with, see :func:`needs_english`)
        self.authored = {t for text in authored for t in terms(text) if CJK.match(t)}
        self.vectors = ExampleVectors({m.name: examples_of(m) or [m.description or m.name] for m in manifests})
        # for a sentence encoder: what the tool does, said in words (not its examples: a tool with
        # examples would get more chances than one without, and recall falls, bench/scale/recall.py), with
        # the values its parameters allow
        self.described = ExampleVectors({m.name: [described(m, choices=True)] for m in manifests}, template="{text}")
        self._spelled = {m.name: re.compile(rf"(?<![\w]){re.escape(m.name.casefold()).replace('_', '[_ ]')}(?![\w])")
                         for m in manifests}
        # what the tools' identifiers name ("event" of ``event_id``), for the prefix of a message's identifier
        self.identified = sorted({word.casefold() for m in manifests for key in (m.parameters or {})
                                  for word in IDENTIFIED.findall(key)})

    def coverage(self, text: str) -> float:
        """The share of ``text``'s Chinese/Japanese character pairs that the tools' authored texts have (about
        0 for a Chinese message and tools described in English); 1 when it has none."""
        pairs = {t for t in terms(text) if CJK.match(t)}
        return sum(t in self.authored for t in pairs) / len(pairs) if pairs else 1.0

    def expanded(self, text: str) -> str:
        """``text``, the words its identifiers' prefixes abbreviate, of those the tools' identifier
        parameters name ("evt_4410" says "event" to a tool with an ``event_id``), and what kind of value
        it holds, as tools describe such parameters ("a@b.jp" says "email address", "src/config.py"
        "file path", "12月1日" "date")."""
        said = {word for prefix in prefixes(text) for word in self.identified if abbreviates(prefix, word)}
        return " ".join([text, *sorted(said), *kinds_of_values(text)])

    def ranked(self, text: str, vectors: SentenceVectors | None = None, *also: str,
               encoder: SentenceVectors | None = None, glossed: Iterable[str] = ()) -> list[str]:
        """Every tool, the likeliest first. ``also``: the message translated into the tools' language
        (see :func:`needs_english`); ``glossed``: the message glossed word by word. Their words are
        compared instead of the message's (which share only names and numbers with the tools, and
        both keep those). ``vectors`` (the chat model's) compare the message and its translation, not
        a gloss: a list of dictionary words is no sentence, and its vectors found the right tool less
        often than the message's alone (``bench/scale/recall.py``), while costing the model one more
        text for every such message. ``encoder`` (:mod:`agent.router.encoder`) compares the English
        texts only: the message, or its translation and gloss when it needs them."""
        english = [*also, *glossed]
        fused: dict[str, float] = dict.fromkeys(self.names, 0.0)
        for said in english or (text,):
            word_scores = self.words.scores(self.expanded(said))
            for rank, i in enumerate(numpy.argsort(-word_scores, kind="stable")):
                if word_scores[i] > 0:
                    fused[self.names[i]] += 1.0 / (_RRF_K + rank)
        for said in (text, *also):
            if vectors is not None:
                self._fuse(fused, self.vectors.scores(vectors, said))
        if encoder is not None:
            for said in english or ([] if needs_english(self, text) else [text]):
                self._fuse(fused, self.described.scores(encoder, said), ENCODER_WEIGHT)
        return sorted(self.names, key=lambda n: -fused[n])

    @staticmethod
    def _fuse(fused: dict[str, float], scores: dict[str, float], weight: float = 1.0) -> None:
        for rank, name in enumerate(sorted(scores, key=lambda n: -scores[n])):
            fused[name] += weight / (_RRF_K + rank)

    def named(self, text: str) -> list[str]:
        """The tools ``text`` names (``weather_forecast`` or "weather forecast")."""
        folded = unicodedata.normalize("NFKC", text).casefold()
        return [name for name, pattern in self._spelled.items() if "_" in name and pattern.search(folded)
                or name.casefold() == folded.strip()]

    def candidates(self, text: str, count: int, vectors: SentenceVectors | None = None,
                   always: Iterable[str] = (), also: Iterable[str] = (), encoder: SentenceVectors | None = None,
                   glossed: Iterable[str] = ()) -> list[str]:
        """The ``count`` likeliest tools for ``text`` (and ``also`` and ``glossed``, the same said
        another way, see :meth:`ranked`), with those it names and ``always`` added."""
        chosen = list(dict.fromkeys(n for n in [*self.named(text), *always] if n in self.names))
        for name in self.ranked(text, vectors, *also, encoder=encoder, glossed=glossed):
            if len(chosen) >= count:
                break
            if name not in chosen:
                chosen.append(name)
        return chosen


def meant_names(names: list[str], index: ToolIndex, similar: dict[str, float], floor: float,
                keep: Iterable[str] = (), first: int = 0) -> list[str]:
    """Of the retrieved ``names`` (the likeliest first), the ``first`` likeliest, those whose description a sentence
    encoder finds ``floor`` or more like the message (``similar``, the encoder's similarities; all of ``names``
    without it), and those in ``keep`` (named by the message, or of the previous exchange). A tool described in
    Chinese or Japanese is kept: the encoder reads English. Each listed tool costs the decision the tokens of its
    line, and a small model tends to choose a tool listed in the message's turn; one that is unlike the message is
    left out (a decision would score a tool without examples below ``RouterOptions.meant_floor`` down anyway). Not
    the likeliest: the encoder finds the right tool below the floor for a quarter of the messages of the tool sets
    (a terse "start movie night", a Chinese or Japanese message through its gloss), and retrieval, which also reads
    the words and the chat model's vectors, ranks it first for most of those (``bench/scale/recall.py``)."""
    if not similar:
        return names
    kept = set(keep)
    likeliest = [name for name in names if name not in kept][:first]
    return [name for name in names if name in kept or name in likeliest
            or similar.get(name, floor) >= floor or CJK.search(index.described.documents[name][0])]


#: how a message is put to the model to be said in English, for an index whose tools are described in English
IN_ENGLISH = "Translate the user's message into English. Reply with the translation only."


def needs_english(index: ToolIndex, text: str) -> bool:
    """Whether ``text`` is a Chinese or Japanese message that shares few terms with what the tools' authors
    wrote (their descriptions are English, as most tools' are; examples the model wrote for them in the
    message's language do not count): retrieval then also reads it in English."""
    return index.coverage(text) < 0.2


def in_english(provider: Provider, text: str) -> str:
    """``text`` translated into English by the model (one short reply)."""
    reply = provider.complete([{"role": "system", "content": IN_ENGLISH}, {"role": "user", "content": text}], max_tokens=48)
    return reply.text.strip()


#: the most tools sent to a remote model in one request (native function calling, or JSON in the prompt)
REMOTE_TOOLS = 32

_INDEXES: dict[str, ToolIndex] = {}


def index_for(manifests: list[ToolManifest]) -> ToolIndex:
    """The index of this tool set, built once per set (the last six sets are kept)."""
    key = hashlib.sha256(json.dumps([m.to_dict() for m in manifests], sort_keys=True, ensure_ascii=False,
                                    default=str).encode()).hexdigest()
    if key not in _INDEXES:
        while len(_INDEXES) >= 6:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = ToolIndex(manifests)
    return _INDEXES[key]


def narrowed(manifests: list[ToolManifest], text: str, count: int = REMOTE_TOOLS,
             always: Iterable[str] = (), provider: Provider | None = None,
             encoder: SentenceVectors | None = None) -> list[ToolManifest]:
    """``manifests`` when they are ``count`` or fewer; else the ``count`` likeliest for ``text`` by
    their words and ``encoder``'s vectors (with those it names and ``always``), in their given order:
    what a remote model is sent instead of every tool's schema on every request. A Chinese or Japanese
    message for tools described in English is compared in English: glossed, and with ``provider`` as
    the model translates it (when that request fails, glossed only)."""
    if len(manifests) <= count:
        return manifests
    index = index_for(manifests)
    also: list[str] = []
    glossed: list[str] = []
    if needs_english(index, text):
        glossed += [said] if (said := gloss(text, RETRIEVAL_SENSES)) else []
        try:
            also += [english] if provider is not None and (english := in_english(provider, text)) else []
        except ProviderError:
            pass
    chosen = set(index.candidates(text, count, None, always, also, encoder, glossed))
    return [m for m in manifests if m.name in chosen]
