"""The agent loop's protocol for small local models: one routed decision, then one grounded answer.

The answer after tools ran is asked from a small prompt: the question and what the successful calls
returned (failures are stated by Riverse, see :mod:`agent.loop.guard`), without earlier turns, whose
answers a small model would copy. With grounding on, a message that no tool answered but that asks
for live data gets a reason instead of a model's guess (:mod:`agent.router.live_data`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from agent.i18n import detect_language, pick
import agent.loop.prompts as prompts
from agent.loop.answers import LiveData, live_data_answer
from agent.loop.events import Event, EventCallback, Reply
from agent.loop.grounding import cut_loop, is_echo, unsupported_figures
from agent.loop.guard import HeldAnswer, StopAnswer
from agent.loop.protocols import NativeProtocol
from agent.providers.base import Completion, ToolCallRequest
from agent.router.context import Call, Exchange, previous_exchange
from agent.router.decision import Router
from agent.router.live_data import LiveDataFinder
from agent.router.prompt import Decision, none_label
from agent.router.requests import decide_next_step, decide_requests
from agent.router.texts import ANSWER_LANGUAGE, GROUNDED, NOT_LOOKED_UP, PREPARING, UNREADABLE
from agent.toolkit.base import ToolManifest
from agent.toolkit.runtime import ToolOutcome

if TYPE_CHECKING:
    from agent.loop.agent import Agent
    from agent.router.written import Progress


class RouterProtocol:
    """The agent loop's protocol for small local models (``tool_protocol: router``).

    One tool decision per user message (see the module docstring), then one grounded answer; the
    answer never calls another tool (a 0.5B model does not chain tools reliably).
    """

    name = "router"
    prepares_prompts = True
    #: one decision per message: after tools ran comes the answer (an all-failed turn needs no model)
    decides_once = True
    #: the answer prompt holds the successful results only
    shows_failures = False
    #: the wording of the answer prompts, which an answer must not repeat
    answer_instructions = prompts.instruction_pieces(GROUNDED, ANSWER_LANGUAGE, prompts.SYSTEM)
    #: the longest answer after tools ran, in tokens
    answer_tokens = 128

    def __init__(self, router: Router | None = None):
        self.router = router or Router()
        self.live_data = LiveDataFinder()
        #: turns (by their message list) whose decision left another tool nearly as likely: after the
        #: results, a second step is decided (see ``Decision.follows``)
        self._may_chain: set[int] = set()

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        return pick(prompts.SYSTEM, language)

    def prepare(self, agent: "Agent", languages: list[str], progress: Progress | None = None) -> dict[str, bool]:
        """Prepare the tool prompt of each language ahead of the first message (see
        :meth:`Router.prepare`); returns, per language, whether it had to be evaluated."""
        done = {}
        for language in languages:
            manifests = _in_language(agent, agent.registry.manifests(), language)
            done[language] = self.router.prepare(agent.provider, manifests, language, progress) if manifests else False
        return done

    def next(self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        question, position, tools_ran = _turn(messages)
        if not tools_ran:
            self._may_chain.discard(id(messages))
        language = detect_language(question, agent.language)
        if tools_ran:
            more = self._next_step(agent, messages, manifests, question, position, language)
            if more is not None:
                return more
            bound = self.answer_tokens if agent.grounded else None
            return self._answer(agent, _grounded(messages, question, position, language), emit, bound)
        decision: Decision | None = None
        live: LiveData | None = None
        manifests = _in_language(agent, manifests, language)
        if manifests:
            if not self.router.is_prepared(agent.provider, manifests, language):
                emit(Event("notice", text=pick(PREPARING, language)))
                self.router.prepare(agent.provider, manifests, language)
            context = previous_exchange(agent.store, agent.conversation_id)
            decisions = decide_requests(self.router, agent.provider, manifests, question, language, context)
            decision = decisions[0]
            if decision.error:
                emit(Event("notice", text=pick(UNREADABLE, agent.language).format(error=decision.error)))
            elif decision.tool is not None:
                calls = [ToolCallRequest(name=d.tool, arguments=d.params, id=f"call_router_{i}")
                         for i, d in enumerate(decisions) if d.tool is not None]
                if decision.follows:  # a part works on the results, or a tool was close behind (decide_requests)
                    self._may_chain.add(id(messages))
                return Reply(calls=calls, raw=Completion(tool_calls=calls))
        if agent.grounded:
            none = none_label(manifests)
            live = self.live_data.find(agent, manifests, decision, question, language, none)
            if live is not None and live.certain:
                text = live_data_answer(live, language)
                emit(Event("text", text=text))
                return Reply(text=text, streamed=True)
        answer_messages = list(messages)
        answer_messages[0] = {"role": "system", "content": f"{messages[0]['content']} {pick(ANSWER_LANGUAGE, language)}"}
        if agent.grounded:
            # near a tool's examples, or after a tool ran in this conversation: the answer may state
            # only the user's own figures (earlier answers' figures belong to earlier questions)
            suspect = live or self.live_data.follow_up(agent, language)
            if suspect is not None:
                asked = [question, *(m.get("content") or "" for m in messages[1:position] if m.get("role") == "user")]
                return self._checked_answer(agent, answer_messages, emit, asked, suspect, language)
        return self._answer(agent, answer_messages, emit)

    def _next_step(
        self, agent: "Agent", messages: list[dict], manifests: list[ToolManifest], question: str, position: int,
        language: str,
    ) -> Reply | None:
        """A call that needs this turn's results (see :func:`decide_next_step`), within ``llm.max_steps``."""
        if id(messages) not in self._may_chain:
            return None
        self._may_chain.discard(id(messages))
        calls = _calls_of_turn(messages, position)
        steps = sum(1 for m in messages[position + 1 :] if m.get("tool_calls"))
        manifests = _in_language(agent, manifests, language)
        if not manifests or steps >= agent.max_steps or not any(call.ok for call in calls):
            return None
        context = previous_exchange(agent.store, agent.conversation_id).then(Exchange(question, calls))
        decision = decide_next_step(self.router, agent.provider, manifests, question, language, context)
        if decision is None or decision.tool is None:
            return None
        call = ToolCallRequest(name=decision.tool, arguments=decision.params, id=f"call_router_step{steps + 1}")
        return Reply(calls=[call], raw=Completion(tool_calls=[call]))

    def _checked_answer(
        self, agent: "Agent", messages: list[dict], emit: EventCallback, asked: list[str], live: LiveData, language: str
    ) -> Reply:
        """The model's answer to a message that may ask for live data: held, and replaced by why it was
        not looked up when it states a figure (a number, time, date, temperature, amount) that none of
        ``asked`` (the messages it may draw on) holds, or repeats the question. Names are not checked
        here: an answer from general knowledge names things (Paris), live data is in its figures."""

        def invents(text: str) -> bool:
            return bool(unsupported_figures(text, asked))

        held = HeldAnswer(emit, invents)
        try:
            text = self._answer(agent, messages, held, self.answer_tokens).text
        except StopAnswer:
            text = held.kept
        text = cut_loop(text)
        if invents(text) or is_echo(text, asked[0]) or not text.strip():
            emit(Event("notice", text=pick(NOT_LOOKED_UP, agent.language)))
            text = live_data_answer(live, language)
        emit(Event("text", text=text))
        return Reply(text=text, streamed=True)

    @staticmethod
    def _answer(agent: "Agent", messages: list[dict], emit: EventCallback, max_tokens: int | None = None) -> Reply:
        on_text = lambda piece: emit(Event("text", text=piece))  # noqa: E731
        if max_tokens is None:
            completion = agent.provider.complete(messages, on_text=on_text)
        else:
            completion = agent.provider.complete(messages, on_text=on_text, max_tokens=max_tokens)
        return Reply(text=completion.text, raw=completion, streamed=True)

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[ToolOutcome], language: str) -> None:
        """The calls and their results, as OpenAI-style assistant ``tool_calls`` and ``tool`` messages
        (each marked with whether it succeeded: only successes go into the answer prompt)."""
        NativeProtocol().inject(messages, reply, outcomes, language)
        results = messages[len(messages) - len(outcomes) :]
        for message, outcome in zip(results, outcomes):
            message["riverse_success"] = outcome.success


