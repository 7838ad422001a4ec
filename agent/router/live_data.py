"""Whether a message no tool answered asks for something only a tool could know now (the weather,
the time, a file, a page), so that the answer says why it was not looked up instead of inventing it.

The evidence comes from the tools themselves, whatever they are: their example messages. A message
asks for live data when

- the router chose a tool but the message lacks a value the tool needs (``Decision.declined``), or
- the message is nearer to the examples of some tool than to the messages that need no tool, by
  :data:`MARGIN`, counting the tools that are off (disabled, or unavailable) as well as the others.
  Nearness is the router's own: the model's sentence vectors when the provider has them, else the
  overlap of words and characters (:func:`lexical_scores`).

A message that is nearer to a tool's examples by less than the margin (but by :data:`SUSPECT_MARGIN`)
may still ask for live data, and so may a follow-up in a conversation where a tool ran
(:meth:`LiveDataFinder.follow_up`): their answer is the model's, unless that states a figure none
of the user's messages holds (a figure of an earlier answer belongs to an earlier question).

The reason given is ``off`` (the nearest tool is not available), ``failed`` (its last call in this
conversation failed), ``missing`` (a value is missing) or ``declined``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from typing import TYPE_CHECKING, Any

from agent.loop.answers import LiveData
from agent.providers.base import sentence_vectors
from agent.router.examples import ExampleVectors, examples_of
from agent.router.prompt import Decision
from agent.router.texts import NO_TOOL_MESSAGES
from agent.toolkit.base import ToolManifest

if TYPE_CHECKING:
    from agent.loop.agent import Agent

#: how much nearer (cosine similarity of sentence vectors) to a tool's examples than to the no-tool
#: messages a message must be to count as asking for that tool's live data. Chosen on the tune
#: splits (bench/answers, bench/routing): no message of bench/routing's that needs no tool is as
#: near (the nearest came to 0.05), and most live-data messages are nearer (0.07 to 0.19)
MARGIN = 0.06
#: the same for the overlap of words and characters (providers without sentence vectors), a weaker
#: signal: messages that need no tool came to 0.29, half the live-data messages are above 0.3
LEXICAL_MARGIN = 0.3
#: nearer than this, but not by :data:`MARGIN`: the model answers, and an answer with a figure of its
#: own is not shown (tune split: 2 of 61 messages that need no tool came this near, 3 of 7 live-data
#: messages the margin misses)
SUSPECT_MARGIN = 0.02
LEXICAL_SUSPECT_MARGIN = 0.15


def _grams(text: str) -> Counter:
    """Latin words and digits, and pairs of adjacent CJK characters (single ones too)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    grams: Counter = Counter(re.findall(r"[a-z0-9]+", text))
    for run in re.findall(r"[\u3040-\u30ff\u3400-\u9fff]+", text):
        grams.update(run)
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return grams


def _cosine(a: Counter, b: Counter) -> float:
    dot = sum(count * b[gram] for gram, count in a.items() if gram in b)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def lexical_scores(documents: dict[str, list[str]], text: str) -> dict[str, float]:
    """Per name, the best overlap (cosine of word and character counts) of ``text`` with one of its documents."""
    grams = _grams(text)
    return {name: max((_cosine(grams, _grams(doc)) for doc in docs), default=0.0) for name, docs in documents.items()}


