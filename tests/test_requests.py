"""Decisions that read the conversation, every request of a message, and a second step after a result
(agent.router.context, agent.router.requests), with a stand-in router that decides by rules."""

from __future__ import annotations

import json

import pytest

from agent.router.context import Call, Context, Exchange, previous_exchange
from agent.router.prompt import Decision
from agent.router.requests import decide_next_step, decide_requests, may_chain, split_requests
from agent.storage import open_store
from agent.toolkit.runtime import ToolOutcome
from tests.helpers.rules import RuleRouter


@pytest.mark.parametrize(
    "text,parts",
    [
        ("What's the weather in Oslo and what time is it there?", ["What's the weather in Oslo", "what time is it there?"]),
        ("weather in Paris and London", ["weather in Paris", "London"]),
        ("东京现在几点？顺便算一下 17*23", ["东京现在几点？", "算一下 17*23"]),
        ("大阪と札幌の天気を教えて", ["大阪", "札幌の天気を教えて"]),
        ("東京は今何時？ついでに 17*23 も計算して", ["東京は今何時？", "17*23 も計算して"]),
        ("convert 5 km to miles, also what is 2**10", ["convert 5 km to miles", "what is 2**10"]),
        ("What is 17*23?", ["What is 17*23?"]),
        ("what is 3.5 + 2", ["what is 3.5 + 2"]),
        ("How warm is it in Lima in Fahrenheit?", ["How warm is it in Lima in Fahrenheit?"]),
        ("fetch https://news.ycombinator.com/item?id=3912 for me", ["fetch https://news.ycombinator.com/item?id=3912 for me"]),
        ("what's 17.5% of 2,340?", ["what's 17.5% of 2,340?"]),
        ("square root of 1849 plus 2 to the power of 10?", ["square root of 1849 plus 2 to the power of 10?"]),
    ],
)
def test_a_message_is_divided_where_requests_may_meet(text, parts):
    assert split_requests(text) == parts


def weather_rules(text: str, context: Context) -> Decision:
    for city in ("Oslo", "Bergen", "Paris", "London", "Lima"):
        if city in text:
            tool = "current_time" if "time" in text else "weather"
            return Decision(tool, {"city" if tool == "weather" else "timezone": city},
                            scores={tool: -0.5, "none": -6.0})
    if "there" in text and context.calls:  # "what time is it there?" after the weather in a city
        return Decision("current_time", {"timezone": context.calls[-1].params.get("city", "")})
    return Decision(None, scores={"none": -0.1})


def test_two_requests_get_two_calls_and_the_second_reads_the_first():
    router = RuleRouter(weather_rules)
    decisions = decide_requests(router, None, [], "What's the weather in Oslo and what time is it there?", "en", Context())
    assert [(d.tool, d.params) for d in decisions] == [("weather", {"city": "Oslo"}), ("current_time", {"timezone": "Oslo"})]
    # the part "what time is it there?" was decided after the part before it
    text, context = router.asked[2]
    assert text == "what time is it there?" and context.exchanges[-1].message == "What's the weather in Oslo"


def test_the_same_tool_twice_and_a_short_part_decided_again_after_the_others():
    def rules(text, context):
        if text == "London" and not context.calls:
            return Decision(None)  # a bare name alone is no request ...
        if text == "London":
            return Decision("weather", {"city": "London"})  # ... after the weather in Paris it is
        return weather_rules(text, context)

    decisions = decide_requests(RuleRouter(rules), None, [], "weather in Paris and London", "en", Context())
    assert [(d.tool, d.params) for d in decisions] == [("weather", {"city": "Paris"}), ("weather", {"city": "London"})]


def test_a_single_request_with_and_keeps_the_whole_messages_decision():
    def rules(text, context):
        if text == "Tom":
            return Decision("weather", {"city": "Tom"})
        return Decision(None)

    router = RuleRouter(rules)
    decisions = decide_requests(router, None, [], "Tom and Jerry is a cartoon", "en", Context())
    assert [d.tool for d in decisions] == [None]  # one call from the parts is not two requests


def test_calls_that_differ_only_in_a_list_parameter_are_one_call_with_the_items_listed():
    from agent.tools import ToolManifest

    slots = ToolManifest("find_meeting_slots", "Find a time when everyone is free",
                         {"attendees": "Email addresses", "duration_minutes": "Length"},
                         parameter_types={"attendees": {"type": "array", "items": {"type": "string"}},
                                          "duration_minutes": "integer"}, required=["attendees", "duration_minutes"])

    def rules(text, context):
        emails = [e for e in ("chen@corp.cn", "liu@corp.cn") if e in text]
        return Decision("find_meeting_slots", {"attendees": emails[-1], "duration_minutes": "30"}) if emails else Decision(None)

    said = "帮我和 chen@corp.cn、liu@corp.cn 找一个大家都有空的半小时"
    decisions = decide_requests(RuleRouter(rules), None, [slots], said, "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [
        ("find_meeting_slots", {"attendees": "chen@corp.cn, liu@corp.cn", "duration_minutes": "30"})]
    # a value that is no list keeps the calls apart: the weather in two cities is two calls
    weather = ToolManifest("weather", "Weather of a city", {"city": "City"}, required=["city"])
    decisions = decide_requests(RuleRouter(weather_rules), None, [weather], "weather in Paris and London", "en", Context())
    assert len(decisions) == 2


