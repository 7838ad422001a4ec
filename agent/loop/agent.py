"""The agent loop: the model sees the manifests, calls tools, gets their results, answers.

One turn: store the user's message → the model decides (native function calling, or the JSON
protocol in the prompt) → the tool calls run (in parallel, each with a timeout) → their results are
injected into the context → the model answers or calls more tools, for at most ``max_steps`` rounds;
then it must answer. Everything that goes wrong with a tool or with the model's output becomes a
failed result the model sees, or a notice; only an unreachable model stops a turn.

With grounding on (``llm.grounding``), the answer goes through an :class:`~agent.loop.guard.AnswerGuard`:
failures are stated by Riverse, and an answer after tools ran is checked against their results
before it is shown.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from agent.i18n import pick, detect_language
from agent.config import Settings
import agent.loop.prompts as prompts
from agent.loop.events import Event, EventCallback, Reply, TurnResult
from agent.loop.guard import AnswerGuard, StopAnswer, grounding_on
from agent.loop.protocols import JsonProtocol, ToolProtocol, make_protocol
from agent.router.candidates import REMOTE_TOOLS, narrowed
from agent.router.encoder import encoder_for
from agent.providers.base import Provider, ToolCallRequest, ToolsUnsupportedError, capabilities_of
from agent.storage import Store, open_store
from agent.toolkit.base import ToolManifest, answering_in
from agent.toolkit.registry import ToolRegistry
from agent.toolkit.runtime import Approver, ToolOutcome, ToolRunner


class Agent:
    """One user's agent: a provider, a tool registry, a runner and a store."""

    def __init__(
        self,
        provider: Provider,
        registry: ToolRegistry,
        *,
        runner: ToolRunner | None = None,
        store: Store | None = None,
        language: str = "en",
        tool_protocol: str = "auto",
        max_steps: int = 4,
        history_turns: int = 8,
        parallel_tools: bool = True,
        grounding: str = "auto",
        cache_dir: Path | None = None,
    ):
        self.provider = provider
        self.registry = registry
        self.runner = runner or ToolRunner(registry)
        self.store = store or open_store(":memory:")
        self.language = language
        self.tool_protocol = tool_protocol
        self.max_steps = max_steps
        self.history_turns = history_turns
        self.parallel_tools = parallel_tools
        self.grounding = grounding
        self.cache_dir = cache_dir  # where retrieval keeps its vectors of tool texts
        #: the conversation of the turn being answered (protocols may read its earlier tool calls)
        self.conversation_id: str | None = None
        self._protocol: ToolProtocol | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, provider: Provider, registry: ToolRegistry, store: Store, approver: Approver | None = None
    ) -> "Agent":
        return cls(
            provider,
            registry,
            runner=ToolRunner.from_settings(registry, settings, approver),
            store=store,
            language=settings.language,
            tool_protocol=settings.llm.tool_protocol,
            max_steps=settings.llm.max_steps,
            history_turns=settings.llm.history_turns,
            parallel_tools=settings.runtime.parallel_tools,
            grounding=settings.llm.grounding,
            cache_dir=settings.home / "cache",
        )

    @property
    def protocol(self) -> ToolProtocol:
        if self._protocol is None:
            name = self.tool_protocol
            if name == "auto":
                capabilities = capabilities_of(self.provider)
                name = capabilities.preferred_protocol or ("native" if capabilities.native_tools else "json")
            self._protocol = make_protocol(name)
        return self._protocol

    @property
    def grounded(self) -> bool:
        """Whether answers are checked against the tool results (``llm.grounding``)."""
        return grounding_on(self.grounding, self.protocol.name, self.provider)

    def ask(self, text: str, conversation_id: str | None = None, on_event: EventCallback | None = None) -> TurnResult:
        with answering_in(detect_language(text, self.language)):
            return self._ask(text, conversation_id, on_event)

    def _ask(self, text: str, conversation_id: str | None, on_event: EventCallback | None) -> TurnResult:
        emit = on_event or (lambda event: None)
        cid = self.store.ensure_conversation(conversation_id)
        self.conversation_id = cid
        history = self.store.history(cid, self.history_turns)
        self.store.add_message(cid, "user", text)
        manifests = self._offered(self.registry.manifests(), text, cid)
        messages = self.opening_messages(text, manifests, history)
        guard = self._guard(text)
        outcomes: list[ToolOutcome] = []
        reply = Reply()
        step = 0
        made: set[str] = set()  # the calls of this turn, so that one asked for again is not run again
        repeated = False
        for step in range(1, self.max_steps + 2):
            final = step > self.max_steps or repeated
            if guard.compose_now(outcomes):
                break
            if final:
                messages.append({"role": "user", "content": pick(prompts.FINAL_ONLY, self.language)})
            reply = self._next(messages, [] if final else manifests, guard, guard.watch(emit, outcomes))
            if not reply.calls or final:
                break
            keys = [json.dumps([c.name, c.arguments], sort_keys=True, ensure_ascii=False, default=str) for c in reply.calls]
            if all(key in made for key in keys):  # the same calls again: their results are in, so answer now
                repeated = True
                continue
            made.update(keys)
            calls = [(c.name, c.arguments, c.id or f"call_{step}_{i}") for i, c in enumerate(reply.calls)]
            for name, params, _ in calls:
                emit(Event("tool_start", name=name, params=params if isinstance(params, dict) else {"_raw": params}))
            results = self.runner.run_many(calls, parallel=self.parallel_tools)
            for outcome in results:
                self.store.add_tool_call(cid, outcome)
                emit(Event("tool_end", name=outcome.name, params=outcome.params, outcome=outcome))
            outcomes.extend(results)
            self.protocol.inject(messages, reply, results, self.language)
            reply = Reply()
        if reply.calls and not reply.text and repeated and any(o.success for o in outcomes):
            answer = guard.from_results(outcomes, emit)  # asked to answer, it called again: its results answer
        elif reply.calls and not reply.text:  # still calling tools after the budget: say so instead of nothing
            answer = pick(prompts.BUDGET_EXHAUSTED, self.language).format(steps=self.max_steps)
            emit(Event("notice", text=answer))
            emit(Event("text", text=answer))
        else:
            answer = guard.finish(reply, outcomes, emit)
            if not answer.strip():  # no text and no call: never a silent empty answer
                answer = pick(prompts.NO_ANSWER, self.language)
                emit(Event("notice", text=answer, name="no_answer"))
                emit(Event("text", text=answer))
            elif answer == reply.text and reply.raw is not None and reply.raw.finish_reason == "length":
                emit(Event("notice", text=pick(prompts.CUT_AT_MAX_TOKENS, self.language)))
        self.store.add_message(cid, "assistant", answer)
        return TurnResult(answer, outcomes, cid, self.protocol.name, step)

    def _offered(self, manifests: list[ToolManifest], text: str, conversation_id: str) -> list[ToolManifest]:
        """The tools a remote model is sent for this message: every one when they are few; else those
        retrieval finds likeliest, with the conversation's last tools (the router narrows its own)."""
        if self.protocol.name == "router" or len(manifests) <= REMOTE_TOOLS:
            return manifests
        try:
            recent = [call["name"] for call in self.store.tool_calls(limit=3, conversation=conversation_id)]
        except Exception:  # noqa: BLE001 - a store without the log gives no evidence
            recent = []
        return narrowed(manifests, text, REMOTE_TOOLS, recent, self.provider, encoder_for(self.cache_dir))

    def _guard(self, text: str) -> AnswerGuard:
        language = detect_language(text, self.language)
        return AnswerGuard(self.grounded, text, language, self.protocol, self.language)

    def answer_after(
        self, text: str, outcomes: list[ToolOutcome], history: list[dict] | None = None, on_event: EventCallback | None = None
    ) -> str:
        """The answer to ``text`` once ``outcomes`` are this turn's tool results, as :meth:`ask` gives
        it (nothing is stored; the benchmark of answers feeds results in this way)."""
        emit = on_event or (lambda event: None)
        with answering_in(detect_language(text, self.language)):
            messages = self.opening_messages(text, self.registry.manifests(), history)
            calls = [ToolCallRequest(o.name, o.params, o.call_id or f"call_{i}") for i, o in enumerate(outcomes)]
            outcomes = [replace(o, call_id=call.id) for o, call in zip(outcomes, calls)]
            self.protocol.inject(messages, Reply(calls=calls), outcomes, self.language)
            guard = self._guard(text)
            reply = Reply() if guard.compose_now(outcomes) else self._next(messages, [], guard, guard.watch(emit, outcomes))
            return guard.finish(reply, outcomes, emit)

    def opening_messages(self, text: str, manifests: list[ToolManifest], history: list[dict] | None = None) -> list[dict]:
        """What the model is sent first in a turn (also what ``riverse tools eval`` asks it)."""
        return [
            {"role": "system", "content": self.protocol.system_prompt(self.language, manifests)},
            *(history or []),
            {"role": "user", "content": text},
        ]

    def _next(self, messages: list[dict], manifests: list[ToolManifest], guard: AnswerGuard, emit: EventCallback) -> Reply:
        try:
            return self._protocol_next(messages, manifests, emit)
        except StopAnswer:  # the guard ended a generation that repeated itself or ran too long
            return guard.stopped()

    def _protocol_next(self, messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        try:
            return self.protocol.next(self, messages, manifests, emit)
        except ToolsUnsupportedError as exc:
            if self.tool_protocol != "auto" or self.protocol.name != "native":
                raise
            emit(Event("notice", text=f"{exc.reason}; switching to the JSON tool protocol"))
            self._protocol = JsonProtocol()
            messages[0] = {"role": "system", "content": self._protocol.system_prompt(self.language, manifests)}
            return self._protocol.next(self, messages, manifests, emit)
