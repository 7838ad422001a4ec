"""A length of time said in one unit is written in the unit its parameter takes."""

from __future__ import annotations

import pytest

from agent.router import Router, RouterOptions
from agent.router.durations import durations_in, in_unit, says_length, unit_of
from agent.router.values import loose_numbers
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider

TIMES = ToolManifest(
    "schedule", "Schedule something.",
    {"duration_minutes": "Length of the event", "timeoutMs": "Timeout", "wait": "Seconds to wait before retrying",
     "remind": "提前多少分钟提醒", "span": "Number of hours or minutes", "count": "How many", "title": "Title"},
    required=["title"], parameter_types={"duration_minutes": "integer", "timeoutMs": "integer", "wait": "number"},
)


@pytest.mark.parametrize("key, unit", [("duration_minutes", "minute"), ("timeoutMs", "millisecond"), ("wait", "second"),
                                       ("remind", "minute"), ("span", None), ("count", None), ("title", None)])
def test_the_unit_a_parameter_takes(key, unit):
    assert unit_of(TIMES, key) == unit


@pytest.mark.parametrize("message, said", [
    ("建一个项目评审会议，两个小时", [(2.0, "hour")]),
    ("一个半小时的会", [(1.5, "hour")]),
    ("一起开一个小时的会", [(1.0, "hour")]),  # 一 of 一个小时 is one; 一起 is no number
    ("2時間半の会議", [(2.5, "hour")]),
    ("会議は30分間", [(30.0, "minute")]),
    ("set a meeting for an hour and a half", [(1.5, "hour")]),
    ("a two-hour workshop", [(2.0, "hour")]),
    ("half an hour", [(0.5, "hour")]),
    ("wait 45 seconds", [(45.0, "second")]),
    ("3点20分开会", []),  # a time of day, not a length
    ("下午 3 点开会", []),
])
def test_lengths_of_time_a_message_says(message, said):
    assert durations_in(message) == said


@pytest.mark.parametrize("key, value, message, written", [
    ("duration_minutes", "2", "建一个项目评审会议，两个小时", "120"),
    ("duration_minutes", "1", "一个半小时的会", "90"),  # the whole part of what was said
    ("duration_minutes", "120", "建一个项目评审会议，两个小时", "120"),  # written in the unit already
    ("duration_minutes", "90", "lunch for 90 minutes", "90"),  # said in the parameter's own unit
    ("duration_minutes", "3", "下午 3 点开会，开 1 个小时", "3"),  # a number said with no unit of time
    ("timeoutMs", "30", "give up after 30 seconds", "30000"),
    ("wait", "2", "wait 2 minutes", "120"),
    ("remind", "1", "提前1小时提醒", "60"),
    ("span", "2", "for 2 hours", "2"),  # a parameter that names no one unit
    ("duration_minutes", "two", "two hours", "two"),  # not a number
])
def test_a_number_said_in_another_unit_is_written_in_the_parameters(key, value, message, written):
    assert in_unit(TIMES, key, value, message) == written


def test_a_converted_length_holds_the_number_said():
    assert loose_numbers("开会，2个小时", {"duration_minutes": "120"}) == set()
    assert loose_numbers("开会，2个小时", {"duration_minutes": "30"}) == {2.0}


def test_the_router_writes_the_minutes_of_hours_said():
    event = ToolManifest("create_event", "Create an event.", {"title": "Title", "duration_minutes": "Length in minutes"},
                         required=["title"], parameter_types={"duration_minutes": "integer"})
    decision = Router(RouterOptions(write_examples=False)).decide(ScoringProvider({"create_event": 0.0, "none": -5.0}, ["review", "2"]), [event],
                                              "a review meeting, 2 hours", "en")
    assert decision.params == {"title": "review", "duration_minutes": "120"}
    off = Router(RouterOptions(write_examples=False, value_forms=False)).decide(ScoringProvider({"create_event": 0.0, "none": -5.0}, ["review", "2"]),
                                                          [event], "a review meeting, 2 hours", "en")
    assert off.params["duration_minutes"] == "2"  # the lever off: as copied


@pytest.mark.parametrize("key, value, message, said", [
    ("duration_minutes", "30", "find a free half hour with Ann and Bob", True),
    ("duration_minutes", "30", "帮我和 chen@corp.cn、liu@corp.cn 找一个大家都有空的半小时", True),
    ("duration_minutes", "60", "block an hour for focus work", True),
    ("duration_minutes", "90", "一个半小时的会", True),
    ("timeoutMs", "1800000", "give up after half an hour", True),
    ("duration_minutes", "45", "find a free half hour", False),  # not what it says
    ("span", "30", "half an hour", False),  # a parameter that names no one unit
    ("duration_minutes", "thirty", "half an hour", False),
])
def test_a_length_said_in_words_is_a_number_the_message_states(key, value, message, said):
    assert says_length(TIMES, key, value, message) is said


def test_the_router_keeps_the_minutes_of_half_an_hour_a_message_says_without_digits():
    slots = ToolManifest("find_meeting_slots", "Find times when everyone is free.",
                         {"attendees": "Email addresses", "duration_minutes": "Length of the meeting in minutes"},
                         required=["attendees", "duration_minutes"], parameter_types={"duration_minutes": "integer"})
    for message, written in (("find a free half hour with ann@corp.com", "30"), ("find an hour when ann@corp.com is free", "60")):
        decision = Router(RouterOptions(write_examples=False)).decide(
            ScoringProvider({"find_meeting_slots": 0.0, "none": -5.0}, ["ann@corp.com", written]), [slots], message, "en")
        assert (decision.tool, decision.params) == ("find_meeting_slots", {"attendees": "ann@corp.com", "duration_minutes": written})
    # a number of two digits for a message that states no length and no number is still made up: declined
    made_up = Router(RouterOptions(write_examples=False)).decide(
        ScoringProvider({"find_meeting_slots": 0.0, "none": -5.0}, ["ann@corp.com", "45"]), [slots], "find a free slot with ann@corp.com", "en")
    assert (made_up.tool, made_up.declined, made_up.missing) == (None, "find_meeting_slots", "duration_minutes")
