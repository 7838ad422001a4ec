"""Dates as people say them, for parameters that ask for an ISO 8601 date: never made up."""

import datetime as dt

import pytest

import agent.toolkit.dates as dates
from agent.router import Router, RouterOptions
from agent.router.forms import DATE, DATETIME, value_form
from agent.router.values import only_empty, value_filters
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider


@pytest.fixture(autouse=True)
def wednesday(monkeypatch):
    monkeypatch.setattr(dates, "today", lambda: dt.date(2026, 12, 2))  # a Wednesday


@pytest.mark.parametrize("said, named", [
    ("book a flight tomorrow", ["2026-12-03"]),
    ("the day after tomorrow", ["2026-12-04"]),
    ("next Friday", ["2026-12-11"]),
    ("on Friday", ["2026-12-04"]),
    ("on May 2, 2027 for two", ["2027-05-02"]),
    ("2 May 2027", ["2027-05-02"]),
    ("3/14/2027", ["2027-03-14"]),
    ("14.03.2027", ["2027-03-14"]),
    ("明天北京到上海的航班", ["2026-12-03"]),
    ("下周五开会", ["2026-12-11"]),
    ("这周日", ["2026-12-06"]),
    ("2027年7月20日出発で8月3日に帰ってくる", ["2027-07-20", "2027-08-03"]),
    ("来週の金曜日に", ["2026-12-11"]),
    ("明後日の東京", ["2026-12-04"]),
    ("3月4日退房", ["2027-03-04"]),  # no year: the next such day
    ("12月25日", ["2026-12-25"]),
    ("from December 1 to December 7, 2026", ["2026-12-01", "2026-12-07"]),  # the year said once
    ("看看我 2026 年 12 月 8 号到 14 号有哪些日程", ["2026-12-08", "2026-12-14"]),  # a range's end by its day
    ("3月4日から6日まで", ["2027-03-04", "2027-03-06"]),
    ("Dec 30 to Jan 2, 2027", ["2026-12-30", "2027-01-02"]),
    ("2027年12月28日から1月3日まで", ["2027-12-28", "2028-01-03"]),
    ("in 3 days", ["2026-12-05"]),
    ("two weeks from now", ["2026-12-16"]),
    ("三天后出发", ["2026-12-05"]),
    ("两周后", ["2026-12-16"]),
    ("3日後に", ["2026-12-05"]),
    ("二週間後", ["2026-12-16"]),
    ("this weekend", ["2026-12-05"]),  # its Saturday
    ("next weekend", ["2026-12-12"]),
    ("下周末", ["2026-12-12"]),
    ("今週末の天気", ["2026-12-05"]),
    ("下个月5号", ["2027-01-05"]),
    ("这个月20号", ["2026-12-20"]),
    ("来月5日", ["2027-01-05"]),
    ("5日間の旅行", []),  # five days long: a span, not a date
    ("十五天后", []),  # fifteen, not five: counts past ten are not read
    ("3号楼的会议室", []),  # building 3
    ("明日香さんに連絡", []),  # a name
    ("weather in Paris", []),
    ("2027-02-30", []),  # no such day
])
def test_dates_said_in_three_languages(said, named):
    assert [date for _, date in dates.dates_in(said)] == named


@pytest.mark.parametrize("description, schema, form", [
    ("Departure date, YYYY-MM-DD.", "string", DATE),
    ("Check-in date (ISO 8601 date)", "string", DATE),
    ("出发日期，例如 2027-01-20", "string", DATE),
    ("The day", {"type": "string", "format": "date"}, DATE),
    ("Start time, ISO 8601 date-time", "string", DATETIME),  # a time too: not a date alone (tests/test_times.py)
    ("When, YYYY-MM-DDTHH:MM", "string", DATETIME),
    ("The date you were born, as you like", "string", None),
])
def test_the_date_form_is_read_from_the_description_or_the_schema(description, schema, form):
    manifest = ToolManifest("t", "a tool", {"p": description}, parameter_types={"p": schema}, required=["p"])
    assert value_form(manifest, "p") is form


