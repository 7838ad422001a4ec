"""An enum member the message names; a repository named as owner/name; the "and" of "between … and …"."""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest

from agent.router import Router, RouterOptions
from agent.router import glossary as glossary_module
from agent.router.choices import chosen_member, named_members
from agent.router.glossary import Glossary, parse_cedict, parse_edict
from agent.router.requests import split_requests
from agent.router.slugs import repository_keys, slug_part, slugs
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider

CATEGORIES = ["groceries", "dining", "transport", "utilities", "entertainment", "other"]
PERIODS = ["weekly", "monthly", "yearly"]
BUDGET = ToolManifest(
    "create_budget", "Create a spending budget for a category.",
    {"category": "Category the budget covers", "amount": "Spending limit per period", "period": "Budget period"},
    required=["category", "amount"],
    parameter_types={"category": {"type": "string", "enum": CATEGORIES}, "amount": {"type": "number"},
                     "period": {"type": "string", "enum": PERIODS}},
)
CEDICT = """\
每周 每周 [mei3 zhou1] /every week/weekly/
餐飲 餐饮 [can1 yin3] /food and beverage/dining/
月 月 [yue4] /moon/month/
"""


@pytest.mark.parametrize("values, message, named", [
    (CATEGORIES, "set a monthly grocery budget of four hundred dollars", ["groceries"]),  # stemmed: grocery, groceries
    (PERIODS, "set a monthly grocery budget of four hundred dollars", ["monthly"]),
    (CATEGORIES, "how much did I spend last week?", []),
    (CATEGORIES, "show transactions from other banks", []),  # "other" names no choice of its own
    (["APPROVE", "REQUEST_CHANGES", "COMMENT"], "leave a comment-only review", ["COMMENT"]),
    (["APPROVE", "REQUEST_CHANGES", "COMMENT"], "please request changes on PR 4", ["REQUEST_CHANGES"]),  # every word
    (["APPROVE", "REQUEST_CHANGES", "COMMENT"], "request a review of PR 4", []),
    (["open", "closed", "all"], "close all open issues", ["open", "closed"]),
])
def test_an_enum_member_is_named_by_every_word_of_it(values, message, named):
    assert named_members(values, message) == named


def test_the_models_pick_stands_when_the_message_names_it_or_names_none():
    scores = {"groceries": -3.0, "dining": -2.5, "utilities": -0.2, "transport": -4.0, "entertainment": -5.0, "other": -6.0}
    assert chosen_member(CATEGORIES, scores, "a monthly grocery budget of 400") == "groceries"
    assert chosen_member(CATEGORIES, scores, "a budget of 400 for the month") == "utilities"  # none named
    both = {**scores, "groceries": -0.1}
    assert chosen_member(CATEGORIES, both, "groceries and dining, 400 a month") == "groceries"  # the likeliest named


def test_a_chinese_message_names_a_member_through_its_gloss_and_a_date_names_no_period(monkeypatch):
    monkeypatch.setattr(glossary_module, "_LOADED", [Glossary(parse_cedict(CEDICT), parse_edict(""))])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    assert named_members(CATEGORIES, "每周餐饮预算设为 300 元") == ["dining"]
    assert named_members(PERIODS, "每周餐饮预算设为 300 元") == ["weekly"]
    assert named_members(PERIODS, "2026年11月的餐饮") == []  # 月 of a date is no monthly
    assert named_members(PERIODS, "预算每月 300 元") == ["monthly"]


@pytest.mark.parametrize("lever, category, period", [(True, "groceries", "monthly"), (False, "utilities", "weekly")])
def test_the_router_takes_the_member_the_message_names(lever, category, period):
    scores = {"create_budget": 0.0, "none": -5.0, "utilities": -0.2, "groceries": -2.0, "weekly": -0.3, "monthly": -1.0}
    decision = Router(RouterOptions(write_examples=False, named_members=lever)).decide(
        ScoringProvider(scores, ["400"]), [BUDGET], "set a monthly grocery budget of 400", "en")
    assert decision.tool == "create_budget"
    assert (decision.params["category"], decision.params["period"]) == (category, period)


REPO_TOOL = ToolManifest(
    "get_issue", "Get an issue of a GitHub repository.",
    {"owner": "Repository owner (user or organization)", "repo": "Repository name", "issue_number": "Issue number"},
    required=["owner", "repo", "issue_number"],
    parameter_types={"owner": {"type": "string"}, "repo": {"type": "string"}, "issue_number": {"type": "integer"}},
)


