"""A written call's values are checked against their parameters' JSON schemas: an optional value the tool cannot
take is left out, a required one makes the call one the message has no value for."""

import pytest

from agent.router import Router, RouterOptions
from agent.router.valid import checked, takes
from agent.toolkit.base import ToolManifest
from agent.toolkit.schema import ParameterError, coerce_params
from tests.test_routing import ScoringProvider

PERSON = {"type": "object", "properties": {"first_name": {"type": "string"}, "last_name": {"type": "string"}},
          "required": ["first_name", "last_name"]}
BOOK = ToolManifest(
    "create_booking", "Book a flight, hotel, train or car offer for one or more travelers.",
    {"offer_id": "", "travelers": "", "payment_method": ""}, ["Book offer OF-1 for Ann Lee"],
    parameter_types={"offer_id": {"type": "string"}, "travelers": {"type": "array", "items": PERSON},
                     "payment_method": {"type": "string", "enum": ["card", "paypal", "voucher"]}},
    required=["offer_id", "travelers"])
HOTELS = ToolManifest(
    "search_hotels", "Search hotel availability in a city for a stay.",
    {"city": "", "rooms": "", "amenities": "", "min_star_rating": "", "note": "anything"}, ["Hotels in Lyon with a pool"],
    parameter_types={"city": {"type": "string"}, "rooms": {"type": "integer", "minimum": 1},
                     "amenities": {"type": "array", "items": {"type": "string", "enum": ["wifi", "pool", "spa"]}},
                     "min_star_rating": {"type": "integer", "minimum": 1, "maximum": 5}},
    required=["city"])
