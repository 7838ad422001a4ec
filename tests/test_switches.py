"""Optional on/off parameters (against their default) and objects are written only when the message speaks of them."""

from __future__ import annotations

import pytest

from agent.router import Router, RouterOptions
from agent.router import glossary as glossary_module
from agent.router.glossary import Glossary, parse_cedict, parse_edict
from agent.router.switches import said_choice
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider

RECURRENCE = {"type": "object", "description": "Repeat rule for recurring events",
              "properties": {"frequency": {"type": "string", "enum": ["daily", "weekly", "monthly", "yearly"]},
                             "interval": {"type": "integer", "description": "Repeat every N periods"},
                             "until": {"type": "string", "description": "Last date, YYYY-MM-DD"}},
              "required": ["frequency"]}
EVENT = ToolManifest(
    "create_event", "Create a calendar event.",
    {"title": "Event title", "start": "Start time", "all_day": "Create an all-day event",
     "notify": "Email invitations to the attendees", "recurrence": "Repeat rule for recurring events"},
    required=["title", "start"],
    parameter_types={"title": {"type": "string"}, "start": {"type": "string"},
                     "all_day": {"type": "boolean", "default": False},
                     "notify": {"type": "boolean", "default": True}, "recurrence": RECURRENCE},
)

CEDICT = """\
邀請 邀请 [yao1 qing3] /to invite/invitation/
郵件 邮件 [you2 jian4] /mail/post/email/
全天 全天 [quan2 tian1] /whole day/all day/
每月 每月 [mei3 yue4] /each month/
月 月 [yue4] /moon/month/
牙醫 牙医 [ya2 yi1] /dentist/
號 号 [hao4] /ordinal number/day of a month/mark/
"""


@pytest.mark.parametrize("key, value, message, said", [
    ("all_day", "true", "book a dentist appointment on 2026-12-09 at 15:00", False),  # the model's own idea
    ("all_day", "true", "block Friday for the offsite, all day", True),
    ("all_day", "true", "a whole-day workshop on Friday", True),
    ("all_day", "false", "book a dentist appointment at 15:00", True),  # the default changes nothing
    ("notify", "false", "add the review on Monday, no invitations please", True),
    ("notify", "false", "add the review on Monday", False),
    ("notify", "true", "add the review on Monday", True),
    ("title", "Review", "add the review on Monday", True),  # neither a switch nor an object: not judged
])
def test_an_optional_switch_against_its_default_needs_a_word_of_its_own(key, value, message, said):
    assert said_choice(EVENT, key, value, message) is said


def test_the_tools_own_words_and_generic_ones_do_not_speak_of_a_switch():
    # "event" and "create" are the tool's; "include" could be any switch's
    assert not said_choice(EVENT, "all_day", "true", "create an event for the review, include it in my calendar")
    bare = ToolManifest("set_alarm", "Set an alarm.", {"time": "Alarm time", "enabled": "Whether enabled"},
                        required=["time"], parameter_types={"enabled": {"type": "boolean", "default": False}})
    assert said_choice(bare, "enabled", "true", "wake me at 7")  # a switch of no words of its own: not judged


def test_a_chinese_message_speaks_of_a_switch_through_its_gloss(monkeypatch):
    said = "下周一加一个评审会议，不用发邀请邮件"
    quiet = "周五下午三点约牙医"
    assert said_choice(EVENT, "notify", "false", said) and said_choice(EVENT, "all_day", "true", quiet)  # off: not judged
    monkeypatch.setattr(glossary_module, "_LOADED", [Glossary(parse_cedict(CEDICT), parse_edict(""))])
    monkeypatch.delenv("RIVERSE_GLOSSARY")
    assert said_choice(EVENT, "notify", "false", said)  # 邀请 → invite, 邮件 → email
    assert not said_choice(EVENT, "all_day", "true", quiet)
    assert said_choice(EVENT, "all_day", "true", "周五全天团建")  # 全天 → all day
    # "每月 1 号": 号 is "day of a month" there, a date and no all-day event; the month is the repeat rule's
    assert not said_choice(EVENT, "all_day", "true", "每月 1 号开月度总结会")
    assert said_choice(EVENT, "recurrence", {"frequency": "monthly"}, "每月 1 号开月度总结会")
    # a switch described in Chinese is judged by the message's own words
    described = ToolManifest("create_event", "新建日程", {"title": "标题", "all_day": "全天日程"}, required=["title"],
                             parameter_types={"all_day": {"type": "boolean", "default": False}})
    assert said_choice(described, "all_day", "true", "周五全天团建")
    assert not said_choice(described, "all_day", "true", "周五下午三点约牙医")


