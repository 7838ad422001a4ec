"""Values in the form a parameter's description asks for (an IANA zone, an ISO 4217 code), and
examples written for tools that come without any, translated for a Chinese or Japanese prompt."""

from __future__ import annotations

import json

import pytest

from agent.providers.base import Capabilities, Completion
from agent.router import Router, RouterOptions
from agent.router.forms import (
    AIRLINE,
    AIRPORT,
    COLOUR,
    COUNTRY,
    COUNTRY3,
    CRYPTO,
    CURRENCY,
    ISO_CURRENCY,
    STOCK,
    TICKER,
    UNIT,
    ZONE,
    currency_code,
    iana_zone,
    unit_symbol,
    value_form,
)
from agent.toolkit.airports import airline_code, airport_code
from agent.toolkit.countries import country_code
from agent.router.written import _SHOT_THINGS, SHOTS, TRANSLATE, ExampleWriter, echoes
from agent.tools import ToolManifest
from agent.toolkit.zones import zone_name
from tests.test_routing import ScoringProvider

# as the mcp-server-time package describes its tool
CONVERT_TIME = ToolManifest(
    "time_convert_time", "Convert time between timezones",
    {"source_timezone": "Source IANA timezone name (e.g., 'America/New_York', 'Europe/London'). "
                        "Use 'UTC' as local timezone if no timezone provided by the user.",
     "time": "Time to convert in 24-hour format (HH:MM)",
     "target_timezone": "Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco'). "
                        "Use 'UTC' as local timezone if no timezone provided by the user."},
    ["What's 15:00 New York time in Tokyo?"], required=["source_timezone", "time", "target_timezone"],
)
FX = ToolManifest("fx_convert", "Convert an amount between currencies",
                  {"amount": "Amount to convert", "from": "Source currency (ISO 4217 code, e.g. EUR)",
                   "to": "Target currency (ISO 4217 code, e.g. EUR)"}, ["10 USD in GBP?"], required=["amount", "from", "to"],
                  parameter_types={"amount": "number"})


@pytest.mark.parametrize("description,form", [
    ("Source IANA timezone name (e.g., 'America/New_York')", ZONE),
    ("Time zone, e.g. Europe/Paris", ZONE),
    ("时区，例如 Asia/Shanghai", ZONE),
    ("Source currency (ISO 4217 code, e.g. EUR)", ISO_CURRENCY),  # no bitcoin
    ("Currency code such as USD", CURRENCY),
    ("币种代码", CURRENCY),
    # a tool that takes names as said keeps them
    ("City, country or IANA time zone, e.g. Tokyo, London, America/New_York", None),
    ("城市、国家或 IANA 时区，例如 东京", None),
    ("Ticker symbol, e.g. AAPL", STOCK),
    ("The city to look up", None),
    ("Currency amount", None),
    ("Unit symbol, e.g. km, kg, °C", UNIT),
    ("单位符号，例如 km", UNIT),
    ("単位の記号（例: kg）", UNIT),
    ("SI unit of the reading", UNIT),
    ("The unit of the value, e.g. km, lb, °F, cup, mph, GB", None),  # unit_convert's: names are welcome
    ("Crypto symbol, e.g. BTC, ETH", CRYPTO),
    ("Ticker or crypto symbol", TICKER),
    ("Stock code of the company", STOCK),
    ("銘柄コード（例: 7203）", STOCK),
    ("加密货币代码，例如 BTC", CRYPTO),
    ("Company name or partial ticker", None),  # names are welcome
    ("ISO 3166-1 alpha-2 country code of the passport, e.g. \"DE\"", COUNTRY),
    ("Country code (ISO 3166-1 alpha-3), e.g. DEU", COUNTRY3),
    ("目的地的国家代码", COUNTRY),
    ("国コード（例: JP）", COUNTRY),
    ("Country of the address", None),  # a country as said
    ("IATA airport code, e.g. \"CDG\".", AIRPORT),
    ("出发机场代码", AIRPORT),
    ("City or IATA airport code.", None),  # a city as said
    ("Two-letter IATA airline code, e.g. \"LH\".", AIRLINE),
    ("航空会社コード（IATA）", AIRLINE),
    ("Airline code and number, e.g. \"BA117\".", None),  # a flight number, written as said
    ("CSS colour name (e.g. \"red\", \"orange\") or hex code like \"#FFAA00\".", COLOUR),
    ("Color as a hex string, e.g. #00FF00", COLOUR),
    ("颜色（CSS 颜色名或十六进制）", COLOUR),
    ("Favourite colour of the user", None),  # a colour as said
])
def test_the_form_is_read_from_the_parameter_description(description, form):
    manifest = ToolManifest("t", "a tool", {"p": description}, required=["p"])
    assert value_form(manifest, "p") is form


@pytest.mark.parametrize("said,code", [
    ("euros", "EUR"), ("dollars", "USD"), ("US dollar", "USD"), ("USD", "USD"), ("usd", "USD"), ("美元", "USD"),
    ("日元", "JPY"), ("円", "JPY"), ("ユーロ", "EUR"), ("人民币", "CNY"), ("100 pounds", "GBP"), ("£", "GBP"),
    ("SEK", "SEK"), ("Swiss francs", "CHF"), ("Bitcoin", "BTC"),
    ("xyz", None), ("money", None), ("", None),
])
def test_currency_names_become_iso_codes(said, code):
    assert currency_code(said) == code


@pytest.mark.parametrize("form, said, symbol", [
    (STOCK, "Tesla", "TSLA"), (STOCK, "Apple Inc.", "AAPL"), (STOCK, "苹果公司", "AAPL"), (STOCK, "トヨタ自動車", "TM"),
    (STOCK, "PLTR", "PLTR"), (STOCK, "bitcoin", None), (STOCK, "the car maker", None),
    (CRYPTO, "以太坊", "ETH"), (CRYPTO, "ビットコイン", "BTC"), (CRYPTO, "Tesla", None), (TICKER, "Dogecoin", "DOGE"),
    (TICKER, "テスラ", "TSLA"), (ISO_CURRENCY, "bitcoin", None), (ISO_CURRENCY, "euros", "EUR"),
])
def test_company_and_coin_names_become_symbols(form, said, symbol):
    assert form.normal(said) == symbol


