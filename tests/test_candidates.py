"""Retrieval before decision: with many tools, a decision is made among a few candidates."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from agent.providers.base import Completion
from agent.router import Router, RouterOptions
from agent.router.candidates import ToolIndex, narrowed, terms
from agent.router.tool_texts import described, indexed, kinds_of_values
from agent.router.context import Call, Context, Exchange
from agent.tools import ToolManifest
from bench.scale.tools import generated
from tests.helpers.cost import cpu_seconds
from tests.test_routing import CALC, NOTES, WEATHER, ScoringProvider

MANY = [WEATHER, NOTES, CALC, *generated(997)]


def test_terms_are_words_and_character_pairs():
    assert terms("Delete the support_tickets, please") == ["delet", "support", "ticket"]
    # a word's forms are one term: a gloss's nouns ("deletion") meet a tool's verbs ("Delete")
    assert terms("deletion cancellation") == terms("deleted cancel") == terms("Delete cancels")
    assert terms("东京天气") == ["东京", "京天", "天气"]
    assert terms("明日の天気") == ["明日", "日の", "の天", "天気"]


def test_the_right_tool_is_among_the_candidates_of_a_thousand():
    index = ToolIndex(MANY)
    for text, tool in [
        ("Delete support ticket st_31", "helpdesk_delete_support_ticket"),
        ("How many open insurance claims are there?", "insurance_count_insurance_claim"),
        ("What's the weather in Oslo?", "weather"),
        ("what is 17*23", "calculator"),
        ("Export my playlists to CSV", "music_export_playlist"),
    ]:
        assert tool in index.candidates(text, 16), text


SENSOR = ToolManifest(
    "get_sensor_reading", "Get the latest reading of a sensor in a room.", {"sensor_type": "", "room": "Room name"},
    parameter_types={"sensor_type": {"type": "string", "enum": ["temperature", "humidity", "water_leak"]},
                     "room": {"type": "string"}},
)
TRIP = ToolManifest(
    "plan_trip", "Plan a journey.", {"travellers": "Who travels"},
    parameter_types={"travellers": {"type": "object", "properties": {
        "wheelchair": {"type": "boolean", "description": "Step-free access needed"},
        "pets": {"type": "array", "items": {"type": "string", "enum": ["dog", "cat"]}}}}},
)


def test_what_a_schema_allows_finds_its_tool_among_a_thousand():
    # "humidity" is said by the enum alone, "step-free" and "cat" by an object's member and a list's items
    index = ToolIndex([*MANY, SENSOR, TRIP])
    assert "get_sensor_reading" in index.candidates("what's the humidity in the basement right now", 4)
    assert "plan_trip" in index.candidates("I need step-free access and I bring my cat", 4)
    without = ToolIndex([*MANY, replace(SENSOR, parameter_types={}), replace(TRIP, parameter_types={})])
    assert "get_sensor_reading" not in without.candidates("what's the humidity in the basement right now", 4)
    assert "plan_trip" not in without.candidates("I need step-free access and I bring my cat", 4)


def test_a_schema_nested_thousands_deep_or_malformed_is_read_to_a_bounded_depth():
    # attack: a server's schema nested 5,000 deep, with properties and options of the wrong types
    deep: dict = {"type": "string", "enum": ["bottom"]}
    for _ in range(5000):
        deep = {"type": "object", "properties": {"inner": deep}}
    odd = {"type": "object", "properties": ["not", "a", "mapping"], "anyOf": "nor a list", "items": 7, "enum": [1, None]}
    tool = ToolManifest("deep_tool", "Takes a nested thing.", {"thing": "", "odd": ""},
                        parameter_types={"thing": deep, "odd": odd})
    text = indexed(tool)
    assert text.count("inner") == 8 and "bottom" not in text  # read 8 deep, not to the bottom
    assert "deep_tool" in ToolIndex([*MANY[:50], tool]).candidates("use the deep tool", 4)


def test_a_tool_described_for_the_encoder_names_the_values_it_allows():
    assert described(SENSOR) == "get sensor reading: Get the latest reading of a sensor in a room."
    assert described(SENSOR, choices=True) == ("get sensor reading: Get the latest reading of a sensor in a room. "
                                               "(sensor type: temperature, humidity, water leak)")
    assert described(TRIP, choices=True) == "plan trip: Plan a journey. (travellers: dog, cat)"
    many = replace(SENSOR, parameter_types={"sensor_type": [f"kind_{i}" for i in range(40)]})
    assert described(many, choices=True).count("kind") == 12  # a long list is cut


CALENDAR = [
    ToolManifest("update_event", "Update fields of an existing event.", {"event_id": "Event ID", "changes": "Fields to change"}),
    ToolManifest("add_attendees", "Add people to an existing event.", {"event_id": "Event ID", "attendees": "Email addresses"}),
    ToolManifest("delete_event", "Delete an event. Attendees are notified.", {"event_id": "Event ID"}),
    ToolManifest("get_file_contents", "Get the contents of a file in a repository.", {"repo": "Repository", "path": "Path in the repository"}),
]


def test_an_identifier_says_what_it_identifies_and_a_value_what_kind_it_is():
    index = ToolIndex([*MANY, *CALENDAR])
    assert index.identified == ["event"]
    assert index.expanded("把 evt_4410 的地点改成 3 号会议室") == "把 evt_4410 的地点改成 3 号会议室 event"
    assert index.expanded("Delete support ticket st_31") == "Delete support ticket st_31"  # "st" shortens no identified word
    assert index.expanded("evt_6060 に yamada@corp.jp を追加して").endswith(" event email address")
    assert index.expanded("acme/api の src/config.py を見せて").endswith(" file path")
    assert index.expanded("see https://example.com/a/b.html").endswith(" url link")  # a link is no file path
    assert index.expanded("2026年12月1日から3日までの予定").endswith(" date")
    assert index.expanded("hello there") == "hello there"
    # glossed, "evt_2024 を削除して" shares "delete" with every delete tool: "event" tells them apart
    plain = ToolIndex([*MANY, *CALENDAR])
    plain.expanded = lambda text: text  # type: ignore[method-assign]
    for said, tool in [("evt_2024 deletion elimination", "delete_event"),  # "evt_2024 を削除して" glossed
                       ("acme/api src/config.py view outlook", "get_file_contents")]:
        assert index.ranked(said)[0] == tool and tool not in plain.candidates(said, 4), said


@pytest.mark.parametrize("piece", ["a/", "a.", "ab_", "a-", "/a./", "x", "a@"])
def test_a_long_message_without_an_address_or_a_path_is_read_once_not_once_from_every_character(piece):
    # attack: a pasted text of one long run made the address and path patterns start again at every character
    # (seconds for 50,000 characters, growing with the square of the length); now the cost grows with the length
    short = piece * (4000 // len(piece))
    assert cpu_seconds(kinds_of_values, short * 8) < 24 * max(cpu_seconds(kinds_of_values, short), 1e-4)  # eight times the text; the square of it would be 64 times


def test_a_tool_the_message_names_is_always_a_candidate():
    index = ToolIndex(MANY)
    assert "garden_export_garden_bed" in index.candidates("run garden_export_garden_bed since 2026-01-01", 4)
    assert "crm_create_contact" in index.candidates("use crm create contact for Alpha", 4)
    assert "notes" in index.candidates("hello there", 3, always=["notes"])


def listed(text: str) -> list[str]:
    return [line[2:].split("(")[0] for line in text.splitlines() if re.match(r"- \w+\(", line)]


def test_with_many_tools_a_decision_reads_a_fixed_core_and_the_tools_retrieved_for_the_message():
    provider = ScoringProvider({"helpdesk_delete_support_ticket": 0.0, "none": -5.0}, ["st_31"])
    router = Router(RouterOptions(candidates=8, retrieved=4))
    decision = router.decide(provider, MANY, "Delete support ticket st_31", "en")
    assert decision.tool == "helpdesk_delete_support_ticket" and decision.params == {"id": "st_31"}
    messages = provider.opened[0][0]
    core = listed(messages[0]["content"])
    # the core: tools with examples of their own first, in the given order; the same for every message
    assert core[:3] == ["weather", "notes", "calculator"] and len(core) == 4
    assert all(m.examples for m in MANY if m.name in core)
    turn = messages[-1]["content"]
    assert turn.startswith("Delete support ticket st_31\n\n(Also available for this message:")
    assert "helpdesk_delete_support_ticket" in listed(turn) and len(listed(turn)) == 4
    # the prefix shows a tool of the message's turn chosen, and one passed over
    keep = provider.opened[0][1]
    shown = [m["content"] for m in messages[:keep]]
    assert any("(Also available for this message:" in text and "restaurant_book_table" in text for text in shown)
    assert '{"tool": "restaurant_book_table"}' in shown and '{"tool": "none"}' in shown
    # ... and the same listing twice: one message it fits, one about its subject that needs no tool
    cinema = [i for i, text in enumerate(shown) if "cinema_list_showings(cinema, date)" in text]
    assert len(cinema) == 2 and {shown[i + 1] for i in cinema} == {'{"tool": "cinema_list_showings"}', '{"tool": "none"}'}
    # the prefix the provider keeps is the core's alone
    other = ScoringProvider({"none": 0.0}, [])
    router.decide(other, MANY, "Export my playlists to CSV", "en")
    assert other.opened[0][0][:keep] == messages[:keep]


def test_listed_bias_weighs_the_tools_listed_in_the_message_turn_only():
    provider = ScoringProvider({"helpdesk_delete_support_ticket": 0.0, "weather": -1.0, "none": -5.0}, ["st_31", "Oslo"])
    plain = Router(RouterOptions(candidates=8, retrieved=4)).decide(provider, MANY, "Delete support ticket st_31", "en")
    assert plain.tool == "helpdesk_delete_support_ticket"
    biased = Router(RouterOptions(candidates=8, retrieved=4, listed_bias=-2.0))
    decision = biased.decide(provider, MANY, "Delete support ticket st_31", "en")
    assert decision.tool == "weather"  # the core tool, one point behind, now ahead
    assert decision.scores["helpdesk_delete_support_ticket"] == pytest.approx(plain.scores["helpdesk_delete_support_ticket"] - 2.0)
    assert decision.scores["weather"] == pytest.approx(plain.scores["weather"])


def test_the_candidates_are_the_tools_the_decision_lists_examples_written_before_included(monkeypatch):
    """``Router.candidates`` (what the scale bench's recall counts) finds the tools as the decision does:
    with the examples the model wrote earlier for tools outside the core, in the message's language."""
    router = Router(RouterOptions(candidates=8, retrieved=4))
    written = {"parking_get_parking_fine": ["帮我查一下停车罚单 pf_88 的详情"]}

    def completed(provider, manifests, language, write=True, partial=False, progress=None):
        return [replace(m, examples=written.get(m.name, m.examples)) if language == "zh" else m for m in manifests]

    monkeypatch.setattr(router.writer, "completed", completed)
    provider = ScoringProvider({"none": 0.0}, [])
    text = "我的停车罚单有什么详情"
    router.decide(provider, MANY, text, "zh")
    shown = listed(provider.opened[0][0][-1]["content"])
    assert "parking_get_parking_fine" in shown
    named = [m.name for m in router.candidates(provider, MANY, text, language="zh")]
    assert named[-len(shown):] == shown
    assert "parking_get_parking_fine" not in [m.name for m in router.candidates(provider, MANY, text, language="en")]


def test_a_follow_up_keeps_the_previous_exchanges_tool_among_the_candidates():
    provider = ScoringProvider({"helpdesk_delete_support_ticket": 0.0, "none": -5.0}, ["st_32"])
    context = Context([Exchange("Delete support ticket st_31", [Call("helpdesk_delete_support_ticket", {"id": "st_31"}, "done")])])
    Router(RouterOptions(candidates=8, retrieved=2)).decide(provider, MANY, "and st_32?", "en", context)
    assert "helpdesk_delete_support_ticket" in listed(provider.opened[0][0][-1]["content"])


def test_preparing_many_tools_prepares_the_core_prompt_only_and_writes_no_examples():
    provider = ScoringProvider({"none": 0.0}, [])
    provider.capabilities = type(provider.capabilities)(scored_decoding=True, prefix_cache=True)
    provider.complete = lambda *a, **k: (_ for _ in ()).throw(AssertionError("no example may be written"))
    prepared: list[list[dict]] = []
    provider.has_prefix = lambda messages: messages in prepared
    provider.prepare_prefix = prepared.append
    provider.leaves_room = lambda messages, room: True
    provider.load = lambda: None
    router = Router(RouterOptions(candidates=16, retrieved=4))
    assert not router.is_prepared(provider, MANY, "en")
    assert router.prepare(provider, MANY, "en") is True
    assert len(prepared) == 1 and len(listed(prepared[0][0]["content"])) == 12
    assert router.is_prepared(provider, MANY, "en") and router.prepare(provider, MANY, "en") is False


def test_a_few_dozen_tools_are_decided_in_one_prompt_none_listed_in_the_message_turn():
    """An MCP server's twenty tools are all in the prompt: a tool listed in the message's turn would
    draw the small model away from a better one in the prompt (bench: toolsets, blind)."""
    few = [WEATHER, NOTES, CALC, *generated(20)]
    provider = ScoringProvider({"weather": 0.0, "none": -5.0}, ["Oslo"])
    router = Router(RouterOptions(candidates=16, retrieved=4, one_prompt_up_to=40, write_examples=False))
    assert router.split(few) == (few, [])
    router.decide(provider, few, "weather in Oslo", "en")
    messages = provider.opened[0][0]
    assert len(listed(messages[0]["content"])) == len(few)
    assert messages[-1]["content"] == "weather in Oslo"
    assert all("(Also available for this message:" not in m["content"] for m in messages)
    assert len(Router(RouterOptions(candidates=16, retrieved=4, one_prompt_up_to=20)).split(few)[1]) == len(few) - 12


def test_preparing_a_few_dozen_tools_writes_examples_for_those_outside_the_core_too():
    """A set a little over the candidates (an MCP server's twenty tools) is prepared with written
    examples for every tool: those outside the core are found by them; a thousand get none."""
    few = [replace(m, examples=[]) for m in generated(20)]
    outside = few[-1].name
    written: list[str] = []

    def complete(messages, json_schema=None, max_tokens=None, **_):
        name = messages[-1]["content"].split("Tool: ")[1].split("\n")[0]
        written.append(name)
        said = ["zorblat the quux for me", "frobnicate quux now"] if name == outside else [f"please do {name} stuff", f"{name} again"]
        return Completion(text=json.dumps({"examples": said}))

    provider = ScoringProvider({"none": 0.0}, [])
    provider.capabilities = type(provider.capabilities)(scored_decoding=True, prefix_cache=True)
    provider.complete = complete
    prepared: list[list[dict]] = []
    provider.has_prefix = lambda messages: messages in prepared
    provider.prepare_prefix = prepared.append
    provider.leaves_room = lambda messages, room: True
    router = Router(RouterOptions(candidates=16, retrieved=4, write_all_up_to=64, one_prompt_up_to=0))
    core, rest = router.split(few)
    assert len(core) == 12 and outside in [m.name for m in rest]
    assert not router.is_prepared(provider, few, "en")
    heard: list[tuple[int, int]] = []
    assert router.prepare(provider, few, "en", progress=lambda done, total: heard.append((done, total))) is True
    assert sorted(written) == sorted(m.name for m in few)  # every tool, once
    assert heard == [(i, 20) for i in range(1, 21)]  # what the spinner of chat and model --prepare counts
    assert router.is_prepared(provider, few, "en")
    # the words of its written examples, which its description lacks, find the tool outside the core
    assert outside in [m.name for m in router.candidates(provider, few, "zorblat the quux", language="en")]
    # above write_all_up_to only the core is written for
    written.clear()
    small = Router(RouterOptions(candidates=16, retrieved=4, write_all_up_to=19, one_prompt_up_to=0))
    small.prepare(provider, [replace(m, description=m.description + ".") for m in few], "en")
    assert len(written) == 12


class RoomyProvider(ScoringProvider):
    """Counts one token per character, in a context of ``n_ctx``."""

    def __init__(self, scores, values, n_ctx):
        super().__init__(scores, values)
        self.n_ctx = n_ctx

    def leaves_room(self, messages, room):
        return sum(len(m["content"]) for m in messages) + room <= self.n_ctx


def test_an_earlier_exchange_that_leaves_no_room_is_left_out_and_a_message_too_long_is_said():
    from agent.providers.base import ProviderError
    from agent.router.prompt import DecisionPrompt
    import pytest

    size = sum(len(m["content"]) for m in DecisionPrompt([WEATHER], "en", RouterOptions()).prefix)
    long_result = "x" * 400
    context = Context([Exchange("weather in Paris?", [Call("weather", {"city": "Paris"}, long_result)])])
    provider = RoomyProvider({"weather": 0.0, "none": -5.0}, ["Lyon"], n_ctx=size + 300)
    Router().decide(provider, [WEATHER], "weather in Lyon?", "en", context)
    sent = provider.opened[0][0]
    assert sent[-1]["content"] == "weather in Lyon?" and not any(long_result in m["content"] for m in sent)
    with pytest.raises(ProviderError, match="the message is too long for the model's context"):
        Router().decide(RoomyProvider({"none": 0.0}, [], n_ctx=size + 300), [WEATHER], "y" * 500, "en")


def test_a_remote_model_is_sent_the_likeliest_tools_not_every_schema():
    """With native function calling, a thousand tools would be a thousand schemas on every request."""
    from agent.loop import Agent
    from agent.providers.fake import ScriptedProvider, ToolCall
    from agent.router.candidates import REMOTE_TOOLS
    from agent.storage import open_store
    from agent.tools import BaseTool, ToolResult
    from agent.toolkit.runtime import ToolRunner
    from tests.test_loop import FakeRegistry

    def tool_for(manifest):
        class Generated(BaseTool):
            def manifest(self):
                return manifest

            def execute(self, params):
                return ToolResult(success=True, data=f"{manifest.name} done")
        return Generated()

    registry = FakeRegistry(*(tool_for(m) for m in generated(200)))
    provider = ScriptedProvider([ToolCall("helpdesk_get_support_ticket", {"id": "st_31"}), "Here it is.",
                                 "Done too."])
    agent = Agent(provider, registry, runner=ToolRunner(registry, timeout=5), store=open_store(":memory:"),
                  tool_protocol="native")
    agent.ask("Show me the details of support ticket st_31")
    sent = [t["function"]["name"] for t in provider.requests[0]["tools"]]
    assert len(sent) == REMOTE_TOOLS and "helpdesk_get_support_ticket" in sent
    # a follow-up keeps the conversation's last tool among those sent
    agent.ask("and the other one?", conversation_id=agent.conversation_id)
    assert "helpdesk_get_support_ticket" in [t["function"]["name"] for t in provider.requests[-1]["tools"]]
    # a Chinese message for tools described in English: the model says it in English first, and that is compared
    said = "我的保险单写了什么？"
    assert "insurance_get_insurance_policy" not in [m.name for m in narrowed(generated(200), said)]  # its own words miss it
    provider.add("What does my insurance policy say?", ToolCall("insurance_get_insurance_policy", {"id": "ip_1"}), "好的。")
    agent.ask(said)
    translation, call = provider.requests[-3:-1]
    assert translation["messages"][-1]["content"] == said and not translation.get("tools")
    assert "insurance_get_insurance_policy" in [t["function"]["name"] for t in call["tools"]]


def test_a_chinese_message_for_english_tools_is_also_retrieved_by_its_english_translation():
    from agent.providers.base import Completion
    from agent.router.candidates import needs_english

    index = ToolIndex(MANY)
    assert needs_english(index, "帮我删除工单 st_31") and not needs_english(index, "Delete support ticket st_31")
    chinese = ToolIndex([ToolManifest("ticket_delete", "删除一张工单", {"id": "工单编号"}), *generated(20)])
    assert not needs_english(chinese, "帮我删除工单 st_31")  # the tools speak the message's language: no translation

    # examples the model wrote in the message's language for tools described in English share its words, but do not
    # make the tools' descriptions readable to it: the message is still read in English (glossed, translated)
    written = [replace(m, extra_examples=["サポートチケット st_31 を削除して"]) if m.name == "helpdesk_delete_support_ticket"
               else m for m in MANY]
    assert ToolIndex(written).words.scores("サポートチケット st_31 を削除して").max() > 0
    assert needs_english(ToolIndex(written), "サポートチケット st_31 を削除して")
    authored = [ToolManifest("ticket_delete", "サポートチケットを削除する", {"id": "チケット番号"}), *generated(20)]
    assert not needs_english(ToolIndex(authored), "サポートチケット st_31 を削除して")

    provider = ScoringProvider({"helpdesk_delete_support_ticket": 0.0, "none": -5.0}, ["st_31", "st_31"])  # written, copied
    asked: list[list[dict]] = []

    def complete(messages, **kwargs):
        asked.append(messages)
        return Completion(text=" Delete support ticket st_31 ")

    provider.complete = complete
    router = Router(RouterOptions(candidates=8, retrieved=4, retrieve_in_english=True))
    decision = router.decide(provider, MANY, "帮我删除工单 st_31", "zh")
    assert decision.tool == "helpdesk_delete_support_ticket"
    assert "helpdesk_delete_support_ticket" in listed(provider.opened[0][0][-1]["content"])
    assert len(asked) == 1 and asked[0][-1] == {"role": "user", "content": "帮我删除工单 st_31"}
    router.candidates(provider, MANY, "帮我删除工单 st_31")
    assert len(asked) == 1  # translated once per message
    without = ScoringProvider({"none": 0.0}, [])
    Router(RouterOptions(candidates=8, retrieved=4)).decide(without, MANY, "帮我删除工单 st_31", "zh")
    assert "helpdesk_delete_support_ticket" not in listed(without.opened[0][0][-1]["content"])  # the words alone miss it


def test_tools_for_a_remote_model_are_narrowed_by_the_message_own_words_when_its_translation_fails():
    from agent.providers.base import ProviderError

    class Down:
        def complete(self, messages, **kwargs):
            raise ProviderError("the server is down")

    tools = narrowed(generated(200), "我的保险单写了什么？", 32, provider=Down())
    assert len(tools) == 32  # the request for the message is where the error is said, not here