@pytest.mark.parametrize("message, all_day", [("book a dentist appointment at 15:00", None),
                                              ("block Friday for the offsite, all day", "true")])
def test_the_router_leaves_out_a_switch_the_message_does_not_speak_of(message, all_day):
    scores = {"create_event": 0.0, "none": -5.0, "true": -0.1, "false": -2.0}
    decision = Router(RouterOptions(write_examples=False)).decide(ScoringProvider(scores, ["Dentist", "15:00", "", ""]), [EVENT], message, "en")
    assert decision.tool == "create_event" and decision.params.get("all_day") == all_day
    assert "notify" not in decision.params  # true, its default
    kept = Router(RouterOptions(write_examples=False, said_choices=False)).decide(ScoringProvider(scores, ["Dentist", "15:00", "", ""]), [EVENT],
                                                             message, "en")
    assert kept.params.get("all_day") == "true"  # the lever off: as the model chose


@pytest.mark.parametrize("message, said", [
    ("book a dentist appointment on 2026-12-09 at 15:00", False),  # a one-off: no repeat rule
    ("set up a weekly standup every Monday at 9:30", True),  # the chosen member, "weekly"
    ("standup at 9:30, repeating until March", True),  # a word of its description
    ("the team lunch is every Friday at noon", True),  # a member's description: "Repeat every N periods"
])
def test_an_optional_object_needs_a_word_of_its_own_or_of_its_members(message, said):
    assert said_choice(EVENT, "recurrence", {"frequency": "weekly"}, message) is said


def test_a_chinese_date_is_no_month_a_repeat_rule_speaks_of(monkeypatch):
    monkeypatch.setattr(glossary_module, "_LOADED", [Glossary(parse_cedict(CEDICT), parse_edict(""))])
    monkeypatch.delenv("RIVERSE_GLOSSARY")
    assert not said_choice(EVENT, "recurrence", {"frequency": "monthly"}, "2026 年 12 月 5 日下午约牙医")  # 月 of a date
    assert said_choice(EVENT, "recurrence", {"frequency": "monthly"}, "每月 1 号上午开总结会")  # 每月: each month


def test_the_router_leaves_out_an_object_the_message_does_not_speak_of():
    scores = {"create_event": 0.0, "none": -5.0, "true": -3.0, "false": -0.1, "daily": -0.1, "weekly": -1.0}
    values = ["Dentist", "15:00", "", ""]
    decision = Router(RouterOptions(write_examples=False)).decide(ScoringProvider(scores, list(values)), [EVENT],
                                                                  "book a dentist appointment at 15:00", "en")
    assert decision.tool == "create_event" and "recurrence" not in decision.params
    kept = Router(RouterOptions(write_examples=False, said_choices=False)).decide(ScoringProvider(scores, list(values)), [EVENT],
                                                                                "book a dentist appointment at 15:00", "en")
    assert kept.params["recurrence"] == {"frequency": "daily"}  # the lever off: the model's repeat rule
    daily = Router(RouterOptions(write_examples=False)).decide(ScoringProvider(scores, ["Standup", "9:30", "", ""]),
                                                                [EVENT], "a daily standup at 9:30", "en")
    assert daily.params["recurrence"] == {"frequency": "daily"}  # the member it chose is what the message says
