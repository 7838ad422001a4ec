"""The router's decision: which tool (or none), scored from the model's probabilities, then its
parameters written into a frame of the tool's real keys."""

from __future__ import annotations

import json
import re
from typing import Any

from agent.providers.base import (
    Provider, ReplyCursor, ScoredDecoding, SentenceVectors, prefix_cache, scored_decoding, sentence_vectors,
)
from agent.router.candidates import CJK, ToolIndex, in_english, index_for, meant_names, needs_english
from agent.router.choices import MemberMeaning, chosen_member, named_items, named_members
from agent.router.glossary import RETRIEVAL_SENSES, gloss
from agent.router.lists import listed_value
from agent.router.fit import others
from agent.router.context import Context
from agent.router.durations import in_unit, says_length
from agent.router.encoder import encoder_for
from agent.router.forms import DATE, month_bound, told_apart, value_form
from agent.router.labels import read_value
from agent.router.options import RouterOptions
from agent.router.schema_decision import decide_by_schema
from agent.router.written import ExampleWriter, Progress
from agent.router.references import followed_tools, marked_follow_up
from agent.router.slugs import slug_part
from agent.router.spoken import with_digits
from agent.router.switches import said_choice
from agent.router.valid import checked
from agent.toolkit.dates import without_dates
from agent.router.examples import ExampleVectors, examples_of, unquoted
from agent.router.prompt import (
    LINK, Decision, DecisionPrompt, ExtendedPrompt, enum_values, fitting_turns, instructions, item_choices, no_address,
    value_schema,
)
from agent.router.values import (
    ID_KEY, clean_value, completed, foreign, in_range, invented, means_empty, named, numberless, opening,
    nothing_to_write, respelled, rewrite, scaled, unsaid_left_out, unsaid_number, unstated, value_filters, worth_copying,
)
from agent.toolkit.base import ToolManifest, members

#: tokens a set's listing must leave for few-shot turns, beside ``reply_room``, to be decided in one prompt
SHOTS_ROOM = 512