def test_identical_calls_from_two_parts_are_made_once():
    def rules(text, context):
        return Decision("weather", {"city": "Paris"}) if "Paris" in text or "weather" in text else Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, [], "weather in Paris? weather in Paris!", "en", Context())
    assert len(decisions) == 1


def test_a_follow_up_is_decided_with_the_previous_exchange_and_its_results():
    store = open_store(":memory:")
    cid = store.new_conversation()
    store.add_message(cid, "user", "What's the weather in Lima?")
    store.add_tool_call(cid, ToolOutcome("weather", {"city": "Lima"}, True, data="Lima: 18°C, Clear"))
    store.add_message(cid, "assistant", "It's 18°C in Lima.")
    store.add_message(cid, "user", "convert that to Fahrenheit")
    context = previous_exchange(store, cid)
    assert [e.message for e in context.exchanges] == ["What's the weather in Lima?"]
    assert [(c.tool, c.params, c.result) for c in context.calls] == [("weather", {"city": "Lima"}, "Lima: 18°C, Clear")]
    turns = context.turns("none")
    assert turns[0] == {"role": "user", "content": "What's the weather in Lima?"}
    assert json.loads(turns[1]["content"]) == {"tool": "weather", "params": {"city": "Lima"}, "result": "Lima: 18°C, Clear"}
    assert "18°C" in context.text()


def test_no_context_at_the_start_of_a_conversation_or_after_a_turn_without_tools():
    store = open_store(":memory:")
    cid = store.new_conversation()
    store.add_message(cid, "user", "hello")
    assert not previous_exchange(store, cid)
    store.add_message(cid, "assistant", "Hi!")
    store.add_message(cid, "user", "thanks")
    context = previous_exchange(store, cid)
    assert context.turns("none")[1] == {"role": "assistant", "content": '{"tool": "none"}'}
    assert previous_exchange(store, None).exchanges == []


def test_a_failed_earlier_call_is_written_as_failed():
    exchange = Exchange("weather in Kyiv", [Call("weather", {"city": "Kyiv"}, "service unreachable", ok=False)])
    assert json.loads(exchange.decision("none"))["result"] == "failed: service unreachable"


def test_a_second_step_takes_a_value_from_a_result_only():
    context = Context([Exchange("How warm is it in Lima in Fahrenheit?",
                                [Call("weather", {"city": "Lima"}, "Lima: 18°C (feels like 17°C), Clear", True)])])

    def converts(text, ctx):
        return Decision("unit_convert", {"value": "18", "from_unit": "°C", "to_unit": "°F"})

    step = decide_next_step(RuleRouter(converts), None, [], "How warm is it in Lima in Fahrenheit?", "en", context)
    assert step is not None and step.params["value"] == "18"

    def repeats(text, ctx):
        return Decision("weather", {"city": "Lima"})  # the call already made: no second step

    assert decide_next_step(RuleRouter(repeats), None, [], "How warm is it in Lima?", "en", context) is None

    def from_message(text, ctx):
        return Decision("current_time", {"timezone": "Lima"})  # nothing taken from the result

    assert decide_next_step(RuleRouter(from_message), None, [], "How warm is it in Lima?", "en", context) is None


def test_a_second_step_may_compute_with_numbers_from_the_results():
    context = Context([Exchange("weather in Athens and in Rome, then the difference", [
        Call("weather", {"city": "Athens"}, "Athens: 19°C, Sunny", True),
        Call("weather", {"city": "Rome"}, "Rome: 14°C, Cloudy", True)])])

    def subtracts(text, ctx):
        return Decision("calculator", {"expression": "19-14"})

    step = decide_next_step(RuleRouter(subtracts), None, [], "weather in Athens and in Rome, then the difference", "en", context)
    assert step is not None and step.params == {"expression": "19-14"}

    def from_message(text, ctx):
        return Decision("calculator", {"expression": "2*3"})  # numbers of its own, none of the results

    assert decide_next_step(RuleRouter(from_message), None, [], "what is 2*3", "en", context) is None


