"""The router (agent.router) without a model: decision schema, the no-tool path, retrieval, bad output.

Generic providers are played by the scripted fake; the local model's scored path by a fake provider
whose cursor returns scripted log-probabilities and values.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from agent.loop import Agent, Event, make_protocol
from agent.i18n import detect_language
from agent.providers.base import Capabilities, Completion
from agent.providers.fake import ScriptedProvider
from agent.router import DecisionPrompt, Router, RouterOptions, RouterProtocol
from agent.router.prompt import ExtendedPrompt
from agent.router.texts import NO_TOOL_LOOKUP, NO_TOOL_SHOTS
from agent.router.schema_decision import validated
from agent.tools import ToolManifest, ToolRegistry
from tests.helpers.cursor import FakeCursor

WEATHER = ToolManifest(
    "weather", "Current weather of a city", {"city": "City name"},
    ["What's the weather like in Tokyo?", "东京今天天气怎么样？", "札幌は今何度ですか？"],
    parameter_types={"city": "string"}, required=["city"], risk="network",
)
NOTES = ToolManifest(
    "notes", "The user's notes", {"action": "add, search, list or delete", "text": "note text", "id": "note number"},
    ["Remember that my locker code is 4512", "What notes do I have?"],
    parameter_types={"action": ["add", "search", "list", "delete"], "text": "string", "id": "integer"},
    required=["action"],
)
CALC = ToolManifest("calculator", "Exact arithmetic", {"expression": "e.g. 2*(3+4)"},
                    ["What is 1234 * 5678?", "Calculate 15% of 80"], required=["expression"])


WEATHER_TOOL = """
from agent.tools import BaseTool, ToolManifest, ToolResult

class Weather(BaseTool):
    def __init__(self, config):
        self.config = config
        self.calls = []

    def manifest(self):
        return ToolManifest("weather", "Current weather of a city", {"city": "City name"},
                            ["What's the weather like in Tokyo?", "东京今天天气怎么样？"], required=["city"])

    def execute(self, params):
        self.calls.append(params)
        return ToolResult(True, params["city"] + ": 12°C, sunny")
"""


@pytest.fixture
def registry(tmp_path) -> ToolRegistry:
    """In-process (isolation: thread): the tests read the calls the tool object recorded."""
    (tmp_path / "weather.py").write_text(WEATHER_TOOL, encoding="utf-8")
    return ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False,
                        isolation="thread")


def calls(registry: ToolRegistry) -> list[dict]:
    return registry.get("weather").calls


def agent_with(provider: Any, registry: ToolRegistry, language: str = "en") -> Agent:
    return Agent(provider, registry, language=language, tool_protocol="router")


# ------------------------------------------------------------------------- schema and prompt
def test_schema_names_only_real_tools_and_their_own_parameters():
    prompt = DecisionPrompt([WEATHER, NOTES], "en", RouterOptions())
    choices = prompt.schema()["anyOf"]
    assert [c["properties"]["tool"]["const"] for c in choices] == ["weather", "notes", "none"]
    weather, notes, none = choices
    assert weather["properties"]["params"]["properties"] == {"city": {"type": "string"}}
    assert weather["properties"]["params"]["additionalProperties"] is False
    assert notes["properties"]["params"]["properties"]["action"]["enum"] == ["add", "search", "list", "delete"]
    assert set(notes["properties"]["params"]["properties"]) == {"action", "text", "id"}
    assert none["required"] == ["tool"] and "params" not in none["properties"]


def test_prompt_lists_tools_and_turns_examples_into_few_shot_turns():
    prompt = DecisionPrompt([WEATHER, NOTES], "en", RouterOptions())
    system = prompt.prefix[0]["content"]
    assert "- weather(city): Current weather of a city" in system
    assert "- notes(action, text, id)" in system
    turns = list(zip(prompt.prefix[1::2], prompt.prefix[2::2]))
    assert ({"role": "user", "content": "东京今天天气怎么样？"}, {"role": "assistant", "content": '{"tool": "weather"}'}) in turns
    assert any(answer["content"] == '{"tool": "none"}' for _, answer in turns)
    # interleaved: the first turns are the first example of every tool
    assert [json.loads(a["content"])["tool"] for _, a in turns[:2]] == ["weather", "notes"]
    assert prompt.messages("hi")[-1] == {"role": "user", "content": "hi"}
    assert len(DecisionPrompt([WEATHER], "en", RouterOptions(few_shot=False)).prefix) == 1


def test_a_tool_named_none_gets_another_no_tool_label():
    odd = ToolManifest("none", "A tool unfortunately named none", {}, ["do nothing", "nothing"])
    prompt = DecisionPrompt([odd, WEATHER], "en", RouterOptions())
    assert prompt.none == "no_tool"
    assert "- no_tool:" in prompt.prefix[0]["content"]
    assert prompt.schema()["anyOf"][-1]["properties"]["tool"]["const"] == "no_tool"


@pytest.mark.parametrize("language", ["en", "zh", "ja"])
def test_instructions_come_in_the_settings_language(language):
    system = DecisionPrompt([WEATHER], language, RouterOptions()).prefix[0]["content"]
    marker = {"en": "You are a router", "zh": "你是一个路由器", "ja": "あなたはルーター"}[language]
    assert system.startswith(marker)


# ------------------------------------------------------------------------------- languages
@pytest.mark.parametrize(
    "text,language",
    [("东京今天天气怎么样？", "zh"), ("東京の天気は？", "ja"), ("What's the weather?", "en"),
     ("what time is it in 上海 now? 教えて", "ja"), ("weather in 西安 today? 穿什么合适", "zh"), ("42", "zh")],
)
def test_detect_language(text, language):
    assert detect_language(text, default="zh") == language


# ------------------------------------------------------------------ generic providers: schema
def test_no_tool_decision_then_a_streamed_answer(registry):
    provider = ScriptedProvider(['{"tool": "none"}', "Hello! How can I help?"], native_tools=False)
    events: list[Event] = []
    result = agent_with(provider, registry).ask("hi there", on_event=events.append)
    assert result.answer == "Hello! How can I help?"
    assert result.tool_calls == [] and calls(registry) == []
    assert result.protocol == "router"
    decision, answer = provider.requests
    assert decision["json_schema"]["anyOf"][0]["properties"]["tool"]["const"] == "weather"
    assert decision["messages"][-1] == {"role": "user", "content": "hi there"}
    assert answer["json_schema"] is None
    assert answer["messages"][0]["content"].endswith("Answer in English.")
    assert "".join(e.text for e in events if e.kind == "text") == "Hello! How can I help?"


def test_tool_decision_runs_the_tool_with_only_real_parameters_and_answers_from_its_result(registry):
    provider = ScriptedProvider(
        ['{"tool": "weather", "params": {"city": "东京", "units": "metric"}}', "东京现在 12°C，晴。"], native_tools=False
    )
    result = agent_with(provider, registry).ask("东京今天天气怎么样？")
    assert calls(registry) == [{"city": "东京"}]
    assert [o.name for o in result.tool_calls] == ["weather"] and result.tool_calls[0].success
    assert result.answer == "东京现在 12°C，晴。"
    answer_prompt = provider.requests[-1]["messages"]
    assert answer_prompt[0]["content"].endswith("请用中文回答。")
    final = answer_prompt[-1]
    assert final["role"] == "user"
    assert final["content"].startswith("东京今天天气怎么样？")
    assert "\n- 东京: 12°C, sunny\n" in final["content"]
    assert "数字照原样引用，不要添加结果里没有的内容。" in final["content"]


@pytest.mark.parametrize(
    "decision,problem",
    [
        ('{"tool": "weather", "params": ', "could not be read"),
        ('{"tool": "teleport", "params": {}}', "unknown tool 'teleport'; the tools are: weather"),
        ('{"tool": "weather", "params": "Tokyo"}', "parameters of weather are not a JSON object"),
    ],
)
def test_bad_decisions_are_reported_and_answered_without_a_tool(registry, decision, problem):
    """The message asks for the weather, which no tool looked up: the answer says so, never a guess."""
    provider = ScriptedProvider([decision, "It is 22°C in Tokyo."], native_tools=False)
    events: list[Event] = []
    result = agent_with(provider, registry).ask("weather in Tokyo?", on_event=events.append)
    assert result.answer.startswith("I did not look that up, and I won't guess information only a tool can know.")
    assert len(provider.requests) == 1 and calls(registry) == []
    notices = [e.text for e in events if e.kind == "notice"]
    assert len(notices) == 1 and "answering without a tool" in notices[0]
    if problem != "could not be read":
        assert problem in notices[0]


def test_plain_text_instead_of_json_means_no_tool(registry):
    provider = ScriptedProvider(["Hi! Nice to meet you.", "Hello!"], native_tools=False)
    events: list[Event] = []
    result = agent_with(provider, registry).ask("hello", on_event=events.append)
    assert result.answer == "Hello!" and result.tool_calls == []
    assert [e for e in events if e.kind == "notice"] == []


def test_auto_protocol_picks_the_router_when_the_provider_prefers_it(registry):
    provider = ScriptedProvider(['{"tool": "none"}', "ok"], native_tools=True)
    provider.capabilities = Capabilities(native_tools=True, preferred_protocol="router")
    agent = Agent(provider, registry, tool_protocol="auto")
    assert agent.ask("hi").protocol == "router"
    assert isinstance(make_protocol("router"), RouterProtocol)


def test_one_tool_budget_still_gets_a_grounded_answer(registry):
    """With max_steps=1 the loop appends its 'answer now' message after the tool ran; the router
    still answers the user's question from the results."""
    provider = ScriptedProvider(['{"tool": "weather", "params": {"city": "Paris"}}', "Paris: 12°C."], native_tools=False)
    agent = Agent(provider, registry, tool_protocol="router", max_steps=1)
    result = agent.ask("weather in Paris?")
    assert result.answer == "Paris: 12°C."
    assert provider.requests[-1]["messages"][-1]["content"].startswith("weather in Paris?")


