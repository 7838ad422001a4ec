"""The agent loop with the scripted provider: decisions, tool faults, protocols, history, storage."""

from __future__ import annotations

import threading

import pytest

from agent.loop import Agent, Event
from agent.providers.base import ToolsUnsupportedError
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.toolkit.runtime import ToolRunner
from agent.storage import open_store
from agent.tools import BaseTool, ToolManifest, ToolResult

RELEASE = threading.Event()


class Echo(BaseTool):
    def manifest(self):
        return ToolManifest("echo", "Repeat the text back", {"text": "what to repeat"}, ["say hi back", "echo this"])

    def execute(self, params):
        return ToolResult(True, "echo: " + params.get("text", ""))


class Raises(BaseTool):
    def manifest(self):
        return ToolManifest("raises", "Always fails", {}, ["fail", "break"])

    def execute(self, params):
        raise RuntimeError("disk on fire")


class Hangs(BaseTool):
    def manifest(self):
        return ToolManifest("hangs", "Never returns", {}, ["hang", "wait"], timeout=0.2)

    def execute(self, params):
        RELEASE.wait(30)
        return ToolResult(True, "late")


class WrongType(BaseTool):
    def manifest(self):
        return ToolManifest("wrong_type", "Returns a dict", {}, ["a", "b"])

    def execute(self, params):
        return {"success": True}


class Counter(BaseTool):
    def manifest(self):
        return ToolManifest("count", "Count to n", {"n": "how far"}, ["count to 3", "count"], parameter_types={"n": "int"},
                            required=["n"])

    def execute(self, params):
        return ToolResult(True, ",".join(str(i) for i in range(1, params["n"] + 1)))


class FakeRegistry:
    """A registry-shaped object over tool instances (the runner and loop need only this)."""

    def __init__(self, *tools):
        from agent.toolkit.registry import ToolEntry

        self._entries = {
            t.manifest().name: ToolEntry(t.manifest().name, t, t.manifest(), "<test>", type(t).__name__, None, "test", 0)
            for t in tools
        }

    def entry(self, name):
        return self._entries.get(name)

    def names(self):
        return sorted(self._entries)

    def manifests(self):
        return [self._entries[n].manifest for n in self.names()]


@pytest.fixture(autouse=True)
def release_hanging_tools():
    RELEASE.clear()
    yield
    RELEASE.set()


def make_agent(provider, *tools, protocol="auto", max_steps=4, store=None):
    registry = FakeRegistry(*(tools or (Echo(),)))
    return Agent(provider, registry, runner=ToolRunner(registry, timeout=5), store=store or open_store(":memory:"),
                 tool_protocol=protocol, max_steps=max_steps)


def test_tool_call_then_answer_and_result_injected():
    provider = ScriptedProvider([ToolCall("echo", {"text": "hi"}), "The tool said: echo: hi"])
    events: list[Event] = []
    result = make_agent(provider).ask("say hi back", on_event=events.append)
    assert result.answer == "The tool said: echo: hi"
    assert [(o.name, o.success, o.data) for o in result.tool_calls] == [("echo", True, "echo: hi")]
    second = provider.requests[1]["messages"]
    assert second[-1] == {"role": "tool", "tool_call_id": "call_1_0", "content": "echo: hi"}
    assert [t["function"]["name"] for t in provider.requests[0]["tools"]] == ["echo"]
    kinds = [e.kind for e in events]
    assert kinds.index("tool_start") < kinds.index("tool_end") < kinds.index("text")


@pytest.mark.parametrize(
    "tool,call,expected",
    [
        (Raises(), ToolCall("raises"), "tool 'raises' raised RuntimeError: disk on fire"),
        (Hangs(), ToolCall("hangs"), "tool 'hangs' did not finish within 0.2 s and was abandoned"),
        (WrongType(), ToolCall("wrong_type"), "tool 'wrong_type' returned dict, not a ToolResult"),
        (Echo(), ToolCall("nope", {}), "unknown tool 'nope'; available tools: echo"),
        (Echo(), ToolCall("echo", '{"text": "unterminated'), "the arguments for 'echo' are not a JSON object"),
        (Counter(), ToolCall("count", {"n": "three"}), "parameter 'n': must be an integer, got 'three'"),
    ],
    ids=["raises", "hangs", "not-a-toolresult", "unknown-tool", "malformed-arguments", "bad-parameter"],
)
def test_faults_become_failed_results_the_model_sees(tool, call, expected):
    provider = ScriptedProvider([call, "Sorry, that did not work."])
    store = open_store(":memory:")
    result = make_agent(provider, tool, store=store).ask("do it")
    assert result.answer == "Sorry, that did not work."
    [outcome] = result.tool_calls
    assert outcome.success is False
    assert expected in outcome.error
    shown = provider.requests[1]["messages"][-1]["content"]
    assert shown.startswith("ERROR: ") and expected in shown
    [row] = store.tool_calls()
    assert row["success"] is False and expected in row["error"]
    assert [m.role for m in store.messages(result.conversation_id)] == ["user", "assistant"]


def test_typed_parameter_is_coerced_and_a_bad_one_can_be_corrected():
    provider = ScriptedProvider([ToolCall("count", {"n": "three"}), ToolCall("count", {"n": "3"}), "1,2,3"])
    result = make_agent(provider, Counter()).ask("count to three")
    assert [o.success for o in result.tool_calls] == [False, True]
    assert result.tool_calls[1].params == {"n": 3}
    assert result.tool_calls[1].data == "1,2,3"