@pytest.mark.parametrize("message, found", [
    ("看一下 acme/webapp 的 issue 101", [("acme", "webapp")]),
    ("acme/api の src/config.py を見せて", [("acme", "api")]),  # a file is no repository
    ("open https://github.com/acme/webapp/issues/3", []),  # part of a link
    ("read ~/notes/todo and src/app/main", []),  # part of a longer path
    ("what is 3/4 of 12 on 12/04?", []),  # numbers
    ("fork vercel/turbo.", [("vercel", "turbo")]),
])
def test_a_repository_is_named_as_owner_slash_name(message, found):
    assert slugs(message) == found


@pytest.mark.parametrize("key, value, written, expected", [
    ("owner", "myowner", {}, "acme"),  # made up
    ("owner", "LGTM", {}, "acme"),  # a word of the message, no owner it names
    ("owner", "acme", {}, "acme"),
    ("owner", "acme/webapp", {}, "acme"),  # the whole slug
    ("repo", "myrepo", {"owner": "acme"}, "webapp"),
    ("repo", "acme/webapp", {"owner": "acme"}, "webapp"),
    ("repo", "webapp", {"owner": "acme"}, "webapp"),
    ("repo", "other", {"owner": "someone"}, "other"),  # not an owner the message names: left as written
    ("issue_number", "101", {"owner": "acme"}, "101"),
])
def test_the_owner_and_name_written_are_the_ones_the_message_names(key, value, written, expected):
    assert slug_part(REPO_TOOL, key, value, written, "acme/webapp の issue 101 に「LGTM」とコメントして") == expected


def test_only_a_tool_with_an_owner_and_a_repository_is_read_so():
    assert repository_keys(REPO_TOOL) == ("owner", "repo")
    pet = ToolManifest("register_pet", "Register a pet.", {"owner": "Owner's name", "name": "Pet's name"}, required=["owner", "name"])
    assert repository_keys(pet) is None
    assert slug_part(pet, "owner", "Ann", {}, "register cat/dog for Ann") == "Ann"


def test_the_router_writes_the_repository_the_message_names():
    scores = {"get_issue": 0.0, "none": -5.0}
    decision = Router(RouterOptions(write_examples=False)).decide(
        ScoringProvider(scores, ["myowner", "myrepo", "101"]), [REPO_TOOL], "show me issue 101 of acme/webapp", "en")
    assert decision.params == {"owner": "acme", "repo": "webapp", "issue_number": "101"}
    kept = Router(RouterOptions(write_examples=False, value_forms=False)).decide(
        ScoringProvider(scores, ["myowner", "myrepo", "101"]), [REPO_TOOL], "show me issue 101 of acme/webapp", "en")
    assert kept.params["owner"] == "myowner"  # the lever off: as the model wrote it


@pytest.mark.parametrize("message, parts", [
    ("is priya@acme.com busy on 2026-12-04 between 10:00 and 12:00?", 1),
    ("find flights between Paris and Rome and the weather in Rome", 2),
    ("weather in Oslo and the time there", 2),
])
def test_the_and_of_a_span_divides_no_requests(message, parts):
    split = split_requests(message)
    assert len(split) == parts
    assert "between" not in message or any(" and " in part and "between" in part for part in split)


class MealEncoder:
    """A stand-in sentence encoder: a text's vector is which of a few meanings its words carry."""

    MEANINGS = (("dining", "eating", "restaurant"), ("groceries", "supermarket"), ("utilities", "electricity"))

    def __init__(self):
        self.read: list[str] = []

    def embed(self, texts, *, keep=False):
        import numpy

        self.read.extend(texts)
        rows = []
        for text in texts:  # what it means, and a little of an axis of its own (unrelated texts are not alike)
            row = numpy.zeros(len(self.MEANINGS) + 64)
            row[:len(self.MEANINGS)] = [float(any(w in text.lower() for w in m)) for m in self.MEANINGS]
            row[len(self.MEANINGS) + zlib.crc32(text.encode()) % 64] = 0.2
            rows.append(row / numpy.linalg.norm(row))
        return numpy.stack(rows)

    def has_embedded(self, texts):
        return False