# -------------------------------------------------------------- the local model's scored path
class ScoringProvider:
    """A provider with scored decoding (``open_reply``), as the embedded model has."""

    name = "scoring"
    capabilities = Capabilities(scored_decoding=True)

    def __init__(self, scores: dict[str, float], values: list[str] = ()):
        self.cursor = FakeCursor(scores, list(values))
        self.opened: list[tuple[list[dict], int]] = []

    @contextmanager
    def open_reply(self, messages, *, keep=0):
        self.opened.append((messages, keep))
        yield self.cursor


def test_scored_choice_writes_the_real_keys_and_chooses_enum_values():
    provider = ScoringProvider({"notes": -0.5, "none": -1.0, "weather": -3.0, "search": -0.1, "add": -2.0}, ["passport", ""])
    router = Router(RouterOptions(none_bias=0.0))
    decision = router.decide(provider, [WEATHER, NOTES], "When does my passport from 2019 expire?", "en")
    assert decision.tool == "notes"
    assert decision.params == {"action": "search", "text": "passport"}  # the empty id is left out
    assert "".join(provider.cursor.written) == (
        '{"tool": "notes", "params": {"action": "search", "text": "passport", "id": ""'
    )
    messages, keep = provider.opened[0]
    assert keep == len(messages) - 1 and messages[-1]["content"] == "When does my passport from 2019 expire?"
    # optional text: copied from the message; optional id: a number, copied from the message
    text_filters, id_filters = provider.cursor.filters
    assert text_filters == {"copy_from": "When does my passport from 2019 expire?", "opening": ' "'}
    assert id_filters["copy_from"] == "When does my passport from 2019 expire?"
    # an integer parameter takes digits only: "0." or "3.5" is no integer
    assert id_filters["allowed"](b"12") and id_filters["allowed"](b"-3") and not id_filters["allowed"](b"twelve")
    assert not id_filters["allowed"](b"3.5") and not id_filters["allowed"](b"0.")
    # a message that states no number: the optional id could only be empty, and is not written at all
    provider = ScoringProvider({"notes": -0.5, "none": -1.0, "weather": -3.0, "search": -0.1, "add": -2.0}, ["passport"])
    decision = router.decide(provider, [WEATHER, NOTES], "When does my passport expire?", "en")
    assert decision.params == {"action": "search", "text": "passport"} and len(provider.cursor.filters) == 1
    assert "".join(provider.cursor.written) == '{"tool": "notes", "params": {"action": "search", "text": "passport"'


def test_none_bias_moves_the_decision():
    scores = {"weather": -1.0, "none": -1.5}
    prompt_args = ([WEATHER, NOTES], "What's the weather like in Tokyo?", "en")
    assert Router(RouterOptions(none_bias=0.0)).decide(ScoringProvider(scores, ["Tokyo"]), *prompt_args).tool == "weather"
    decided = Router(RouterOptions(none_bias=1.0)).decide(ScoringProvider(scores), *prompt_args)
    assert decided.tool is None and decided.scores["none"] == pytest.approx(-0.5)


def test_a_tool_that_shares_fewer_of_the_message_words_than_another_falls_behind_it_and_no_shared_word_changes_nothing():
    contacts = ToolManifest("crm_list_contacts", "List the contacts of the address book, newest first", {"limit": "How many"},
                            ["List my contacts"])
    notes = ToolManifest("notes_list", "List the user's notes, newest first", {"limit": "How many"}, ["List my notes"])
    scores = {"crm_list_contacts": -1.0, "notes_list": -2.0, "none": -4.0}
    said = "show me my most recent notes"
    without = Router(RouterOptions(none_bias=0.0, word_weight=0.0))
    assert without.decide(ScoringProvider(scores, [""]), [contacts, notes], said, "en").tool == "crm_list_contacts"
    decided = Router(RouterOptions(none_bias=0.0, word_weight=3.0)).decide(ScoringProvider(scores, [""]), [contacts, notes], said, "en")
    assert decided.tool == "notes_list"  # "notes" is in its name and description: the best match, as it was
    assert decided.scores["notes_list"] == pytest.approx(-2.0) and decided.scores["crm_list_contacts"] == pytest.approx(-4.0)
    assert decided.scores["none"] == pytest.approx(-4.0)  # no tool is not moved by words
    foreign = Router(RouterOptions(none_bias=0.0, word_weight=3.0)).decide(ScoringProvider(scores, [""]), [contacts, notes], "最近のメモを見せて", "en")
    assert foreign.tool == "crm_list_contacts" and foreign.scores["notes_list"] == pytest.approx(-2.0)  # nothing shared


def test_a_chinese_message_does_not_judge_by_words_a_tool_described_in_english_only():
    recipes = ToolManifest("recipes_search", "Search recipes by keyword", {"query": "Words to look for"})
    search = ToolManifest("web_search", "搜索网页", {"query": "搜索词"}, ["帮我搜索一下菜谱"])
    scores = {"recipes_search": -1.0, "web_search": -1.5, "none": -4.0}
    router = Router(RouterOptions(none_bias=0.0, word_weight=3.0, write_examples=False))
    decided = router.decide(ScoringProvider(scores, ["鹰嘴豆"]), [recipes, search], "帮我找几个用鹰嘴豆做的菜谱", "zh")
    assert decided.tool == "recipes_search" and decided.scores["recipes_search"] == pytest.approx(-1.0)  # not judged
    english = router.decide(ScoringProvider(scores, ["chickpea"]), [recipes, search], "find chickpea recipes", "en")
    assert english.scores["web_search"] == pytest.approx(-4.5)  # an English message does judge the Chinese-only tool


