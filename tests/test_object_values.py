"""Object-typed parameters whose members are named are written member by member, as parameters of
their own: typed, in the form each asks for, and left out when the message states none of them."""

import datetime as dt
import json

import pytest

import agent.toolkit.dates as dates
from agent.router import Router, RouterOptions
from agent.toolkit.base import ToolManifest, members
from tests.test_routing import ScoringProvider

MODIFY = ToolManifest(
    "modify_booking", "Change the dates or options of an existing booking.",
    {"booking_reference": "Six-character booking reference", "changes": "What to change"},
    ["Move booking QX7F2K to 2027-01-20"],
    parameter_types={
        "booking_reference": {"type": "string"},
        "changes": {"type": "object", "properties": {
            "new_departure_date": {"type": "string", "format": "date", "description": "Date in YYYY-MM-DD format."},
            "new_check_in": {"type": "string", "format": "date", "description": "Date in YYYY-MM-DD format."},
            "seat_preference": {"type": "string", "enum": ["window", "aisle", "middle"]},
        }},
    },
    required=["booking_reference", "changes"],
)
FLIGHTS = ToolManifest(
    "search_flights", "Search flights", {"origin": "City", "passengers": "Who travels"}, ["Flights from Oslo"],
    parameter_types={"origin": {"type": "string"}, "passengers": {"type": "object", "properties": {
        "adults": {"type": "integer", "minimum": 1}, "children": {"type": "integer", "minimum": 0}}, "required": ["adults"]}},
    required=["origin"],
)


@pytest.fixture(autouse=True)
def wednesday(monkeypatch):
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 12, 2))


def test_the_members_of_an_object_are_a_manifest_of_their_own_and_other_parameters_have_none():
    inner = members(MODIFY, "changes")
    assert inner is not None and list(inner.parameters) == ["new_departure_date", "new_check_in", "seat_preference"]
    assert inner.parameter_types["seat_preference"]["enum"] == ["window", "aisle", "middle"] and inner.required == []
    assert members(FLIGHTS, "passengers").required == ["adults"]
    assert members(MODIFY, "booking_reference") is None
    free = ToolManifest("t", "d", {"inputs": "Inputs"}, parameter_types={"inputs": {"type": "object"}})
    assert members(free, "inputs") is None  # no named members: written as text, as before


def test_an_object_is_written_member_by_member_with_each_value_in_its_form():
    provider = ScoringProvider({"modify_booking": 0.0, "none": -9.0, "window": -2.0, "aisle": -1.0, "middle": -3.0},
                               ["MZ82TQ", "MZ82TQ", "2027-04-18", "2027-04-18"])  # a Latin value is copied again
    said = "把订单 MZ82TQ 的出发日期改到2027年4月18日"
    decision = Router(RouterOptions()).decide(provider, [MODIFY], said, "zh")
    assert decision.tool == "modify_booking"
    # the check-in date repeats the departure date the message names once: it states nothing of its own;
    # the seat the model chose is not named: a change the message does not ask for
    assert decision.params == {"booking_reference": "MZ82TQ", "changes": {"new_departure_date": "2027-04-18"}}
    # the reply the model reads on with is JSON with the object in its place; the check-in date, which
    # could only repeat the one date the message names, is not written at all
    written = json.loads("".join(provider.cursor.written) + "}}")
    assert written["params"]["changes"] == {"new_departure_date": "2027-04-18", "seat_preference": "aisle"}


def test_an_object_whose_required_member_the_message_does_not_state_is_not_given():
    provider = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Oslo", "2", ""])
    decision = Router(RouterOptions()).decide(provider, [FLIGHTS], "flights from Oslo for 2 adults", "en")
    assert decision.params == {"origin": "Oslo", "passengers": {"adults": "2"}}
    nobody = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Oslo", ""])
    decision = Router(RouterOptions()).decide(nobody, [FLIGHTS], "flights from Oslo", "en")
    assert decision.tool == "search_flights" and decision.params == {"origin": "Oslo"}  # optional: left out


