"""Numbers a parameter's description names in words ("0 = fully closed, 100 = fully open"): a message that says
the words, and no number, states that number."""

from __future__ import annotations

import pytest

from agent.router import Router, RouterOptions
from agent.router import glossary as glossary_module
from agent.router.glossary import Glossary, parse_cedict, parse_edict
from agent.router.labels import named_numbers, number_named, numbers_read, read_value
from agent.router.values import value_filters
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider

BLINDS = ToolManifest("set_blinds", "Set the position of the blinds in a room.",
                      {"room": "Room name", "position": "0 = fully closed, 100 = fully open."},
                      parameter_types={"room": "string", "position": {"type": "integer", "minimum": 0, "maximum": 100}},
                      required=["room", "position"])
TASK = ToolManifest("add_task", "Add a task to the to-do list.",
                    {"content": "The task", "priority": "Priority: 1 means urgent, 4 means low", "limit": "How many"},
                    parameter_types={"priority": "integer", "limit": "integer"}, required=["content"])


def test_the_numbers_a_description_names_and_their_own_words():
    assert named_numbers(BLINDS, "position") == [("0", frozenset({"close"})), ("100", frozenset({"open"}))]
    assert named_numbers(TASK, "priority") == [("1", frozenset({"urgent"})), ("4", frozenset({"low"}))]
    assert named_numbers(TASK, "limit") == [] and named_numbers(BLINDS, "room") == []  # names none; takes no number
    times = ToolManifest("t", "t", {"at": "Time, e.g. 14:30 or 9:00"}, parameter_types={"at": "number"})
    assert named_numbers(times, "at") == []  # a time is no name


@pytest.mark.parametrize("message, number", [
    ("close the office blinds", "0"),
    ("open the bedroom blinds all the way", "100"),  # "fully" and "all the way" say how much, not which
    ("the blinds in the office, closed please", "0"),
    ("open or close the blinds?", None),  # the words of two
    ("set the blinds in the office", None),  # of none
])
def test_a_message_says_the_words_of_one_number(message, number):
    assert number_named(BLINDS, "position", message) == number


def test_a_number_the_message_states_comes_first():
    assert numbers_read(BLINDS, "position", "close the office blinds") == "close the office blinds (0)"
    assert numbers_read(BLINDS, "position", "close the blinds to 30%") == "close the blinds to 30%"
    assert numbers_read(BLINDS, "position", "close the blinds halfway") == "close the blinds 50%"
    assert read_value(BLINDS, "position", "1", "close the office blinds")[1] == "0"  # "1" of "(100)", or made up
    assert read_value(BLINDS, "position", "30", "close the blinds to 30%")[1] == "30"
    assert read_value(TASK, "priority", "", "buy milk")[1] == ""  # an optional value left empty stays empty
    # the number is one to copy: a message that states no other does not leave the value empty
    assert value_filters(BLINDS, "position", "close the office blinds", RouterOptions())["copy_from"].endswith("(0)")


def test_a_chinese_message_says_the_words_through_its_gloss(monkeypatch):
    cedict = "關上 关上 [guan1 shang4] /to close (a door)/to turn off (light, electrical equipment etc)/\n"
    monkeypatch.setattr(glossary_module, "_LOADED", [Glossary(parse_cedict(cedict), parse_edict(""))])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    assert number_named(BLINDS, "position", "把办公室的百叶窗关上") == "0"
    assert number_named(BLINDS, "position", "把办公室的百叶窗调一下") is None


def test_the_router_writes_the_number_the_words_name():
    # the model, copying "(100)", stops at "1": the value is the number the words name
    provider = ScoringProvider({"set_blinds": 0.0, "none": -9.0}, ["office", "1"])
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [BLINDS], "open the office blinds all the way", "en")
    assert decision.params == {"room": "office", "position": "100"}
    assert provider.cursor.filters[1]["copy_from"] == "open the office blinds all the way (100)"
    # a number the message states is the model's to copy, as before
    provider = ScoringProvider({"set_blinds": 0.0, "none": -9.0}, ["office", "30"])
    assert Router(RouterOptions(write_examples=False)).decide(provider, [BLINDS], "close the office blinds to 30%", "en").params == {
        "room": "office", "position": "30"}
    # without the lever of spoken numbers, the message is read as written
    provider = ScoringProvider({"set_blinds": 0.0, "none": -9.0}, ["office", "1"])
    assert Router(RouterOptions(spoken_numbers=False, write_examples=False)).decide(provider, [BLINDS], "close the office blinds", "en").params == {
        "room": "office", "position": "1"}