def test_a_member_meant_by_other_words_adds_to_the_models_score():
    from agent.router.choices import MemberMeaning

    scores = {"groceries": -2.0, "dining": -1.5, "utilities": -0.4, "transport": -3.0, "entertainment": -3.0, "other": -3.0}
    meaning = MemberMeaning(MealEncoder(), "recategorize txn_4821 as eating out")
    assert chosen_member(CATEGORIES, scores, "recategorize txn_4821 as eating out", meaning, 10.0) == "dining"
    assert chosen_member(CATEGORIES, scores, "recategorize txn_4821 as eating out", meaning, 0.0) == "utilities"  # off
    sure = {**scores, "utilities": -0.01, "dining": -12.0}  # a member the model is sure of stays chosen
    assert chosen_member(CATEGORIES, sure, "recategorize txn_4821 as eating out", meaning, 10.0) == "utilities"
    named = MemberMeaning(MealEncoder(), "my grocery budget, eating out included")
    assert chosen_member(CATEGORIES, scores, "my grocery budget, eating out included", named, 10.0) == "groceries"  # named first


def test_the_messages_runs_of_words_are_embedded_once_without_its_dates():
    from agent.router.choices import MemberMeaning

    encoder = MealEncoder()
    meaning = MemberMeaning(encoder, "eating out on 2026-12-05, the budget")
    meaning.scores(["dining", "utilities"])
    meaning.scores(["weekly", "monthly"])
    runs = [t for t in encoder.read if t not in ("dining", "utilities", "weekly", "monthly")]
    assert runs == sorted(set(runs)) and "eating out" in runs and "eating" in runs
    assert not any("2026" in run for run in runs) and "the" not in runs  # a date, a word that says nothing alone
    assert encoder.read.count("eating out") == 1  # once, for both enums


@pytest.mark.parametrize("weight, category", [(10.0, "dining"), (0.0, "utilities")])
def test_the_router_weighs_a_members_meaning_with_the_encoder(monkeypatch, weight, category):
    encoder = MealEncoder()
    monkeypatch.setattr(Router, "_encoder", lambda self, provider: encoder)
    scores = {"create_budget": 0.0, "none": -5.0, "utilities": -0.2, "dining": -1.0, "weekly": -0.3}
    decision = Router(RouterOptions(write_examples=False, meant_weight=0.0, member_weight=weight)).decide(
        ScoringProvider(scores, ["300"]), [BUDGET], "a weekly budget of 300 for eating out", "en")
    assert (decision.tool, decision.params["category"]) == ("create_budget", category)


def test_a_lead_no_closeness_could_overturn_computes_none():
    from agent.router.choices import MemberMeaning

    encoder = MealEncoder()
    scores = {"groceries": -9.0, "dining": -9.5, "utilities": -0.01, "transport": -9.0, "entertainment": -9.0, "other": -9.0}
    assert chosen_member(CATEGORIES, scores, "eating out", MemberMeaning(encoder, "eating out"), 10.0) == "utilities"
    assert encoder.read == []  # a lead of 9 nats: no vectors computed
    close = {**scores, "dining": -3.0}
    assert chosen_member(CATEGORIES, close, "eating out", MemberMeaning(encoder, "eating out"), 10.0) == "dining"
    assert "eating out" in encoder.read


def test_closeness_turns_no_boolean_and_no_optional_value_away_from_its_default():
    from agent.router.choices import MemberMeaning

    encoder = MealEncoder()
    switch = chosen_member(["true", "false"], {"true": -0.5, "false": -0.9}, "eating out", MemberMeaning(encoder, "eating out"), 10.0)
    assert switch == "true" and encoder.read == []
    scores = {"groceries": -2.0, "dining": -1.5, "utilities": -0.4, "transport": -3.0, "entertainment": -3.0, "other": -3.0}
    meaning = MemberMeaning(encoder, "recategorize txn_4821 as eating out")
    assert chosen_member(CATEGORIES, scores, "recategorize txn_4821 as eating out", meaning, 10.0, default="utilities") == "utilities"
    assert chosen_member(CATEGORIES, scores, "recategorize txn_4821 as eating out", meaning, 10.0, default="other") == "dining"