def test_a_required_object_with_nothing_stated_is_a_value_the_message_does_not_give():
    provider = ScoringProvider({"modify_booking": 0.0, "none": -9.0, "window": -1.0}, ["QX7F2K", "", ""])
    empty = ToolManifest(MODIFY.name, MODIFY.description, MODIFY.parameters, MODIFY.examples, required=MODIFY.required,
                         parameter_types={**MODIFY.parameter_types, "changes": {"type": "object", "properties": {
                             "new_departure_date": MODIFY.parameter_types["changes"]["properties"]["new_departure_date"]}}})
    decision = Router(RouterOptions()).decide(provider, [empty], "change booking QX7F2K", "en")
    assert decision.tool is None and (decision.declined, decision.missing) == ("modify_booking", "changes")


def test_the_members_of_an_object_are_converted_to_their_types_before_the_tool_runs():
    from agent.toolkit.schema import ParameterError, coerce_params

    clean = coerce_params(FLIGHTS, {"origin": "Oslo", "passengers": {"adults": "2", "children": "1", "pets": "1"}})
    assert clean == {"origin": "Oslo", "passengers": {"adults": 2, "children": 1, "pets": "1"}}
    with pytest.raises(ParameterError, match="passengers.adults"):
        coerce_params(FLIGHTS, {"origin": "Oslo", "passengers": {"adults": "two"}})


def test_an_evaluation_judges_each_member_of_an_object_and_ignores_members_it_does_not_expect():
    from agent.evaluation.scoring import params_match

    expected = {"booking_reference": "MZ82TQ", "changes": {"new_departure_date": "2027-04-18"}}
    assert params_match(MODIFY, expected, {"booking_reference": "MZ82TQ",
                                           "changes": {"new_departure_date": "2027-04-18", "seat_preference": "aisle"}})
    assert not params_match(MODIFY, expected, {"booking_reference": "MZ82TQ", "changes": {"seat_preference": "aisle"}})
    assert not params_match(MODIFY, expected, {"booking_reference": "MZ82TQ", "changes": "出发日期改到2027年4月18日"})
    assert params_match(FLIGHTS, {"passengers": {"adults": 2}}, {"origin": "Oslo", "passengers": {"adults": "2"}})


def test_a_choice_among_an_objects_members_is_kept_only_when_the_message_names_it():
    provider = ScoringProvider({"modify_booking": 0.0, "none": -9.0, "window": -2.0, "aisle": -1.0}, ["QX7F2K", "", ""])
    decision = Router(RouterOptions()).decide(provider, [MODIFY], "booking QX7F2K: an aisle seat please", "en")
    assert decision.params == {"booking_reference": "QX7F2K", "changes": {"seat_preference": "aisle"}}
    from agent.router.values import named
    assert named(MODIFY, "seat_preference", "premium_economy", "premium economy please")
    assert named(MODIFY, "rollover", "true", "roll over? no: turn rollover on") and not named(MODIFY, "rollover", "true", "set it to 5000")


def test_a_number_the_message_states_once_is_one_value_not_every_numeric_one():
    from agent.router.values import unsaid_left_out

    hotels = ToolManifest("search_hotels", "Search hotels", {"city": "City", "rooms": "Rooms", "stars": "Stars", "max_price": "Price"},
                          parameter_types={"city": "string", "rooms": "integer", "stars": "integer", "max_price": "number"},
                          required=["city"])
    written = {"city": "Paris", "rooms": "2", "stars": "2", "max_price": "2"}
    assert unsaid_left_out(hotels, written, "two rooms in Paris".replace("two", "2")) == {"city": "Paris", "rooms": "2"}
    assert unsaid_left_out(hotels, written, "2 rooms in Paris, 2 stars is fine") == {"city": "Paris", "rooms": "2", "stars": "2"}
    assert unsaid_left_out(hotels, written) == written  # no message: numbers are not judged
    provider = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Canton", "2", "2"])
    decision = Router(RouterOptions()).decide(provider, [FLIGHTS], "flights from Canton for two adults", "en")
    assert decision.params == {"origin": "Canton", "passengers": {"adults": "2"}}  # the children are not two as well


def test_the_digits_of_a_date_are_no_second_statement_of_a_number():
    hotels = ToolManifest("search_hotels", "Search hotels", {"city": "City", "rooms": "Rooms", "stars": "Minimum stars"},
                          ["Hotels in Oslo"], parameter_types={"city": "string", "rooms": "integer", "stars": "integer"},
                          required=["city"])
    provider = ScoringProvider({"search_hotels": 0.0, "none": -9.0}, ["Paris", "2", "2"])
    decision = Router(RouterOptions()).decide(provider, [hotels], "2 rooms in Paris on May 2", "en")
    assert decision.params == {"city": "Paris", "rooms": "2"}