@pytest.mark.parametrize("form, said, named", [
    (CRYPTO, "bitcoin price in euros", ["BTC"]),
    (ISO_CURRENCY, "bitcoin price in euros", ["EUR"]),  # not bitcoin: it has no ISO code
    (CURRENCY, "bitcoin price in euros", ["BTC", "EUR"]),
    (TICKER, "alert me if Tesla falls below 180", ["TSLA"]),
    (STOCK, "how is NVDA doing after Nvidia's earnings", ["NVDA"]),
    (ISO_CURRENCY, "以太坊现在多少美元", ["USD"]),
    (STOCK, "apple pie recipe", []),  # a word before a company: named only as a value, not looked for
])
def test_the_symbols_a_message_names(form, said, named):
    assert form.in_order(said) == named


@pytest.mark.parametrize("said,zone", [
    ("伦敦", "Europe/London"), ("東京", "Asia/Tokyo"), ("ロンドン", "Europe/London"), ("New York", "America/New_York"),
    ("europe/lisbon", "Europe/Lisbon"), ("Oslo", "Europe/Oslo"), ("Lima", "America/Lima"), ("UTC", "UTC"),
    ("utc+8", "UTC+8"), ("Porto", None), ("", None), ("nowhere", None),
])
def test_zone_names_become_iana_names(said, zone):
    assert iana_zone(said) == zone


@pytest.mark.parametrize("said,symbol", [
    ("kilometres", "km"), ("miles", "mi"), ("公里", "km"), ("华氏度", "°F"), ("摂氏", "°C"), ("マイル", "mi"),
    ("Fahrenheit", "°F"), ("5 km", "km"), ("10公里", "km"), ("pounds", "lb"), ("km/h", "km/h"), ("GB", "GB"),
    ("bananas", None), ("", None),
])
def test_unit_names_become_symbols(said, symbol):
    assert unit_symbol(said) == symbol


def test_the_built_in_unit_converter_keeps_units_as_said_in_every_language():
    from agent.tools.unit_convert import UnitConvertTool
    from agent.toolkit.base import answering_in

    for language in ("en", "zh", "ja"):
        with answering_in(language):
            manifest = UnitConvertTool().manifest()
        assert [value_form(manifest, key) for key in manifest.parameters] == [None] * len(manifest.parameters), language


def test_units_said_in_words_are_written_as_the_symbols_the_tool_asks_for():
    reading = ToolManifest("sensor_convert", "Convert a sensor reading",
                           {"value": "The reading", "unit": "Unit symbol of the reading, e.g. km, °C",
                            "target": "Unit symbol to convert to"}, ["Convert 20 °C to °F"],
                           required=["value", "unit", "target"], parameter_types={"value": "number"})
    provider = ScoringProvider({"sensor_convert": 0.0, "none": -5.0}, ["100", "华氏度", "摄氏度"])
    decision = Router(RouterOptions()).decide(provider, [reading], "把 100 华氏度换算成摄氏度", "zh")
    assert decision.params == {"value": "100", "unit": "°F", "target": "°C"}
    provider = ScoringProvider({"sensor_convert": 0.0, "none": -5.0}, ["5", "miles", "kilometres"])
    decision = Router(RouterOptions()).decide(provider, [reading], "convert 5 miles to kilometres", "en")
    assert decision.params == {"value": "5", "unit": "mi", "target": "km"}


def test_the_last_part_of_an_iana_name_is_a_city_the_zones_know():
    assert zone_name("Kyiv") == "Europe/Kyiv" and zone_name("buenos aires") == "America/Argentina/Buenos_Aires"
    assert zone_name("Etc") is None and zone_name("Eastern") is None  # not a place


def test_a_place_said_in_chinese_is_written_as_the_iana_name_the_tool_asks_for():
    provider = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["伦敦", "9:30", "东京"])
    router = Router(RouterOptions())
    decision = router.decide(provider, [CONVERT_TIME], "伦敦时间上午9:30是东京时间几点？", "zh")
    assert decision.params == {"source_timezone": "Europe/London", "time": "9:30", "target_timezone": "Asia/Tokyo"}
    # what the model reads back while it writes the next value is the form the tool asked for
    assert "".join(provider.cursor.written).endswith(
        '"source_timezone": "Europe/London", "time": "9:30", "target_timezone": "Asia/Tokyo"')


def test_a_value_already_in_the_asked_form_is_not_copied_back_from_the_message():
    provider = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["Europe/London", "09:30", "Asia/Tokyo"])
    decision = Router(RouterOptions()).decide(provider, [CONVERT_TIME], "伦敦时间上午9:30是东京时间几点？", "zh")
    assert decision.params["source_timezone"] == "Europe/London" and decision.params["target_timezone"] == "Asia/Tokyo"
    assert len(provider.cursor.filters) == 3  # each value written once: none copied again from the message


def test_currencies_said_in_words_are_written_as_codes_and_the_lever_turns_it_off():
    text = "How much is 250 euros in dollars?"
    provider = ScoringProvider({"fx_convert": 0.0, "none": -5.0}, ["250", "euros", "dollars"])
    assert Router(RouterOptions()).decide(provider, [FX], text, "en").params == {"amount": "250", "from": "EUR", "to": "USD"}
    plain = ScoringProvider({"fx_convert": 0.0, "none": -5.0}, ["250", "euros", "dollars"])
    assert Router(RouterOptions(value_forms=False)).decide(plain, [FX], text, "en").params["from"] == "euros"


def test_a_value_no_table_knows_is_left_as_written():
    provider = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["Porto", "10:00", "Tokyo"])
    decision = Router(RouterOptions()).decide(provider, [CONVERT_TIME], "10:00 in Porto is what time in Tokyo?", "en")
    assert decision.params == {"source_timezone": "Porto", "time": "10:00", "target_timezone": "Asia/Tokyo"}


def test_a_provider_that_writes_json_gets_its_values_in_the_asked_form_too():
    from agent.router.prompt import DecisionPrompt
    from agent.router.schema_decision import validated
    prompt = DecisionPrompt([FX], "en", RouterOptions())
    decision = validated(prompt, "fx_convert", {"amount": 5, "from": "yen", "to": "GBP"})
    assert decision.params == {"amount": 5, "from": "JPY", "to": "GBP"}