class LiveDataFinder:
    """Finds live-data requests among messages no tool answered (see the module docstring); keeps
    the sentence vectors of the unavailable tools' examples per set of them."""

    def __init__(self) -> None:
        self._vectors: dict[tuple, ExampleVectors] = {}

    def find(
        self, agent: "Agent", manifests: list[ToolManifest], decision: Decision | None, question: str, language: str, none: str
    ) -> LiveData | None:
        """The live data ``question`` may ask for, or None when it is nearer to messages that need no
        tool. ``certain`` is set when a value is missing or the margin is reached; a message only a
        little nearer to a tool's examples gets an answer from the model that states no figure of its
        own (see :class:`~agent.router.protocol.RouterProtocol`). ``manifests``: the available tools
        (as put to the router); ``decision``: the router's, when it decided; ``none``: its no-tool label."""
        available = {m.name: m for m in manifests}
        off = _unavailable(agent, language, set(available))
        if decision is not None and decision.declined in available:
            live = _missing(available[decision.declined], decision.missing)
        else:
            nearest = self._nearest(agent, available, off, decision, question, none)
            tools = {name: score for name, score in nearest.items() if name != none}
            if not tools:
                return None
            tool = max(tools, key=lambda name: tools[name])
            margin = tools[tool] - nearest.get(none, 0.0)
            vectors = self._uses_vectors(agent, decision)
            if margin < (SUSPECT_MARGIN if vectors else LEXICAL_SUSPECT_MARGIN):
                return None
            manifest, reason = (off[tool][0], "off") if tool in off else (available[tool], "declined")
            live = LiveData(tool, reason, off[tool][1] if tool in off else "", _example(manifest))
            live.certain = margin >= (MARGIN if vectors else LEXICAL_MARGIN)
        if live.reason != "off":
            failed = _last_failure(agent, live.tool)
            if failed:
                live.reason, live.detail = "failed", failed
        return live

    @staticmethod
    def follow_up(agent: "Agent", language: str) -> LiveData | None:
        """The tool of the conversation's last call, as what a follow-up no tool answers may ask for
        again (not ``certain``: the model answers, from what the conversation holds)."""
        if not agent.conversation_id:
            return None
        try:
            calls = agent.store.tool_calls(limit=1, conversation=agent.conversation_id)
        except Exception:  # noqa: BLE001 - a store without the log gives no evidence
            return None
        if not calls:
            return None
        call = calls[0]
        manifests = {m.name: m for m in agent.registry.manifests(language)}
        manifest = manifests.get(call["name"])
        example = _example(manifest) if manifest is not None else ""
        if call.get("success"):
            return LiveData(call["name"], "declined", "", example, certain=False)
        return LiveData(call["name"], "failed", str(call.get("error") or call.get("status") or ""), example, certain=False)

    @staticmethod
    def _uses_vectors(agent: "Agent", decision: Decision | None) -> bool:
        return sentence_vectors(agent.provider) is not None and bool(decision is None or decision.nearest)

    def _nearest(
        self, agent: "Agent", available: dict[str, ToolManifest], off: dict[str, tuple[ToolManifest, str]],
        decision: Decision | None, question: str, none: str,
    ) -> dict[str, float]:
        documents = {name: examples_of(m) or [m.description] for name, (m, _) in off.items()}
        vectors = sentence_vectors(agent.provider)
        if self._uses_vectors(agent, decision) and vectors is not None:
            nearest = dict(decision.nearest) if decision is not None else {}
            missing = {n: d for n, d in documents.items() if n not in nearest}
            if decision is None:
                missing.update({n: examples_of(m) or [m.description] for n, m in available.items()})
                missing[none] = NO_TOOL_MESSAGES
            if missing:
                key = tuple(sorted((n, tuple(d)) for n, d in missing.items()))
                if key not in self._vectors:
                    self._vectors = {key: ExampleVectors(missing)}  # one set at a time: tools rarely change
                nearest.update(self._vectors[key].scores(vectors, question))
            return nearest
        documents.update({n: examples_of(m) or [m.description] for n, m in available.items()})
        documents[none] = NO_TOOL_MESSAGES
        return lexical_scores(documents, question)


def _unavailable(agent: "Agent", language: str, available: set[str]) -> dict[str, tuple[ToolManifest, str]]:
    """The tools that were found but are off: name -> (manifest in ``language``, why)."""
    entries = getattr(agent.registry, "entries", None)
    if entries is None:
        return {}
    out: dict[str, tuple[ToolManifest, str]] = {}
    for entry in entries(include_unavailable=True):
        if entry.available or entry.name in available or entry.name in out:
            continue
        try:
            manifest = entry.manifest_in(language)
        except Exception:  # noqa: BLE001 - a tool that cannot describe itself again keeps its manifest
            manifest = entry.manifest
        out[entry.name] = (manifest, entry.reason or "off")
    return out


def _missing(manifest: ToolManifest, key: str) -> LiveData:
    what = f"{key} ({manifest.parameters.get(key, '')})" if manifest.parameters.get(key) else key
    return LiveData(manifest.name, "missing", what, _example(manifest))


def _example(manifest: ToolManifest) -> str:
    return next(iter(examples_of(manifest)), manifest.description)


def _last_failure(agent: "Agent", tool: str) -> str:
    """The error of ``tool``'s last call in this conversation, when that call failed."""
    if not agent.conversation_id:
        return ""
    try:
        calls: list[dict[str, Any]] = agent.store.tool_calls(limit=1, tool=tool, conversation=agent.conversation_id)
    except Exception:  # noqa: BLE001 - a store without the log gives no evidence
        return ""
    if calls and not calls[0].get("success"):
        return str(calls[0].get("error") or calls[0].get("status") or "")
    return ""