def test_parallel_calls_run_together_and_keep_their_order():
    provider = ScriptedProvider([[ToolCall("echo", {"text": "a"}), ToolCall("echo", {"text": "b"})], "ab"])
    result = make_agent(provider).ask("two echoes")
    assert [o.data for o in result.tool_calls] == ["echo: a", "echo: b"]
    tool_msgs = [m for m in provider.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_msgs] == ["echo: a", "echo: b"]


def test_steps_are_bounded_and_the_model_must_answer_at_the_end():
    provider = ScriptedProvider([ToolCall("echo", {"text": str(i)}) for i in range(2)] + ["final answer"])
    result = make_agent(provider, max_steps=2).ask("loop forever")
    assert len(result.tool_calls) == 2
    assert result.answer == "final answer"
    assert provider.requests[-1]["tools"] is None
    assert "tool budget" in provider.requests[-1]["messages"][-1]["content"]


def test_a_model_that_keeps_calling_tools_past_the_budget_gets_a_clear_answer():
    provider = ScriptedProvider([ToolCall("echo", {"text": str(i)}) for i in range(3)])
    result = make_agent(provider, max_steps=2).ask("loop forever")
    assert len(result.tool_calls) == 2
    assert result.answer.startswith("I stopped after 2 rounds of tool calls")


def test_a_call_asked_for_again_is_not_run_again_and_the_model_answers_from_its_result():
    """A small model often repeats the call it just made instead of answering: the call's result is in,
    so it is not run a second time and the model is asked for the answer (without tools)."""
    provider = ScriptedProvider([ToolCall("echo", {"text": "x"}), ToolCall("echo", {"text": "x"}), "It said x."])
    result = make_agent(provider, max_steps=4).ask("echo x")
    assert [o.params for o in result.tool_calls] == [{"text": "x"}]
    assert result.answer == "It said x."
    assert not provider.requests[-1].get("tools")  # the answer is asked for without tools


def test_a_model_that_keeps_calling_where_it_was_asked_to_answer_gets_the_results_as_its_answer():
    """Asked to answer from a result it has, a small model may ask for the call once more: the answer is
    then made of the results, said so, and the call is not run again."""
    provider = ScriptedProvider([ToolCall("echo", {"text": "x"}), ToolCall("echo", {"text": "x"}), ToolCall("echo", {"text": "x"})])
    events: list[Event] = []
    result = make_agent(provider, max_steps=4).ask("echo x", on_event=events.append)
    assert [o.params for o in result.tool_calls] == [{"text": "x"}]
    assert "echo: x" in result.answer and "stopped after" not in result.answer
    assert [e.text for e in events if e.kind == "notice"] == [
        "the model asked for its tools again instead of answering; the answer is made of the tool results"]
    assert len(provider.requests) == 3


def test_json_protocol_parses_repairs_once_and_reports_garbage():
    provider = ScriptedProvider(
        ['{"tool_calls": [{"name": "echo", "params": {"text": "x"}', '{"tool": "echo", "params": {"text": "x"}}', "done"],
        native_tools=False,
    )
    events: list[Event] = []
    result = make_agent(provider, protocol="json").ask("echo x", on_event=events.append)
    assert result.answer == "done"
    assert result.tool_calls[0].data == "echo: x"
    assert any(e.kind == "notice" and "asking it to repair" in e.text for e in events)
    assert "could not be read as a tool call" in provider.requests[1]["messages"][-1]["content"]

    garbage = ScriptedProvider(["{broken", "{still broken"], native_tools=False)
    result = make_agent(garbage, protocol="json").ask("echo x")
    assert "could not be read" in result.answer and result.tool_calls == []


def test_json_protocol_plain_text_answer_streams():
    provider = ScriptedProvider(["Hello there!"], native_tools=False)
    events: list[Event] = []
    result = make_agent(provider, protocol="json").ask("hi", on_event=events.append)
    assert result.answer == "Hello there!"
    assert "".join(e.text for e in events if e.kind == "text") == "Hello there!"
    assert "echo" in provider.requests[0]["messages"][0]["content"]


def test_auto_falls_back_to_json_when_native_tools_are_rejected():
    def reject(messages, tools):
        raise ToolsUnsupportedError("endpoint rejected tools (400)")

    provider = ScriptedProvider([reject, '{"tool": "echo", "params": {"text": "y"}}', "ok"])
    result = make_agent(provider).ask("echo y")
    assert result.protocol == "json" and result.answer == "ok"
    assert result.tool_calls[0].data == "echo: y"


def test_history_is_kept_per_conversation():
    store = open_store(":memory:")
    provider = ScriptedProvider(["first answer", "second answer", "other"])
    agent = make_agent(provider, store=store)
    one = agent.ask("first question")
    agent.ask("second question", conversation_id=one.conversation_id)
    agent.ask("unrelated")
    contents = [m["content"] for m in provider.requests[1]["messages"][1:]]
    assert contents == ["first question", "first answer", "second question"]
    assert [m["content"] for m in provider.requests[2]["messages"][1:]] == ["unrelated"]


class Speaks(BaseTool):
    """Says which language it would write in."""

    def __init__(self, config=None):
        super().__init__({"language": "en"})

    def manifest(self):
        return ToolManifest("speaks", "Which language to write in", {}, ["which language?"])

    def execute(self, params):
        return ToolResult(True, self.language)


@pytest.mark.parametrize("message,language", [("你好，用哪种语言？", "zh"), ("どの言語で書く？", "ja"), ("which language?", "en"), ("42", "en")])
def test_tools_write_in_the_language_of_the_message_while_the_agent_answers_it(message, language):
    tool = Speaks()
    provider = ScriptedProvider([ToolCall("speaks"), "ok"])
    result = Agent(provider, FakeRegistry(tool)).ask(message)
    assert result.tool_calls[0].data == language
    assert tool.language == "en"  # outside a turn: the settings' language