FLIGHTS = ToolManifest("search_flights", "Search flights",
                       {"origin": "City", "departure_date": "Departure date, YYYY-MM-DD.",
                        "return_date": "Return date, YYYY-MM-DD."},
                       ["Flights from Oslo on 2027-01-20"], required=["origin", "departure_date"])


def test_a_date_the_message_names_is_written_as_the_tool_asks_and_one_it_does_not_name_is_never_made_up():
    provider = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["奥斯陆", "2023-04-15", "明天", ""])
    decision = Router(RouterOptions()).decide(provider, [FLIGHTS], "明天从奥斯陆出发的航班", "zh")
    assert decision.params == {"origin": "奥斯陆", "departure_date": "2026-12-03"}  # copied from the message: 明天
    assert provider.cursor.filters[2]["copy_from"] == "明天从奥斯陆出发的航班"
    one = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Oslo", "2023-04-15", "Oslo", ""])
    decision = Router(RouterOptions()).decide(one, [FLIGHTS], "flights from Oslo next Friday", "en")
    assert decision.params == {"origin": "Oslo", "departure_date": "2026-12-11"}  # the copy named none: the one date said
    assert '"return_date"' not in "".join(one.cursor.written)  # it could only repeat that date: not written
    nothing = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Oslo", "2023-04-15", "Oslo"])
    decision = Router(RouterOptions()).decide(nothing, [FLIGHTS], "flights from Oslo", "en")
    assert decision.tool is None and (decision.declined, decision.missing) == ("search_flights", "departure_date")
    trip = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["東京", "2027-07-20", "2027-07-20"])
    decision = Router(RouterOptions()).decide(trip, [FLIGHTS], "東京発、2027年7月20日出発で8月3日に帰ってくる", "ja")
    assert decision.params == {"origin": "東京", "departure_date": "2027-07-20", "return_date": "2027-08-03"}  # told apart
    # the dates it names, in the asked form, are the values' hints (guessed as they are written), the origin has none
    assert [f.get("hint") for f in trip.cursor.filters] == [None, "2027-07-20\n2027-08-03", "2027-07-20\n2027-08-03"]
    kept = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["Oslo", "2023-04-15", ""])
    decision = Router(RouterOptions(value_forms=False)).decide(kept, [FLIGHTS], "flights from Oslo", "en")
    assert decision.params["departure_date"] == "2023-04-15"  # the lever off: as the model wrote it


