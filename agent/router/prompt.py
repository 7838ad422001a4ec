"""The router's prompt for one set of manifests, and what a decision is."""

from __future__ import annotations

import json
import math
import re
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.i18n import pick
from agent.providers.base import Provider, ProviderError
from agent.router.candidates import CJK, Words
from agent.router.tool_texts import described, tool_text
from agent.router.options import RouterOptions
from agent.router.texts import INSTRUCTIONS, MORE_TOOLS, MORE_TOOLS_SHOTS, NO_TOOL_MESSAGES, NO_TOOL_SHOTS
from agent.router.examples import ExampleVectors, examples_of
from agent.toolkit.base import ToolManifest
from agent.toolkit.schema import parameter_schema


@dataclass
class Decision:
    """Which tool (None: no tool) with which parameters, and the scores it was chosen by."""

    tool: str | None
    params: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)  # per option: what the choice compared
    logprobs: dict[str, float] = field(default_factory=dict)  # the model's part of it
    nearest: dict[str, float] = field(default_factory=dict)  # per option: its best example similarity
    error: str = ""
    declined: str | None = None  # a tool that was chosen, but the message lacks a value it needs ...
    missing: str = ""  # ... namely this parameter
    then: list[str] = field(default_factory=list)  # parts of the message that work on this turn's results
    follows: bool = False  # the message may ask for a further call once this turn's calls return (a chain)
    carried: bool = False  # a value comes from an earlier request of the same message ("天气如何" after "莫斯科几点")


class DecisionPrompt:
    """The router's prompt for one set of manifests: a fixed prefix (instructions and few-shot turns)
    followed by the user's message."""

    def __init__(self, manifests: list[ToolManifest], language: str, options: RouterOptions,
                 fits: Callable[[list[dict[str, str]]], bool] | None = None, more: bool = False):
        """``fits`` tells whether a prefix leaves the model room for the conversation, the message and
        the reply; the few-shot turns are cut, the last rounds first, until it does. ``more``: the
        messages will list more tools (:class:`ExtendedPrompt`), which turns of their own show."""
        self.manifests = {m.name: m for m in manifests}
        self.listed: set[str] = set()  # tools listed in the message's turn (none: every tool is in the prompt)
        self.kept_by: weakref.WeakSet[Provider] = weakref.WeakSet()  # providers known to keep this prompt's state
        self.none = none_label(manifests)
        system = [{"role": "system", "content": instructions(manifests, language)}]
        turns: list[dict[str, str]] = []
        if more:
            for message, listed, tool in pick(MORE_TOOLS_SHOTS, language):
                said = f"{message}\n\n{pick(MORE_TOOLS, language).format(tools=listed)}"
                turns.append({"role": "user", "content": said})
                turns.append({"role": "assistant", "content": json.dumps({"tool": tool or self.none}, ensure_ascii=False)})
        if options.few_shot:
            for message, tool in _shots(manifests, self.none, options.shots_per_tool):
                turns.append({"role": "user", "content": message})
                turns.append({"role": "assistant", "content": json.dumps({"tool": tool}, ensure_ascii=False)})
        kept = len(turns) // 2
        if fits is not None and not fits(system + turns):
            low, high = 0, kept - 1  # the most shots that fit: at least low, fewer than high + 1
            while low < high:
                middle = (low + high + 1) // 2
                low, high = (middle, high) if fits(system + turns[: 2 * middle]) else (low, middle - 1)
            kept = low
        self.cut_shots = len(turns) // 2 - kept  # few-shot turns left out for room
        self.prefix: list[dict[str, str]] = system + turns[: 2 * kept]
        self.examples = ExampleVectors({**{m.name: examples_of(m) or [m.description] for m in manifests}, self.none: NO_TOOL_MESSAGES})
        # tools that came without examples (MCP, OpenAPI): what they do, said in words, for the message to be compared with
        self.described = ExampleVectors({m.name: [described(m)] for m in manifests if not m.examples})
        # ... and for a sentence encoder made to match requests to passages (agent.router.encoder), which reads English
        self.meant = ExampleVectors({name: said for name, said in self.described.documents.items() if not CJK.search(said[0])},
                                    template="{text}")
        self.words = WordMatch(manifests)
        # tools that take a link: a message with one is evidence for them
        self.link_tools = {m.name for m in manifests if any(is_link(m, key) for key in m.required)}

    def messages(self, text: str, context: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
        """The prefix, the turns of the conversation the decision reads (``context``), the message."""
        return [*self.prefix, *(context or []), {"role": "user", "content": text}]

    def schema(self) -> dict[str, Any]:
        return decision_schema(self.manifests, self.none)


def decision_schema(manifests: dict[str, ToolManifest], none: str) -> dict[str, Any]:
    """The JSON schema of a decision: a real tool with only its own parameters, or none."""
    choices: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "tool": {"const": m.name},
                "params": {
                    "type": "object",
                    "properties": {key: value_schema(m, key) for key in m.parameters},
                    "additionalProperties": False,
                },
            },
            "required": ["tool", "params"],
        }
        for m in manifests.values()
    ]
    choices.append({"type": "object", "properties": {"tool": {"const": none}}, "required": ["tool"]})
    return {"anyOf": choices}