def test_required_string_values_are_written_freely():
    provider = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Tokyo"])
    decision = Router(RouterOptions()).decide(provider, [WEATHER], "weather in Tokyo?", "en")
    assert decision.params == {"city": "Tokyo"}
    assert provider.cursor.filters == [{"opening": ' "'}]


def test_a_value_in_another_script_than_the_message_is_copied_from_it():
    provider = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Tokyo", "东京"])
    decision = Router(RouterOptions()).decide(provider, [WEATHER], "东京的天气", "en")
    assert decision.params == {"city": "东京"}
    assert provider.cursor.filters == [{"opening": ' "'}, {"copy_from": "东京的天气", "opening": ' "'}]
    assert "".join(provider.cursor.written) == '{"tool": "weather", "params": {"city": "东京"'
    latin = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Tokyo", "m"])  # a copy that is not the message's words
    assert Router(RouterOptions()).decide(latin, [WEATHER], "东京的天气", "en").params == {"city": "Tokyo"}
    assert "".join(latin.cursor.written).endswith('"city": "Tokyo"')
    kept = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Tokyo"])
    Router(RouterOptions(copy_foreign=False)).decide(kept, [WEATHER], "东京的天气", "en")
    assert kept.cursor.filters == [{"opening": ' "'}]


def test_router_protocol_answers_directly_when_there_are_no_tools():
    provider = ScriptedProvider(["Just an answer."], native_tools=False)
    empty = ToolRegistry({"language": "en", "tools": {}}, builtin=False, packages=False)
    result = agent_with(provider, empty).ask("hi")
    assert result.answer == "Just an answer." and len(provider.requests) == 1


# ------------------------------------------------------------ manifests in the message's language
BILINGUAL_TOOL = """
from agent.tools import BaseTool, ToolManifest, ToolResult

TEXT = {"en": ("Current weather of a city", "City name", "Weather in Paris?"),
        "zh": ("查询城市的天气", "城市名", "巴黎天气怎么样？")}

class Weather(BaseTool):
    def __init__(self, config):
        self.config = config

    def manifest(self):
        description, city, example = TEXT.get(self.config.get("language"), TEXT["en"])
        return ToolManifest("weather", description, {"city": city}, [example], required=["city"])

    def execute(self, params):
        return ToolResult(True, params["city"] + ": 12°C")
"""


def test_registry_gives_manifests_as_tools_write_them_for_another_language(tmp_path):
    (tmp_path / "weather.py").write_text(BILINGUAL_TOOL, encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False)
    assert registry.manifests()[0].description == "Current weather of a city"
    assert registry.manifests("zh")[0].description == "查询城市的天气"
    assert registry.manifests("zh")[0].examples == ["巴黎天气怎么样？"]
    assert registry.get("weather").config["language"] == "en"  # the tool in use is not changed
    assert registry.manifests("ja")[0].description == "Current weather of a city"  # its fallback


def test_a_tool_that_breaks_in_another_language_keeps_its_usual_manifest(tmp_path):
    broken = BILINGUAL_TOOL.replace("description, city, example = TEXT.get(self.config.get(\"language\"), TEXT[\"en\"])",
                                    "description, city, example = TEXT[self.config[\"language\"]]")
    assert broken != BILINGUAL_TOOL
    (tmp_path / "weather.py").write_text(broken, encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False)
    assert registry.manifests("ja")[0].description == "Current weather of a city"  # KeyError inside: fallback
    assert registry.manifests("zh")[0].description == "查询城市的天气"


def test_router_shows_the_tools_in_the_language_of_the_message(tmp_path):
    (tmp_path / "weather.py").write_text(BILINGUAL_TOOL, encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False)
    provider = ScriptedProvider(['{"tool": "weather", "params": {"city": "巴黎"}}', "巴黎现在 12°C。"], native_tools=False)
    result = agent_with(provider, registry, language="en").ask("巴黎今天天气怎么样？")
    assert result.answer == "巴黎现在 12°C。"
    system = provider.requests[0]["messages"][0]["content"]
    assert "查询城市的天气" in system and "Current weather" not in system
    assert system.startswith("你是一个路由器")
    english = ScriptedProvider(['{"tool": "none"}', "Hi!"], native_tools=False)
    agent_with(english, registry, language="en").ask("hello")
    assert "Current weather of a city" in english.requests[0]["messages"][0]["content"]


# ---------------------------------------------------------------- evidence and value rules
PAGE = ToolManifest("web_fetch", "Read a web page", {"url": "The page's address"}, ["Read https://example.com"],
                    parameter_types={"url": {"type": "string", "format": "uri"}}, required=["url"])
CONVERT = ToolManifest("unit_convert", "Convert units", {"value": "number", "from_unit": "unit", "to_unit": "unit"},
                       ["10 km in miles?"], parameter_types={"value": "number"}, required=["value", "from_unit", "to_unit"])


def test_a_link_in_the_message_is_evidence_for_tools_that_take_one():
    options = RouterOptions(none_bias=0.0, link_weight=6.0)
    scores = {"web_fetch": -5.0, "none": -0.1}
    linked = ScoringProvider(scores, ["https://example.org/menu"])
    decision = Router(options).decide(linked, [PAGE, WEATHER], "what's on https://example.org/menu for lunch?", "en")
    assert decision.tool == "web_fetch" and decision.params == {"url": "https://example.org/menu"}
    assert decision.scores["web_fetch"] == pytest.approx(1.0)
    assert linked.cursor.filters[0]["copy_from"] == "what's on https://example.org/menu for lunch?"  # copied exactly
    plain = Router(options).decide(ScoringProvider(scores), [PAGE, WEATHER], "what's for lunch?", "en")
    assert plain.tool is None  # no link: no bonus


SEARCH_WEB = ToolManifest("web_search", "Search the web", {"query": "What to search for"}, ["Search the web for Kyoto"],
                          parameter_types={"query": {"type": "string"}}, required=["query"])


@pytest.mark.parametrize("message, values, called", [
    # no address: the page is missing, and the close search is called
    ("最近比特币价格多少？帮我上网查查", ["比特币价格", "比特币"], ("web_search", {"query": "比特币"})),
    ("what's the bitcoin price these days? look it up", ["bitcoin price", "bitcoin price"],
     ("web_search", {"query": "bitcoin price"})),
    # a host name is an address
    ("what does coindesk.com/price/bitcoin say?", ["coindesk.com/price/bitcoin"], ("web_fetch", {"url": "coindesk.com/price/bitcoin"})),
])
def test_a_link_parameter_takes_no_value_that_is_no_address(message, values, called):
    from agent.router.prompt import no_address

    provider = ScoringProvider({"web_fetch": -0.6, "web_search": -1.1, "none": -2.0}, values)
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [PAGE, SEARCH_WEB], message, "en")
    assert (decision.tool, decision.params) == called
    assert not no_address(PAGE, "url", "https://example.com/a?b=1") and not no_address(PAGE, "url", "localhost:8080/x")
    assert not no_address(SEARCH_WEB, "query", "比特币价格")  # a parameter that takes no link


def test_a_required_number_is_copied_from_a_message_that_has_digits():
    provider = ScoringProvider({"unit_convert": 0.0, "none": -9.0}, ["-40", "C", "F"])
    decision = Router(RouterOptions()).decide(
        provider, [CONVERT], "It's -40 degrees Celsius, what's that in Fahrenheit?", "en")
    assert decision.params == {"value": "-40", "from_unit": "C", "to_unit": "F"}
    value_filters = provider.cursor.filters[0]
    assert value_filters["copy_from"].startswith("It's -40")
    assert value_filters["allowed"](b"-40") and not value_filters["allowed"](b"minus forty")
    wordy = ScoringProvider({"unit_convert": 0.0, "none": -9.0}, ["5", "km", "mi"])
    Router(RouterOptions()).decide(wordy, [CONVERT], "five km in miles", "en")
    assert wordy.cursor.filters[0]["copy_from"] == "5 km in miles"  # a number said in words is copied in digits
    one = ScoringProvider({"unit_convert": 0.0, "none": -9.0}, ["1", "km", "mi"])
    Router(RouterOptions()).decide(one, [CONVERT], "how many miles is a km", "en")
    assert one.cursor.filters[0]["copy_from"] == "how many miles is 1 km"  # one of a unit said in words is 1
    unsaid = ScoringProvider({"unit_convert": 0.0, "none": -9.0}, ["1", "km", "mi"])
    Router(RouterOptions()).decide(unsaid, [CONVERT], "how many miles are there in some km", "en")
    assert "copy_from" not in unsaid.cursor.filters[0]  # no number to copy: written as a number