@pytest.mark.parametrize("said,alpha,code", [
    ("Japan", 2, "JP"), ("日本", 2, "JP"), ("インド", 2, "IN"), ("印度", 2, "IN"), ("泰国", 2, "TH"), ("タイ", 2, "TH"),
    ("USA", 2, "US"), ("アメリカ", 2, "US"), ("美国", 2, "US"), ("United Kingdom", 2, "GB"), ("イギリス", 2, "GB"),
    ("South Korea", 2, "KR"), ("韓国", 2, "KR"), ("大韩民国", 2, "KR"), ("Viet Nam", 2, "VN"), ("Czechia", 2, "CZ"),
    ("JPN", 2, "JP"), ("de", 2, "DE"), ("Germany", 3, "DEU"), ("中国", 3, "CHN"),
    ("Atlantis", 2, None), ("", 2, None), ("or", 2, None),
])
def test_country_names_in_three_languages_become_iso_3166_codes(said, alpha, code):
    assert country_code(said, alpha) == code


def test_countries_said_in_words_are_written_as_the_codes_the_tool_asks_for():
    visa = ToolManifest("check_visa", "Check visa requirements for a trip",
                        {"nationality": "ISO 3166-1 alpha-2 country code of the passport, e.g. \"DE\"",
                         "destination_country": "ISO 3166-1 alpha-2 code of the destination."},
                        required=["nationality", "destination_country"])
    provider = ScoringProvider({"check_visa": 0.0, "none": -5.0}, ["中国", "泰国"])
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [visa], "中国护照去泰国需要签证吗？", "zh")
    assert decision.params == {"nationality": "CN", "destination_country": "TH"}
    # the words of a sentence are not countries: "in", "it" and "can" name none
    assert COUNTRY.stated("can I go in it with my passport to Japan or the USA?") == {"JP", "US"}


@pytest.mark.parametrize("said,code", [
    ("LHR", "LHR"), ("London Heathrow", "LHR"), ("Heathrow Airport", "LHR"), ("ロンドン・ヒースロー", "LHR"),
    ("Charles de Gaulle", "CDG"), ("Tokyo Haneda", "HND"), ("羽田空港", "HND"), ("成田", "NRT"), ("那覇", "OKA"),
    ("北京首都机场", "PEK"), ("上海浦东", "PVG"), ("广州白云", "CAN"), ("Denver", "DEN"), ("Boston", "BOS"),
    ("新加坡", "SIN"),
    # a city with several airports names none of them; a word in small letters is no code
    ("London", None), ("Tokyo", None), ("New York", None), ("the", None), ("", None), ("Atlantis", None),
])
def test_airport_names_in_three_languages_become_iata_codes(said, code):
    assert airport_code(said) == code


@pytest.mark.parametrize("said,code", [
    ("Lufthansa", "LH"), ("LH", "LH"), ("JAL", "JL"), ("日航", "JL"), ("全日空", "NH"), ("国航", "CA"),
    ("British Airways", "BA"), ("ルフトハンザ", "LH"), ("Acme Air", None), ("", None),
])
def test_airline_names_become_iata_codes(said, code):
    assert airline_code(said) == code


def test_airports_and_airlines_said_in_words_are_written_as_codes():
    flights = ToolManifest("search_flights", "Search flight offers between two airports",
                           {"origin": "IATA airport code, e.g. \"CDG\".", "destination": "IATA airport code, e.g. \"CDG\"."},
                           required=["origin", "destination"])
    provider = ScoringProvider({"search_flights": 0.0, "none": -5.0}, ["London Heathrow", "JFK"])
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [flights], "flights from London Heathrow to JFK", "en")
    assert decision.params == {"origin": "LHR", "destination": "JFK"}
    assert AIRPORT.stated("查一下北京首都机场飞上海浦东的航班") == {"PEK", "PVG"}
    # the model wrote the city of an airport the message names in full: that airport
    beijing = ScoringProvider({"search_flights": 0.0, "none": -5.0}, ["北京", "上海浦东"])
    decision = Router(RouterOptions(write_examples=False)).decide(beijing, [flights], "北京首都机场飞上海浦东的航班", "zh")
    assert decision.params == {"origin": "PEK", "destination": "PVG"}
    assert AIRPORT.holding("New", "flights from Newark or New Delhi") is None  # held by two names: none
    priced = ToolManifest("search_flights", "Search flight offers", {**flights.parameters, "currency": "ISO 4217 currency code"},
                          required=["origin", "destination"])
    digit = ScoringProvider({"search_flights": 0.0, "none": -5.0}, ["LHR", "JFK", "1", "1"])  # "1" of "1 adult"
    assert Router(RouterOptions(write_examples=False)).decide(digit, [priced], "LHR to JFK for 1 adult", "en").params == {
        "origin": "LHR", "destination": "JFK"}  # no currency code: left out
    assert "THE" not in AIRPORT.stated("at the end of the day")  # codes in capitals only
    assert AIRPORT.stated("flights from LHR to JFK") == {"LHR", "JFK"}
    assert AIRLINE.stated("how many bags can I check on Lufthansa?") == {"LH"}


@pytest.mark.parametrize("said,name", [
    ("blue", "blue"), ("Light Blue", "lightblue"), ("蓝色", "blue"), ("書房を赤に", None), ("赤", "red"),
    ("ピンク", "pink"), ("水色", "lightblue"), ("#ffaa00", "#FFAA00"), ("ffaa00", "#FFAA00"), ("lights", None),
    ("face", None),  # hex letters without a digit are a word
])
def test_colour_words_in_three_languages_become_css_names(said, name):
    from agent.toolkit.colours import colour_name

    assert colour_name(said) == name