FLIGHTS = ToolManifest("search_flights", "Search flights between two airports.", {"origin": "IATA code", "destination": "IATA code"},
                       parameter_types={"origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
                                        "destination": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                       required=["origin", "destination"])


@pytest.mark.parametrize("params, kept", [
    # values as the router writes them (text), converted as the runtime converts them, are taken
    ({"city": "Lyon", "rooms": "2", "amenities": "wifi, pool", "min_star_rating": "4"},
     {"city": "Lyon", "rooms": "2", "amenities": "wifi, pool", "min_star_rating": "4"}),
    # an enum member the list does not have, a number out of bounds, a word for an integer: left out
    ({"city": "Lyon", "amenities": "non"}, {"city": "Lyon"}),
    ({"city": "Lyon", "min_star_rating": "7", "rooms": "0"}, {"city": "Lyon"}),
    ({"city": "Lyon", "rooms": "two"}, {"city": "Lyon"}),
    # a parameter with no declared type takes any text
    ({"city": "Lyon", "note": "non-stop only"}, {"city": "Lyon", "note": "non-stop only"}),
])
def test_an_optional_value_the_tool_cannot_take_is_left_out(params, kept):
    assert checked(HOTELS, params, "") == (kept, "")


@pytest.mark.parametrize("manifest, params, missing", [
    (BOOK, {"offer_id": "table", "travelers": "long-haul"}, "travelers"),  # a word where a list of people is asked
    (BOOK, {"offer_id": "OF-1", "travelers": '[{"first_name": "Ann"}]'}, "travelers"),  # a person without a last name
    (FLIGHTS, {"origin": "Paris", "destination": "HND"}, "origin"),  # no IATA code
])
def test_a_required_value_the_tool_cannot_take_is_missing(manifest, params, missing):
    assert checked(manifest, params, "")[1] == missing


def test_valid_required_values_and_a_call_already_missing_a_value_are_as_they_were():
    travelers = '[{"first_name": "Ann", "last_name": "Lee"}]'
    assert checked(BOOK, {"offer_id": "OF-1", "travelers": travelers, "payment_method": "Card"}, "") == (
        {"offer_id": "OF-1", "travelers": travelers, "payment_method": "Card"}, "")
    assert checked(FLIGHTS, {"origin": "CDG", "destination": "HND"}, "") == ({"origin": "CDG", "destination": "HND"}, "")
    assert checked(BOOK, {"offer_id": "x", "travelers": "y"}, "offer_id") == ({"offer_id": "x", "travelers": "y"}, "offer_id")
    assert checked(BOOK, {"offer_id": "x", "travelers": "y"}, "", on=False) == ({"offer_id": "x", "travelers": "y"}, "")


def test_a_schema_that_is_no_schema_refuses_nothing():
    odd = ToolManifest("odd", "d", {"x": ""}, parameter_types={"x": {"type": "text", "minimum": "one"}}, required=["x"])
    assert takes(odd, "x", "anything")


def test_the_runtime_converts_an_arrays_items_to_their_type_and_refuses_an_item_it_cannot_convert():
    numbers = ToolManifest("sum", "d", {"values": ""}, parameter_types={"values": {"type": "array", "items": {"type": "integer"}}})
    assert coerce_params(numbers, {"values": "1, 2, 3"}) == {"values": [1, 2, 3]}
    with pytest.raises(ParameterError, match=r"values\[1\]"):
        coerce_params(numbers, {"values": "1, two"})
    with pytest.raises(ParameterError, match=r"travelers\[0\]"):
        coerce_params(BOOK, {"offer_id": "x", "travelers": "long-haul"})


def test_a_call_whose_required_value_the_tool_cannot_take_is_declined_for_that_value():
    # "book me a table for two at a sushi place": the model chose the booking tool, and wrote a word for its travelers
    provider = ScoringProvider({"create_booking": -0.5, "search_hotels": -9.0, "none": -2.0}, ["table", "long-haul"])
    said = "book me a table for two at a sushi place near the hotel tonight"
    decision = Router(RouterOptions()).decide(provider, [BOOK, HOTELS], said, "en")
    assert (decision.tool, decision.declined, decision.missing) == (None, "create_booking", "travelers")
    # the lever off: the call is made as written
    provider = ScoringProvider({"create_booking": -0.5, "search_hotels": -9.0, "none": -2.0}, ["table", "long-haul"])
    decision = Router(RouterOptions(valid_values=False)).decide(provider, [BOOK, HOTELS], said, "en")
    assert decision.tool == "create_booking" and decision.params["travelers"] == "long-haul"


SLOTS = ToolManifest("find_meeting_slots", "Find times when all attendees are free.",
                     {"attendees": "Email addresses of the attendees", "duration_minutes": "Meeting length in minutes"},
                     parameter_types={"attendees": {"type": "array", "items": {"type": "string"}},
                                      "duration_minutes": {"type": "integer"}},
                     required=["attendees", "duration_minutes"])
SHARE = ToolManifest("share_calendar", "Share a calendar.", {"calendar_id": "Calendar ID or name",
                                                            "email": "Email address of the person to share with",
                                                            "cc": "Copy to"},
                     parameter_types={"cc": {"type": "string", "format": "email"}}, required=["calendar_id", "email"])


@pytest.mark.parametrize("manifest,key,value,ok", [
    (SLOTS, "attendees", "2026-12-01", False),  # a date copied as an attendee
    (SLOTS, "attendees", ["tom@acme.com", "li@acme.com"], True),
    (SLOTS, "attendees", "tom@acme.com, li@acme.com", True),
    (SLOTS, "attendees", ["tom@acme.com", "li"], False),
    (SHARE, "email", "mom", False),  # no type declared: the description asks for an address
    (SHARE, "email", "mom@qq.com", True),
    (SHARE, "cc", "mom", False),  # "format": "email"
    (SHARE, "calendar_id", "家庭", True),
    (ToolManifest("invite", "Invite", {"user": "User name or email address"}), "user", "bob", True),
])
def test_a_parameter_that_asks_for_email_addresses_takes_addresses_only(manifest, key, value, ok):
    assert takes(manifest, key, value) is ok


def test_a_required_address_that_is_none_makes_the_call_miss_it_and_an_optional_one_is_left_out():
    assert checked(SLOTS, {"attendees": "2026-12-01", "duration_minutes": "3"}, "")[1] == "attendees"
    assert checked(SHARE, {"calendar_id": "家庭", "email": "mom@qq.com", "cc": "dad"}, "") == (
        {"calendar_id": "家庭", "email": "mom@qq.com"}, "")