def test_a_chinese_value_the_message_does_not_contain_is_copied_instead():
    provider = ScoringProvider({"unit_convert": 0.0, "none": -9.0}, ["6", "英寸", "英尺", "厘米"])
    decision = Router(RouterOptions()).decide(
        provider, [CONVERT], "我身高 6 英尺，换算成厘米是多少", "zh")
    assert decision.params == {"value": "6", "from_unit": "英尺", "to_unit": "厘米"}
    assert provider.cursor.filters[2] == {"copy_from": "我身高 6 英尺，换算成厘米是多少", "opening": ' "'}
    assert "".join(provider.cursor.written).endswith('"from_unit": "英尺", "to_unit": "厘米"')


PLUG = ToolManifest("set_plug", "Switch a smart plug on or off", {"device_id": "The plug's device ID"},
                    ["Switch off plug 12345"], parameter_types={"device_id": "string"}, required=["device_id"])


def test_an_identifier_the_message_does_not_state_is_copied_from_it_or_the_tool_is_not_called():
    said = "switch off the coffee machine plug"
    provider = ScoringProvider({"set_plug": 0.0, "none": -9.0}, ["12345", "coffee machine"])  # 12345: an example's
    decision = Router(RouterOptions()).decide(provider, [PLUG], said, "en")
    assert decision.params == {"device_id": "coffee machine"}
    assert provider.cursor.filters[1] == {"copy_from": said, "opening": ' "'}
    assert "".join(provider.cursor.written).endswith('"device_id": "coffee machine"')
    nothing = ScoringProvider({"set_plug": 0.0, "none": -9.0}, ["123456", ""])  # the message has no words for it
    decision = Router(RouterOptions()).decide(nothing, [PLUG], "turn it off", "en")
    assert decision.tool is None and (decision.declined, decision.missing) == ("set_plug", "device_id")
    letter = ScoringProvider({"set_plug": 0.0, "none": -9.0}, ["12345678", "a"])  # "a" of "a plug" is no device
    assert Router(RouterOptions()).decide(letter, [PLUG], "switch off a plug", "en").tool is None
    stated = ScoringProvider({"set_plug": 0.0, "none": -9.0}, ["plug-4821"])
    assert Router(RouterOptions()).decide(stated, [PLUG], "switch off plug-4821", "en").params == {"device_id": "plug-4821"}
    assert len(stated.cursor.filters) == 1  # a number the message states is written as the model wrote it
    run = ToolManifest("cancel_run", "Cancel a pipeline run", {"run_id": "The run's ID"}, ["Cancel run 4411"],
                       parameter_types={"run_id": "integer"}, required=["run_id"])
    made_up = Router(RouterOptions()).decide(ScoringProvider({"cancel_run": 0.0, "none": -9.0}, ["1234567890"]), [run],
                                             "cancel the latest pipeline run", "en")
    assert made_up.tool is None and made_up.missing == "run_id"  # a number-named thing the message does not name
    kept = ScoringProvider({"set_plug": 0.0, "none": -9.0}, ["12345"])
    assert Router(RouterOptions(copy_invented=False)).decide(kept, [PLUG], said, "en").params == {"device_id": "12345"}


def test_an_e_mail_address_the_message_does_not_give_is_copied_from_it():
    share = ToolManifest("share_calendar", "Share a calendar with someone", {"calendar": "Calendar name", "email": "Their e-mail"},
                         ["Share my work calendar with ann@example.org"], required=["calendar", "email"])
    said = "把“家庭”日历共享给 mom@qq.com"
    provider = ScoringProvider({"share_calendar": 0.0, "none": -9.0}, ["家庭", "your_email@example.com", "mom@qq.com"])
    decision = Router(RouterOptions()).decide(provider, [share], said, "zh")
    assert decision.params == {"calendar": "家庭", "email": "mom@qq.com"}
    assert provider.cursor.filters[2]["copy_from"] == said
    # the message gives no address: the copy holds none, the value is missing and the tool not called
    provider = ScoringProvider({"share_calendar": 0.0, "none": -9.0}, ["家庭", "your_email@example.com", "妈妈"])
    decision = Router(RouterOptions()).decide(provider, [share], "把“家庭”日历共享给妈妈", "zh")
    assert decision.tool is None and (decision.declined, decision.missing) == ("share_calendar", "email")


@pytest.mark.parametrize("value, message, made_up", [
    ("12345", "switch off the coffee machine plug", True),
    ("offer 123456", "book the diving tour", True),
    ("QX7F2K", "cancel booking QX7F2K", False),  # short runs of digits are not judged
    ("4821", "密码 4821", False),
    ("1500", "send 1,500 yen", False),
    ("１２３４５", "order 12345", False),  # full-width digits are the same number
    ("2027-03-14", "on March 14 2027", False),  # a date written from words
    ("06:30", "毎朝6時半", False),
    ("0.125*80", "12.5% of 80", False),  # arithmetic composed from the message
    ("sqrt(1849)", "square root of 1849", False),
    ("7", "seven", False),
    ("0", "ダイニングの照明を2700ケルビンにして", True),  # a piece of another number
    ("1", "把大门打开，密码 4821", True),
    ("1", "sum of account 1 in 2026-01-01 to 2026-01-31", False),
    ("1", "1階の設定温度", False),
    ("3", "三人で", False),  # said in words
    ("12", "the 12 of them", False),
    ("your_username", "cancel the latest pipeline run", True),  # a placeholder, not the user's name
    ("<repo>", "list the branches", True),
    ("your_repo", "open your_repo please", False),  # the message says it
    ("your_email@example.com", "把“家庭”日历共享给 mom@qq.com", True),  # an address the message does not give
    ("Mom@QQ.com", "把“家庭”日历共享给 mom@qq.com", False),
    ("mom@qq.com, dad@qq.com", "share it with mom@qq.com and dad@qq.com", False),
    ("dad@qq.com", "share it with mom@qq.com", True),
])
def test_a_value_with_a_number_the_message_lacks_is_invented(value, message, made_up):
    from agent.router.values import invented

    assert invented(value, message) is made_up


BUDGET = ToolManifest("create_budget", "Create a spending budget", {"amount": "Amount per period"}, ["Budget 300 a month"],
                      parameter_types={"amount": "number"}, required=["amount"])


def test_a_number_copied_from_the_message_takes_the_scale_said_after_it():
    provider = ScoringProvider({"create_budget": 0.0, "none": -9.0}, ["3"])
    assert Router(RouterOptions()).decide(provider, [BUDGET], "娯楽費の予算を月3万円で作って", "ja").params == {"amount": "30000"}
    assert provider.cursor.filters[0]["copy_from"] == "娯楽費の予算を月3万円で作って"  # the digits are copied


@pytest.mark.parametrize("value, message, result", [
    ("3", "月3万円で", "30000"), ("1.5", "预算1.5万元", "15000"), ("5", "5千块", "5000"), ("2", "2億円", "200000000"),
    ("2.5", "raise 2.5 million dollars", "2500000"),
    ("3", "跑3千米", "3"),  # 千米 is a kilometre, not a thousand metres
    ("300", "预算 300 元", "300"), ("3", "3 apples, and 3万 of something", "3"),  # said two ways: left as it is
])
def test_scaled_numbers(value, message, result):
    from agent.router.values import scaled

    assert scaled(value, message) == result