def test_colours_said_in_words_are_written_as_css_names_and_what_is_no_colour_is_left_out():
    lights = ToolManifest("set_light_color", "Change the colour of the lights in a room",
                          {"room": "Room name", "color": "CSS colour name (e.g. \"red\") or hex code like \"#FFAA00\"."},
                          ["Kitchen lights to red"], required=["room"])
    provider = ScoringProvider({"set_light_color": 0.0, "none": -5.0}, ["书房", "蓝色"])
    decision = Router(RouterOptions()).decide(provider, [lights], "书房的灯换成蓝色", "zh")
    assert decision.params == {"room": "书房", "color": "blue"}
    assert COLOUR.stated("把卧室的灯换成粉红色") == {"pink"} and COLOUR.stated("make it #00ff00") == {"#00FF00"}
    # the model copied a word that names no colour: an optional colour is left out, a required one is missing
    nothing = ScoringProvider({"set_light_color": 0.0, "none": -5.0}, ["bedroom", "lights", "lights"])
    assert Router(RouterOptions()).decide(nothing, [lights], "bedroom lights brighter", "en").params == {"room": "bedroom"}
    needed = ToolManifest("paint", "Paint a wall", {"color": "Hex colour code, e.g. #FFAA00"}, ["Paint it red"], required=["color"])
    asked = Router(RouterOptions()).decide(ScoringProvider({"paint": 0.0, "none": -5.0}, ["wall", "wall"]), [needed],
                                           "paint the wall", "en")
    assert asked.tool is None and (asked.declined, asked.missing) == ("paint", "color")


# -------------------------------------------------------------- examples for tools without any
class WritingProvider:
    """Writes English examples when asked for them and translates when asked to."""

    name = "writer"
    capabilities = Capabilities(scored_decoding=True)
    model_label = "writer-1"

    def __init__(self, english: list[str], translations: dict[str, str], cache_dir=None):
        self.english, self.translations, self.cache_dir = english, translations, cache_dir
        self.prompts: list[str] = []
        self.schemas: list[dict] = []

    def complete(self, messages, *, json_schema=None, max_tokens=None, **_):
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        self.schemas.append(json_schema)
        if prompt.startswith("Write "):
            return Completion(text=json.dumps({"examples": self.english}))
        source = prompt.split(": ", 1)[1]
        return Completion(text=json.dumps({"translation": self.translations.get(source, "")}, ensure_ascii=False))


def test_examples_are_written_in_english_once_and_translated_for_chinese_and_japanese(tmp_path):
    english = ["Convert 15:00 New York time to Tokyo", "What is 9:00 London time in Paris?", "09:30 UTC in Asia/Tokyo?"]
    zh = {english[0]: "把纽约时间15:00换算成东京时间", english[1]: "伦敦时间9:00是巴黎几点？"}  # one not translated
    provider = WritingProvider(english, zh, cache_dir=tmp_path)
    writer = ExampleWriter()
    assert writer.write(provider, CONVERT_TIME, "zh") == ["把纽约时间15:00换算成东京时间", "伦敦时间9:00是巴黎几点？"]
    assert provider.prompts[0].startswith("Write 3 different short requests that a user would type to an assistant")
    assert "Tool: time_convert_time\n" in provider.prompts[0]
    assert [p.split(":")[0] for p in provider.prompts[1:]] == ["Translate into Chinese"] * 3
    # the translation is held to the language's script, so the English cannot come back unchanged
    pattern = provider.schemas[1]["properties"]["translation"]["pattern"]
    assert pattern.startswith("^[\\u4e00-\\u9fff]")
    # the English examples are kept: English and the next language cost no new examples
    assert writer.write(provider, CONVERT_TIME, "en") == english
    writer.write(provider, CONVERT_TIME, "ja")
    assert len(provider.prompts) == 4 + 3 and all(p.startswith(TRANSLATE["ja"].split("{")[0]) for p in provider.prompts[4:])
    # ... and on disk, for the next process
    again = WritingProvider([], {}, cache_dir=tmp_path)
    assert ExampleWriter().write(again, CONVERT_TIME, "zh") == ["把纽约时间15:00换算成东京时间", "伦敦时间9:00是巴黎几点？"]
    assert again.prompts == []


def test_when_no_example_translates_the_english_ones_are_used():
    provider = WritingProvider(["Convert 15:00 New York time to Tokyo"], {})
    assert ExampleWriter().write(provider, CONVERT_TIME, "ja") == ["Convert 15:00 New York time to Tokyo"]


def test_a_value_in_the_form_that_the_message_does_not_name_is_copied_from_the_message():
    """The model wrote the description's default ("Use 'UTC' … if no timezone provided") where the
    message names London: the message's own place is taken, in the form."""
    provider = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["UTC", "伦敦", "9:30", "Asia/Tokyo"])
    decision = Router(RouterOptions()).decide(provider, [CONVERT_TIME], "伦敦时间上午9:30是东京时间几点？", "zh")
    assert decision.params == {"source_timezone": "Europe/London", "time": "9:30", "target_timezone": "Asia/Tokyo"}
    assert provider.cursor.filters[1]["copy_from"] == "伦敦时间上午9:30是东京时间几点？"
    # a message that names no place keeps the default the model wrote
    bare = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["UTC", "9:30", "UTC"])
    assert Router(RouterOptions()).decide(bare, [CONVERT_TIME], "what is 9:30 over there?", "en").params[
        "source_timezone"] == "UTC"
    assert len(bare.cursor.filters) == 3


def test_a_name_the_model_wrote_outside_the_form_is_taken_from_the_message_in_the_form():
    # the model wrote a zone that does not exist; the message's 东京 is copied, then written as the zone
    provider = ScoringProvider({"time_convert_time": 0.0, "none": -5.0}, ["伦敦", "9:30", "Japan/Tokio", "东京"])
    decision = Router(RouterOptions()).decide(provider, [CONVERT_TIME], "伦敦时间上午9:30是东京时间几点？", "zh")
    assert decision.params["target_timezone"] == "Asia/Tokyo"
    assert iana_zone("Asia/London") == "Europe/London"  # a city in the wrong area is still the city


def test_written_examples_that_speak_of_the_tool_instead_of_using_it_are_left_out(tmp_path):
    about = ["What is the purpose of the time_convert_time tool?", "How do I use this tool?",
             "Convert 15:00 New York time to Tokyo", "What is time convert time for?"]
    provider = WritingProvider(about, {}, cache_dir=tmp_path)
    assert ExampleWriter().write(provider, CONVERT_TIME, "en") == ["Convert 15:00 New York time to Tokyo"]
    # all of them speak of it: they are kept, as better than none
    only = ["What does time_convert_time do?", "Which tool converts times?"]
    assert ExampleWriter().write(WritingProvider(only, {}, cache_dir=tmp_path / "b"), CONVERT_TIME, "en") == only


