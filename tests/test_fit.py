"""A close tool is called when the chosen one's call misses a value the message has nothing for."""

import pytest

from agent.router import Router, RouterOptions
from agent.toolkit.base import ToolManifest
from tests.helpers.cost import cpu_seconds
from tests.test_routing import ScoringProvider

MODIFY = ToolManifest("modify_booking", "Change a booking's dates, seats or travellers.",
                      {"booking_reference": "The booking's reference", "changes": "What to change, e.g. the new date"},
                      ["Move booking AB12CD to Friday"],
                      parameter_types={"booking_reference": {"type": "string"}, "changes": {"type": "string"}},
                      required=["booking_reference", "changes"])
CANCEL = ToolManifest("cancel_booking", "Cancel a booking.", {"booking_reference": "The booking's reference"},
                      ["Cancel booking AB12CD"],
                      parameter_types={"booking_reference": {"type": "string"}}, required=["booking_reference"])
GET = ToolManifest("get_booking", "Show a booking's details.", {"booking_reference": "The booking's reference"},
                   ["Show booking AB12CD"],
                   parameter_types={"booking_reference": {"type": "string"}}, required=["booking_reference"])
SEARCH = ToolManifest("search_hotels", "Search hotels in a city.", {"city": "City name", "check_in": "Date, YYYY-MM-DD"},
                      ["Hotels in Lyon from 2027-05-02"],
                      parameter_types={"city": {"type": "string"}, "check_in": {"type": "string"}}, required=["city", "check_in"])
TOOLS = [MODIFY, CANCEL, GET, SEARCH]


def test_the_close_tool_whose_call_misses_nothing_is_called_instead_of_a_declined_one():
    # the message states the reference but no change: modifying cannot be called, cancelling can
    provider = ScoringProvider({"modify_booking": 0.0, "cancel_booking": -2.0, "get_booking": -5.0, "none": -4.0},
                               ["QX7F2K", "", "QX7F2K"])
    decision = Router(RouterOptions()).decide(provider, TOOLS, "cancel booking QX7F2K, my plans changed", "en")
    assert (decision.tool, decision.params) == ("cancel_booking", {"booking_reference": "QX7F2K"})
    assert "".join(provider.cursor.written).endswith('{"tool": "cancel_booking", "params": {"booking_reference": "QX7F2K"')


def test_the_second_close_tool_is_tried_when_the_first_misses_a_value_too():
    provider = ScoringProvider({"modify_booking": 0.0, "search_hotels": -1.0, "cancel_booking": -2.0, "none": -4.0},
                               ["QX7F2K", "", "", "QX7F2K"])
    decision = Router(RouterOptions()).decide(provider, TOOLS, "cancel booking QX7F2K", "en")
    assert (decision.tool, decision.params) == ("cancel_booking", {"booking_reference": "QX7F2K"})