def test_a_count_is_not_copied_from_a_date():
    trip = ToolManifest("search_flights", "Search flights",
                        {"origin": "City", "departure_date": "Departure date, YYYY-MM-DD.", "passengers": "Number of passengers"},
                        ["Flights from Oslo on 2027-01-20"], parameter_types={"passengers": "integer"},
                        required=["origin", "departure_date"])
    provider = ScoringProvider({"search_flights": 0.0, "none": -9.0}, ["東京", "2027-07-20", ""])
    decision = Router(RouterOptions()).decide(provider, [trip], "東京発、2027年7月20日出発で8月3日に帰る", "ja")
    assert decision.params == {"origin": "東京", "departure_date": "2027-07-20"}
    # the dates' digits are no count: the passengers, which could only be empty, are not written
    assert len(provider.cursor.filters) == 2 and '"passengers"' not in "".join(provider.cursor.written)
    filters = value_filters(trip, "passengers", "東京発、2027年7月20日出発で8月3日に帰る", RouterOptions())
    assert filters["copy_from"] == "東京発、          出発で    に帰る" and only_empty(filters)
    assert not only_empty(value_filters(trip, "passengers", "東京発、2027年7月20日出発、2人", RouterOptions()))
    assert dates.without_dates("next Friday for 3 people") == "next Friday for 3 people"
    assert dates.without_dates("朝8時以降、2人") == "朝  以降、2人" and dates.without_dates("at 7pm, 4 of us") == "at    , 4 of us"
    # a day of every month is no count either, and says no "day" to an all-day switch; a building's number stays
    assert dates.without_dates("每月 1 号开会") == "每月    开会" and dates.without_dates("毎月15日に払う") == "毎月   に払う"
    assert dates.without_dates("3号楼每月3次") == "3号楼每月3次"
    # a time said around its hour is no count either; two numbers joined by "to" may be anything
    assert dates.without_dates("half past 9 turn on the porch light") == " " * 11 + " turn on the porch light"
    assert dates.without_dates("a quarter to 10, 2 of us") == " " * 15 + ", 2 of us"
    assert dates.without_dates("at 9 in the morning set it to 21") == "at" + " " * 17 + " set it to 21"
    assert dates.without_dates("wake me at 7 tonight") == "wake me at" + " " * 10
    assert dates.without_dates("change the volume from 10 to 5") == "change the volume from 10 to 5"
    assert dates.without_dates("9 in the box") == "9 in the box"
    light = ToolManifest("set_light", "Turn a light on or off", {"room": "Room", "brightness": "Brightness, 0-100"},
                         parameter_types={"brightness": "integer"}, required=["room"])
    assert only_empty(value_filters(light, "brightness", "half past nine turn on the porch light", RouterOptions()))
    year = ToolManifest("holidays", "Public holidays", {"year": "The year"}, ["Holidays in 2027"],
                        parameter_types={"year": "integer"}, required=["year"])
    counted = ScoringProvider({"holidays": 0.0, "none": -9.0}, ["2027"])
    assert Router(RouterOptions()).decide(counted, [year], "holidays around 2027-05-01", "en").params == {"year": "2027"}


@pytest.mark.parametrize("said, month", [
    ("列出我 2026 年 10 月交通类的支出", ("2026-10-01", "2026-10-31")),
    ("2026年2月の食料品の取引", ("2026-02-01", "2026-02-28")),
    ("spending in October 2026", ("2026-10-01", "2026-10-31")),
    ("the 2026-11 report", ("2026-11-01", "2026-11-30")),
    ("how much did I spend last month", ("2026-11-01", "2026-11-30")),
    ("下个月的账单", ("2027-01-01", "2027-01-31")),
    ("今月の支出", ("2026-12-01", "2026-12-31")),
    # no month as a whole: a day of it, two months, a month without its year, none
    ("2026年10月5日の予定", None),
    ("下个月5号的会议", None),
    ("October 2026 and November 2026", None),
    ("12月的支出", None),
    ("spending this week", None),
    ("2026年13月", None),
    ("the 0000-05 report", None),
])
def test_a_month_named_as_a_whole_is_its_first_and_last_day(said, month):
    assert dates.month_named(said) == month


LEDGER = ToolManifest("list_transactions", "List transactions",
                      {"category": "Category", "start_date": "Start date, YYYY-MM-DD", "end_date": "End date, YYYY-MM-DD",
                       "limit": "How many"},
                      ["List my transactions from 2026-01-01"], parameter_types={"limit": "integer"})


def test_a_month_named_as_a_whole_fills_a_span_of_dates():
    provider = ScoringProvider({"list_transactions": 0.0, "none": -9.0}, ["交通", "", "", ""])
    decision = Router(RouterOptions()).decide(provider, [LEDGER], "列出我 2026 年 10 月交通类的支出", "zh")
    assert decision.params == {"category": "交通", "start_date": "2026-10-01", "end_date": "2026-10-31"}
    # the dates it names are the dates written; a month without a year is no span
    named = ScoringProvider({"list_transactions": 0.0, "none": -9.0}, ["", "2026-10-03", "2026-10-09", ""])
    decision = Router(RouterOptions()).decide(named, [LEDGER], "transactions from 2026-10-03 to 2026-10-09", "en")
    assert decision.params == {"start_date": "2026-10-03", "end_date": "2026-10-09"}
    bare = ScoringProvider({"list_transactions": 0.0, "none": -9.0}, ["", "", "", ""])
    assert Router(RouterOptions()).decide(bare, [LEDGER], "12月的支出", "zh").params == {}


