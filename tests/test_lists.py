"""A list parameter gets every item the message lists with the one the model wrote; free text that states
another parameter's value by its name is left out."""

from __future__ import annotations

import pytest

from agent.router import Router, RouterOptions
from agent.router import glossary as glossary_module
from agent.router.glossary import Glossary, parse_cedict, parse_edict
from agent.router.lists import held, listed, listed_value
from agent.router.switches import stated_for_another
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider

ISSUE = ToolManifest(
    "create_issue", "Open a new issue in a repository.",
    {"repo": "Repository name", "title": "Issue title", "body": "Issue body in Markdown", "labels": "Labels to apply",
     "assignees": "Usernames to assign", "milestone": "Milestone number"},
    required=["repo", "title"],
    parameter_types={"repo": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"},
                     "labels": {"type": "array", "items": {"type": "string"}},
                     "assignees": {"type": "array", "items": {"type": "string"}}, "milestone": {"type": "integer"}},
)
CLOSE = ToolManifest("close_issues", "Close issues.", {"numbers": "Issue numbers", "tags": "Tags"}, required=["numbers"],
                     parameter_types={"numbers": {"type": "array", "items": {"type": "integer"}},
                                      "tags": {"type": "array", "items": {"type": "object"}}})


@pytest.mark.parametrize("value, message, items", [
    ("bug", "ラベルは ui と bug で", "ui, bug"),  # the model wrote the last: the items before it join
    ("wangwu", "请 lisi 和 wangwu 审查 acme/api 的 PR 19", "lisi, wangwu"),
    ("chen@corp.cn", "帮我和 chen@corp.cn、liu@corp.cn 找一个大家都有空的半小时", "chen@corp.cn, liu@corp.cn"),
    ("wang@corp.cn", "给 evt_9001 加上 wang@corp.cn 和 zhao@corp.cn，不用发邀请邮件", "wang@corp.cn, zhao@corp.cn"),
    ("tom@acme.com", "find a slot for me, tom@acme.com and li@acme.com", "tom@acme.com, li@acme.com"),
    ("alice", "ask alice, bob and carol to review", "alice, bob, carol"),
    ("bob", "ask alice and bob to review PR 5", "alice, bob"),
    ("bug", "labels bug and ui", "bug, ui"),
    ("ui", "labels ui, bug, and feature please", "ui, bug, feature"),
    ("Bob", "send it to Bob and Alice.", "Bob, Alice"),
    ("tom@acme.com, li@acme.com", "invite tom@acme.com, li@acme.com and ann@acme.com",
     "tom@acme.com, li@acme.com, ann@acme.com"),  # items the model listed itself, and one more
    # no list: English words joined to a clause, a word that is no item, an item the message does not say
    ("bob", "assign bob and close it", "bob"),
    ("milk", "buy milk and eggs and call mom", "milk"),
    ("bug", "label it bug", "bug"),
    ("bob", "assign bob and them", "bob"),
    ("zhangsan", "指派给 zhangsan", "zhangsan"),
    ("Bobby", "assign bob and alice", "Bobby"),
])
def test_the_items_a_message_lists_with_the_one_written(value, message, items):
    assert listed(value, message) == items


def test_numbers_join_only_a_list_of_numbers_that_ends():
    assert listed("12", "close issues 12, 13 and 14", numbers=True) == "12, 13, 14"
    assert listed("12", "关闭 12、13 和 14 号 issue", numbers=True) == "12, 13, 14"
    assert listed("12", "issue 12 and 3 more", numbers=True) == "12"  # "3 more" is no item
    assert listed("12", "close issues 12, 13 and 14") == "12"  # a list of text takes no bare numbers


def test_only_a_list_of_plain_values_is_completed():
    assert listed_value(ISSUE, "labels", "bug", "labels bug and ui") == "bug, ui"
    assert listed_value(ISSUE, "title", "bug", "labels bug and ui") == "bug"  # one text, not a list
    assert listed_value(CLOSE, "numbers", "12", "close issues 12, 13 and 14") == "12, 13, 14"
    assert listed_value(CLOSE, "tags", "a", "tags a and b") == "a"  # a list of objects


def test_held_values():
    assert held("acme", ["acme/webapp"]) and held("ui, bug", ["ラベルは ui と bug で"])
    assert not held("ui, feature", ["ラベルは ui と bug で"]) and held("首页", ["首页加载很慢"])


CEDICT = """\
指派 指派 [zhi3 pai4] /to assign/to appoint/
標籤 标签 [biao1 qian1] /label/tag/
"""


def test_free_text_that_names_another_parameter_is_that_parameters(monkeypatch):
    monkeypatch.setattr(glossary_module, "_LOADED", [Glossary(parse_cedict(CEDICT), parse_edict("ラベル /(n) label/\n"))])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    params = {"repo": "webapp", "title": "首页加载很慢", "body": "指派给 zhangsan", "assignees": "zhangsan"}
    assert stated_for_another(ISSUE, params) == {"repo": "webapp", "title": "首页加载很慢", "assignees": "zhangsan"}
    japanese = {"repo": "webapp", "title": "ダークモード", "body": "ラベルは ui と bug で", "labels": "ui, bug"}
    assert "body" not in stated_for_another(ISSUE, japanese)
    # the words around the value in the message say whose it is
    message = "open an issue in webapp titled 'Login broken' with the bug label"
    english = {"repo": "webapp", "title": "Login broken", "body": "bug", "labels": "bug"}
    assert stated_for_another(ISSUE, english, message) == {"repo": "webapp", "title": "Login broken", "labels": "bug"}
    # a body that names nothing of another's, or holds no other value, stays
    kept = {"repo": "webapp", "title": "Login broken", "body": "the bug shows on Safari", "labels": "bug"}
    assert stated_for_another(ISSUE, kept, "open an issue: the bug shows on Safari") == kept
    other = {"repo": "webapp", "title": "x", "body": "label the page header", "labels": "ui"}
    assert stated_for_another(ISSUE, other) == other


def test_the_router_writes_every_listed_item_and_leaves_out_the_body_that_stated_them():
    message = "open an issue in webapp titled 'Dark mode broken', the labels are ui and bug"
    values = ["webapp", "Dark mode broken", "the labels are ui and bug", "bug", "", ""]
    provider = ScoringProvider({"create_issue": 0.0, "none": -5.0}, list(values))
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [ISSUE], message, "en")
    assert decision.params == {"repo": "webapp", "title": "Dark mode broken", "labels": "ui, bug"}
    assert '"labels": "ui, bug"' in "".join(provider.cursor.written)  # what follows reads the whole list
    alone = Router(RouterOptions(write_examples=False, lists=False)).decide(ScoringProvider(
        {"create_issue": 0.0, "none": -5.0}, list(values)), [ISSUE], message, "en")
    assert alone.params == {"repo": "webapp", "title": "Dark mode broken", "labels": "bug"}  # the lever off: one item