def test_a_later_part_that_only_repeats_the_result_with_the_same_tool_is_decided_without_the_turn():
    context = Context([Exchange("算一下 17*23，并把结果存到笔记", [Call("calculator", {"expression": "17*23"}, "17*23 = 391", True)])])
    seen = []

    def rules(text, ctx):
        seen.append((text, bool(ctx)))
        if ctx:  # the turn's calculator weighs for a short part read as its follow-up
            return Decision("calculator", {"expression": "391"})
        return Decision("notes", {"action": "add", "text": "391"})

    step = decide_next_step(RuleRouter(rules), None, [], "算一下 17*23，并把结果存到笔记", "zh", context)
    assert step is not None and (step.tool, step.params) == ("notes", {"action": "add", "text": "391"})
    assert seen == [("并把391存到笔记", True), ("并把391存到笔记", False)]


def test_a_later_part_that_still_only_repeats_the_result_makes_no_call_and_the_unit_asked_for_converts_it():
    context = Context([Exchange("I ran 4 laps of 2.5 miles each, work out the total and give it to me in km",
                                [Call("calculator", {"expression": "4*2.5"}, "4*2.5 = 10.0", True)])])

    def rules(text, ctx):
        if text.startswith("convert"):
            return Decision("unit_convert", {"value": "10.0", "from_unit": "mi", "to_unit": "km"})
        return Decision("calculator", {"expression": "10.0"})

    step = decide_next_step(RuleRouter(rules), None, [], context.exchanges[-1].message, "en", context)
    assert step is not None and (step.tool, step.params) == ("unit_convert", {"value": "10.0", "from_unit": "mi", "to_unit": "km"})


def test_a_later_part_that_computes_with_the_result_keeps_the_turn():
    context = Context([Exchange("5マイルをキロに、それを4倍して", [Call("unit_convert", {"value": "5"}, "5 mi = 8.04672 km", True)])])

    def rules(text, ctx):
        assert ctx, "decided with the turn"
        return Decision("calculator", {"expression": text})

    step = decide_next_step(RuleRouter(rules), None, [], "5マイルをキロに、それを4倍して", "ja", context)
    assert step is not None and step.params == {"expression": "8.04672*4"}


def test_two_calls_may_be_followed_by_a_third_when_a_tool_was_close_behind_the_whole_message():
    def rules(text, context):
        scores = {"weather": -1.0, "calculator": -2.0, "none": -9.0}
        city = next((c for c in ("Athens", "Rome") if c in text), None)
        if city and "Athens" in text and "Rome" in text:
            return Decision("weather", {"city": "Athens"}, scores=scores)  # the whole message
        return Decision("weather", {"city": city}, scores=scores) if city else Decision(None, scores={"none": -0.1})

    said = "weather in Athens and in Rome"
    decisions = decide_requests(RuleRouter(rules), None, [], said, "en", Context())
    assert [d.params["city"] for d in decisions] == ["Athens", "Rome"] and decisions[0].follows

    def far(text, context):
        decision = rules(text, context)
        decision.scores = {"weather": -1.0, "calculator": -9.0, "none": -9.5} if decision.tool else decision.scores
        return decision

    assert not decide_requests(RuleRouter(far), None, [], said, "en", Context())[0].follows


def test_only_a_close_runner_up_lets_a_decision_chain():
    close = Decision("weather", {"city": "Lima"}, scores={"weather": -1.0, "unit_convert": -2.5, "none": -9.0})
    far = Decision("weather", {"city": "Lima"}, scores={"weather": -1.0, "unit_convert": -9.0, "none": -5.0})
    below_none = Decision("weather", {"city": "Lima"}, scores={"weather": -1.0, "unit_convert": -2.5, "none": -2.0})
    assert may_chain(close, 3.0)
    assert not may_chain(far, 3.0)
    assert not may_chain(below_none, 3.0)
    assert not may_chain(Decision("weather", {"city": "Lima"}), 3.0)  # not scored: never chains
    # the setpoint chosen over the mode, which scored higher but had no place for the 68 said: no chain
    passed_over = Decision("set_thermostat", {"zone": "upstairs", "target_temperature": "68"},
                           scores={"set_thermostat_mode": 0.0, "set_thermostat": -1.5, "none": -9.0})
    assert not may_chain(passed_over, 3.0)