REPOSITORIES = ToolManifest("list_repositories", "List repositories for a user or organization.",
                            {"owner": "User or organization name"}, required=["owner"])


def test_written_examples_that_echo_the_requests_own_example_are_left_out(tmp_path):
    written = ["List all repositories for Anna", "List all repositories for the broken heater",
               "List the repositories of acme-labs", "Show the repos of my landlord"]
    zh = {written[0]: "列出 Anna 的所有仓库", written[1]: "列出坏掉的暖气的所有仓库",
          written[2]: "列出 acme-labs 的仓库", written[3]: "显示我房东的仓库"}
    provider = WritingProvider(written, zh, cache_dir=tmp_path)
    assert ExampleWriter().write(provider, REPOSITORIES, "en") == ["List the repositories of acme-labs"]
    # translated from the examples that are kept only
    assert ExampleWriter().write(provider, REPOSITORIES, "zh") == ["列出 acme-labs 的仓库"]
    # a tool whose own text says the thing keeps it ("agenda" of a meeting tool)
    agenda = ToolManifest("share_agenda", "Send a meeting's agenda to its attendees.", {"meeting": "Meeting title"})
    assert ExampleWriter().write(WritingProvider(["Send the agenda for the sync", "Send the agenda to Anna"], {}),
                                 agenda, "en") == ["Send the agenda for the sync"]
    assert not echoes("Send the agenda for the sync", agenda) and echoes("Send the agenda to Anna", agenda)
    # every thing of the list is one of the request's own
    assert all(thing in shot.casefold() for shot, things in SHOTS for thing in things)
    assert set(_SHOT_THINGS) == {thing for _, things in SHOTS for thing in things}


class ShotProvider(WritingProvider):
    """Answers the request for examples with a reply per shot (the name of its example tool)."""

    def __init__(self, replies: dict[str, str], cache_dir=None):
        super().__init__([], {}, cache_dir)
        self.replies = replies

    def complete(self, messages, *, json_schema=None, max_tokens=None, **_):
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        shot = next(name for name in self.replies if f"for {name} (" in prompt)
        return Completion(text=self.replies[shot])


UPDATE_ISSUE = ToolManifest("update_issue", "Edit an issue: title, body, state, labels or assignees.",
                            {"repo": "Repository name", "issue_number": "Issue number", "state": "New state"},
                            required=["repo", "issue_number"])


def test_examples_too_few_after_the_first_shot_are_asked_for_again_with_the_next(tmp_path):
    # every example of the first reply echoes its shot (Anna, Bob, the landlord): the second shot is asked
    echoing = json.dumps({"examples": ["Close Anna's issue 12", "Assign issue 7 to bob", "Tell my landlord about issue 3"]})
    second = json.dumps({"examples": ["Close issue 12 in webapp", "Reopen issue 40 of the api repo", "Rename issue 9"]})
    provider = ShotProvider({"send_email": echoing, "track_parcel": second}, cache_dir=tmp_path)
    examples = ExampleWriter().write(provider, UPDATE_ISSUE, "en")
    assert examples == ["Close issue 12 in webapp", "Reopen issue 40 of the api repo", "Rename issue 9"]
    assert len(provider.prompts) == 2 and "for track_parcel (" in provider.prompts[1]
    # a first reply with enough examples is the only request
    enough = json.dumps({"examples": ["Close issue 12 in webapp", "Close Anna's issue 3", "Reopen issue 40"]})
    once = ShotProvider({"send_email": enough, "track_parcel": second}, cache_dir=tmp_path / "b")
    assert ExampleWriter().write(once, UPDATE_ISSUE, "en") == ["Close issue 12 in webapp", "Reopen issue 40"]
    assert len(once.prompts) == 1
    # one usable example of the first is kept beside those of the second, three in all
    one = json.dumps({"examples": ["Close issue 12 in webapp", "Close Anna's issue 3", "Email bob about issue 4"]})
    merged = ShotProvider({"send_email": one, "track_parcel": second}, cache_dir=tmp_path / "c")
    assert ExampleWriter().write(merged, UPDATE_ISSUE, "en") == [
        "Close issue 12 in webapp", "Reopen issue 40 of the api repo", "Rename issue 9"]


@pytest.mark.parametrize("reply, examples", [
    # the model closed the JSON inside its third string and went on with a tool of its own
    ('{"examples": ["Close issue 12 in webapp", "Reopen issue 40", "Close issue 7 with reason \'bug\']]} \n\n'
     'Tool: create_issue\nWhat it does: Create a" ] }',
     ["Close issue 12 in webapp", "Reopen issue 40", "Close issue 7 with reason 'bug'"]),
    # cut short by the token limit: its whole strings
    ('{"examples": ["Close issue 12 in webapp", "Tag issue 3 [urgent]", "Reopen iss', ["Close issue 12 in webapp", "Tag issue 3 [urgent]"]),
    ('not json at all', []),
    ('{"examples": "Close issue 12"}', []),
])
def test_examples_are_read_from_a_reply_that_ran_on_or_was_cut_short(reply, examples):
    from agent.router.written import _read

    assert _read(reply) == examples


def test_examples_kept_from_the_writer_before_are_used_when_there_are_enough(tmp_path):
    from agent.router.written import _KEPT_FROM

    second = json.dumps({"examples": ["Close issue 12 in webapp", "Reopen issue 40 of the api repo"]})
    provider = ShotProvider({"send_email": second, "track_parcel": second}, cache_dir=tmp_path)
    writer = ExampleWriter()
    kept = [(UPDATE_ISSUE, ["Close issue 12 in webapp", "Reopen issue 40"]), (REPOSITORIES, ["List my repositories"])]
    for manifest, examples in kept:
        path = tmp_path / "examples" / f"{writer.key(manifest, 'en', provider, _KEPT_FROM)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(examples), encoding="utf-8")
    assert writer.write(provider, UPDATE_ISSUE, "en") == ["Close issue 12 in webapp", "Reopen issue 40"]
    assert provider.prompts == []  # two kept: nothing written again
    # one example (or none) is too few: written again, and kept under this version's key
    assert writer.write(provider, REPOSITORIES, "en") == ["Close issue 12 in webapp", "Reopen issue 40 of the api repo"]
    assert len(provider.prompts) == 1
    assert (tmp_path / "examples" / f"{writer.key(REPOSITORIES, 'en', provider)}.json").is_file()
    assert ExampleWriter().known(provider, REPOSITORIES, "en") == ["Close issue 12 in webapp", "Reopen issue 40 of the api repo"]