def test_a_tool_whose_required_value_is_empty_is_not_called_and_one_character_is_no_optional_value():
    empty = ScoringProvider({"weather": 0.0, "none": -9.0}, [""])
    assert Router(RouterOptions()).decide(empty, [WEATHER], "天气好吗", "zh").tool is None
    provider = ScoringProvider({"notes": 0.0, "none": -9.0, "list": 0.0}, ["记", ""])
    decision = Router(RouterOptions()).decide(provider, [NOTES], "看看我都记了什么", "zh")
    assert decision.tool == "notes" and decision.params == {"action": "list"}
    latin = ScoringProvider({"notes": 0.0, "none": -9.0, "delete": 0.0}, ["e", "7"])  # a letter goes, a digit stays
    decision = Router(RouterOptions()).decide(latin, [NOTES], "delete note 7", "en")
    assert decision.params == {"action": "delete", "id": "7"}


def test_extra_examples_feed_retrieval_and_few_shot_turns():
    extra = ToolManifest("weather", "Current weather of a city", {"city": "City name"}, ["Weather in Tokyo?"],
                         required=["city"], extra_examples=["Do I need an umbrella in Oslo?", "Is it windy in Perth?"])
    looked_up = DecisionPrompt([extra, NOTES], "en", RouterOptions()).examples.texts
    assert 'This sentence : "Is it windy in Perth?" means in one word:"' in looked_up  # all of them, beyond the turns
    prompt = DecisionPrompt([extra, NOTES], "en", RouterOptions(shots_per_tool=2))
    users = [m["content"] for m in prompt.prefix if m["role"] == "user"]
    assert "Do I need an umbrella in Oslo?" in users and "Is it windy in Perth?" not in users  # 2 per tool
    assert DecisionPrompt([extra], "en", RouterOptions(shots_per_tool=3)).prefix.count(
        {"role": "assistant", "content": '{"tool": "weather"}'}) == 3


# ------------------------------------------------------------------------ preparing the prompt
class PreparingProvider(ScoringProvider):
    capabilities = Capabilities(scored_decoding=True, prefix_cache=True)

    def load(self):
        pass

    def __init__(self, scores, values=()):
        super().__init__(scores, values)
        self.kept: list[list[dict]] = []

    def has_prefix(self, messages):
        return messages in self.kept

    def prepare_prefix(self, messages):
        self.kept.append(messages)

    def leaves_room(self, messages, room):
        return True


def test_the_tool_prompt_is_prepared_once_per_language_and_a_cold_first_decision_says_so(tmp_path):
    (tmp_path / "weather.py").write_text(BILINGUAL_TOOL, encoding="utf-8")
    registry = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False)
    provider = PreparingProvider({"none": 0.0, "weather": -9.0})
    provider.complete = lambda messages, **kw: Completion(text="hi")  # type: ignore[method-assign]
    agent = Agent(provider, registry, language="en", tool_protocol="router")
    events: list[Event] = []
    agent.ask("hello", on_event=events.append)
    notices = [e.text for e in events if e.kind == "notice"]
    assert notices == ["preparing the tool prompt for this set of tools (once; later messages start at once)"]
    # the cold message prepared its language's prompt (as chat and the server do ahead of it)
    assert agent.protocol.prepare(agent, ["en", "zh"]) == {"en": False, "zh": True}
    systems = [prefix[0]["content"] for prefix in provider.kept]
    assert "Current weather of a city" in systems[0] and systems[1].startswith("你是一个路由器") and "查询城市的天气" in systems[1]
    assert agent.protocol.prepare(agent, ["en", "zh"]) == {"en": False, "zh": False}
    events.clear()
    agent.ask("你好", on_event=events.append)
    assert [e for e in events if e.kind == "notice"] == []


# ------------------------------------------------------------------------------ example vectors
class EmbeddingProvider(PreparingProvider):
    """Also has sentence vectors (as the embedded model has): one axis per keyword a text mentions."""

    KEYWORDS = ("umbrella", "note", "hello")
    capabilities = Capabilities(scored_decoding=True, prefix_cache=True, sentence_vectors=True)

    def __init__(self, scores, values=()):
        super().__init__(scores, values)
        self.embedded: list[tuple[str, bool]] = []
        self.vectors_kept: set[str] = set()

    def embed(self, texts, *, keep=False):
        import numpy

        rows = []
        for text in texts:
            self.embedded.append((text, keep))
            row = numpy.array([float(k in text.lower()) for k in self.KEYWORDS] + [0.1])
            rows.append(row / numpy.linalg.norm(row))
        if keep:
            self.vectors_kept.update(texts)
        return numpy.stack(rows)

    def has_embedded(self, texts):
        return set(texts) <= self.vectors_kept


UMBRELLA = ToolManifest("weather", "Current weather of a city", {"city": "City name"}, ["Weather in Tokyo?"],
                        required=["city"], extra_examples=["Do I need an umbrella in Oslo?"])


def test_example_vectors_move_the_decision_towards_the_nearest_examples_tool():
    scores = {"weather": -2.0, "none": -1.0}
    message = "Should I take my umbrella to Rome?"
    plain = Router(RouterOptions(vector_weight=0.0, none_bias=1.0))
    assert plain.decide(EmbeddingProvider(scores), [UMBRELLA], message, "en").tool is None
    provider = EmbeddingProvider(scores, ["Rome"])
    decided = Router(RouterOptions(vector_weight=30.0, none_bias=1.0)).decide(
        provider, [UMBRELLA], message, "en")
    assert decided.tool == "weather" and decided.params == {"city": "Rome"}
    assert decided.nearest["weather"] == pytest.approx(1.0) and decided.nearest["none"] == pytest.approx(0.1 / 1.005, abs=1e-3)
    assert decided.scores["weather"] == pytest.approx(-2.0 + 30.0)
    # the examples (and the built-in no-tool messages) are kept; the message is not
    assert ('This sentence : "Do I need an umbrella in Oslo?" means in one word:"', True) in provider.embedded
    assert provider.embedded[-1] == (f'This sentence : "{message}" means in one word:"', False)
    assert sum(1 for _, keep in provider.embedded if keep) == 2 + len(NO_TOOL_SHOTS) + len(NO_TOOL_LOOKUP)  # once


JOT = ToolManifest("jot", "Keep a note", {"title": "The note's title"}, ["Note this down"], required=["title"])


def test_a_name_the_message_quotes_is_no_sign_of_small_talk():
    # "hello" is what the no-tool messages say ("Hello there!"), here the name of a note: no tool is compared
    # with the message without it, the tool with all of it
    message = 'Make a note called "hello"'
    scores = {"jot": -1.5, "none": -1.0}
    options = RouterOptions(vector_weight=10.0, none_bias=0.0)
    quoted = Router(replace(options, unquoted_none=False)).decide(EmbeddingProvider(scores, ["hello"]), [JOT], message, "en")
    provider = EmbeddingProvider(scores, ["hello"])
    decided = Router(options).decide(provider, [JOT], message, "en")
    assert quoted.tool is None
    assert (decided.tool, decided.params) == ("jot", {"title": "hello"})
    assert decided.nearest["jot"] == pytest.approx(quoted.nearest["jot"])  # the tool: the whole message
    assert decided.nearest["none"] < 0.2 < quoted.nearest["none"]
    assert provider.embedded[-2:] == [(f'This sentence : "{message}" means in one word:"', False),
                                      ('This sentence : "Make a note called """ means in one word:"', False)]
    # a message that quotes nothing is embedded once
    provider = EmbeddingProvider(scores, ["hello"])
    Router(options).decide(provider, [JOT], "hello, make a note", "en")
    assert [text for text, keep in provider.embedded if not keep] == ['This sentence : "hello, make a note" means in one word:"']