@pytest.mark.parametrize("said, span", [
    ("把 2026 年 1 月到 6 月的交易导出成 OFX", ("2026-01-01", "2026-06-30")),
    ("2026年1月から3月までの取引をQIF形式で書き出して", ("2026-01-01", "2026-03-31")),
    ("2026年11月至2027年2月的账单", ("2026-11-01", "2027-02-28")),
    ("transactions from January to March 2026", ("2026-01-01", "2026-03-31")),
    ("between Jan and Mar 2026", ("2026-01-01", "2026-03-31")),
    ("export all my 2026 transactions as a CSV spreadsheet", ("2026-01-01", "2026-12-31")),
    ("2025年の取引", ("2025-01-01", "2025-12-31")),
    ("去年的账单", ("2025-01-01", "2025-12-31")),
    ("spending last year", ("2025-01-01", "2025-12-31")),
    ("2026年10月の取引", ("2026-10-01", "2026-10-31")),  # one month, as month_named
    # no span as a whole: two years, a day, a month without its year, months backwards
    ("spending in 2025 and 2026", None),
    ("transactions from 2026-10-03 to 2026-10-09", None),
    ("12月的支出", None),
    ("2026年6月到1月", None),
])
def test_months_from_one_to_another_and_a_year_are_spans(said, span):
    assert dates.span_named(said) == span


def test_months_from_one_to_another_fill_a_span_of_dates():
    provider = ScoringProvider({"list_transactions": 0.0, "none": -9.0}, ["", "2026-01-01", "2026-01-31", ""])
    decision = Router(RouterOptions()).decide(provider, [LEDGER], "列出 2026 年 1 月到 6 月的交易", "zh")
    assert decision.params == {"start_date": "2026-01-01", "end_date": "2026-06-30"}  # not January's last day
    year = ScoringProvider({"list_transactions": 0.0, "none": -9.0}, ["", "", "", ""])
    assert Router(RouterOptions()).decide(year, [LEDGER], "list all my 2026 transactions", "en").params == {
        "start_date": "2026-01-01", "end_date": "2026-12-31"}


OUT_OF_OFFICE = ToolManifest("set_out_of_office", "Turn on an out-of-office period.",
                             {"start_date": "First day. Date in YYYY-MM-DD format", "end_date": "Last day. Date in YYYY-MM-DD format"},
                             required=["start_date", "end_date"])


def test_a_date_the_message_does_not_name_is_the_one_it_names_that_no_value_holds_yet():
    # the model wrote the end a day early; the copy can only be a piece of "Jan 2 2027" ("2027")
    provider = ScoringProvider({"set_out_of_office": 0.0, "none": -9.0}, ["2026-12-22", "2027-01-01", "2027"])
    decision = Router(RouterOptions(write_examples=False)).decide(
        provider, [OUT_OF_OFFICE], "I'm off from Dec 22 2026 to Jan 2 2027", "en")
    assert decision.params == {"start_date": "2026-12-22", "end_date": "2027-01-02"}
    # three dates named, one written: two are left, and the made-up date is none of them
    three = ScoringProvider({"set_out_of_office": 0.0, "none": -9.0}, ["2026-12-22", "2027-01-01", "2027"])
    decision = Router(RouterOptions(write_examples=False)).decide(
        three, [OUT_OF_OFFICE], "off from Dec 22 2026 to Jan 2 2027 or Jan 4 2027", "en")
    assert (decision.tool, decision.missing) == (None, "end_date")
