"""A call asked again of other values (agent.router.repeats), numbers said with a multiplier ("3万円",
agent.router.spoken), and values that stand for the empty value a description names (agent.router.values)."""

from __future__ import annotations

import pytest

from agent.router.context import Call, Context, Exchange
from agent.router.prompt import Decision
from agent.router.repeats import also_asked, numbered
from agent.router.requests import decide_requests
from agent.router.spoken import multiplied, with_digits
from agent.router.values import completed, means_empty, rescaled
from agent.toolkit.base import ToolManifest
from tests.helpers.rules import RuleRouter


def note(**params) -> Decision:
    return Decision("notes", params, scores={"notes": -0.2, "none": -5.0})


@pytest.mark.parametrize("text,ids", [
    ("メモの5番と8番を削除して", ["5", "8"]),
    ("delete notes 3 and 7", ["3", "7"]),
    ("remove #4, #6 and #9", ["4", "6", "9"]),
    ("删除第3条和第5条笔记", ["3", "5"]),
])
def test_a_call_of_one_of_several_numbered_things_is_made_of_each(text, ids):
    first = note(action="delete", id=ids[0])
    calls = numbered([first], first, text)
    assert [(d.tool, d.params) for d in calls] == [("notes", {"action": "delete", "id": i}) for i in ids]


@pytest.mark.parametrize("text,params", [
    ("算 5 和 8 的和", {"expression": "5+8"}),  # a sum of the two: no value is one of them
    ("delete note 3", {"action": "delete", "id": "3"}),  # one number only
    ("convert 1.5 and 2 km", {"value": "1.5"}),  # decimals are amounts, not numbered things
    ("what is 5 and 8*3", {"expression": "5"}),  # a number in an expression
])
def test_a_call_whose_values_are_no_number_of_a_list_stays_one_call(text, params):
    first = Decision("calculator", params)
    assert numbered([first], first, text) == [first]


def test_calls_of_other_tools_the_parts_make_are_left_as_they_are():
    calls = [note(action="delete", id="5"), Decision("calculator", {"expression": "8*3"})]
    assert numbered(calls, calls[0], "delete note 5 and compute 8*3") == calls
    assert numbered(calls, calls[0], "delete note 5 and 8, and compute 8*3") == calls


def test_the_message_divided_into_numbered_things_gets_a_call_for_each():
    def rules(text, context):
        if "削除" in text:  # the whole message, or its second part: the model writes the first id it sees
            return note(action="delete", id="5" if "5" in text else "8")
        return note(action="add", text=text, id="5")  # "メモの5番" alone asks nothing: a note added

    decisions = decide_requests(RuleRouter(rules), None, [], "メモの5番と8番を削除して", "ja", Context())
    assert [(d.tool, d.params) for d in decisions] == [("notes", {"action": "delete", "id": "5"}),
                                                        ("notes", {"action": "delete", "id": "8"})]


def grep_before(pattern: str, path: str) -> Context:
    return Context([Exchange("search", [Call("grep", {"pattern": pattern, "path": path})])])


@pytest.mark.parametrize("part", ["也在 ~/mail 里搜一下", "~/mail でも探して", "search ~/mail too"])
def test_a_part_that_asks_the_same_of_another_path_takes_the_previous_calls_values(part):
    written = Decision("grep", {"pattern": "mail"})  # the path's word written as the pattern
    again = also_asked(written, part, grep_before("发票", "~/notes"))
    assert again.params == {"pattern": "发票", "path": "~/mail"} and again.carried


def test_a_value_the_part_states_of_its_own_is_kept():
    written = Decision("grep", {"pattern": "receipt", "path": "~/mail"})
    again = also_asked(written, "also search ~/mail for receipt", grep_before("发票", "~/notes"))
    assert again.params == {"pattern": "receipt", "path": "~/mail"}


@pytest.mark.parametrize("part,written,before", [
    ("search ~/mail for invoices", Decision("grep", {"pattern": "invoices", "path": "~/mail"}), grep_before("x", "~/a")),  # no "also"
    ("也搜一下“收据”", Decision("grep", {"pattern": "收据"}), grep_before("发票", "~/notes")),  # no path of its own
    ("也在 ~/mail 里看看", Decision("file_list", {"path": "~/mail"}), grep_before("发票", "~/notes")),  # another tool
    ("也在 ~/mail 里搜一下", Decision("grep", {"pattern": "mail"}), Context()),  # nothing before it
])
def test_a_part_that_is_no_repetition_of_the_previous_call_stays_as_decided(part, written, before):
    assert also_asked(written, part, before) is written