def test_a_tool_with_examples_of_its_own_is_not_weighed_by_closeness(monkeypatch):
    # 「ゴミ出しは火曜」ってメモして: "trash" is close to delete, but the notes tool's examples show what adding is
    encoder = MealEncoder()
    monkeypatch.setattr(Router, "_encoder", lambda self, provider: encoder)
    scores = {"create_budget": 0.0, "none": -5.0, "utilities": -0.2, "dining": -1.0, "weekly": -0.3}
    owned = replace(BUDGET, examples=["Set a budget of 300 for utilities"])
    decision = Router(RouterOptions(write_examples=False, meant_weight=0.0)).decide(
        ScoringProvider(scores, ["300"]), [owned], "a weekly budget of 300 for eating out", "en")
    assert decision.params["category"] == "utilities" and not any("eating" in text for text in encoder.read)


AMENITIES = ["wifi", "pool", "parking", "breakfast", "gym"]
HOTELS = ToolManifest(
    "search_hotels", "Search hotels in a city.", {"city": "City name", "amenities": "Amenities the hotel must have"},
    required=["city"],
    parameter_types={"city": {"type": "string"}, "amenities": {"type": "array", "items": {"type": "string", "enum": AMENITIES}}},
)
SEATS = ToolManifest(
    "modify_booking", "Change an existing booking.", {"booking_reference": "Booking reference", "changes": "What to change"},
    required=["booking_reference", "changes"],
    parameter_types={"booking_reference": {"type": "string"}, "changes": {"type": "object", "properties": {
        "seat_preference": {"type": "string", "enum": ["window", "aisle", "middle"]}}}},
)
WORDS = Glossary(parse_cedict("早餐 早餐 [zao3 can1] /breakfast/\n酒店 酒店 [jiu3 dian4] /hotel/\n"),
                 parse_edict("通路 [つうろ] /(n) (1) aisle/passage/\n座席 [ざせき] /(n) seat/\n"))


def test_a_list_of_choices_the_model_wrote_none_of_is_the_members_the_message_names(monkeypatch):
    from agent.router.choices import named_items

    monkeypatch.setattr(glossary_module, "_LOADED", [WORDS])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    assert named_items(AMENITIES, "酒店", "帮我找成都的酒店，要含早餐的") == "breakfast"  # through the gloss of 早餐
    assert named_items(AMENITIES, "hotel", "a hotel in Lisbon with a pool and a gym") == "pool, gym"
    assert named_items(AMENITIES, "pool", "a hotel in Lisbon with a pool and breakfast") == "pool"  # a member: the model's
    assert named_items(AMENITIES, "quiet", "a quiet hotel in Lisbon") == "quiet"  # none named: as written (then refused)


@pytest.mark.parametrize("lever, amenities", [(True, "breakfast"), (False, None)])
def test_the_router_gives_a_list_of_choices_the_members_a_chinese_message_names(monkeypatch, lever, amenities):
    monkeypatch.setattr(glossary_module, "_LOADED", [WORDS])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    provider = ScoringProvider({"search_hotels": 0.0, "none": -5.0}, ["成都", "酒店", "酒店"])
    decision = Router(RouterOptions(write_examples=False, named_members=lever)).decide(
        provider, [HOTELS], "帮我找成都的酒店，要含早餐的", "zh")
    assert decision.tool == "search_hotels" and decision.params.get("amenities") == amenities
    if lever:  # the reply the model reads on with says the same
        assert "".join(provider.cursor.written).endswith('"amenities": "breakfast"')


@pytest.mark.parametrize("lever, params", [
    (True, {"booking_reference": "LP4X7D", "changes": {"seat_preference": "aisle"}}),
    (False, None),  # the seat is not heard: the object states nothing, and the call cannot be made
])
def test_a_choice_among_an_objects_members_is_heard_in_a_japanese_message_through_its_gloss(monkeypatch, lever, params):
    monkeypatch.setattr(glossary_module, "_LOADED", [WORDS])
    monkeypatch.delenv("RIVERSE_GLOSSARY", raising=False)
    provider = ScoringProvider({"modify_booking": 0.0, "none": -5.0, "window": -1.0, "aisle": -2.0, "middle": -3.0},
                               ["LP4X7D", "LP4X7D"])
    decision = Router(RouterOptions(write_examples=False, named_members=lever)).decide(
        provider, [SEATS], "予約 LP4X7D の座席を通路側に変えて", "ja")
    assert (decision.tool and decision.params or None) == params
    if not lever:
        assert (decision.declined, decision.missing) == ("modify_booking", "changes")