class Router:
    """Makes tool decisions for a message; caches one :class:`DecisionPrompt` per manifest set."""

    def __init__(self, options: RouterOptions | None = None):
        self.options = options or RouterOptions()
        self._prompts: dict[str, DecisionPrompt] = {}
        self.writer = ExampleWriter()
        self._english: dict[str, str] = {}  # messages said in English for retrieval
        self._fits: dict[str, bool] = {}  # per tool set: whether one prompt lists it with room to spare

    def with_examples(self, provider: Provider, manifests: list[ToolManifest], language: str, write: bool = True,
                      partial: bool = False, progress: Progress | None = None) -> list[ToolManifest] | None:
        """``manifests``, those without examples given examples the model wrote (see
        :mod:`agent.router.written`; for providers that score decisions, with ``write_examples``);
        None when some are not written yet and ``write`` is false."""
        if not self.options.write_examples or scored_decoding(provider) is None:
            return manifests
        return self.writer.completed(provider, manifests, language, write, partial, progress)

    def prompt(self, manifests: list[ToolManifest], language: str, provider: Provider | None = None,
               more: bool = False) -> DecisionPrompt:
        """The prompt for these manifests; with a provider that counts tokens, one that leaves it
        ``reply_room`` tokens of its context (few-shot turns are cut when the set is large). ``more``:
        the core of a large set, whose messages list more tools."""
        cache = prefix_cache(provider) if provider is not None else None
        room = self.options.reply_room if cache is not None else None
        key = json.dumps([language, room, more, [m.to_dict() for m in manifests]], sort_keys=True, ensure_ascii=False, default=str)
        if key not in self._prompts:
            if len(self._prompts) > 8:
                self._prompts.clear()
            fits = None
            if cache is not None:
                fits = lambda messages: cache.leaves_room(messages, self.options.reply_room)  # noqa: E731
            self._prompts[key] = DecisionPrompt(manifests, language, self.options, fits, more)
        return self._prompts[key]

    def prepare(self, provider: Provider, manifests: list[ToolManifest], language: str,
                progress: Progress | None = None) -> bool:
        """Evaluate and keep the fixed prompt for these manifests now (providers with a
        :class:`~agent.providers.base.PrefixCache`), so that the first decision is as fast as the
        others; examples are written first for the tools that need them (``progress(done, total)``
        hears of each). Returns whether there was work to do."""
        cache = prefix_cache(provider)
        if cache is None or self.is_prepared(provider, manifests, language):
            return False
        manifests, rest = self.split(manifests, provider)
        written = self.with_examples(provider, manifests + (rest if self._writes_all(manifests, rest) else []), language,
                                     progress=progress)
        if rest:  # the others are found by retrieval: their vectors are prepared
            for texts, model in self._retrieval_vectors(provider, self.index(self._known_examples(provider, rest, language))):
                texts.prepare(model)
        manifests = (written or manifests)[: len(manifests)]
        prompt = self.prompt(manifests, language, provider, more=bool(rest))
        cache.prepare_prefix(prompt.prefix)
        vectors = self._vectors(provider)
        if vectors is not None:
            prompt.examples.prepare(vectors)
            prompt.described.prepare(vectors)
        if self.options.meant_weight and prompt.meant.texts and (encoder := self._encoder(provider)) is not None:
            prompt.meant.prepare(encoder)
        prompt.kept_by.add(provider)
        return True

    def _vectors(self, provider: Provider) -> SentenceVectors | None:
        """The provider's sentence vectors, when it has them and the decision weighs them."""
        return sentence_vectors(provider) if self.options.vector_weight or self.options.described_weight else None

    def _encoder(self, provider: Provider) -> SentenceVectors | None:
        """The sentence encoder made for retrieval (:mod:`agent.router.encoder`), when it is installed
        and the ``encoder`` lever is on; its vectors are kept beside the provider's cache."""
        return encoder_for(getattr(provider, "cache_dir", None)) if self.options.encoder else None

    def _meant(self, provider: Provider, prompt: DecisionPrompt | ExtendedPrompt, text: str) -> dict[str, float]:
        """The encoder's similarity of ``text`` to each tool without examples of its own (``meant_weight``)."""
        return self._similar(provider, prompt.meant, text) if self.options.meant_weight and prompt.meant.texts else {}

    def _similar(self, provider: Provider, texts: ExampleVectors, text: str) -> dict[str, float]:
        """The encoder's similarity of ``text`` (in English, or glossed: it reads English) to each of ``texts``,
        what a tool does said in words; none without the encoder or an English text."""
        english = (gloss(text) if self.options.gloss else "") if CJK.search(text) else text
        encoder = self._encoder(provider) if english else None
        return texts.scores(encoder, english) if encoder is not None else {}

    def _retrieval_vectors(self, provider: Provider, index: ToolIndex) -> list[tuple[ExampleVectors, SentenceVectors]]:
        """The index's texts that retrieval compares by vectors, each with the model that embeds them."""
        pairs = [(index.vectors, self._vectors(provider)), (index.described, self._encoder(provider))]
        return [(texts, model) for texts, model in pairs if model is not None]

    def is_prepared(self, provider: Provider, manifests: list[ToolManifest], language: str) -> bool:
        """False when the first decision must evaluate the fixed prompt (several seconds on a small CPU).
        Asks the provider once; a prompt it has kept is remembered."""
        manifests, rest = self.split(manifests, provider)
        if self._writes_all(manifests, rest) and self.with_examples(provider, rest, language, write=False) is None:
            return False
        if rest and not all(texts.is_ready(model) for texts, model in
                            self._retrieval_vectors(provider, self.index(self._known_examples(provider, rest, language)))):
            return False
        completed = self.with_examples(provider, manifests, language, write=False)
        if completed is None:
            return False
        prompt = self.prompt(completed, language, provider, more=bool(rest))
        if provider not in prompt.kept_by:
            cache = prefix_cache(provider)
            if cache is not None and not cache.has_prefix(prompt.prefix):
                return False
            vectors = self._vectors(provider)
            if vectors is not None and not (prompt.examples.is_ready(vectors) and prompt.described.is_ready(vectors)):
                return False
            prompt.kept_by.add(provider)
        return True

    def decide(
        self, provider: Provider, manifests: list[ToolManifest], text: str, language: str, context: Context | None = None
    ) -> Decision:
        """The decision for ``text``, reading the conversation's ``context`` (earlier exchanges and the
        requests of the same message decided before it). Provider errors propagate; unreadable output
        becomes ``Decision.error``."""
        context = context or Context()
        prompt = self.decision_prompt(provider, manifests, text, language, context)
        scored = scored_decoding(provider)
        if scored is not None:
            encoder = self._encoder(provider) if self.options.named_members and self.options.member_weight else None
            return self._decide_scored(scored, self._vectors(provider), prompt, text, context, self._meant(provider, prompt, text),
                                       MemberMeaning(encoder, text) if encoder is not None else None)
        return decide_by_schema(provider, prompt, text, context, self.options.leave_out_unsaid)

    def decision_prompt(self, provider: Provider, manifests: list[ToolManifest], text: str, language: str,
                        context: Context | None = None) -> DecisionPrompt | ExtendedPrompt:
        """The prompt a decision on ``text`` is made with: the set's own, or with many tools the core's
        and the likeliest others listed in the message's turn."""
        core, rest = self.split(manifests, provider)
        prompt = self.prompt(self.with_examples(provider, core, language) or core, language, provider, more=bool(rest))
        if not rest:
            return prompt
        rest = self._known_examples(provider, rest, language)
        index = self.index(rest)
        return ExtendedPrompt(prompt, self.extras(provider, rest, text, context), language, index.vectors, index.described)

    def _writes_all(self, core: list[ToolManifest], rest: list[ToolManifest]) -> bool:
        """Whether preparing writes examples for the tools outside the core too (``write_all_up_to``):
        a set of a few dozen tools costs a few minutes once, a thousand would cost an hour."""
        return bool(rest) and len(core) + len(rest) <= self.options.write_all_up_to

    def _known_examples(self, provider: Provider, rest: list[ToolManifest], language: str) -> list[ToolManifest]:
        """The tools outside the core, with the examples the model wrote for them before (when the set
        was prepared, or an earlier one; none is written at decision time)."""
        return self.with_examples(provider, rest, language, write=False, partial=True) or rest

    def index(self, manifests: list[ToolManifest]) -> ToolIndex:
        """The candidate index of this tool set (:func:`~agent.router.candidates.index_for`)."""
        return index_for(manifests)

    def split(self, manifests: list[ToolManifest], provider: Provider | None = None) -> tuple[list[ToolManifest], list[ToolManifest]]:
        """``manifests`` and no others when they are few (``options.one_prompt_up_to``: a small model
        chooses a tool listed in the message's turn over a better one in the prompt, so a set of a few
        dozen is decided whole, its few-shot turns cut to fit) and their listing leaves ``provider``
        room; else a fixed core of ``candidates - retrieved``, whose prompt is prepared once (tools with
        examples of their own first, in the given order), and the others, found by retrieval for each
        message (:mod:`agent.router.candidates`)."""
        few = len(manifests) <= max(self.options.candidates, self.options.one_prompt_up_to)
        if few and self._fits_whole(manifests, provider):
            return manifests, []
        size = max(self.options.candidates - self.options.retrieved, 0)
        order = sorted(range(len(manifests)), key=lambda i: (not examples_of(manifests[i]), i))
        core = set(order[:size])
        return ([m for i, m in enumerate(manifests) if i in core], [m for i, m in enumerate(manifests) if i not in core])

    def _fits_whole(self, manifests: list[ToolManifest], provider: Provider | None) -> bool:
        """Whether the listing of every tool leaves the model room for a few few-shot turns, the
        conversation and the reply (a few dozen tools with long descriptions, in Chinese or Japanese,
        may not); known without a provider that counts tokens."""
        cache = prefix_cache(provider) if provider is not None else None
        if cache is None:
            return True
        model = [type(provider).__name__, getattr(provider, "model_label", ""), getattr(provider, "n_ctx", None)]
        key = json.dumps([model, [[m.name, m.description, list(m.parameters or {})] for m in manifests]],
                         ensure_ascii=False, default=str)
        if key not in self._fits:
            if len(self._fits) > 32:
                self._fits.clear()
            system = [{"role": "system", "content": instructions(manifests, "en")}]
            self._fits[key] = cache.leaves_room(system, self.options.reply_room + SHOTS_ROOM)
        return self._fits[key]

    def extras(self, provider: Provider, rest: list[ToolManifest], text: str, context: Context | None = None) -> list[ToolManifest]:
        """The ``options.retrieved`` tools of ``rest`` likeliest for ``text``, with those it names and
        those of the previous exchange."""
        earlier = [call.tool for call in context.exchanges[-1].calls] if context and context.exchanges else []
        index = self.index(rest)
        foreign = needs_english(index, text)  # a Chinese or Japanese message, tools described in English
        glossed = gloss(text, RETRIEVAL_SENSES) if foreign and self.options.gloss else ""
        names = index.candidates(text, self.options.retrieved, self._vectors(provider), always=earlier,
                                 also=self._translated(provider, text) if foreign else [],
                                 glossed=[glossed] if glossed else [], encoder=self._encoder(provider))
        if not self.options.list_unmeant:
            names = meant_names(names, index, self._similar(provider, index.described, text), self.options.meant_floor,
                                [*index.named(text), *earlier], self.options.listed_first)
        by_name = {m.name: m for m in rest}
        return [by_name[name] for name in names]

    def _translated(self, provider: Provider, text: str) -> list[str]:
        """``text`` translated into English by the model when ``retrieve_in_english`` asks for it (once:
        the last few are kept); else nothing."""
        if not self.options.retrieve_in_english:
            return []
        if text not in self._english:
            while len(self._english) >= 16:
                del self._english[next(iter(self._english))]
            self._english[text] = in_english(provider, text)
        return [said] if (said := self._english[text]) else []

    def candidates(self, provider: Provider, manifests: list[ToolManifest], text: str, context: Context | None = None,
                   language: str = "en") -> list[ToolManifest]:
        """The tools a decision on ``text`` chooses among: all of them when they are few; else the core
        and the retrieved others (see :meth:`split`), found as :meth:`decision_prompt` finds them (with
        the examples written for them before in ``language``)."""
        core, rest = self.split(manifests, provider)
        return core + (self.extras(provider, self._known_examples(provider, rest, language), text, context) if rest else [])

    def _decide_scored(self, provider: ScoredDecoding, vectors: SentenceVectors | None, prompt: DecisionPrompt | ExtendedPrompt,
                       text: str, context: Context, meant: dict[str, float], meaning: MemberMeaning | None = None) -> Decision:
        options = self.options
        turns = fitting_turns(provider, prompt, text, context.turns(prompt.none))
        source = f"{text}\n{context.text()}" if context else text  # what values may be copied from
        with provider.open_reply(prompt.messages(text, turns), keep=len(prompt.prefix)) as cursor:
            quote = "" if options.model_quotes else ' "'  # the opening quote: forced, or part of each option
            cursor.extend('{"tool":' + quote)
            labels = {f'{opening(quote)}{name}"': name for name in [*prompt.manifests, prompt.none]}
            logprobs = cursor.option_logprobs(list(labels))
            nearest = prompt.examples.scores(vectors, text) if vectors is not None else {}
            if nearest and options.unquoted_none and (plain := unquoted(text)) != text:
                # a name the message quotes ("「おやすみ」シーンを実行して") makes it no more like small talk: no tool
                # is as near as the message is without it, when that is less
                nearest[prompt.none] = min(nearest[prompt.none], prompt.examples.scores(vectors, plain)[prompt.none])
            said = prompt.described.scores(vectors, text) if vectors is not None and options.described_weight else {}
            followed = followed_tools(context, text)
            # words do not judge the previous exchange's tools for its follow-up ("And tomorrow?" names no
            # tool), failed calls included
            earlier = followed_tools(context, text, failed=True)
            shared = {name: value for name, value in (prompt.words(text) if options.word_weight else {}).items()
                      if name not in earlier}
            scores = {
                name: logprobs[label]
                + options.vector_weight * nearest.get(name, 0.0)
                + (options.described_weight * (said[name] - options.described_floor) if name in said else 0.0)
                + (options.meant_weight * (meant[name] - options.meant_floor) if name in meant else 0.0)
                + options.word_weight * shared.get(name, 0.0)
                + (options.listed_bias if name in prompt.listed else 0.0)
                + (
                    options.none_bias
                    if name == prompt.none
                    else (options.link_weight if name in prompt.link_tools and LINK.search(text) else 0.0)
                )
                for label, name in labels.items()
            }
            marked = options.marked_follow_weight if marked_follow_up(text) else 0.0
            for name in followed:  # "伦敦呢", "now 90", "and Durban?": the same tool again
                if name in scores:
                    scores[name] += options.follow_weight + marked
            chosen = max(scores, key=lambda name: scores[name])
            model = {name: logprobs[label] for label, name in labels.items()}
            no_tool = Decision(None, scores=scores, logprobs=model, nearest=nearest)
            if chosen == prompt.none:
                return no_tool
            start = cursor.mark()
            params, missing = self._write_call(cursor, prompt.manifests[chosen], quote, source, text, meaning)
            # a number the message states has no place in this call, or a value it requires is stated nowhere
            # ("拉萨现在多少华氏度", "cancel booking QX7F2K" chose modifying it): a close tool's call (agent.router.fit);
            # or the call names another tool as where to look
            for other in others(prompt, scores, chosen, params, text, self._numbers_said(text), missing, options):
                cursor.rewind(start)
                other_params, other_missing = self._write_call(cursor, prompt.manifests[other], quote, source, text, meaning)
                if not other_missing:
                    chosen, params, missing = other, other_params, ""
                    break
            if options.value_forms:
                params = told_apart(prompt.manifests[chosen], params, text)
            if missing:  # nothing in the message for a required value: the tool cannot be called
                no_tool.declined, no_tool.missing = chosen, missing
                return no_tool
        if options.leave_out_unsaid:
            params = unsaid_left_out(prompt.manifests[chosen], params, self._numbers_said(text))
        return Decision(chosen, params, scores, model, nearest)

    def _write_call(self, cursor: ReplyCursor, manifest: ToolManifest, quote: str, source: str,
                    text: str, meaning: MemberMeaning | None = None) -> tuple[dict[str, Any], str]:
        """Write the call of ``manifest``'s tool: its name, then each parameter's value (an enum's likeliest member; a
        required value may come from the conversation ``source``, an optional one only from the message ``text``).
        Returns the values, and the first required parameter the message has nothing for ("" when none). ``meaning``:
        how close an enum's members come to the message's words (:mod:`agent.router.choices`), for a tool that came
        without examples of its own ("「ゴミ出しは火曜」ってメモして" is no note to delete, though "trash" is close to it)."""
        cursor.extend(f'{opening(quote)}{manifest.name}", "params": {{')
        meaning = None if manifest.examples else meaning  # a tool's own examples show the model its members
        return checked(manifest, *self._write_params(cursor, manifest, quote, source, text, meaning), on=self.options.valid_values)

    def _write_params(self, cursor: ReplyCursor, manifest: ToolManifest, quote: str, source: str,
                      text: str, meaning: MemberMeaning | None = None) -> tuple[dict[str, Any], str]:
        """Write each parameter of ``manifest`` (see :meth:`_write_call`); an object of named members by :meth:`_write_object`."""
        params: dict[str, Any] = {}
        framed = 0  # keys written into the frame
        for key in manifest.parameters:
            lead = ("" if framed == 0 else ", ") + json.dumps(key) + ":"
            values = enum_values(manifest, key)
            inner = members(manifest, key)
            if nothing_to_write(manifest, key, text, params, self.options):
                continue  # an optional value that could only be empty ("guests" of a message with no number)
            framed += 1
            if inner is not None:
                value: Any = self._write_object(cursor, inner, lead, quote, source, text, meaning)
            elif values:
                cursor.extend(lead + quote)
                value_scores = cursor.option_logprobs([f'{opening(quote)}{v}"' for v in values])
                by_member = {v: value_scores[f'{opening(quote)}{v}"'] for v in values}
                default = None if key in manifest.required else value_schema(manifest, key).get("default")
                value = chosen_member(values, by_member, text, meaning, self.options.member_weight, default) \
                    if self.options.named_members else max(values, key=by_member.__getitem__)
                cursor.extend(f'{opening(quote)}{value}"')
            else:
                cursor.extend(lead + quote)
                value = self._value(cursor, manifest, key, source if key in manifest.required else text, params)
            if value and key not in manifest.required and self.options.said_choices and not said_choice(manifest, key, value, text):
                value = ""  # an optional switch or object the message does not speak of (agent.router.switches)
            if value:
                params[key] = value
            elif key in manifest.required:
                return params, key
        return params, ""

    def _write_object(self, cursor: ReplyCursor, inner: ToolManifest, lead: str, quote: str, source: str,
                      text: str, meaning: MemberMeaning | None = None) -> dict[str, Any]:
        """Write an object member by member, as parameters of their own; returns the members that state
        something (none: the object is not given, and a required one is missing)."""
        cursor.extend(lead + " {")
        written, missing = self._write_params(cursor, inner, quote, source, text, meaning)
        cursor.extend("}")
        if missing:
            return {}
        # a choice among members only when the message names it ("aisle", 通路側 through its gloss): the model always
        # picks one ("rollover": true)
        written = {k: v for k, v in written.items() if k in inner.required or (choices := enum_values(inner, k)) is None
                   or named(inner, k, str(v), text) or self.options.named_members and str(v) in named_members(choices, text)}
        written = told_apart(inner, written, text) if self.options.value_forms else written
        return unsaid_left_out(inner, written, self._numbers_said(text)) if self.options.leave_out_unsaid else written

    def _numbers_said(self, text: str) -> str:
        """``text`` as its numbers are counted: words in digits, dates and times left out (no 2 of "May 2")."""
        return without_dates(with_digits(text) if self.options.spoken_numbers else text)

    def _value(self, cursor: ReplyCursor, manifest: ToolManifest, key: str, text: str, written: dict[str, Any]) -> str:
        start = cursor.mark()
        value = self._written_value(cursor, manifest, key, text, written)
        if self.options.value_forms and (part := slug_part(manifest, key, value, written, text)) != value:
            rewrite(cursor, start, part, self.options.model_quotes)  # "myowner" where the message says "acme/webapp"
            return part
        if value_schema(manifest, key).get("type") in ("number", "integer"):
            # "0." is a number begun; "3" of "3万円" is 30000, "2" of "两个小时" 120 minutes; the rest read the message as copied
            value = in_unit(manifest, key, scaled(value.rstrip(".,"), text), text) if self.options.value_forms else scaled(value.rstrip(".,"), text)
            if self.options.spoken_numbers:  # "halfway" states 50 of a percentage, "close the blinds" 0 of "0 = closed"
                text, value = read_value(manifest, key, value, text)
            if self.options.copy_invented and ID_KEY.search(key) and invented(value, text):
                return ""  # run 1234567890 of no message: the thing is not named, the value is missing
            if not in_range(value, value_schema(manifest, key)):
                return ""  # 20 for Kelvin that start at 2000: not this parameter's number (a required one is missing)
            if key in manifest.required and numberless(value, text) and not says_length(manifest, key, value, text):
                return ""  # 100 mph for a message that states no number: made up, the value is missing (30 minutes of 半小时 is said)
        if no_address(manifest, key, value):
            return ""  # no link: a page the message gives no address of (a required one is missing)
        if key not in manifest.required and (len(value) == 1 and value.isalpha() or means_empty(manifest, key, value)):
            return ""  # one letter picked out of a sentence (日 of 今日, e of "time"), or "local" for "leave empty for local"
        if self.options.lists and (items := listed_value(manifest, key, value, text)) != value:
            rewrite(cursor, start, items, self.options.model_quotes)  # "bug" of "ラベルは ui と bug で": "ui, bug"
            return items
        choices = item_choices(manifest, key) if self.options.named_members else None
        if choices and (items := named_items(choices, value, text)) != value:
            rewrite(cursor, start, items, self.options.model_quotes)  # "酒店" for the amenities of "要含早餐的": "breakfast"
            return items
        return value

    def _written_value(self, cursor: ReplyCursor, manifest: ToolManifest, key: str, text: str,
                       written: dict[str, Any] | None = None) -> str:
        """Write one parameter value. A value in another script than the message (a name the model
        translated, e.g. Tokyo for 东京), or a Chinese/Japanese word the message does not contain, is
        written again, copied from the message; a value whose description asks for a form (an IANA
        zone, a currency code: :mod:`agent.router.forms`) is written in it; a date the message does not name is the
        one it names that no value ``written`` before holds ("from Dec 22 2026 to Jan 2 2027": the end is Jan 2, not the
        model's 2027-01-01)."""
        options = self.options
        start = cursor.mark()
        filters = value_filters(manifest, key, text, options)
        declared = manifest.parameter_types.get(key) is not None  # typed by the tool, not a plain description
        if options.model_quotes:
            filters["opening"] = ' "'
        form = value_form(manifest, key) if options.value_forms else None
        named_here = form.in_order(text) if form is not None else []
        if named_here:  # guessed as the value is written
            filters["hint"] = "\n".join(named_here)
        value = clean_value(cursor.until('"', options.max_value_tokens, **filters))
        if form is DATE and (bound := month_bound(key, text)):  # "2026年10月の取引": the month's first or last day
            rewrite(cursor, start, bound, "opening" in filters)
            return bound
        if form is None:
            said = self._as_said(cursor, start, value, text, filters, declared)
            if options.whole_words and (whole := completed(manifest, key, said, text)) != said:
                rewrite(cursor, start, whole, "opening" in filters)
            return whole if options.whole_words else said
        normal, stated = form.fitted(value, named_here), set(named_here)
        if normal is not None and stated and normal not in stated:  # not what the message names: copied from it
            cursor.rewind(start)
            copied = form.normal(clean_value(cursor.until('"', options.max_value_tokens, **{**filters, "copy_from": text})))
            normal = copied if copied in stated else normal
        if normal is None:  # no table knows what the model wrote: the message's words in the form ("北京" of "北京首都机场"), or the one date or month it names
            rewrite(cursor, start, value, "opening" in filters)
            value = self._as_said(cursor, start, value, text, filters, declared)
            # the one the message names, for a value that only dates may be made of, or a required one that is no word ("100" for NVDA)
            normal = form.normal(value) or form.holding(value, text) or (min(stated) if len(stated) == 1 and (
                form.said or key in manifest.required and not re.search(r"[^\W\d_]", value)) else None)
            if normal is None:  # a bare number is no code, "lights" no colour: an optional one is left out
                return value if not form.closed and (key in manifest.required or re.search(r"[^\W\d_]", value)) else ""
        if form.said and normal not in stated:  # a date the message does not name is made up: the one it names, or none
            left = [v for v in named_here if v not in {str(w) for w in (written or {}).values()}]
            normal = next(iter(stated)) if len(stated) == 1 else left[0] if len(left) == 1 else ""
            if not normal:
                return ""
        rewrite(cursor, start, normal, "opening" in filters)  # "Europe/London" for 伦敦: as the tool asks
        return normal

    def _as_said(self, cursor: ReplyCursor, start: Any, value: str, text: str, filters: dict[str, Any],
                 declared: bool = False) -> str:
        """``value``, or the message's own words for it when the model wrote it in another script or
        spelling, or with a number the message does not state (:func:`~agent.router.values.invented`,
        or, for a parameter ``declared`` a string (not one the spec's plain description leaves untyped),
        a bare number the message says only in words, "1" for 一楼: then nothing, when the message
        has no words for it, and a required value is missing)."""
        options = self.options
        made_up = options.copy_invented and "copy_from" not in filters and "allowed" not in filters and (
            invented(value, text) or declared and unsaid_number(value, text))
        if made_up or options.copy_foreign and "copy_from" not in filters and (foreign(value, text) or unstated(value, text)):
            cursor.rewind(start)
            copied = clean_value(cursor.until('"', options.max_value_tokens, **filters, copy_from=text))
            if made_up:  # nothing when the message has nothing for it
                return "" if invented(copied, text) else worth_copying(value, copied)  # "0" of 2700 copied again
            if copied and not invented(copied, text) and (foreign(value, copied) or not foreign(copied, text)):  # its own words
                return copied
            rewrite(cursor, start, value, "opening" in filters)
        elif options.copy_foreign and "allowed" not in filters and (as_said := respelled(value, text)) != value:
            rewrite(cursor, start, as_said, "opening" in filters)
            return as_said
        return value