@pytest.mark.parametrize("text, plain", [
    ("「おやすみ」シーンを実行して", "「」シーンを実行して"),
    ("新建一个叫“健身”的日历", "新建一个叫“”的日历"),
    ('rename it to "Q3 plan" and \'draft\'', 'rename it to "" and \'\''),
    ("don't open John's file", "don't open John's file"),  # apostrophes quote nothing
    ("say “hi\nthere” later", "say “hi\nthere” later"),  # no quote runs over a line
])
def test_what_a_message_quotes_is_left_out_of_it_for_the_no_tool_comparison(text, plain):
    from agent.router.examples import unquoted

    assert unquoted(text) == plain


def test_preparing_the_tool_prompt_also_computes_the_example_vectors():
    router = Router()
    provider = EmbeddingProvider({"none": 0.0})
    assert not router.is_prepared(provider, [UMBRELLA], "en")
    assert router.prepare(provider, [UMBRELLA], "en") is True
    assert provider.has_embedded(['This sentence : "Weather in Tokyo?" means in one word:"'])
    assert router.is_prepared(provider, [UMBRELLA], "en") and router.prepare(provider, [UMBRELLA], "en") is False
    assert Router().is_prepared(provider, [UMBRELLA], "en")  # kept by the provider: a new router finds them
    # a tool without examples is found by its description
    bare = ToolManifest("clock", "Tells the time", {}, [])
    assert DecisionPrompt([bare], "en", RouterOptions()).examples.texts[0] == 'This sentence : "Tells the time" means in one word:"'


def test_a_tool_without_examples_of_its_own_is_also_judged_by_its_description():
    # the model wrote its examples ("Note this down"), but the message is nearer what the tool says it does
    jot = ToolManifest("jot", "Keep a note of something", {"text": "What to note"}, [], required=["text"],
                       extra_examples=["Write this down for later"])
    scores = {"jot": -3.0, "none": -1.0}
    message = "make a note: milk"
    options = RouterOptions(vector_weight=0.0, none_bias=0.0, described_weight=10.0, described_floor=0.5)
    provider = EmbeddingProvider(scores, ["milk"])
    router = Router(options)
    router.prepare(provider, [jot], "en")
    assert ('This sentence : "jot: Keep a note of something" means in one word:"', True) in provider.embedded
    decided = router.decide(provider, [jot], message, "en")
    # both texts mention a note and nothing else: similarity 1
    assert decided.tool == "jot" and decided.scores["jot"] == pytest.approx(-3.0 + 10.0 * (1.0 - 0.5))
    off = Router(RouterOptions(vector_weight=0.0, none_bias=0.0, described_weight=0.0))
    assert off.decide(EmbeddingProvider(scores), [jot], message, "en").tool is None
    # a tool with examples of its own is judged by them alone
    assert Router(options).decide(EmbeddingProvider({"weather": -3.0, "none": -1.0}), [UMBRELLA], "umbrella?", "en").tool is None


def test_a_name_the_model_respelled_is_written_as_the_message_spells_it():
    provider = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Lisboa"])
    router = Router(RouterOptions())
    assert router.decide(provider, [WEATHER], "How warm is it in Lisbon today?", "en").params == {"city": "Lisbon"}
    assert "".join(provider.cursor.written).endswith('"city": "Lisbon"')
    composed = ScoringProvider({"calculator": 0.0, "none": -5.0}, ["sqrt(2)"])  # a value the model composed stays
    assert router.decide(composed, [CALC], "What's the square root of 2?", "en").params == {"expression": "sqrt(2)"}
    far = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Munich"])  # not a close spelling: left as written
    assert router.decide(far, [WEATHER], "Wie ist das Wetter in München?", "en").params == {"city": "Munich"}


def test_the_shipped_vectors_cover_every_text_of_the_built_in_tools():
    """The default model's vectors of the built-in tools' texts ship with Riverse, so a new home does
    not compute them first. Changed an example? Run .venv/bin/python -m bench.routing.shipped_vectors."""
    from agent.providers.llama import SHIPPED_VECTORS, SentenceVectorContext, read_vectors

    shipped = read_vectors(SHIPPED_VECTORS, 896)  # the default model's width
    assert len(shipped) > 300
    everything = {"shell_exec": {"enabled": True}, "web_search": {"enabled": True}}
    for language in ("en", "zh", "ja"):
        manifests = ToolRegistry({"language": language, "tools": everything}, packages=False).manifests()
        assert len(manifests) == 11
        texts = DecisionPrompt(manifests, language, RouterOptions()).examples.texts
        missing = [text for text in texts if SentenceVectorContext.key(text) not in shipped]
        assert missing == [], f"run .venv/bin/python -m bench.routing.shipped_vectors: {len(missing)} texts have no shipped vector"


def test_a_short_message_after_a_tool_turn_reads_the_turn_and_leans_to_its_tool():
    from agent.router.context import Call, Context, Exchange

    context = Context([Exchange("What time is it in New York?", [Call("notes", {"action": "list"}, "3 notes", True)])])
    scores = {"weather": -1.0, "notes": -2.5, "none": -3.0}
    options = RouterOptions(none_bias=0.0, follow_weight=3.0, marked_follow_weight=0.0)
    provider = ScoringProvider(scores, ["list", "", ""])
    decided = Router(options).decide(provider, [WEATHER, NOTES], "and London?", "en", context)
    assert decided.tool == "notes" and decided.scores["notes"] == pytest.approx(0.5)
    # "and London?" is marked as a follow-up: with marked_follow_weight, more again
    marked = Router(RouterOptions(none_bias=0.0, follow_weight=3.0, marked_follow_weight=2.0))
    assert marked.decide(ScoringProvider(scores, ["list", "", ""]), [WEATHER, NOTES], "and London?", "en",
                         context).scores["notes"] == pytest.approx(2.5)
    messages, keep = provider.opened[0]
    # the previous exchange sits between the fixed prefix and the message, as the router's own turns
    assert messages[keep]["content"] == "What time is it in New York?"
    assert json.loads(messages[keep + 1]["content"])["tool"] == "notes"
    # a long message is decided on its own merits, context or not
    long_message = "what is the weather going to be like this evening in London?"
    assert Router(options).decide(ScoringProvider(scores, ["London"]), [WEATHER, NOTES], long_message, "en", context).tool == "weather"
    # without a previous tool turn nothing leans
    assert Router(options).decide(ScoringProvider(scores, ["London"]), [WEATHER, NOTES], "and London?", "en").tool == "weather"


def test_words_do_not_judge_the_previous_exchanges_tool_for_its_follow_up():
    from agent.router.context import Call, Context, Exchange

    clock = ToolManifest("current_time", "The time now", {"city": "City"}, ["What day is it tomorrow?"])
    context = Context([Exchange("What's the weather in Tokyo?", [Call("weather", {"city": "Tokyo"}, "failed", True)])])
    scores = {"weather": -1.0, "current_time": -1.0, "none": -2.0}
    options = RouterOptions(none_bias=0.0, follow_weight=3.0, marked_follow_weight=0.0, word_weight=3.0)
    decided = Router(options).decide(ScoringProvider(scores, ["Tokyo"]), [WEATHER, clock], "And tomorrow?", "en", context)
    assert decided.tool == "weather" and decided.scores["weather"] == pytest.approx(2.0)  # the follow-up's bonus, whole
    assert decided.scores["current_time"] == pytest.approx(-1.0)  # "tomorrow" is its best match: no penalty either
    failed = Context([Exchange("What's the weather in Tokyo?", [Call("weather", {"city": "Tokyo"}, "refused", False)])])
    again = Router(options).decide(ScoringProvider(scores, ["Tokyo"]), [WEATHER, clock], "And tomorrow?", "en", failed)
    assert again.scores["weather"] == pytest.approx(-1.0)  # a failed call gets no follow-up bonus, and no penalty