@pytest.mark.parametrize("scores, options", [
    # the close tool scores below no tool: a message no tool fits is not given one
    ({"modify_booking": 0.0, "cancel_booking": -2.0, "none": -2.1}, {}),
    # the other tool is not close
    ({"modify_booking": 0.0, "cancel_booking": -8.5, "none": -12.0}, {}),
    # ... nor with the margin narrowed
    ({"modify_booking": 0.0, "cancel_booking": -3.5, "none": -9.0}, {"missing_margin": 3.0}),
    # the lever off
    ({"modify_booking": 0.0, "cancel_booking": -2.0, "none": -9.0}, {"number_fit": False}),
])
def test_a_declined_call_stays_declined_without_a_close_tool_preferred_to_no_tool(scores, options):
    provider = ScoringProvider({"get_booking": -20.0, "search_hotels": -20.0, **scores}, ["QX7F2K", "", "QX7F2K"])
    decision = Router(RouterOptions(**options)).decide(provider, TOOLS, "book me a table for two, ref QX7F2K", "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "modify_booking", "changes")


def test_a_tool_further_behind_that_the_model_prefers_to_no_tool_is_called_for_a_missing_value():
    # "美元兑日元汇率多少" chose the rate's history, which needs dates the message does not give; the current
    # rate, some points behind it and well ahead of no tool, needs none
    provider = ScoringProvider({"modify_booking": 0.0, "cancel_booking": -6.0, "none": -12.0, "get_booking": -20.0,
                                "search_hotels": -20.0}, ["QX7F2K", "", "QX7F2K"])
    decision = Router(RouterOptions()).decide(provider, TOOLS, "cancel booking QX7F2K", "en")
    assert (decision.tool, decision.params) == ("cancel_booking", {"booking_reference": "QX7F2K"})


UNLOCK = ToolManifest("unlock_door", "Unlock a smart door lock.", {"door": "Which door", "code": "PIN code, if the lock needs one"},
                      ["Unlock the front door"], parameter_types={"door": {"type": "string"}, "code": {"type": "string"}},
                      required=["door"])
LOCK = ToolManifest("lock_door", "Lock a smart door lock.", {"door": "Which door"}, ["Lock the back door"],
                    parameter_types={"door": {"type": "string"}}, required=["door"])


def test_a_close_tool_that_needs_the_same_missing_value_is_not_called_instead():
    # the message gives no door to unlock: locking one instead, the opposite, is no reading of it
    provider = ScoringProvider({"unlock_door": 0.0, "lock_door": -1.0, "none": -9.0}, ["", "", "front"])
    decision = Router(RouterOptions()).decide(provider, [UNLOCK, LOCK], "open it, the code is 4821", "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "unlock_door", "door")
    assert "lock_door" not in "".join(provider.cursor.written).replace("unlock_door", "")


def test_a_close_tool_that_misses_a_value_too_leaves_the_message_declined():
    provider = ScoringProvider({"modify_booking": 0.0, "search_hotels": -1.0, "none": -4.0, "cancel_booking": -9.0,
                                "get_booking": -9.0}, ["QX7F2K", "", ""])
    decision = Router(RouterOptions()).decide(provider, TOOLS, "change booking QX7F2K", "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "modify_booking", "changes")


LIST_PRS = ToolManifest("list_pull_requests", "List pull requests in a repository.",
                        {"repo": "Repository name", "base": "Filter by base branch"},
                        parameter_types={"repo": {"type": "string"}, "base": {"type": "string"}}, required=["repo"])
GET_PR = ToolManifest("get_pull_request", "Get details of a pull request.",
                      {"repo": "Repository name", "pull_number": "Pull request number"},
                      parameter_types={"repo": {"type": "string"}, "pull_number": {"type": "integer"}},
                      required=["repo", "pull_number"])
GET_ISSUE = ToolManifest("get_issue", "Get an issue.", {"repo": "Repository name", "issue_number": "Issue number"},
                         parameter_types={"repo": {"type": "string"}, "issue_number": {"type": "integer"}},
                         required=["repo", "issue_number"])
REPOS = [LIST_PRS, GET_PR, GET_ISSUE]


EN = ["webapp", "15", "webapp", "15"]
JA = ["webapp", "webapp", "15", "webapp", "webapp", "15"]  # a Latin value in a Japanese message is copied again


@pytest.mark.parametrize("message, values, expected", [
    ("webapp の PR 15 の詳細を教えて", JA, "get_pull_request"),  # PR: the initials of "Pull request number"
    ("the details of pull request #15 in webapp", EN, "get_pull_request"),
    ("show issue 15 of webapp", EN, "get_issue"),
    ("list PRs of webapp based on main, top 15", EN, "list_pull_requests"),  # "top 15" names no thing
])
def test_a_thing_named_by_its_number_calls_a_close_tool_that_identifies_it(message, values, expected):
    provider = ScoringProvider({"list_pull_requests": 0.0, "get_pull_request": -2.0, "get_issue": -2.5, "none": -6.0},
                               list(values))
    decision = Router(RouterOptions(write_examples=False)).decide(provider, REPOS, message, "en")
    assert decision.tool == expected
    if expected != "list_pull_requests":
        assert decision.params == {"repo": "webapp", expected.replace("get_", "").replace("pull_request", "pull") + "_number": "15"}


@pytest.mark.parametrize("scores, options", [
    ({"list_pull_requests": 0.0, "get_pull_request": -3.5, "get_issue": -9.0, "none": -9.0}, {}),  # not close
    ({"list_pull_requests": 0.0, "get_pull_request": -2.0, "get_issue": -9.0, "none": -9.0}, {"number_fit": False}),
])
def test_a_thing_named_by_its_number_keeps_the_chosen_tool_without_a_close_one(scores, options):
    provider = ScoringProvider(scores, ["webapp", "15"])
    decision = Router(RouterOptions(write_examples=False, **options)).decide(provider, REPOS, "the details of PR 15 in webapp", "en")
    assert decision.tool == "list_pull_requests"


UPDATE_ISSUE = ToolManifest("update_issue", "Edit an issue: title, body or state.",
                            {"repo": "Repository name", "issue_number": "Issue number", "title": "New title", "state": "open or closed"},
                            parameter_types={"repo": {"type": "string"}, "issue_number": {"type": "integer"},
                                             "title": {"type": "string"}, "state": {"type": "string"}},
                            required=["repo", "issue_number"])
COMMENT = ToolManifest("add_issue_comment", "Add a comment to an issue or pull request.",
                       {"repo": "Repository name", "issue_number": "Issue number", "body": "Comment text"},
                       parameter_types={"repo": {"type": "string"}, "issue_number": {"type": "integer"}, "body": {"type": "string"}},
                       required=["repo", "issue_number", "body"])
LIST_ISSUES = ToolManifest("list_issues", "List issues in a repository.", {"repo": "Repository name", "labels": "Labels"},
                           parameter_types={"repo": {"type": "string"}, "labels": {"type": "string"}}, required=["repo"])


def test_of_the_close_tools_that_identify_the_thing_the_one_of_fewest_parameters_is_called():
    # "take a look at issue 101": the model's list_issues cannot take 101; updating the issue scores better than getting it,
    # but the message asks nothing of it
    provider = ScoringProvider({"list_issues": 0.0, "update_issue": -1.0, "get_issue": -2.0, "none": -6.0},
                               ["webapp", "issue", "webapp", "101"])
    decision = Router(RouterOptions(write_examples=False)).decide(
        provider, [LIST_ISSUES, UPDATE_ISSUE, GET_ISSUE], "take a look at issue 101 of webapp", "en")
    assert (decision.tool, decision.params) == ("get_issue", {"repo": "webapp", "issue_number": "101"})


def test_a_tool_whose_description_names_the_thing_identifies_it():
    # add_issue_comment's issue_number takes a pull request too, as its description says: no other tool is written
    provider = ScoringProvider({"add_issue_comment": 0.0, "get_pull_request": -1.0, "none": -6.0}, ["webapp", "31", "LGTM"])
    decision = Router(RouterOptions(write_examples=False)).decide(
        provider, [COMMENT, GET_PR], "comment LGTM on PR 31 of webapp", "en")
    assert (decision.tool, decision.params) == ("add_issue_comment", {"repo": "webapp", "issue_number": "31", "body": "LGTM"})


@pytest.mark.parametrize("read, piece", [
    ("things", "ab{}"),  # a word, then a long run of spaces and no number
    ("slugs", "a/{}"),
    ("between", "between x{} and"),
])
def test_a_long_message_is_read_once_for_numbered_things_repositories_and_spans(read, piece):
    # attack: a pasted text whose run a pattern could divide in many ways (two runs of spaces side by side took the
    # square of the run's length); the cost of a run eight times as long stays near eight times the cost
    from agent.router.fit import _NUMBERED_THING
    from agent.router.requests import split_requests
    from agent.router.slugs import slugs

    reader = {"things": _NUMBERED_THING.findall, "slugs": slugs, "between": split_requests}[read]
    run = {"things": " ", "slugs": "a/", "between": "x"}[read]

    long, short = piece.format(run * 32000), piece.format(run * 4000)
    assert cpu_seconds(reader, long) < 24 * max(cpu_seconds(reader, short), 1e-4)