def test_examples_written_before_lose_their_echoes_and_their_translations_with_them(tmp_path):
    english = ["List all repositories for the broken heater", "List the repositories of acme-labs"]
    before = WritingProvider(english, {}, cache_dir=tmp_path)
    writer = ExampleWriter()
    for language, examples in (("en", english), ("ja", ["壊れたヒーターのリポジトリ一覧", "acme-labs のリポジトリ一覧"])):
        path = tmp_path / "examples" / f"{writer.key(REPOSITORIES, language, before)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(examples, ensure_ascii=False), encoding="utf-8")
    assert writer.known(before, REPOSITORIES, "en") == ["List the repositories of acme-labs"]
    assert writer.known(before, REPOSITORIES, "ja") == ["acme-labs のリポジトリ一覧"]
    assert before.prompts == []  # nothing written again


def test_the_value_a_message_says_something_starts_from_goes_to_the_parameter_that_takes_it():
    from agent.router.forms import told_apart

    branch = ToolManifest("create_branch", "Create a new branch from an existing branch, tag or commit.",
                          {"owner": "Repository owner", "repo": "Repository name", "branch": "Name of the new branch",
                           "from_ref": "Source branch, tag or SHA"}, required=["owner", "repo", "branch"])
    swapped = {"owner": "acme", "repo": "webapp", "branch": "main", "from_ref": "hotfix/login-crash"}
    right = {**swapped, "branch": "hotfix/login-crash", "from_ref": "main"}
    for said in ("acme/webapp に main から hotfix/login-crash ブランチを切って", "在 acme/webapp 从 main 切出 hotfix/login-crash 分支",
                 "create hotfix/login-crash in acme/webapp from main", "ＭＡＩＮ から hotfix/login-crash を acme/webapp に"):
        assert told_apart(branch, swapped, said) == right, said
        assert told_apart(branch, right, said) == right, said  # what is right stays
    # no value marked as the start, or both, or the source's own value marked: as the model wrote them
    for said in ("branch hotfix/login-crash off main in acme/webapp", "from main to hotfix/login-crash, from acme/webapp",
                 "from hotfix/login-crash to main", "acme/webapp: maintain hotfix/login-crash from domain"):
        assert told_apart(branch, swapped, said) == swapped, said
    transfer = ToolManifest("create_transfer", "Move money between accounts",
                            {"from_account_id": "Account ID, e.g. acc_001", "to_account_id": "Account ID, e.g. acc_001"})
    assert told_apart(transfer, {"from_account_id": "acc_2", "to_account_id": "acc_1"}, "把 50 元从 acc_1 转到 acc_2") == {
        "from_account_id": "acc_1", "to_account_id": "acc_2"}
    # a value of another kind said after "from" is no start (a merchant is no date); nor is a base to merge into one
    spending = ToolManifest("list_transactions", "List transactions", {"merchant": "Merchant name", "from_date": "From date"})
    kept = {"merchant": "Amazon", "from_date": "2026-01-01"}
    assert told_apart(spending, kept, "my transactions from Amazon since 2026-01-01") == kept
    pull = ToolManifest("create_pull_request", "Open a pull request",
                        {"head_branch": "Branch with the changes", "base": "Branch to merge into"})
    asked = {"head_branch": "feature/login", "base": "main"}
    assert told_apart(pull, asked, "open a PR into main from feature/login") == asked
    assert told_apart(pull, {"head_branch": "main", "base": "feature/login"}, "from feature/login into main")["base"] == "feature/login"


def test_two_parameters_of_one_form_with_the_same_value_take_the_values_the_message_names_in_order():
    from agent.router.forms import told_apart

    flights = ToolManifest("search_flights", "Search flights",
                           {"origin": "IATA airport code, e.g. \"CDG\".", "destination": "IATA airport code, e.g. \"CDG\".",
                            "currency": "ISO 4217 currency code"}, required=["origin", "destination"])
    said = "business class from Paris Charles de Gaulle to Tokyo Haneda on May 2 2027"
    assert told_apart(flights, {"origin": "CDG", "destination": "CDG"}, said) == {"origin": "CDG", "destination": "HND"}
    assert told_apart(flights, {"origin": "HND", "destination": "HND"}, said) == {"origin": "CDG", "destination": "HND"}
    assert told_apart(flights, {"origin": "HND", "destination": "KYO"}, "羽田から那覇まで") == {"origin": "HND", "destination": "OKA"}
    assert told_apart(flights, {"origin": "HND", "destination": "CDG"}, said) == {"origin": "HND", "destination": "CDG"}  # the model's order
    assert AIRPORT.in_order("羽田から那覇まで") == ["HND", "OKA"]
    # different values, or a message that names one airport or three, are left as they are
    assert told_apart(flights, {"origin": "CDG", "destination": "HND"}, said)["destination"] == "HND"
    assert told_apart(flights, {"origin": "CDG", "destination": "CDG"}, "flights from CDG") == {"origin": "CDG", "destination": "CDG"}
    assert told_apart(flights, {"origin": "CDG", "destination": "CDG"}, "CDG, ORY or BVA to JFK")["destination"] == "CDG"
    visa = ToolManifest("check_visa", "Visa rules", {"nationality": "ISO 3166-1 alpha-2 country code",
                                                     "destination_country": "ISO 3166-1 alpha-2 country code"},
                        required=["nationality", "destination_country"])
    assert told_apart(visa, {"nationality": "US", "destination_country": "US"}, "日本のパスポートでアメリカに出張する場合") == {
        "nationality": "JP", "destination_country": "US"}


