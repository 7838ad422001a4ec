"""Date-times as people say them, for parameters that ask for an ISO 8601 date-time: each time with the
date the message names for it, never a time it does not say."""

import datetime as dt

import pytest

import agent.toolkit.dates as dates
from agent.router import Router, RouterOptions
from agent.router.forms import DATE, DATETIME, value_form
from agent.toolkit.base import ToolManifest
from agent.toolkit.times import datetimes_in, iso_datetime, times_in
from tests.test_routing import ScoringProvider


@pytest.fixture(autouse=True)
def wednesday(monkeypatch):
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 12, 2))  # a Wednesday


@pytest.mark.parametrize("said, times", [
    ("lunch on Dec 3 at noon", ["12:00"]),
    ("standup at 9:30", ["09:30"]),
    ("call me at 3pm", ["15:00"]),
    ("at 7 a.m.", ["07:00"]),
    ("at 12:15 am", ["00:15"]),
    ("at 11:45 PM", ["23:45"]),
    ("下午 3 点开会", ["15:00"]),
    ("晚上八点半提醒我", ["20:30"]),
    ("上午10点", ["10:00"]),
    ("中午12点吃饭", ["12:00"]),
    ("19時から飲み会", ["19:00"]),
    ("朝8時30分に", ["08:30"]),
    ("午後2時", ["14:00"]),
    ("13時から17時まで", ["13:00", "17:00"]),
    ("a 3時間の会議", []),  # a length, not a time of day
    ("两个小时的会", []),
    ("I scored 3 points", []),
    ("room 12:30B", []),
])
def test_times_of_day(said, times):
    assert [time for _, time in times_in(said)] == times


@pytest.mark.parametrize("said, named", [
    ("book a dentist appointment on 2026-12-09 at 15:00 Tokyo time", ["2026-12-09T15:00"]),
    ("帮我在 2026 年 12 月 5 日下午 3 点建一个项目评审会议", ["2026-12-05T15:00"]),
    ("每月 1 号上午 10 点开月度总结会，从 2027-01-01 开始", ["2027-01-01T10:00"]),  # the date named after the time
    ("2026-12-10 の13時から17時まで空いてる？", ["2026-12-10T13:00", "2026-12-10T17:00"]),
    ("meet at 3pm tomorrow", ["2026-12-03T15:00"]),
    ("remind me at 7pm", ["2026-12-02T19:00"]),  # no date: today's
    ("off from 2026-12-22 to 2027-01-02", ["2026-12-22", "2027-01-02"]),  # no time: the dates alone
    ("nothing to say", []),
])
def test_date_times_a_message_names(said, named):
    assert [value for _, value in datetimes_in(said)] == named


@pytest.mark.parametrize("written, normal", [
    ("2026-12-09 15:00", "2026-12-09T15:00"), ("2026-12-09T15:00:00Z", "2026-12-09T15:00"), ("2026-12-9", "2026-12-09"),
    ("Dec 9 at 3pm", "2026-12-09T15:00"), ("tomorrow", "2026-12-03"), ("soon", None), ("2026-12-09 and 2026-12-10", None),
])
def test_a_written_date_time_in_the_form(written, normal):
    assert iso_datetime(written) == normal


@pytest.mark.parametrize("description, schema, form", [
    ("Start time, ISO 8601 date-time, e.g. 2026-12-01T09:00", {}, DATETIME),
    ("Due date or date-time, ISO 8601", {}, DATETIME),
    ("When it starts", {"format": "date-time"}, DATETIME),
    ("Departure date (YYYY-MM-DD)", {}, DATE),
    ("Duration in ISO 8601, e.g. PT30M", {}, None),  # no date, no time of day
    ("Time of the reminder", {}, None),  # written as said
])
def test_the_date_time_form_is_read_from_the_description(description, schema, form):
    manifest = ToolManifest("t", "a tool", {"p": description}, required=["p"], parameter_types={"p": {"type": "string", **schema}})
    assert value_form(manifest, "p") is form


EVENT = ToolManifest("create_event", "Create a calendar event.",
                     {"title": "Event title", "start": "Start time, ISO 8601 date-time, e.g. 2026-12-01T09:00",
                      "end": "End time, ISO 8601 date-time, e.g. 2026-12-01T09:00"},
                     ["add a sync on Friday at 10:00"], required=["title", "start"])


@pytest.mark.parametrize("message, written, start", [
    # the model wrote the hour wrong and a space for the T: the time the message says, in the form
    ("帮我在 2026 年 12 月 5 日下午 3 点建一个项目评审会议", ["项目评审会议", "2026-12-05 14:00", "下午 3 点"], "2026-12-05T15:00"),
    ("book a dentist appointment on 2026-12-09 at 15:00", ["Dentist", "2026-12-09 15:00"], "2026-12-09T15:00"),
    # a date the message gives no time for is the date alone, not the model's midnight
    ("block 2026-12-09 for the offsite", ["Offsite", "2026-12-09T00:00"], "2026-12-09"),
])
def test_the_router_writes_the_date_time_the_message_names(message, written, start):
    provider = ScoringProvider({"create_event": 0.0, "none": -9.0}, [*written, "", "", ""])
    decision = Router(RouterOptions()).decide(provider, [EVENT], message, "en")
    assert decision.params["start"] == start
    assert "end" not in decision.params  # the one date-time is the start's