def test_a_number_named_inside_a_text_value_does_not_take_the_place_of_the_number_itself():
    from agent.router.values import unsaid_left_out

    notes = ToolManifest("notes", "Notes", {"action": "What to do", "text": "Text", "id": "Note id"},
                         parameter_types={"action": "string", "text": "string", "id": "integer"}, required=["action"])
    written = {"action": "delete", "text": "note 7", "id": "7"}
    assert unsaid_left_out(notes, written, "delete note 7") == written
    stops = ToolManifest(FLIGHTS.name, FLIGHTS.description, {**FLIGHTS.parameters, "max_stops": "Most stops"},
                         parameter_types={**FLIGHTS.parameter_types, "max_stops": "integer"}, required=FLIGHTS.required)
    assert unsaid_left_out(stops, {"origin": "Oslo", "passengers": {"adults": "2"}, "max_stops": "2"}, "Oslo, 2 adults") == {
        "origin": "Oslo", "passengers": {"adults": "2"}}  # a member of the object holds the 2


def test_a_value_that_is_the_message_copied_whole_does_not_hold_the_others():
    from agent.router.values import unsaid_left_out

    reminder = ToolManifest("create_reminder", "Create a reminder", {"text": "What to be reminded of", "due": "Due date, ISO 8601"},
                            required=["text"])
    said = "remind me to renew my passport by 2027-01-15, it's urgent"
    whole = {"text": "Remind me to renew my passport by 2027-01-15, it's urgent", "due": "2027-01-15"}
    assert unsaid_left_out(reminder, whole, said) == whole  # the due date is stated, not a piece of the text repeated
    assert unsaid_left_out(reminder, whole) == {"text": whole["text"]}  # without the message it cannot be told
    # a text that is a part of the message holds what it says: the date said again is left out
    part = {"text": "renew my passport by 2027-01-15", "due": "2027-01-15"}
    assert unsaid_left_out(reminder, part, said) == {"text": part["text"]}
    # ... unless its parameter asks for a date in a form, and the value is in it: the reminder is due then (free text
    # does not schedule it)
    dated = ToolManifest(reminder.name, reminder.description, {**reminder.parameters, "due": "Due date or date-time, ISO 8601"},
                         required=["text"])
    assert unsaid_left_out(dated, part, said) == part
    japanese_part = {"text": "2026-12-20 までに年賀状を出す", "due": "2026-12-20"}
    assert unsaid_left_out(dated, japanese_part, "2026-12-20 までに年賀状を出すってリマインダー作って、優先度は低めで") == japanese_part
    assert unsaid_left_out(dated, {**part, "due": "renew"}, said) == {"text": part["text"]}  # no date: a piece of the text
    # a word of it is still a piece the text holds ("remind" as the reminder list)
    listed = ToolManifest(reminder.name, reminder.description, {**reminder.parameters, "list": "List name"}, required=["text"])
    assert unsaid_left_out(listed, {**whole, "list": "remind"}, said) == whole
    japanese = {"text": "2026-12-20 までに年賀状を出すってリマインダー作って", "due": "2026-12-20"}
    assert unsaid_left_out(reminder, japanese, "2026-12-20 までに年賀状を出すってリマインダー作って") == japanese


def test_an_identifiers_number_is_written_with_its_prefix():
    from agent.router.values import completed

    events = ToolManifest("update_event", "Update an event", {"event_id": "Event ID", "title": "New title", "pull_number": "PR"},
                          ["rename evt_1 to Sync"], required=["event_id"], parameter_types={"pull_number": {"type": "integer"}})
    assert completed(events, "event_id", "4410", "把 evt_4410 的地点改成 3 号会议室") == "evt_4410"
    assert completed(events, "event_id", "evt", "move evt_77 to Friday") == "evt_77"
    assert completed(events, "event_id", "12", "move event 12 to Friday") == "12"  # no prefix to give it
    assert completed(events, "title", "4410", "rename evt_4410 to 4410") == "4410"  # not an identifier's parameter
    assert completed(events, "pull_number", "19", "merge PR-19") == "19"  # a number, not a string identifier
    provider = ScoringProvider({"update_event": 0.0, "none": -9.0}, ["4410", "", "", "", ""])
    decision = Router(RouterOptions()).decide(provider, [events], "rename evt_4410", "en")
    assert decision.params["event_id"] == "evt_4410"
