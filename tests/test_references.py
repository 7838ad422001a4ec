"""Follow-ups that name no value of their own (agent.router.references): arithmetic on the previous
result is written out before it is decided, and "and X?" / "X呢" / "Xは？" is recognised, in English,
Chinese and Japanese."""

from __future__ import annotations

import pytest

from agent.router.context import Call, Context, Exchange
from agent.router.prompt import Decision
from agent.router.references import carried, marked_follow_up, previous_number, with_result, works_on_result, written_out
from agent.router.requests import decide_next_step, decide_requests


def after(result: str, ok: bool = True) -> Context:
    return Context([Exchange("earlier", [Call("calculator", {"expression": "x"}, result, ok)])])


@pytest.mark.parametrize(
    "text,result,expected",
    [
        ("make that 3 times bigger", "17*23 = 391", "391*3"),
        ("divide that by 4", "1200/16 = 75", "75/4"),
        ("times 2 please", "26.2 mi = 42.1648 km", "42.1648*2"),
        ("add 10 to that", "5 + 5 = 10", "10+10"),
        ("now minus 3", "10 - 2 = 8", "8-3"),
        ("double it", "total: 1,200", "1200*2"),
        ("half of that", "= 8", "8/2"),
        ("that squared", "= 12", "12**2"),
        ("15% of that", "= 80", "80*15/100"),
        ("除以5呢", "1000/8 = 125", "125/5"),
        ("乘以 5", "3 mi = 4.82803 km", "4.82803*5"),
        ("把它加上100", "= 7", "7+100"),
        ("那再翻倍", "= 7", "7*2"),
        ("それを3倍にして", "36*25 = 900", "900*3"),
        ("4で割って", "1500/6 = 250", "250/4"),
        ("５を足して", "= 3", "3+5"),
        ("3を引くと？", "= 10", "10-3"),
        ("times 2", "-4 + 1 = -3", "(-3)*2"),
    ],
)
def test_arithmetic_on_the_previous_result_is_written_out(text, result, expected):
    assert written_out(text, after(result)) == expected


@pytest.mark.parametrize(
    "text,context",
    [
        ("what's 3 times 4", after("= 5")),  # both operands stated: a question of its own
        ("divide 9 by 3", after("= 5")),
        ("times 2", Context()),  # nothing earlier to work on
        ("times 2", after("Lima: clear skies")),  # no number in it
        ("times 2", after("= 5", ok=False)),  # a failed call gave nothing
        ("thanks, that's 2 times better", after("= 5")),
        ("除以5和7的结果", after("= 5")),
    ],
)
def test_other_messages_are_left_as_they_are(text, context):
    assert written_out(text, context) == text


def test_the_number_is_the_last_one_the_last_successful_call_returned():
    context = Context([Exchange("q", [Call("unit_convert", {}, "26.2 mi = 42.1648 km"),
                                      Call("weather", {}, "failed", ok=False)])])
    assert previous_number(context) == "42.1648"


@pytest.mark.parametrize("text", ["and Spain?", "what about Kyiv?", "how about in Lyon?", "墨尔本呢", "那上海呢？",
                                  "奈良は？", "大阪も？", "じゃあ札幌は？"])
def test_marked_follow_ups(text):
    assert marked_follow_up(text)


@pytest.mark.parametrize("text", ["and you?", "你呢？", "あなたは？", "thanks", "東京の天気は？", "东京的天气呢",
                                  "今日は何曜日ですか？", "what about the weather in Paris tomorrow morning?"])
def test_not_marked_follow_ups(text):
    assert not marked_follow_up(text)


def test_an_arithmetic_follow_up_is_decided_written_out():
    asked = []

    class Router:
        def decide(self, provider, manifests, text, language, context=None):
            asked.append(text)
            return Decision("calculator", {"expression": text})

    decisions = decide_requests(Router(), None, [], "divide that by 4", "en", after("1200/16 = 75"))
    assert asked == ["75/4"] and decisions[0].params == {"expression": "75/4"}


def previous_call(tool: str, params: dict, result: str = "done") -> Context:
    return Context([Exchange("earlier", [Call(tool, params, result)])])


def test_a_follow_up_to_the_same_tool_keeps_what_it_does_not_state():
    context = previous_call("unit_convert", {"value": 100, "from_unit": "km/h", "to_unit": "mph"}, "100 km/h = 62.1 mph")
    params = carried("unit_convert", {"value": "130", "from_unit": "km", "to_unit": "mph"},
                     ["value", "from_unit", "to_unit"], "and 130?", context, follow_up=True)
    assert params == {"value": "130", "from_unit": "km/h", "to_unit": "mph"}


def test_a_number_takes_the_place_of_the_one_in_an_expression():
    context = previous_call("calculator", {"expression": "sqrt(256)"}, "sqrt(256) = 16")
    assert carried("calculator", {"expression": "324"}, ["expression"], "那 324 呢？", context, True) == {"expression": "sqrt(324)"}


def test_the_same_word_in_two_places_goes_back_to_the_earlier_value():
    context = previous_call("grep", {"pattern": "TODO", "path": "~/projects"})
    params = carried("grep", {"pattern": "FIXME", "path": "FIXME"}, ["pattern", "path"], "now look for FIXME", context, True)
    assert params == {"pattern": "FIXME", "path": "~/projects"}


