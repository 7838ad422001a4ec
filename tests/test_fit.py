"""A close tool is called when the chosen one's call misses a value the message has nothing for."""

import pytest

from agent.router import Router, RouterOptions
from agent.toolkit.base import ToolManifest
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
    ({"modify_booking": 0.0, "cancel_booking": -3.5, "none": -9.0}, {}),
    # the lever off
    ({"modify_booking": 0.0, "cancel_booking": -2.0, "none": -9.0}, {"number_fit": False}),
])
def test_a_declined_call_stays_declined_without_a_close_tool_preferred_to_no_tool(scores, options):
    provider = ScoringProvider({"get_booking": -20.0, "search_hotels": -20.0, **scores}, ["QX7F2K", "", "QX7F2K"])
    decision = Router(RouterOptions(**options)).decide(provider, TOOLS, "book me a table for two, ref QX7F2K", "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "modify_booking", "changes")


def test_a_close_tool_that_misses_a_value_too_leaves_the_message_declined():
    provider = ScoringProvider({"modify_booking": 0.0, "search_hotels": -1.0, "none": -4.0, "cancel_booking": -9.0,
                                "get_booking": -9.0}, ["QX7F2K", "", ""])
    decision = Router(RouterOptions()).decide(provider, TOOLS, "change booking QX7F2K", "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "modify_booking", "changes")