class CountingProvider:
    """Keeps prompt prefixes; counts one token per character of the messages, in a small context."""

    capabilities = Capabilities(scored_decoding=True, prefix_cache=True)

    def __init__(self, n_ctx: int):
        self.n_ctx = n_ctx

    def render(self, messages, *, open_reply=True):
        return list("".join(m["content"] for m in messages))

    def leaves_room(self, messages, room):
        return len(self.render(messages)) + room <= self.n_ctx


def test_a_tool_prompt_too_large_for_the_context_is_cut_to_fit_later_rounds_first():
    many = [ToolManifest(f"tool{i}", f"Does thing {i}", {"x": "a value"},
                         [f"please do thing {i} now", f"thing {i} again", f"a third way to ask for thing {i}"])
            for i in range(12)]
    full = DecisionPrompt(many, "en", RouterOptions())
    size = len(CountingProvider(0).render(full.prefix))
    provider = CountingProvider(size)  # with 768 tokens of room, the whole prompt no longer fits
    prompt = Router(RouterOptions()).prompt(many, "en", provider)
    assert len(provider.render(prompt.prefix)) <= size - 768 < size
    assert prompt.cut_shots > 0 and full.cut_shots == 0
    assert len(prompt.prefix) == len(full.prefix) - 2 * prompt.cut_shots
    # one more shot would not fit: as many as fit are kept
    assert len(provider.render(full.prefix[: len(prompt.prefix) + 2])) > size - 768
    # every tool keeps its first example: rounds are cut from the end
    kept = [m["content"] for m in prompt.prefix if m["role"] == "user"]
    assert all(f"please do thing {i} now" in kept for i in range(12))
    # a provider that does not count tokens gets the whole prompt
    assert Router().prompt(many, "en").cut_shots == 0


