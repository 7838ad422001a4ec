"""Answers that never invent: failures said by Riverse, answers checked against this turn's results,
live data never guessed, decoding that stops (the loop with the scripted provider, no model)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from agent.app import App
from agent.cli import cli
from agent.config import load_settings
from agent.loop import Agent, Event
from agent.loop.answers import compose
from agent.loop.guard import grounding_on
from agent.providers.base import Capabilities
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.server import create_app
from agent.storage import open_store
from agent.tools import ToolRegistry
from agent.toolkit.runtime import ToolOutcome
from tests.helpers.cursor import FakeCursor

TOOLS = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class Weather(BaseTool):
    def manifest(self):
        return ToolManifest("weather", "Current weather of a city", {"city": "City name"},
                            ["What's the weather like in Tokyo?", "东京今天天气怎么样？", "東京の天気は？"], required=["city"])

    def execute(self, params):
        if params["city"] in ("Nowhere", "无处"):
            return ToolResult(False, error="The weather service could not be reached: [Errno 111] Connection refused. Check the network connection.")
        return ToolResult(True, data=params["city"] + ": 31°C (feels like 34°C), Partly cloudy, humidity 62%")

class Clock(BaseTool):
    def manifest(self):
        return ToolManifest("current_time", "The current time in a city", {"timezone": "City"},
                            ["What time is it in New York?", "纽约现在几点？", "ニューヨークは今何時？"])

    def execute(self, params):
        return ToolResult(True, data="Tokyo (Asia/Tokyo): Monday, 2026-11-30 16:07:12 (UTC+09:00, JST)")

class Currency(BaseTool):
    def manifest(self):
        return ToolManifest("currency", "Convert money between currencies", {"amount": "number", "to": "currency"},
                            ["How much is 50 euros in yen?", "100美元是多少人民币？", "50ユーロは何円？"])

    def execute(self, params):
        return ToolResult(False, error="The exchange-rate service answered HTTP 503")

class Pages(BaseTool):
    def manifest(self):
        return ToolManifest("web_fetch", "Read a web page", {"url": "the link"},
                            ["Summarize https://example.com/news", "总结一下这个网页 https://example.com", "このページを要約して https://example.com"],
                            required=["url"])

    def execute(self, params):
        return ToolResult(True, data="Example news")

    def is_available(self):
        return False
'''

ERROR = "The weather service could not be reached: [Errno 111] Connection refused. Check the network connection."


@pytest.fixture
def registry(tmp_path) -> ToolRegistry:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    return ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False)


def routed(provider: Any, registry: ToolRegistry, **kwargs: Any) -> Agent:
    return Agent(provider, registry, tool_protocol="router", **kwargs)


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events if e.kind == "text"]


def decision(tool: str, **params: Any) -> str:
    return json.dumps({"tool": tool, "params": params})


# ------------------------------------------------------------------ failures said by Riverse
@pytest.mark.parametrize(
    "question,city,head",
    [
        ("What's the weather in Nowhere?", "Nowhere", "I could not get an answer from the tools this time."),
        ("无处今天天气怎么样？", "无处", "这次没能从工具得到结果。"),
    ],
)
def test_when_every_call_failed_riverse_says_which_why_and_what_to_do_without_the_model(registry, question, city, head):
    provider = ScriptedProvider([decision("weather", city=city)], native_tools=False)
    events: list[Event] = []
    result = routed(provider, registry).ask(question, on_event=events.append)
    assert len(provider.requests) == 1  # the decision; no model writes the answer
    assert result.answer.startswith(head + "\n")
    assert "weather" in result.answer and "[Errno 111] Connection refused" in result.answer
    assert "Check the network connection." in result.answer
    assert texts(events) == [result.answer]


def test_a_failed_user_tool_gets_its_error_and_what_to_do_in_the_users_language(registry):
    provider = ScriptedProvider([decision("currency", amount="50", to="JPY")], native_tools=False)
    answer = routed(provider, registry).ask("50ユーロは何円？").answer
    assert answer == ("今回はツールから結果を得られませんでした。\nツール currency が失敗しました：The exchange-rate service answered "
                      "HTTP 503。しばらくしてから試すか、別の言い方で聞いてください。")


def test_partly_failed_the_model_answers_the_successes_and_riverse_states_the_failure(registry):
    provider = ScriptedProvider([
        [ToolCall("current_time", {"timezone": "Tokyo"}), ToolCall("weather", {"city": "Nowhere"})],
        "It is 16:07 on Monday in Tokyo.",
    ])
    events: list[Event] = []
    agent = Agent(provider, registry, tool_protocol="native", grounding="on")
    result = agent.ask("What time is it in Tokyo, and what's the weather in Nowhere?", on_event=events.append)
    assert result.answer == f"It is 16:07 on Monday in Tokyo.\nThe weather tool failed: {ERROR}"
    assert texts(events) == [result.answer]


# ------------------------------------------------------------- an answer about this turn's results
def test_the_answer_prompt_holds_the_question_and_the_successful_results_only(registry):
    store = open_store(":memory:")
    cid = store.new_conversation()
    store.add_message(cid, "user", "What's the weather in Paris?")
    store.add_message(cid, "assistant", "Paris: 12°C, light rain.")
    provider = ScriptedProvider([decision("weather", city="Tokyo"), "It's 31°C and partly cloudy in Tokyo."], native_tools=False)
    result = routed(provider, registry, store=store).ask("And in Tokyo?", conversation_id=cid)
    assert result.answer == "It's 31°C and partly cloudy in Tokyo."
    system, user = provider.requests[-1]["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert user["content"].startswith("And in Tokyo?\n\nTool results:\n- Tokyo: 31°C (feels like 34°C)")
    assert "Paris" not in user["content"] and "12°C" not in user["content"]


@pytest.mark.parametrize(
    "answer,problem",
    [
        ("It's 12°C and light rain in Tokyo.", "the figure '12' is in neither the results nor the question"),
        ("And in Tokyo?", "the answer repeats the question"),
        ("Quote their numbers as given and do not add facts.", "repeats the prompt's instructions"),
        ("The tool failed.", "the answer claims a failure that did not happen"),
        ("Let me think about Tokyo.", "the answer does not mention the result of weather"),
    ],
)
def test_an_answer_that_fails_the_check_is_replaced_before_anything_is_shown(registry, answer, problem):
    provider = ScriptedProvider([decision("weather", city="Tokyo"), answer], native_tools=False)
    events: list[Event] = []
    result = routed(provider, registry).ask("And in Tokyo?", on_event=events.append)
    assert result.answer == "Tokyo: 31°C (feels like 34°C), Partly cloudy, humidity 62%"
    assert texts(events) == [result.answer]  # the model's answer was never shown, not even in part
    notices = [e.text for e in events if e.kind == "notice"]
    assert len(notices) == 1 and problem in notices[0]


def test_a_faithful_answer_is_kept_and_shown_once_checked(registry):
    provider = ScriptedProvider([decision("weather", city="东京"), "东京现在31度，体感34度，局部多云。"], native_tools=False)
    events: list[Event] = []
    result = routed(provider, registry).ask("东京今天天气怎么样？", on_event=events.append)
    assert result.answer == "东京现在31度，体感34度，局部多云。"
    assert texts(events) == [result.answer]


def test_an_answer_that_repeats_itself_is_cut_and_its_generation_ended(registry):
    line = "It's 31°C in Tokyo. "
    provider = ScriptedProvider([decision("weather", city="Tokyo"), line * 40], native_tools=False)
    pieces: list[str] = []
    provider_complete = provider.complete

    def counting(messages, **kwargs):
        on_text = kwargs.get("on_text")
        if on_text:
            kwargs["on_text"] = lambda piece: (pieces.append(piece), on_text(piece))
        return provider_complete(messages, **kwargs)

    provider.complete = counting
    result = routed(provider, registry).ask("Weather in Tokyo?")
    assert result.answer == line.strip()
    assert len("".join(pieces)) < len(line) * 3  # ended soon after the repeat, not at the end of the text


def test_without_grounding_the_answer_is_the_models_as_before(registry):
    provider = ScriptedProvider([decision("weather", city="Nowhere"), "It is 22°C in Nowhere."], native_tools=False)
    events: list[Event] = []
    result = routed(provider, registry, grounding="off").ask("What's the weather in Nowhere?", on_event=events.append)
    assert result.answer == "It is 22°C in Nowhere."
    assert "".join(texts(events)) == "It is 22°C in Nowhere."


# ---------------------------------------------------------------------- no invented live data
def test_live_data_from_a_tool_that_is_off_is_not_guessed(registry):
    provider = ScriptedProvider([decision("none")], native_tools=False)
    result = routed(provider, registry).ask("Summarize https://example.com/today for me")
    assert len(provider.requests) == 1  # the decision only
    assert result.answer.startswith("I can't look that up: the web_fetch tool is not available (")
    assert "is_available() returned False" in result.answer or "not available" in result.answer


def test_a_follow_up_after_a_failed_call_says_the_tool_failed(registry):
    store = open_store(":memory:")
    agent = routed(ScriptedProvider([decision("weather", city="无处")], native_tools=False), registry, store=store)
    first = agent.ask("无处今天天气怎么样？")
    agent.provider = ScriptedProvider([decision("none")], native_tools=False)
    follow_up = agent.ask("那明天天气呢？", conversation_id=first.conversation_id)
    assert follow_up.answer.startswith("我查不了这个：上次调用工具 weather 失败了（")
    assert ERROR in follow_up.answer
    assert len(agent.provider.requests) == 1


class ScoringProvider:
    """Scored decoding, as the embedded model has: scripted log-probabilities and values."""

    name = "scoring"
    capabilities = Capabilities(scored_decoding=True)

    def __init__(self, scores: dict[str, float], values: list[str], answer: str = "It will be sunny, 25°C."):
        self.cursor = FakeCursor(scores, list(values))
        self.answers: list[list[dict]] = []
        self.answer = answer

    @contextmanager
    def open_reply(self, messages, *, keep=0):
        yield self.cursor

    def complete(self, messages, **kwargs):
        from agent.providers.base import Completion
        self.answers.append(messages)
        if kwargs.get("on_text"):
            kwargs["on_text"](self.answer)
        return Completion(text=self.answer)


def test_a_follow_up_that_lacks_what_the_tool_needs_says_so_instead_of_inventing(registry):
    provider = ScoringProvider({"weather": 0.0, "none": -9.0, "current_time": -9.0, "currency": -9.0}, [""])
    result = routed(provider, registry).ask("And tomorrow?")
    assert provider.answers == []  # no model answer: it would invent the weather
    assert result.answer.startswith("I can't look that up yet: the weather tool needs city (City name)")
    assert "What's the weather like in Tokyo?" in result.answer


def test_messages_that_ask_for_no_live_data_are_answered_by_the_model(registry):
    provider = ScriptedProvider([decision("none"), "Hello! How can I help?"], native_tools=False)
    assert routed(provider, registry).ask("hello there").answer == "Hello! How can I help?"


def test_a_sentence_said_again_without_tools_is_never_shown(registry):
    provider = ScriptedProvider([decision("none"), "Hello there. I am fine. Hello there. Hello there."], native_tools=False)
    events: list[Event] = []
    result = routed(provider, registry).ask("hello", on_event=events.append)
    assert result.answer == "Hello there. I am fine."
    assert "".join(texts(events)).strip() == "Hello there. I am fine."


# --------------------------------------------------------------------------------- every provider
def test_grounding_is_on_by_default_for_small_local_models_and_available_for_any(registry):
    fake = ScriptedProvider()
    assert not grounding_on("auto", "native", fake) and grounding_on("on", "native", fake)
    assert grounding_on("auto", "router", fake) and not grounding_on("off", "router", fake)
    assert grounding_on("auto", "json", ScoringProvider({}, []))
    assert load_settings(overrides={"llm.grounding": "on"}).llm.grounding == "on"
    assert load_settings(env={"RIVERSE_GROUNDING": "off"}).llm.grounding == "off"
    provider = ScriptedProvider([ToolCall("weather", {"city": "Tokyo"}), "It is 19°C in Tokyo."])
    agent = Agent.from_settings(load_settings(overrides={"llm.grounding": "on"}), provider, registry, open_store(":memory:"))
    assert agent.grounded and agent.ask("Weather in Tokyo?").answer == "Tokyo: 31°C (feels like 34°C), Partly cloudy, humidity 62%"


FAILING_TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class Weather(BaseTool):
    def manifest(self):
        return ToolManifest("weather", "Current weather of a city", {"city": "City name"}, ["Weather in Tokyo?", "Is it raining?"])

    def execute(self, params):
        return ToolResult(False, error="The weather service could not be reached: [Errno 111] Connection refused. Check the network connection.")
'''


def test_the_cli_the_server_and_the_page_give_the_same_failure_wording(riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "weather.py").write_text(FAILING_TOOL, encoding="utf-8")
    script = riverse_home / "script.yaml"
    script.write_text("- {tool: weather, params: {city: Tokyo}}\n- It is 22°C in Tokyo.\n" * 3, encoding="utf-8")
    (riverse_home / "settings.yaml").write_text(
        f"llm: {{provider: fake, script: {script}, grounding: on}}\ntools: {{weather: {{}}}}\n", encoding="utf-8")
    expected = compose([ToolOutcome("weather", {"city": "Tokyo"}, False, error=ERROR)], "en")
    shown = CliRunner().invoke(cli, ["ask", "What's the weather in Tokyo?"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.strip() == expected
    with TestClient(create_app(App(home=str(riverse_home))), base_url="http://127.0.0.1:8787") as client:
        api = client.post("/v1/chat/completions", json={"model": "riverse", "messages": [
            {"role": "user", "content": "What's the weather in Tokyo?"}]})
        assert api.json()["choices"][0]["message"]["content"] == expected
        with client.stream("POST", "/api/chat", json={"message": "What's the weather in Tokyo?"}) as response:
            lines = list(response.iter_lines())
    events = [json.loads(line[len("data: "):]) for line in lines if line.startswith("data: ")]
    assert events[-1]["answer"] == expected
    assert "".join(e["text"] for e in events if set(e) == {"text"}) == expected


def test_an_answer_that_invents_is_ended_at_the_end_of_its_first_sentence(registry):
    invented = "It is 12°C in Tokyo. " + "Tomorrow will be sunny and warm, with a light breeze from the sea. " * 10
    provider = ScriptedProvider([decision("weather", city="Tokyo"), invented], native_tools=False)
    pieces: list[str] = []
    complete = provider.complete

    def recording(messages, **kwargs):
        on_text = kwargs.get("on_text")
        if on_text:
            kwargs["on_text"] = lambda piece: (pieces.append(piece), on_text(piece))
        return complete(messages, **kwargs)

    provider.complete = recording
    result = routed(provider, registry).ask("Weather in Tokyo?")
    assert result.answer == "Tokyo: 31°C (feels like 34°C), Partly cloudy, humidity 62%"
    assert len("".join(pieces)) < 40  # the generation ended after "It is 12°C in Tokyo."


def test_a_follow_up_no_tool_answers_states_no_figure_the_conversation_does_not_hold(registry):
    store = open_store(":memory:")
    agent = routed(ScriptedProvider([decision("weather", city="Nowhere")], native_tools=False), registry, store=store)
    first = agent.ask("What's the weather in Nowhere?")
    agent.provider = ScriptedProvider([decision("none"), "Wear a light jacket: it will be 22 degrees and cloudy."], native_tools=False)
    events: list[Event] = []
    follow_up = agent.ask("So what should I wear?", conversation_id=first.conversation_id, on_event=events.append)
    assert follow_up.answer.startswith("I can't look that up: the weather tool failed when I last tried (")
    assert "22" not in "".join(texts(events))
    agent.provider = ScriptedProvider([decision("none"), "Something comfortable, whatever the weather."], native_tools=False)
    kept = agent.ask("So what should I wear?", conversation_id=first.conversation_id)
    assert kept.answer == "Something comfortable, whatever the weather."


def test_the_json_protocol_gets_the_same_check_when_grounding_is_on(registry):
    call = '{"tool_calls": [{"name": "weather", "params": {"city": "Tokyo"}}]}'
    provider = ScriptedProvider([call, "Tokyo is 19°C today."], native_tools=False)
    events: list[Event] = []
    result = Agent(provider, registry, tool_protocol="json", grounding="on").ask("Weather in Tokyo?", on_event=events.append)
    assert result.answer == "Tokyo: 31°C (feels like 34°C), Partly cloudy, humidity 62%"
    assert texts(events) == [result.answer]


def test_an_answer_returned_without_streaming_is_shown_and_kept():
    """A provider that returns its text without streaming it (a model server asked again without a
    stream) still gives the turn its answer, checked as a streamed one is."""
    from agent.loop import Agent
    from agent.providers.base import Completion
    from agent.tools import ToolRegistry

    class Quiet:
        supports_native_tools = False

        def complete(self, messages, **kwargs):
            return Completion(text="Hello! How can I help?")

    registry = ToolRegistry({"language": "en", "tools": {}}, builtin=False, packages=False)
    events = []
    result = Agent(Quiet(), registry, tool_protocol="json", grounding="on").ask("hi", on_event=events.append)
    assert result.answer == "Hello! How can I help?"
    assert "".join(e.text for e in events if e.kind == "text") == "Hello! How can I help?"
    assert not [e for e in events if e.kind == "notice"]


def test_an_answer_that_only_says_the_question_back_is_not_shown():
    """A small model sometimes answers a message no tool looked up with the message itself: that is not
    an answer; the user is told plainly that there is none, and why there may be none."""
    from agent.loop import Agent
    from agent.providers.fake import ScriptedProvider
    from agent.tools import ToolRegistry

    registry = ToolRegistry({"language": "ja", "tools": {}}, builtin=False, packages=False)
    provider = ScriptedProvider(["JL915便って今日遅れてる？"], native_tools=False)
    events = []
    result = Agent(provider, registry, language="ja", tool_protocol="json", grounding="on").ask(
        "JL915便って今日遅れてる？", on_event=events.append)
    shown = "".join(e.text for e in events if e.kind == "text")
    assert "JL915便って今日遅れてる" not in shown and result.answer == shown
    assert result.answer.startswith("その質問には答えられません")
    assert any(e.kind == "notice" and "質問を繰り返した" in e.text for e in events)

    # an answer that starts by quoting the question and then answers it is kept whole
    provider = ScriptedProvider(["Why is the sky blue? Because air scatters blue light most."], native_tools=False)
    registry = ToolRegistry({"language": "en", "tools": {}}, builtin=False, packages=False)
    result = Agent(provider, registry, tool_protocol="json", grounding="on").ask("Why is the sky blue?")
    assert result.answer == "Because air scatters blue light most."