class ExtendedPrompt:
    """A prepared prompt and, for one message, more tools found by retrieval: listed in the message's
    turn, so that the prompt's prefix (whose state the provider keeps) stays the same for every message."""

    def __init__(self, base: DecisionPrompt, extras: list[ToolManifest], language: str, vectors: ExampleVectors,
                 meant: ExampleVectors | None = None):
        """``vectors``: the chat model's vectors of every retrievable tool's examples (or description);
        ``meant``: a sentence encoder's texts of those tools (what each does, said in words), which weigh
        an extra tool without examples of its own as :attr:`DecisionPrompt.meant` weighs one in the prompt."""
        self.prefix = base.prefix
        self.none = base.none
        self.manifests = {**base.manifests, **{m.name: m for m in extras if m.name != base.none}}
        self.listed = {m.name for m in extras if m.name not in base.manifests and m.name != base.none}
        self.link_tools = base.link_tools | {m.name for m in extras if any(is_link(m, key) for key in m.required)}
        self.examples = _Joined(base.examples, vectors, [m.name for m in extras])
        # the chat model's vectors of an extra's description are not computed for each message: the core's only
        self.described = base.described
        plain = [] if meant is None else [m.name for m in extras if m.name in self.listed and not m.examples
                                          and m.name in meant.documents and not CJK.search(meant.documents[m.name][0])]
        self.meant = _Joined(base.meant, meant, plain) if plain else base.meant
        self.words = WordMatch([*base.manifests.values(), *extras]) if extras else base.words
        listing = "\n".join(_describe(m) for m in extras)
        self.more = pick(MORE_TOOLS, language).format(tools=listing) if extras else ""

    def messages(self, text: str, context: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
        said = f"{text}\n\n{self.more}" if self.more else text
        return [*self.prefix, *(context or []), {"role": "user", "content": said}]

    def schema(self) -> dict[str, Any]:
        return decision_schema(self.manifests, self.none)


class _Joined:
    """The prompt's vectors, and those of the extra tools from the index's (0 for an extra it has no text for)."""

    def __init__(self, base: ExampleVectors, index: ExampleVectors, extras: list[str]):
        self.base, self.index, self.extras = base, index, extras

    @property
    def texts(self) -> list[str]:
        return [*self.base.texts, *(text for name, text in zip(self.index.owners, self.index.texts) if name in self.extras)]

    def scores(self, provider: Any, text: str) -> dict[str, float]:
        found = self.index.scores(provider, text) if self.extras else {}
        return {**self.base.scores(provider, text), **{name: found.get(name, 0.0) for name in self.extras}}


class WordMatch:
    """Per tool, how far a message's words fall short of the best match among the tools (BM25 over
    each tool's name, description, parameters and examples): 0 for the best, -1 for a tool that shares
    none; nothing when no tool shares a word. Only a penalty: words never make a tool likelier than no
    tool. A Chinese or Japanese message does not judge a tool whose texts have no Chinese or Japanese
    (described in English only, it could share no word with it)."""

    def __init__(self, manifests: list[ToolManifest]):
        self.manifests = manifests
        self._index: tuple[Words, list[bool]] | None = None  # built on first use: only the lever asks

    def __call__(self, text: str) -> dict[str, float]:
        if self._index is None:
            texts = [tool_text(m) for m in self.manifests]
            self._index = Words(texts), [bool(CJK.search(t)) for t in texts]
        words, cjk = self._index
        names = [m.name for m in self.manifests]
        scores = words.scores(text)
        best = float(scores.max()) if len(scores) else 0.0
        if best <= 0:
            return {}
        judged = [True] * len(names) if not CJK.search(text) else cjk
        return {name: float(value) / best - 1.0 for name, value, ok in zip(names, scores, judged) if ok}


#: tokens a decision's reply needs after the message (the tool's name and its values)
DECISION_ROOM = 96


def fitting_turns(provider: Any, prompt: DecisionPrompt | ExtendedPrompt, text: str, turns: list[dict[str, str]]) -> list[dict[str, str]]:
    """``turns`` (the earlier exchange), or none when they and the message leave the decision no room;
    an error that says so when the message alone is too long for the model's context."""
    leaves_room = getattr(provider, "leaves_room", None)
    if not callable(leaves_room) or leaves_room(prompt.messages(text, turns), DECISION_ROOM):
        return turns
    if turns and leaves_room(prompt.messages(text), DECISION_ROOM):
        return []  # the earlier exchange is left out: a long result, or a long message
    raise ProviderError("the message is too long for the model's context together with the tool prompt; "
                        "shorten it or send it in parts, or raise llm.n_ctx")


def none_label(manifests: list[ToolManifest]) -> str:
    """The label of the no-tool choice: ``none``, unless a tool has that name."""
    return "no_tool" if any(m.name == "none" for m in manifests) else "none"


#: the most characters of a description the listing shows (an MCP server may send a page; the gist decides)
DESCRIBED_CHARS = 200


def _describe(m: ToolManifest) -> str:
    """One line per tool: name, parameter names, description (longer listings scored worse), cut
    at a word after :data:`DESCRIBED_CHARS` characters."""
    text = " ".join(m.description.split())
    if len(text) > DESCRIBED_CHARS:
        cut = text[:DESCRIBED_CHARS]
        text = (cut.rsplit(" ", 1)[0] if " " in cut[DESCRIBED_CHARS // 2:] else cut) + "…"
    return f"- {m.name}({', '.join(m.parameters or {})}): {text}"


def instructions(manifests: list[ToolManifest], language: str) -> str:
    """The router's system message for these tools: what to do, and one line per tool."""
    listing = "\n".join(_describe(m) for m in manifests)
    return pick(INSTRUCTIONS, language).format(tools=listing, none=none_label(manifests))


def _shots(manifests: list[ToolManifest], none: str, per_tool: int) -> list[tuple[str, str]]:
    """Few-shot turns, interleaved (first example of every tool, some no-tool messages, the second
    examples, ...) so that no tool sits closest to the question."""
    examples = {m.name: examples_of(m) for m in manifests}
    rounds = min(max((len(e) for e in examples.values()), default=0), per_tool)
    per_round = math.ceil(len(NO_TOOL_SHOTS) / max(rounds, 1))
    shots: list[tuple[str, str]] = []
    for i in range(rounds):
        shots.extend((examples[m.name][i], m.name) for m in manifests if i < len(examples[m.name]))
        shots.extend((text, none) for text in NO_TOOL_SHOTS[i * per_round : (i + 1) * per_round])
    return shots


def value_schema(m: ToolManifest, key: str) -> dict[str, Any]:
    schema = parameter_schema(m.parameter_types.get(key), str(m.parameters[key]))
    schema.pop("description", None)
    return schema


LINK = re.compile(r"\bhttps?://\S+", re.IGNORECASE)


def is_link(m: ToolManifest, key: str) -> bool:
    return key in m.parameters and value_schema(m, key).get("format") in ("uri", "url", "iri")


#: a web address: with a scheme ("https://…"), or a host name with a dot and what may follow it ("example.com/news")
_ADDRESS_LIKE = re.compile(r"[a-z][a-z0-9+.-]*://\S+|(?:[\w-]+\.)+[a-z]{2,}(?::[0-9]+)?(?:[/?#]\S*)?|localhost(?::[0-9]+)?(?:/\S*)?",
                           re.IGNORECASE)


def no_address(manifest: ToolManifest, key: str, value: str) -> bool:
    """Whether ``value`` was written for a parameter that takes a link (``"format": "uri"``) and is none: "比特币价格"
    for the page to fetch of "最近比特币价格多少？帮我上网查查" (a message that gives no address)."""
    return bool(value) and is_link(manifest, key) and not _ADDRESS_LIKE.fullmatch(value.strip())


def item_choices(m: ToolManifest, key: str) -> list[str] | None:
    """The members a list parameter's items are chosen from (``"type": "array"`` of an enum of strings:
    amenities, days of the week); None for any other parameter."""
    schema = value_schema(m, key)
    items = schema.get("items") if schema.get("type") == "array" else None
    values = items.get("enum") if isinstance(items, dict) else None
    return values if isinstance(values, list) and values and all(isinstance(v, str) for v in values) else None


def enum_values(m: ToolManifest, key: str) -> list[str] | None:
    """The values a parameter may take, when they are few and named: an enum of strings, or a
    boolean's ``true`` and ``false`` (chosen by their probabilities, never written freely)."""
    schema = value_schema(m, key)
    if schema.get("type") == "boolean":
        return ["true", "false"]
    values = schema.get("enum")
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return values
    return None