CONVERT_MONEY = ToolManifest("convert_currency", "Convert an amount from one currency to another.",
                             {"amount": "Amount to convert", "from": "Source currency (ISO 4217 code, e.g. EUR)",
                              "to": "Target currency (ISO 4217 code, e.g. EUR)"},
                             parameter_types={"amount": "number", "from": "string", "to": "string"}, required=["amount", "from", "to"])
RATE = ToolManifest("get_rate", "Exchange rate between two currencies.",
                    {"currency_a": "Currency to convert from (ISO 4217 code)", "currency_b": "Currency to convert into (ISO 4217 code)"},
                    required=["currency_a", "currency_b"])
CONVERT_UNITS = ToolManifest("unit_convert", "Convert a value between units.",
                             {"value": "The number", "from_unit": "Unit symbol to convert from, e.g. km",
                              "to_unit": "Unit symbol to convert to, e.g. mi"}, required=["value", "from_unit", "to_unit"])


@pytest.mark.parametrize("manifest, message, written, told", [
    # the amount is said in one of the two currencies: the conversion starts from it, whatever the order of naming
    (CONVERT_MONEY, "1万円はドルでいくら？", ("USD", "JPY"), ("JPY", "USD")),
    (CONVERT_MONEY, "how many yen is 100 dollars", ("JPY", "USD"), ("USD", "JPY")),
    (CONVERT_MONEY, "100美元换成人民币", ("CNY", "USD"), ("USD", "CNY")),
    (CONVERT_MONEY, "EUR 200 to JPY", ("JPY", "EUR"), ("EUR", "JPY")),
    (CONVERT_MONEY, "convert 100 dollars to yen", ("USD", "JPY"), ("USD", "JPY")),  # the model's, when right
    (RATE, "how many pounds do I get for 50 euros", ("GBP", "EUR"), ("EUR", "GBP")),  # the roles by the descriptions
    (CONVERT_UNITS, "how many feet is 3 metres", ("ft", "m"), ("m", "ft")),  # units alike
    (CONVERT_UNITS, "5公里是多少英里", ("mi", "km"), ("km", "mi")),
    # one said in words is an amount too
    (CONVERT_UNITS, "how many feet in a mile", ("ft", "mi"), ("mi", "ft")),
    (CONVERT_MONEY, "how many yen is one dollar", ("JPY", "USD"), ("USD", "JPY")),
    (CONVERT_MONEY, "一美元等于多少日元", ("JPY", "USD"), ("USD", "JPY")),
    (CONVERT_UNITS, "feet or metres: which is longer?", ("ft", "m"), ("ft", "m")),  # no amount said
    # no amount, or an amount in both: the model's order
    (CONVERT_MONEY, "美元兑日元汇率多少", ("JPY", "USD"), ("JPY", "USD")),
    (CONVERT_MONEY, "10 dollars and 2000 yen, which is more?", ("JPY", "USD"), ("JPY", "USD")),
    (CONVERT_MONEY, "the USD to EUR rate on 2026-12-01", ("EUR", "USD"), ("EUR", "USD")),  # a date is no amount
])
def test_a_conversion_starts_from_the_currency_the_message_says_its_amount_in(manifest, message, written, told):
    from agent.router.forms import told_apart

    keys = [key for key in manifest.parameters if key not in ("amount", "value")]
    params = {**{key: "1" for key in manifest.parameters if key in ("amount", "value")}, **dict(zip(keys, written))}
    assert tuple(told_apart(manifest, params, message)[key] for key in keys) == told


@pytest.mark.parametrize("said", ["business", "central", "the north station", "city", "national", "county"])
def test_words_that_describe_an_airport_name_none(said):
    assert airport_code(said) is None and AIRPORT.stated(f"a {said} trip") == set()


def test_an_example_the_model_ran_in_a_loop_is_left_out(tmp_path):
    from agent.router.written import looping

    loop = "チェックルクルバーサイドの乗客許可のチェックルクルバーサイドのルート123のチェックルクルバーサイド"
    assert looping(loop) and not looping("LH の国際線エコノミーの預け荷物は何個まで？")
    assert not looping("Set the brightness of the kitchen to 50% and transition it to 75% after 3 seconds")
    english = ["Check the baggage allowance of LH economy", "Baggage allowance of JL business"]
    provider = WritingProvider(english, {english[0]: loop, english[1]: "JL ビジネスクラスの手荷物許容量"}, cache_dir=tmp_path)
    assert ExampleWriter().write(provider, CONVERT_TIME, "ja") == ["JL ビジネスクラスの手荷物許容量"]


LISTING = ToolManifest("file_list", "List a folder", {"path": "Folder to list, e.g. ~/Documents", "query": "Words to look for"})


@pytest.mark.parametrize("written, message, whole", [
    ("Desktop", "我的桌面也看一下，~/Desktop", "~/Desktop"),  # the model left out "~/"
    ("Documents", "~/Documents の中身を見せて", "~/Documents"),
    ("src/app.py", "open ./src/app.py.", "./src/app.py"),  # the sentence's full stop is no part of it
    ("~/code", "grep TODO in ~/code/riverse", "~/code/riverse"),
    ("https://example.com", "fetch https://example.com/a?b=1", "https://example.com/a?b=1"),
    ("桌面", "看看我的桌面", "桌面"),  # a folder named in words: no path around it
    ("d", "list ~/d", "d"),  # one letter is no part of a name
    ("~/code/service/config.py", "~/code/service/config.py:7: api_key = 1", "~/code/service/config.py"),  # a file and a line
    ("Users", r"dir C:\Users please", r"C:\Users"),
    ("example.com", "fetch https://example.com/a", "example.com"),  # no separator where it would be widened
])
def test_a_value_cut_from_a_path_of_the_message_is_the_whole_path(written, message, whole):
    from agent.router.values import completed

    assert completed(LISTING, "path", written, message) == whole


def test_a_value_of_a_parameter_that_takes_no_path_or_inside_a_path_is_not_widened_to_it():
    from agent.router.values import completed, whole_path

    assert completed(LISTING, "query", "Desktop", "search ~/Desktop for Desktop") == "Desktop"
    assert whole_path("report", "open ~/old/report/a.pdf") == "report"  # at neither end of the path: not cut from it