@pytest.mark.parametrize("said,digits", [
    ("3万円の20%オフ", "30000円の20%オフ"),
    ("1.5万", "15000"),
    ("3万5千円", "35000円"),
    ("1万2000步", "12000步"),
    ("5億", "500000000"),
    ("2千円", "2000円"),
    ("人口1400万", "人口14000000"),
    ("3千米", "3千米"),  # kilometres, a unit of its own
    ("5千克", "5千克"),  # kilograms
    ("2026年3月", "2026年3月"),
])
def test_digits_with_a_multiplier_are_one_number(said, digits):
    assert multiplied(with_digits(said)) == digits


@pytest.mark.parametrize("value,message,fixed", [
    ("3000 * 0.80", "3万円の20%オフっていくら？", "30000 * 0.80"),  # the scale misread
    ("3 * 0.8", "3万円の20%オフ", "30000 * 0.8"),  # the multiplier left out
    ("30000*0.8", "3万円の20%オフ", "30000*0.8"),
    ("15 * 12", "1.5万人，每人12元", "15000 * 12"),
    ("3 * 20", "3个人每人20元", "3 * 20"),  # no multiplier: as written
])
def test_a_number_written_at_another_scale_than_the_message_says_is_rescaled(value, message, fixed):
    assert rescaled(value, message) == fixed


def test_a_written_expression_is_completed_at_the_messages_scale():
    manifest = ToolManifest(name="calculator", description="Evaluate an expression",
                            parameters={"expression": "the expression"}, required=["expression"])
    assert completed(manifest, "expression", "3000 * 0.80", "3万円の20%オフっていくら？") == "30000 * 0.80"


@pytest.mark.parametrize("value,message,upright", [
    ("7/3 + 4/1", "7分の3足す4分の1はいくつ？", "3/7 + 1/4"),  # the numbers in the order said
    ("7/3+4/1", "七分之三加四分之一等于多少", "3/7+1/4"),
    ("3/7 + 1/4", "7分の3足す4分の1はいくつ？", "3/7 + 1/4"),  # the right way up already
    ("17/3", "7分の3", "17/3"),  # not that fraction
    ("10/5", "5分の遅れで 10/5 に着く", "10/5"),  # minutes, no fraction
])
def test_a_fraction_said_the_chinese_or_japanese_way_is_written_the_right_way_up(value, message, upright):
    from agent.router.spoken import fractions_upright

    assert fractions_upright(value, message) == upright
    manifest = ToolManifest(name="calculator", description="Evaluate an expression",
                            parameters={"expression": "the expression"}, required=["expression"])
    assert completed(manifest, "expression", value, message) == upright


def zone(description: str) -> ToolManifest:
    return ToolManifest(name="current_time", description="The time", parameters={"timezone": description})


@pytest.mark.parametrize("description,value", [
    ("City or IANA time zone; leave empty for local time", "local"),
    ("City or IANA time zone; leave empty for local time", "local time"),
    ("城市或 IANA 时区；留空表示本地时间", "本地"),
    ("都市名または IANA タイムゾーン。空欄ならローカル時刻", "ローカル"),
    ("Folder to list; blank means the current folder", "current"),
])
def test_a_value_that_names_what_the_empty_value_stands_for_is_left_out(description, value):
    assert means_empty(zone(description), "timezone", value)


@pytest.mark.parametrize("description,value", [
    ("City or IANA time zone; leave empty for local time", "Tokyo"),
    ("City or IANA time zone; leave empty for local time", "Local Bay"),  # a word more: a place of that name
    ("城市或 IANA 时区；留空表示本地时间", "东京"),
    ("City or IANA time zone, e.g. Tokyo", "local"),  # the description names no meaning of empty
    ("City or IANA time zone; leave empty for local time", ""),
])
def test_a_value_the_description_does_not_name_for_empty_is_kept(description, value):
    assert not means_empty(zone(description), "timezone", value)


def test_a_part_that_only_asks_for_a_unit_converts_the_earlier_parts_result_in_a_second_step():
    def rules(text, context):
        if "*" in text:
            if "换算" in text:  # the whole message: the model converts the first number it sees
                return Decision("unit_convert", {"value": "3", "from_unit": "公里", "to_unit": "英里"})
            return Decision("calculator", {"expression": "3*12.5"})
        return Decision(None, declined="unit_convert", missing="value")

    decisions = decide_requests(RuleRouter(rules), None, [], "算一下 3*12.5 公里，再换算成英里", "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [("calculator", {"expression": "3*12.5"})]
    assert decisions[0].then == ["换算成英里"] and decisions[0].follows


@pytest.mark.parametrize("part", ["换算成英里", "give it to me in km", "合計何ガロン？"])
def test_a_part_that_only_asks_for_a_unit_is_decided_once_the_results_are_in(part):
    from agent.router.requests import _unit_only

    assert _unit_only(part)


@pytest.mark.parametrize("part", ["convert 5 km to miles", "how hot is it in phoenix", "東京の天気", "what time is it there?"])
def test_a_part_with_a_number_or_place_of_its_own_is_decided_with_the_others(part):
    from agent.router.requests import _unit_only

    assert not _unit_only(part)
