"""The server's fair queue covers every use of a one-at-a-time model: answers, tool decisions (a reply
cursor held for the whole decision), sentence vectors and prompt preparation, and reports every wait."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy
import pytest

from agent.providers.base import Capabilities, ProviderError, capabilities_of, prefix_cache, scored_decoding, sentence_vectors
from agent.providers.fake import ScriptedProvider
from agent.router import Router
from agent.server.turns import FairGate, QueuedProvider
from agent.tools import ToolManifest
from tests.helpers.cursor import FakeCursor
from tests.helpers.waiting import wait_until

WEATHER = ToolManifest("weather", "Current weather of a city", {"city": "City name"}, ["Weather in Tokyo?"],
                       required=["city"], extra_examples=["Do I need an umbrella in Oslo?"])


class SingleModel:
    """A model with every capability that records which uses overlapped (none may)."""

    name = "single"
    capabilities = Capabilities(scored_decoding=True, sentence_vectors=True, prefix_cache=True, concurrency=1,
                                preferred_protocol="router")

    def __init__(self) -> None:
        self.busy = 0
        self.overlaps = 0
        self.uses: list[str] = []
        self.inside = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.kept: list = []

    @contextmanager
    def _use(self, what: str):
        self.busy += 1
        self.overlaps += self.busy > 1
        self.uses.append(what)
        try:
            yield
        finally:
            self.busy -= 1

    def complete(self, messages, **kwargs):
        from agent.providers.base import Completion

        with self._use("complete"):
            self.inside.set()
            self.release.wait(10)
            return Completion(text="ok")

    @contextmanager
    def open_reply(self, messages, *, keep=0):
        with self._use("open_reply"):
            yield FakeCursor({"weather": 0.0}, ["Oslo"])

    def embed(self, texts, *, keep=False):
        self.uses.append("embed")  # within a decision: the decision already holds the model
        return numpy.stack([numpy.array([1.0, 0.0]) if "umbrella" in t.lower() else numpy.array([0.6, 0.8]) for t in texts])

    def has_embedded(self, texts):
        return False

    def load(self):
        with self._use("load"):
            pass

    def has_prefix(self, messages):
        with self._use("has_prefix"):
            return messages in self.kept

    def prepare_prefix(self, messages):
        with self._use("prepare_prefix"):
            self.kept.append(messages)

    def leaves_room(self, messages, room):
        with self._use("leaves_room"):
            return True


def test_the_queued_provider_declares_what_it_wraps_declares_and_no_more():
    plain = QueuedProvider(ScriptedProvider(native_tools=False), FairGate(), lambda ms: None)
    assert capabilities_of(plain) == Capabilities(native_tools=False)
    assert scored_decoding(plain) is None and sentence_vectors(plain) is None and prefix_cache(plain) is None
    with pytest.raises(ProviderError, match="has no scored decoding"):
        with plain.open_reply([]):
            pass
    full = QueuedProvider(SingleModel(), FairGate(), lambda ms: None)
    assert capabilities_of(full) == SingleModel.capabilities and full.name == "single"


def test_a_decision_waits_for_an_answer_in_progress_and_says_how_long():
    model, gate = SingleModel(), FairGate()
    answering = QueuedProvider(model, gate, lambda ms: None)
    waits: list[float] = []
    deciding = QueuedProvider(model, gate, waits.append)
    model.release.clear()
    answer = threading.Thread(target=lambda: answering.complete([{"role": "user", "content": "hi"}]))
    answer.start()
    assert model.inside.wait(10)
    decided: dict = {}
    decision = threading.Thread(target=lambda: decided.setdefault("d", Router().decide(deciding, [WEATHER], "umbrella in Oslo?", "en")))
    decision.start()
    wait_until(lambda: gate.waiting == 1, "the decision to queue behind the answer")
    assert "open_reply" not in model.uses  # it has not touched the model yet
    model.release.set()
    answer.join(10)
    decision.join(10)
    assert decided["d"].tool == "weather" and decided["d"].params == {"city": "Oslo"}
    assert len(waits) == 1 and waits[0] > 0  # one wait, reported once, for the whole decision
    assert model.overlaps == 0
    # the sentence vectors were asked for inside the decision's own hold of the model (no deadlock)
    assert model.uses.index("open_reply") < model.uses.index("embed")


def test_preparing_the_prompt_and_loading_go_through_the_queue():
    model, gate = SingleModel(), FairGate()
    waits: list[float] = []
    queued = QueuedProvider(model, gate, waits.append)
    with gate.hold():  # someone else holds the model
        done = threading.Event()

        def prepare() -> None:
            queued.load()
            Router().prepare(queued, [WEATHER], "en")
            done.set()

        worker = threading.Thread(target=prepare)
        worker.start()
        wait_until(lambda: gate.waiting == 1, "the preparation to queue")
        assert not model.uses
    worker.join(10)
    assert done.is_set() and waits and waits[0] > 0
    assert {"load", "has_prefix", "prepare_prefix", "embed"} <= set(model.uses) and model.overlaps == 0


def test_the_gate_lets_its_holder_in_again_and_others_still_queue():
    gate = FairGate()
    order: list[str] = []
    with gate.hold() as first:
        with gate.hold() as again:  # the same thread: no wait, no deadlock
            order.append(f"inner {again}")
        entered = threading.Event()

        def outsider() -> None:
            with gate.hold() as waited:
                order.append("outsider waited" if waited > 0 else "outsider went straight in")
                entered.set()

        other = threading.Thread(target=outsider)
        other.start()
        wait_until(lambda: gate.waiting == 1, "the other thread to queue")
        assert not entered.is_set()
    other.join(10)
    assert first == 0.0 and order == ["inner 0.0", "outsider waited"]