@pytest.mark.parametrize("said, month", [
    ("cheapest day to fly Boston to Denver in September 2027?", "2027-09"),
    ("2027年9月のボストン発デンバー行きの最安値", "2027-09"),
    ("查一下 2027年9月 的票价", "2027-09"),
    ("fares for 2027-09", "2027-09"),
    ("fares on 2027-09-03", None),  # a day of the month says more than the month
    ("fares in September 2027 or October 2027", None),  # two months: not one
])
def test_a_month_named_as_a_whole_is_written_as_year_and_month(said, month):
    from agent.router.forms import year_month

    assert year_month(said) == month


def test_a_parameter_that_asks_for_year_and_month_is_written_as_the_month_the_message_names():
    from agent.router.forms import MONTH

    calendar = ToolManifest("get_flight_price_calendar", "Get the lowest fare for each day of a month on a route.",
                            {"origin": "IATA airport code", "destination": "IATA airport code", "month": "Month as YYYY-MM."},
                            parameter_types={"origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
                                             "destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
                                             "month": {"type": "string", "pattern": "^\\d{4}-\\d{2}$"}},
                            required=["origin", "destination", "month"])
    bare = ToolManifest("m", "d", {"month": "The month"}, parameter_types={"month": {"type": "string", "pattern": "^\\d{4}-\\d{2}$"}})
    assert value_form(calendar, "month") is MONTH and value_form(bare, "month") is MONTH  # the description, or the pattern
    assert value_form(bare, "month") is not value_form(calendar, "origin")
    said = "what's the cheapest day to fly Boston to Denver in September 2027?"
    # the model wrote the month's number only: the one month the message names, in the asked form
    provider = ScoringProvider({"get_flight_price_calendar": 0.0, "none": -5.0}, ["BOS", "DEN", "09", "09"])
    decision = Router(RouterOptions(write_examples=False)).decide(provider, [calendar], said, "en")
    assert decision.params == {"origin": "BOS", "destination": "DEN", "month": "2027-09"}


CRYPTO_PRICE = ToolManifest("get_crypto_price", "Get the current price of a cryptocurrency.",
                            {"symbol": "Crypto symbol, e.g. BTC, ETH", "vs_currency": "Currency to price in (ISO 4217 code, e.g. EUR)"},
                            ["What is ETH at?"], required=["symbol"])
PRICE_ALERT = ToolManifest("create_price_alert", "Alert when a security crosses a target price.",
                           {"symbol": "Ticker or crypto symbol", "target_price": "Target price"}, ["alert me at AAPL 200"],
                           required=["symbol", "target_price"], parameter_types={"target_price": "number"})


@pytest.mark.parametrize("manifest, message, written, params", [
    (CRYPTO_PRICE, "bitcoin price in euros", ["Bitcoin", "euros"], {"symbol": "BTC", "vs_currency": "EUR"}),
    (CRYPTO_PRICE, "以太坊现在多少美元", ["以太坊", "美元"], {"symbol": "ETH", "vs_currency": "USD"}),
    (PRICE_ALERT, "alert me if Tesla falls below 180", ["Tesla", "180"], {"symbol": "TSLA", "target_price": "180"}),
    (PRICE_ALERT, "苹果股价涨到 250 以上的时候提醒我", ["苹果", "250"], {"symbol": "AAPL", "target_price": "250"}),
    # a number is no symbol: the one company the message names
    (PRICE_ALERT, "エヌビディアが100ドルを下回ったら通知して", ["100", "100"], {"symbol": "NVDA", "target_price": "100"}),
])
def test_a_company_or_coin_the_message_names_is_written_as_its_symbol(manifest, message, written, params):
    provider = ScoringProvider({manifest.name: 0.0, "none": -5.0}, written)
    decision = Router(RouterOptions()).decide(provider, [manifest], message, "en")
    assert decision.params == params
    off = Router(RouterOptions(value_forms=False)).decide(ScoringProvider({manifest.name: 0.0, "none": -5.0}, written),
                                                          [manifest], message, "en")
    assert off.params["symbol"] == written[0]  # as the model wrote it, with the lever off


def test_a_number_written_for_an_optional_code_is_left_out_not_replaced():
    flights = ToolManifest("search_flights", "Search flights.", {"origin": "From", "currency": "Currency (ISO 4217 code, e.g. EUR)"},
                           ["flights from Paris"], required=["origin"])
    decision = Router(RouterOptions()).decide(ScoringProvider({"search_flights": 0.0, "none": -5.0}, ["Paris", "1"]), [flights],
                                              "flights from Paris, I pay in euros", "en")
    assert decision.params == {"origin": "Paris"}  # "1" is no currency; only a required one takes the one named



@pytest.mark.parametrize("said, written", [
    ("how many yen is one dollar", "how many yen is 1 dollar"),
    ("what's a euro in yen", "what's 1 euro in yen"),
    ("Convert one kilogram to pounds", "Convert 1 kilogram to pounds"),
    ("一美元等于多少日元", "1美元等于多少日元"),
    ("一ドルは何円？", "1ドルは何円？"),
    # not one of a currency or a unit: a word, a pronoun, a count of something else
    ("the one I meant", "the one I meant"),
    ("one more thing", "one more thing"),
    ("a cup of rice", "a cup of rice"),  # "cup" is a word before it is a unit
    ("I'm a bit stressed", "I'm a bit stressed"),
    ("one bit or 8", "1 bit or 8"),
    ("统一元数据", "统一元数据"),
    ("十一美元", "十一美元"),  # a number already (its digits come from with_digits)
])
def test_one_of_a_currency_or_a_unit_said_in_words_is_1(said, written):
    from agent.router.forms import ones_said

    assert ones_said(said) == written


def test_a_number_parameter_copies_the_one_a_message_says_in_words():
    from agent.router.options import RouterOptions
    from agent.router.values import value_filters

    filters = value_filters(CONVERT_MONEY, "amount", "how many yen is one dollar", RouterOptions())
    assert "1" in filters["copy_from"] and filters["allowed"](b"1")
    # a message that says no amount leaves the number to the model, as before
    assert "copy_from" not in value_filters(CONVERT_MONEY, "amount", "what's the dollar doing against the yen?", RouterOptions())