def _calls_of_turn(messages: list[dict], position: int) -> list[Call]:
    """The calls made for the question at ``position`` so far, with what each returned."""
    results = {m.get("tool_call_id"): m for m in messages[position + 1 :] if m.get("role") == "tool"}
    calls = []
    for message in messages[position + 1 :]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                params = json.loads(function.get("arguments") or "{}")
            except ValueError:
                params = {}
            result = results.get(call.get("id")) or {}
            calls.append(Call(function.get("name", ""), params if isinstance(params, dict) else {},
                              str(result.get("content", "")), bool(result.get("riverse_success", True))))
    return calls


def _in_language(agent: "Agent", manifests: list[ToolManifest], language: str) -> list[ToolManifest]:
    """``manifests`` as their tools write them for ``language``: a 0.5B model matches a Chinese
    message against Chinese descriptions and examples far better than against English ones.
    Unchanged in the agent's own language."""
    if language == agent.language:
        return manifests
    localized = {m.name: m for m in agent.registry.manifests(language)}
    return [localized.get(m.name, m) for m in manifests]


def _turn(messages: list[dict]) -> tuple[str, int, bool]:
    """The user's question, its position, and whether tools already ran for it.

    Stored history holds only plain user/assistant messages, so an assistant message with
    ``tool_calls`` belongs to this turn and follows the question.
    """
    position = next((i for i in range(len(messages) - 1, 0, -1) if messages[i].get("tool_calls")), None)
    tools_ran = position is not None
    if position is None:
        position = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), len(messages))
    else:
        position -= 1
    content = messages[position].get("content") if position < len(messages) else ""
    return (content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)), position, tools_ran


def _grounded(messages: list[dict], question: str, position: int, language: str) -> list[dict]:
    """The answer prompt after tools ran: the system prompt, then the question and the results of
    the calls that succeeded in one message. Earlier turns are left out: their answers hold other
    figures, which a small model copies instead of the new result."""
    lines = []
    for message in messages[position + 1 :]:
        if message.get("role") == "tool" and message.get("riverse_success", True):
            lines.append(f"- {message.get('content', '')}")
    system = {"role": "system", "content": f"{messages[0]['content']} {pick(ANSWER_LANGUAGE, language)}"}
    user = {
        "role": "user",
        "content": pick(GROUNDED, language).format(question=question, results="\n".join(lines)),
    }
    return [system, user]