def test_one_call_with_values_from_several_parts_is_one_request():
    def rules(text, context):
        if text == "我工资8500，涨了12%，现在是多少？":
            return Decision("calculator", {"expression": "8500*1.12"})
        return Decision("calculator", {"expression": "".join(ch for ch in text if ch.isdigit()) or "0"})

    decisions = decide_requests(RuleRouter(rules), None, [], "我工资8500，涨了12%，现在是多少？", "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [("calculator", {"expression": "8500*1.12"})]


def test_one_call_whose_codes_two_parts_name_is_one_request():
    from agent.toolkit.base import ToolManifest

    flights = ToolManifest("search_flights", "Search flights",
                           {"origin": "IATA airport code", "destination": "IATA airport code", "departure_date": "YYYY-MM-DD"},
                           required=["origin", "destination"])

    def rules(text, context):
        if text.startswith("羽田から那覇まで、"):
            return Decision("search_flights", {"origin": "HND", "destination": "OKA", "departure_date": "2027-02-11"})
        if text == "羽田から那覇まで":  # the parts alone read as trains, with garbage for the second
            return Decision("search_trains", {"origin_station": "羽田", "destination_station": "那覇"})
        return Decision("search_trains", {"origin_station": "2027年2月11日", "destination_station": "那覇"})

    message = "羽田から那覇まで、2027年2月11日の便を探して"
    decisions = decide_requests(RuleRouter(rules), None, [flights], message, "ja", Context())
    assert [(d.tool, d.params) for d in decisions] == [
        ("search_flights", {"origin": "HND", "destination": "OKA", "departure_date": "2027-02-11"})]
    # without the manifest the codes are no words of the parts: the parts' two calls win
    assert len(decide_requests(RuleRouter(rules), None, [], message, "ja", Context())) == 2


def test_one_call_whose_values_two_parts_state_without_spaces_is_one_request():
    def rules(text, context):
        if text.startswith("2027年3月20日の朝、"):
            return Decision("search_trains", {"origin_station": "東京駅", "destination_station": "新大阪", "departure_date": "2027-03-20"})
        if text.startswith("2027"):
            return Decision("get_flight_status", {"flight_number": "2027-03-20"})
        return Decision("search_trains", {"origin_station": "東京駅", "destination_station": "新大阪"})

    decisions = decide_requests(RuleRouter(rules), None, [], "2027年3月20日の朝、東京駅から新大阪までの新幹線を探して", "ja", Context())
    assert [d.tool for d in decisions] == ["search_trains"] and decisions[0].params["departure_date"] == "2027-03-20"


def test_a_part_whose_call_states_nothing_of_its_own_is_no_request():
    def rules(text, context):
        if "todo.txt" in text:
            return Decision("file_read", {"path": "~/notes/todo.txt"})
        return Decision("file_list", {"path": "~/notes"})  # "show me what's in it" states no folder

    decisions = decide_requests(RuleRouter(rules), None, [], "open ~/notes/todo.txt and show me what's in it", "en", Context())
    assert [d.tool for d in decisions] == ["file_read"]


def test_a_call_another_call_of_the_same_tool_holds_is_made_once():
    def rules(text, context):
        if "Nairobi" in text or "there" in text:
            return Decision("current_time", {"timezone": "Nairobi"})
        if "call her" in text:
            return Decision("current_time", {})
        return Decision(None)

    text = "My sister lives in Nairobi. Is it too late to call her? What's the time there?"
    decisions = decide_requests(RuleRouter(rules), None, [], text, "en", Context())
    assert [(d.tool, d.params) for d in decisions] == [("current_time", {"timezone": "Nairobi"})]


@pytest.mark.parametrize("text", ["My sister lives in Nairobi. What's the time there?", "delete note 7, it's outdated"])
def test_a_part_that_refers_back_to_a_call_of_the_same_tool_is_that_call(text):
    def rules(text, context):
        if "Nairobi" in text:
            return Decision("current_time", {"timezone": "Nairobi"})
        if "there" in text:
            return Decision("current_time", {"timezone": "there"})
        if "note 7" in text:
            return Decision("notes", {"action": "delete", "id": "7"})
        return Decision("notes", {"action": "delete", "text": text})

    decisions = decide_requests(RuleRouter(rules), None, [], text, "en", Context())
    assert len(decisions) == 1


def test_two_files_in_one_folder_are_two_requests():
    def rules(text, context):
        names = [n for n in ("~/notes/a.txt", "~/notes/b.txt") if n in text]
        return Decision("file_read", {"path": names[0]}) if names else Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, [], "read ~/notes/a.txt and ~/notes/b.txt", "en", Context())
    assert [d.params["path"] for d in decisions] == ["~/notes/a.txt", "~/notes/b.txt"]


def test_a_value_written_with_other_signs_is_still_the_parts_own():
    def rules(text, context):
        if "1280" in text:
            return Decision("calculator", {"expression": "1280 * 0.85"})
        if "バンクーバー" in text:
            return Decision("current_time", {"timezone": "バンクーバー"})
        return Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, [], "1280×0.85 を計算して、バンクーバーの時間も教えて", "ja", Context())
    assert [d.tool for d in decisions] == ["calculator", "current_time"]