def test_a_set_whose_listing_leaves_no_room_is_split_and_long_descriptions_are_cut_in_the_listing():
    from agent.router.prompt import DESCRIBED_CHARS

    page = "Opens things. " + "It has many options that are described here at length. " * 40  # an MCP page
    tools = [ToolManifest(f"tool{i}", page, {"x": "a value"}, [f"please do thing {i}"]) for i in range(20)]
    listing = [line for line in DecisionPrompt(tools, "en", RouterOptions()).prefix[0]["content"].splitlines() if line.startswith("- tool")]
    assert all(len(line) < DESCRIBED_CHARS + 40 and line.endswith("…") for line in listing)
    router = Router(RouterOptions())
    roomy = CountingProvider(100_000)
    assert router.split(tools, roomy) == (tools, [])  # 20 tools: one prompt, when they fit
    small = CountingProvider(len(listing) * DESCRIBED_CHARS // 2)  # room for half the listing
    core, rest = router.split(tools, small)
    assert len(core) == RouterOptions().candidates - RouterOptions().retrieved and len(rest) == 8
    assert router.split(tools) == (tools, [])  # without a provider that counts tokens: as before


# ------------------------------------------------------------- optional values the message did not state
RELEASE = ToolManifest(
    "create_release", "Create a release of a repository",
    {"repo": "Repository, owner/name", "tag_name": "The tag to release", "name": "Title of the release",
     "body": "Release notes", "draft": "Create it as a draft", "prerelease": "Mark it as a pre-release",
     "per_page": "Results per page"},
    ["Release v3.1 of octo/cli"], required=["repo", "tag_name"],
    parameter_types={"draft": {"type": "boolean", "default": False}, "prerelease": {"type": "boolean", "default": False},
                     "per_page": {"type": "integer", "default": 30}},
)


def test_optional_values_that_state_nothing_are_left_out():
    # the tag copied again as name and body, draft at its default, per_page at its default: none was said
    provider = ScoringProvider({"create_release": 0.0, "none": -5.0, "false": -0.1, "true": -2.0},
                               ["acme/api", "v1.0.0", "v1.0.0", "v1.0.0", "30"])
    decision = Router().decide(provider, [RELEASE], "publish v1.0.0 of acme/api", "en")
    assert decision.tool == "create_release"
    assert decision.params == {"repo": "acme/api", "tag_name": "v1.0.0"}


def test_optional_values_the_message_states_are_kept():
    provider = ScoringProvider({"create_release": 0.0, "none": -5.0, "true": -0.1, "false": -2.0},
                               ["acme/api", "v2.0", "Big Bang", "", "50"])
    decision = Router().decide(provider, [RELEASE], "publish v2.0 of acme/api as 'Big Bang', a draft pre-release, 50 per page", "en")
    assert decision.params == {"repo": "acme/api", "tag_name": "v2.0", "name": "Big Bang", "draft": "true",
                               "prerelease": "true", "per_page": "50"}
    # the lever off: every written value stays
    provider = ScoringProvider({"create_release": 0.0, "none": -5.0, "false": -0.1, "true": -2.0},
                               ["acme/api", "v1.0.0", "v1.0.0", "", "30"])
    decision = Router(RouterOptions(leave_out_unsaid=False)).decide(provider, [RELEASE], "publish v1.0.0 of acme/api", "en")
    assert decision.params == {"repo": "acme/api", "tag_name": "v1.0.0", "name": "v1.0.0", "draft": "false",
                               "prerelease": "false", "per_page": "30"}


@pytest.mark.parametrize("value,others,held", [
    ("acme", ["acme/webapp"], True),          # a piece of another value, as a whole word
    ("acme/webapp", ["acme", "webapp"], True),  # made of other values
    ("tom@acme.com", ["tom@acme.com, li@acme.com"], True),
    ("Board Review", ["board review"], True),  # case and width do not matter
    ("重新打开", ["把 issue 重新打开"], True),      # Chinese has no spaces: any part
    ("1", ["2026-12-01"], False),             # not a whole word of it
    ("app", ["webapp"], False),
    ("acme/cli", ["acme", "webapp"], False),  # one word of it is new
    ("", ["anything"], False),
])
def test_a_value_held_by_other_parameters(value, others, held):
    from agent.router.values import _held
    assert _held(value, others) is held


def test_a_parameter_left_out_scores_as_its_default():
    from agent.evaluation.scoring import params_match
    assert params_match(RELEASE, {"draft": False, "per_page": 30}, {"repo": "a/b", "tag_name": "v1"})
    assert not params_match(RELEASE, {"draft": True}, {"repo": "a/b", "tag_name": "v1"})
    assert not params_match(RELEASE, {"name": "x"}, {"repo": "a/b", "tag_name": "v1"})  # no default: missing


def test_a_provider_that_writes_json_has_its_unsaid_optional_values_left_out_too():
    prompt = DecisionPrompt([RELEASE], "en", RouterOptions())
    decision = validated(prompt, "create_release", {"repo": "a/b", "tag_name": "v1", "name": "v1", "draft": False,
                                                              "prerelease": True, "per_page": 30.0})
    assert decision.params == {"repo": "a/b", "tag_name": "v1", "prerelease": True}


class KeywordEncoder:
    """A sentence encoder made for retrieval (as ``riverse[retrieval]``'s): one axis per keyword a text mentions."""

    KEYWORDS = ("blinds", "door", "lock")

    def __init__(self):
        self.embedded: list[tuple[str, bool]] = []

    def embed(self, texts, *, keep=False):
        import numpy

        self.embedded.extend((text, keep) for text in texts)
        rows = [numpy.array([float(k in text.lower()) for k in self.KEYWORDS] + [0.1]) for text in texts]
        return numpy.stack([row / numpy.linalg.norm(row) for row in rows])

    def has_embedded(self, texts):
        return set(texts) <= {text for text, keep in self.embedded if keep}


BLINDS = ToolManifest("set_blinds", "Move the window blinds of a room", {"room": "The room"}, [], required=["room"])
LOCK = ToolManifest("lock_door", "Lock a door", {"door": "Which door"}, [], required=["door"])


@pytest.fixture
def encoder(monkeypatch):
    """A keyword encoder in place of the retrieval encoder."""
    found = KeywordEncoder()
    monkeypatch.setattr(Router, "_encoder", lambda self, provider: found)
    return found


#: the model prefers no tool; the encoder (with ``ENCODED``) may find the message close to what one tool says it does
SCORES = {"set_blinds": -4.0, "lock_door": -5.0, "none": -1.0}
ENCODED = RouterOptions(vector_weight=0.0, none_bias=0.0, described_weight=0.0, meant_weight=10.0, meant_floor=0.3,
                        write_examples=False)


def test_a_tool_without_examples_is_judged_by_the_encoders_reading_of_its_description(encoder):
    scores, options = SCORES, ENCODED
    router = Router(options)
    router.prepare(PreparingProvider(scores), [BLINDS, LOCK], "en")
    assert ("set blinds: Move the window blinds of a room", True) in encoder.embedded  # as it is, no template; kept
    decided = router.decide(PreparingProvider(scores, ["office"]), [BLINDS, LOCK], "close the office blinds halfway", "en")
    assert decided.tool == "set_blinds" and decided.params == {"room": "office"}
    # similarity 1 for the blinds (both texts name them and nothing else); "lock door: Lock a door" names two others
    assert decided.scores["set_blinds"] == pytest.approx(-4.0 + 10.0 * (1.0 - 0.3))
    assert decided.scores["lock_door"] == pytest.approx(-5.0 + 10.0 * (0.01 / (2.01 * 1.01) ** 0.5 - 0.3))
    # a message close to no tool's description lowers every tool: no tool
    assert router.decide(PreparingProvider({"set_blinds": -0.5, "none": -1.0}), [BLINDS, LOCK], "play some jazz", "en").tool is None
    # without the lever, the model's choice stands
    off = Router(RouterOptions(vector_weight=0.0, none_bias=0.0, described_weight=0.0, meant_weight=0.0, write_examples=False))
    assert off.decide(PreparingProvider(scores, ["office"]), [BLINDS, LOCK], "close the office blinds halfway", "en").tool is None


def test_the_encoder_reads_a_chinese_or_japanese_message_glossed_and_never_a_tool_it_cannot_read(encoder, monkeypatch):
    import agent.router.decision as decision_module
    scores, options = SCORES, ENCODED
    # no dictionaries (RIVERSE_GLOSSARY=off here): the encoder cannot read the message, the model's choice stands
    assert Router(options).decide(PreparingProvider(scores, ["办公室"]), [BLINDS, LOCK], "把办公室的百叶窗关一半", "zh").tool is None
    monkeypatch.setattr(decision_module, "gloss", lambda text: "office blinds close half")
    decided = Router(options).decide(PreparingProvider(scores, ["办公室"]), [BLINDS, LOCK], "把办公室的百叶窗关一半", "zh")
    assert decided.tool == "set_blinds" and decided.params == {"room": "办公室"}
    assert encoder.embedded[-1] == ("office blinds close half", False)
    # a tool described in Chinese is not put to an encoder that reads English
    chinese = ToolManifest("set_blinds", "调节房间的百叶窗", {"room": "房间"}, [], required=["room"])
    assert DecisionPrompt([chinese, LOCK], "zh", options).meant.names == ["lock_door"]


def test_a_retrieved_tool_without_examples_is_judged_by_the_encoder_as_one_in_the_prompt(encoder):
    """Among many tools, a tool outside the core that retrieval lists for the message gets the encoder's
    evidence too (a tool with examples of its own, or one described in Chinese, does not)."""
    core = [ToolManifest(f"core_{i}", f"Core tool {i}", {"x": "X"}, [f"core example {i}"], required=["x"]) for i in range(4)]
    curtains = ToolManifest("set_curtains", "Open or close the curtains (blinds) of a room", {"room": "The room"}, ["draw the blinds"],
                            required=["room"])
    chinese = ToolManifest("lock_gate", "锁上大门 (door lock)", {"gate": "门"}, [], required=["gate"])
    many = [*core, BLINDS, LOCK, curtains, chinese]
    options = replace(ENCODED, candidates=7, retrieved=4, one_prompt_up_to=0)
    scores = {**SCORES, "set_curtains": -4.0, "lock_gate": -5.0, **{m.name: -9.0 for m in core}}
    router = Router(options)
    assert [m.name for m in router.split(many)[1]] == ["core_3", "set_blinds", "lock_door", "set_curtains", "lock_gate"]
    text = "close the office blinds halfway"
    assert {"set_blinds", "set_curtains"} <= {m.name for m in router.candidates(PreparingProvider(scores), many, text)[3:]}
    decided = router.decide(PreparingProvider(scores, ["office"]), many, text, "en")
    assert decided.tool == "set_blinds" and decided.params == {"room": "office"}
    assert decided.scores["set_blinds"] == pytest.approx(-4.0 + 10.0 * (1.0 - 0.3))  # the lever, as in one prompt
    assert decided.scores["set_curtains"] == pytest.approx(-4.0)  # examples of its own: no encoder evidence
    off = Router(replace(options, meant_weight=0.0)).decide(PreparingProvider(scores, ["office"]), many, text, "en")
    assert off.tool is None and off.scores["set_blinds"] == pytest.approx(-4.0)
    # what the encoder reads of the listed tools: neither one with examples nor one described in Chinese
    rest = router.split(many)[1]
    index = router.index(rest)
    extended = ExtendedPrompt(DecisionPrompt(core[:3], "en", options, more=True), rest[1:], "en", index.vectors, index.described)
    assert set(extended.meant.scores(encoder, "lock the door")) == {"set_blinds", "lock_door"}
    assert extended.meant.scores(encoder, "lock the door")["lock_door"] > 0.9


def test_a_piece_of_another_number_is_no_name_the_message_gives():
    light = ToolManifest("set_light_color", "Set a light's colour temperature", {"room": "Room name", "kelvin": "Colour temperature"},
                         [], parameter_types={"room": {"type": "string"}, "kelvin": {"type": "integer"}}, required=["room"])
    said = "ダイニングの照明を電球色の2700ケルビンにして"
    provider = ScoringProvider({"set_light_color": 0.0, "none": -9.0}, ["0", "ダイニング", "2700"])
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [light], said, "ja")
    assert decision.params == {"room": "ダイニング", "kelvin": "2700"}
    assert provider.cursor.filters[1]["copy_from"] == said  # "0" of 2700 was written again, copied from the message


def test_a_piece_of_another_number_copied_again_is_still_no_name():
    door = ToolManifest("unlock_door", "Unlock a smart door lock", {"door": "", "code": "PIN code if the lock requires one"}, [],
                        parameter_types={"door": {"type": "string"}, "code": {"type": "string"}}, required=["door"])
    provider = ScoringProvider({"unlock_door": 0.0, "none": -9.0}, ["1", "1"])  # the copy from the message is "1" of 4821 again
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [door], "把大门打开，密码 4821", "zh")
    assert decision.tool is None and (decision.declined, decision.missing) == ("unlock_door", "door")


def test_a_name_written_in_another_language_is_not_replaced_by_a_piece_of_a_number():
    light = ToolManifest("set_light_color", "Set a light's colour temperature", {"room": "Room name", "kelvin": "Colour temperature"},
                         [], parameter_types={"room": {"type": "string"}, "kelvin": {"type": "integer"}}, required=["room"])
    provider = ScoringProvider({"set_light_color": 0.0, "none": -9.0}, ["dining", "0", "2700"])  # the copy is "0" of 2700
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [light], "ダイニングの照明を2700ケルビンにして", "ja")
    assert decision.params == {"room": "dining", "kelvin": "2700"}