def test_there_is_the_place_of_the_previous_call():
    context = previous_call("weather", {"city": "Berlin"}, "Berlin: 4°C")
    for text in ("and what time is it there?", "那边现在几点", "向こうは今何時？"):
        assert carried("current_time", {}, ["timezone"], text, context, False) == {"timezone": "Berlin"}
    assert carried("current_time", {}, ["timezone"], "what time is it?", context, False) == {}


def test_a_new_request_keeps_its_own_values():
    context = previous_call("weather", {"city": "Lyon"}, "Lyon: 9°C")
    assert carried("weather", {"city": "Kyiv"}, ["city"], "and Kyiv?", context, True) == {"city": "Kyiv"}
    # not a follow-up: nothing is carried over
    assert carried("weather", {"city": "Oslo"}, ["city", "units"], "What's the weather like in Oslo this weekend, in detail?",
                   Context([Exchange("q", [Call("weather", {"city": "Lyon", "units": "metric"})])]), False) == {"city": "Oslo"}


def test_a_follow_up_that_states_no_value_keeps_the_values_the_model_wrote():
    context = previous_call("unit_convert", {"value": 5, "from_unit": "kg", "to_unit": "lb"}, "5 kg = 11.02 lb")
    params = carried("unit_convert", {"value": "5", "from_unit": "kg", "to_unit": "oz"}, ["value", "from_unit", "to_unit"],
                     "what about in ounces?", context, True)
    assert params == {"value": "5", "from_unit": "kg", "to_unit": "oz"}
    assert carried("unit_convert", {"to_unit": "oz"}, ["value", "from_unit", "to_unit"], "in ounces?", context, True) == {
        "value": 5, "from_unit": "kg", "to_unit": "oz"}  # what it left out is the earlier call's


@pytest.mark.parametrize(
    "part,result,expected",
    [
        ("save the result as a note", "17*23 = 391", "save 391 as a note"),
        ("convert it to miles", "3*12.5 = 37.5", "convert 37.5 to miles"),
        ("并把结果存到笔记", "17*23 = 391", "并把391存到笔记"),
        ("それを4倍して", "5 mi = 8.04672 km", "8.04672*4"),
        ("その結果をメモして", "= 12", "12をメモして"),
        ("把它记下来", "8.04672 km", "把8.04672记下来"),  # a figure with its unit
        # a result that is no figure is written in as it reads, not as the last number in it (the wind's 32)
        ("然后把结果记到笔记里", "青岛: 8°C (feels like 5°C), Windy, humidity 58%, wind 32 km/h\nmore",
         "然后把青岛: 8°C (feels like 5°C), Windy, humidity 58%, wind 32 km/h记到笔记里"),
        ("save the result as a note", "Lima: 18°C, Sunny", "save Lima: 18°C, Sunny as a note"),
        ("save that figure as a note", "Lima: 18°C, Sunny", "save 18 as a note"),  # a figure asked for
    ],
)
def test_a_later_request_gets_the_earlier_result_written_in(part, result, expected):
    assert works_on_result(part)
    assert with_result(part, after(result)) == expected


@pytest.mark.parametrize("part", ["what time is it there?", "London", "札幌の天気を教えて", "算一下 17*23"])
def test_requests_of_their_own_do_not_wait_for_a_result(part):
    assert not works_on_result(part)


def test_a_request_on_an_earlier_result_is_decided_after_it():
    asked = []

    class Router:
        def decide(self, provider, manifests, text, language, context=None):
            asked.append(text)
            if "17*23" in text and "note" not in text:
                return Decision("calculator", {"expression": "17*23"})
            if text.startswith("save 391"):
                return Decision("notes", {"action": "add", "text": "391"})
            return Decision("notes", {"action": "add", "text": "result"}) if "note" in text else Decision(None)

    text = "calculate 17*23 and save the result as a note"
    first = decide_requests(Router(), None, [], text, "en", Context())
    assert [(d.tool, d.params) for d in first] == [("calculator", {"expression": "17*23"})]
    assert first[0].then == ["save the result as a note"]  # not decided before the result is there
    context = Context([Exchange(text, [Call("calculator", {"expression": "17*23"}, "17*23 = 391")])])
    step = decide_next_step(Router(), None, [], text, "en", context)
    assert step is not None and (step.tool, step.params) == ("notes", {"action": "add", "text": "391"})


@pytest.mark.parametrize("part", ["multiply that by 4", "然后乘以 4", "乘以 4", "4で割って", "then divide by 3"])
def test_an_operation_alone_works_on_the_result_before_it(part):
    assert works_on_result(part)


def test_an_operation_after_a_conversion_is_the_second_step():
    class Router:
        def decide(self, provider, manifests, text, language, context=None):
            if text == "8.04672*4":
                return Decision("calculator", {"expression": text})
            return Decision("unit_convert", {"value": "5", "from_unit": "mi", "to_unit": "km"})

    text = "convert 5 miles to km and multiply that by 4"
    context = Context([Exchange(text, [Call("unit_convert", {"value": "5", "from_unit": "mi", "to_unit": "km"},
                                            "5 mi = 8.04672 km")])])
    step = decide_next_step(Router(), None, [], text, "en", context)
    assert step is not None and step.params == {"expression": "8.04672*4"}
