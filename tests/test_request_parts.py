"""The parts of a message with several requests (agent.router.requests): where a message divides, names
that share a later part's question, parts that leave out the place an earlier part named, a whole
message's call that mixes two requests, "the first result" of a search; and values made whole
(agent.router.values.completed). Decided by a stand-in router that decides by rules."""

from __future__ import annotations

import pytest

from agent.router.context import Call, Context, Exchange
from agent.router.forms import place_named, place_names, takes_place
from agent.router.prompt import Decision
from agent.router.references import nth_link, with_result, works_on_result
from agent.router.requests import decide_next_step, decide_requests, split_requests
from agent.router.values import completed, whole_words
from agent.toolkit.base import ToolManifest
from tests.helpers.rules import RuleRouter

WEATHER = ToolManifest("weather", "Current weather for a city", {"city": "City name"}, required=["city"])
TIME = ToolManifest("current_time", "Current time in a place",
                    {"timezone": "City, country or IANA time zone; leave empty for local time"})
CALC = ToolManifest("calculator", "Evaluate an arithmetic expression", {"expression": "The expression"}, required=["expression"])
SEARCH = ToolManifest("web_search", "Search the web", {"query": "What to search for"}, required=["query"])
LIST = ToolManifest("file_list", "List a folder", {"path": "Folder"}, required=["path"])
FETCH = ToolManifest("web_fetch", "Open a web page", {"url": "The page's URL"}, required=["url"])
TOOLS = [WEATHER, TIME, CALC, SEARCH, LIST, FETCH]


def calls(decisions):
    return [(d.tool, d.params) for d in decisions if d.tool]


@pytest.mark.parametrize(
    "text,parts",
    [
        ("帮我记一条笔记：周三交报告，再查一下成都的天气", ["帮我记一条笔记：周三交报告", "查一下成都的天气"]),
        ("打开 https://www.zhihu.com/hot 再在我的笔记里搜一下 密码", ["打开 https://www.zhihu.com/hot", "在我的笔记里搜一下 密码"]),
        ("新型 Switch の発売日をネットで調べて、メモ6番を削除して", ["新型 Switch の発売日をネットで調べて", "メモ6番を削除して"]),
        ("~/memo/a.txt と ~/memo/b.txt を読んで", ["~/memo/a.txt", "~/memo/b.txt を読んで"]),
        ("weather in Kraków plz + sqrt(2025)", ["weather in Kraków plz", "sqrt(2025)"]),
        ("厦门天气 + 根号 1764", ["厦门天气", "根号 1764"]),
        # a part that connectors divided is divided again where its clauses meet
        ("莫斯科几点，天气如何，另外 60 英里是多少公里", ["莫斯科几点", "天气如何", "60 英里是多少公里"]),
        # not: a sum, "再" that begins the message, "について、"
        ("what is 3.5 + 2", ["what is 3.5 + 2"]),
        ("what is (2+3) + (4)", ["what is (2+3) + (4)"]),
        ("再查一下", ["再查一下"]),
        # the と of "as" or "say" is no "and"
        ("acme/webapp の issue 77 を完了としてクローズして", ["acme/webapp の issue 77 を完了としてクローズして"]),
        ("明日を休みとする予定を入れて", ["明日を休みとする予定を入れて"]),
        ("大阪と札幌の天気", ["大阪", "札幌の天気"]),
    ],
)
def test_where_a_message_divides(text, parts):
    assert split_requests(text) == parts


def test_a_te_form_comma_divides_but_not_one_that_says_about():
    assert split_requests("~/code で TODO を検索して、2の20乗も計算して") == ["~/code で TODO を検索して", "2の20乗も計算して"]
    # "について、" is not split by the connector (the comma between its clauses is a coordinator, as before)
    from agent.router.requests import _CONNECTORS

    assert len(_CONNECTORS.split("東京について、教えて")) == 1
    assert len(_CONNECTORS.split("調べて、削除して")) == 2


def time_rules(text, context):
    for city in ("ニューヨーク", "New York", "Tokyo"):
        if city in text and ("時間" in text or "time" in text):
            return Decision("current_time", {"timezone": city})
    for city in ("ロンドン", "パリ", "London", "Paris"):
        if text.strip(" ?") == city:  # a bare name alone reads as the weather
            return Decision("weather", {"city": city})
    return Decision(None)


def test_names_before_a_question_share_its_call():
    router = RuleRouter(time_rules)
    decisions = decide_requests(router, None, TOOLS, "ロンドン、パリ、ニューヨークの今の時間は？", "ja", Context())
    assert calls(decisions) == [("current_time", {"timezone": "ロンドン"}), ("current_time", {"timezone": "パリ"}),
                                ("current_time", {"timezone": "ニューヨーク"})]
    # the names were not decided alone: only the whole message and the asking part were
    assert [text for text, _ in router.asked] == ["ロンドン、パリ、ニューヨークの今の時間は？", "ニューヨークの今の時間は？"]
    decisions = decide_requests(RuleRouter(time_rules), None, TOOLS, "Tokyo, London and New York time?", "en", Context())
    assert [d.params["timezone"] for d in decisions] == ["Tokyo", "London", "New York"]


def test_names_before_a_question_that_states_no_place_are_each_asked_it():
    # "今それぞれ何時？" is the time with its place left out: each name before it gets that call
    def rules(text, context):
        return Decision("current_time", {}) if "何時" in text else Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "シドニーとサンパウロとカイロ、今それぞれ何時？", "ja", Context())
    assert calls(decisions) == [("current_time", {"timezone": "シドニー"}), ("current_time", {"timezone": "サンパウロ"}),
                                ("current_time", {"timezone": "カイロ"})]


def test_a_bare_name_whose_neighbour_takes_no_place_is_decided_with_it():
    def rules(text, context):
        if "17*23" in text:
            return Decision("calculator", {"expression": "17*23"})
        if text == "Paris" and context.calls:
            return Decision("weather", {"city": "Paris"})
        return Decision(None)

    router = RuleRouter(rules)
    decisions = decide_requests(router, None, TOOLS, "compute 17*23 and Paris", "en", Context())
    assert calls(decisions) == [("calculator", {"expression": "17*23"}), ("weather", {"city": "Paris"})]
    text, context = router.asked[-1]
    assert text == "Paris" and context.exchanges[-1].message == "compute 17*23"


def ellipsis_rules(text, context):
    if "几点" in text or "何時" in text:
        city = next(c for c in ("莫斯科", "ドバイ") if c in text)
        return Decision("current_time", {"timezone": city})
    if text.startswith("天气") or text.startswith("天気"):
        said = {"天气如何": None, "天気はどう？": "天気"}[text]  # nothing, or the tool's own word as the city
        if said is None:
            return Decision(None, declined="weather", missing="city")
        return Decision("weather", {"city": said})
    if "英里" in text:
        return Decision("calculator", {"expression": "60*1.609"})
    return Decision(None)


WEATHER_JA = ToolManifest("weather", "天気予報: 都市の現在の天気", {"city": "都市名"}, required=["city"])


@pytest.mark.parametrize("text,tools,city", [
    ("莫斯科几点，天气如何，另外 60 英里是多少公里", TOOLS, "莫斯科"),
    ("ドバイは今何時？天気はどう？", [WEATHER_JA, TIME, CALC], "ドバイ"),
])
def test_a_part_that_names_no_place_takes_the_place_of_the_part_before_it(text, tools, city):
    decisions = decide_requests(RuleRouter(ellipsis_rules), None, tools, text, "zh", Context())
    assert ("weather", {"city": city}) in calls(decisions)
    assert calls(decisions)[0] == ("current_time", {"timezone": city})


def test_a_part_that_names_a_place_of_its_own_keeps_it():
    def rules(text, context):
        if "几点" in text:
            return Decision("current_time", {"timezone": "莫斯科"})
        if "天气" in text:
            return Decision("weather", {"city": "厦门"})
        return Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "莫斯科几点，厦门天气", "zh", Context())
    assert calls(decisions) == [("current_time", {"timezone": "莫斯科"}), ("weather", {"city": "厦门"})]


def test_there_in_a_later_part_is_the_place_of_the_part_before_it():
    def rules(text, context):
        if "Oslo" in text and "weather" in text:
            return Decision("weather", {"city": "Oslo"})
        if "there" in text:
            return Decision("current_time", {})  # the model wrote nothing for "there"
        return Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "What's the weather in Oslo and what time is it there?", "en", Context())
    assert calls(decisions) == [("weather", {"city": "Oslo"}), ("current_time", {"timezone": "Oslo"})]


def test_there_is_the_place_the_message_names_before_it_when_no_call_holds_that_place():
    def rules(text, context):  # the part that names the place asks for nothing
        if "何時" in text:
            return Decision("current_time", {})
        if "下雨" in text:
            return Decision(None, declined="weather", missing="city")  # the city was not found
        return Decision(None)

    said = decide_requests(RuleRouter(rules), None, TOOLS, "シドニーの友達に電話したいんだけど、向こうは今何時くらい？", "ja", Context())
    assert calls(said) == [("current_time", {"timezone": "シドニー"})]
    said = decide_requests(RuleRouter(rules), None, TOOLS, "我在伦敦出差，那边明天下雨吗", "zh", Context())
    assert calls(said) == [("weather", {"city": "伦敦"})]


def test_there_named_takes_the_one_place_said_before_there_and_nothing_the_model_wrote():
    from agent.router.references import there_named

    said = "My sister lives in Nairobi. What is the time there?"
    assert there_named(Decision("current_time", {}), said, TIME).params == {"timezone": "Nairobi"}
    assert there_named(Decision("current_time", {"timezone": "Asia/Tokyo"}), said, TIME).params == {"timezone": "Asia/Tokyo"}
    for text in ("I was in Paris; what time is it there in Tokyo?", "what time is it there?",
                 "What is the time there? My sister lives in Nairobi."):
        assert there_named(Decision("current_time", {}), text, TIME).params == {}, text
    # a declined tool that needs more than the place stays declined
    both = ToolManifest("weather", "Weather", {"city": "City name", "date": "Date"}, required=["city", "date"])
    assert there_named(Decision(None, declined="weather", missing="city"), "我在伦敦出差，那边明天下雨吗", both).tool is None


@pytest.mark.parametrize("written,place", [("local", "Reykjavik"), ("Reykjavik", "Reykjavik"), ("", "Reykjavik")])
def test_a_word_of_the_part_written_for_there_is_the_place_of_the_part_before_it(written, place):
    def rules(text, context):
        if "weather" in text:
            return Decision("weather", {"city": "Reykjavik"})
        return Decision("current_time", {"timezone": written} if written else {})

    message = "How's the weather in Reykjavik, and what's the local time there?"
    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, "en", Context())
    assert calls(decisions) == [("weather", {"city": "Reykjavik"}), ("current_time", {"timezone": place})]


def test_a_unit_written_as_a_place_is_the_place_of_the_part_before_it():
    def rules(text, context):  # "華氏で何度？" decided as the weather in 華氏
        return Decision("weather", {"city": "ニューヨーク" if "ニューヨーク" in text else "華氏"})

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "ニューヨークの今の気温、華氏で何度？", "ja", Context())
    assert calls(decisions) == [("weather", {"city": "ニューヨーク"})]
    assert decisions[0].follows  # Fahrenheit: the temperature converted once it is known


def test_a_whole_message_copied_into_one_value_loses_to_the_parts_calls():
    def rules(text, context):
        if text.startswith("Search") and "list" in text:
            return Decision("web_search", {"query": "Rust 2027 edition release date and list ~/projects"})
        if text.startswith("Search"):
            return Decision("web_search", {"query": "Rust 2027 edition release date"})
        if text.startswith("list"):
            return Decision("file_list", {"path": "~/projects"})
        return Decision(None)

    text = "Search the web for the Rust 2027 edition release date and list ~/projects"
    decisions = decide_requests(RuleRouter(rules), None, TOOLS, text, "en", Context())
    assert calls(decisions) == [("web_search", {"query": "Rust 2027 edition release date"}), ("file_list", {"path": "~/projects"})]


def test_a_whole_message_call_that_takes_one_parts_number_for_anothers_request_loses():
    convert = ToolManifest("unit_convert", "Convert units", {"value": "number", "from_unit": "unit", "to_unit": "unit"},
                           required=["value", "from_unit", "to_unit"])

    def rules(text, context):
        if "1280" in text and "英尺" in text:
            return Decision("unit_convert", {"value": "1280", "from_unit": "英尺", "to_unit": "米"})  # 1280 feet
        if "1280" in text:
            return Decision("calculator", {"expression": "1280*0.85"})
        if "英尺" in text:
            return Decision("unit_convert", {"value": "5", "from_unit": "英尺", "to_unit": "米"})
        return Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, [CALC, convert], "算一下 1280*0.85，把 5 英尺换成米", "zh", Context())
    assert calls(decisions) == [("calculator", {"expression": "1280*0.85"}),
                                ("unit_convert", {"value": "5", "from_unit": "英尺", "to_unit": "米"})]


def test_one_call_of_one_tool_from_two_parts_still_wins():
    # the parts make calls of one tool only: the whole's call that takes values from both stands
    def rules(text, context):
        if text == "square root of 1849 plus 2**10, and 3":  # decided with the power written as an expression
            return Decision("calculator", {"expression": "sqrt(1849)+2**10+3"})
        return Decision("calculator", {"expression": "".join(ch for ch in text if ch.isdigit()) or "0"})

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "square root of 1849 plus 2 to the power of 10, and 3", "en", Context())
    assert calls(decisions) == [("calculator", {"expression": "sqrt(1849)+2**10+3"})]


SEARCHED = Context([Exchange("search the web for the Python 3.14 release notes", [Call(
    "web_search", {"query": "Python 3.14 release notes"},
    "1. What's New In Python 3.14 - https://docs.python.org/3.14/whatsnew/3.14.html\n"
    "2. Python 3.14 released - https://www.python.org/downloads/release/python-3140/", True)])])


@pytest.mark.parametrize("part,link", [
    ("open the first result", "https://docs.python.org/3.14/whatsnew/3.14.html"),
    ("and read the second link", "https://www.python.org/downloads/release/python-3140/"),
    ("打开第一个结果", "https://docs.python.org/3.14/whatsnew/3.14.html"),
    ("最初の結果を開いて", "https://docs.python.org/3.14/whatsnew/3.14.html"),
    ("open the last result", "https://www.python.org/downloads/release/python-3140/"),
])
def test_the_first_result_is_the_first_link_the_search_returned(part, link):
    assert works_on_result(part)
    assert nth_link(part, SEARCHED) == link
    assert link in with_result(part, SEARCHED)


def test_no_link_when_the_results_have_none_or_too_few():
    assert nth_link("open the third result", SEARCHED) is None
    assert nth_link("open the first result", Context([Exchange("x", [Call("calculator", {}, "= 391", True)])])) is None
    assert nth_link("open the page", SEARCHED) is None


def test_open_the_first_result_is_a_second_step_after_the_search():
    def rules(text, context):
        if text.startswith("open https://"):
            return Decision("web_fetch", {"url": text.split()[1]})
        if "search" in text:
            return Decision("web_search", {"query": "Python 3.14 release notes"})
        return Decision("web_fetch", {})

    message = "search the web for the Python 3.14 release notes and open the first result"
    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, "en", Context())
    assert calls(decisions) == [("web_search", {"query": "Python 3.14 release notes"})] and decisions[0].follows
    step = decide_next_step(RuleRouter(rules), None, TOOLS, message, "en", SEARCHED)
    assert step is not None and step.params == {"url": "https://docs.python.org/3.14/whatsnew/3.14.html"}


@pytest.mark.parametrize("value,message,whole", [
    ("ヨーク", "ニューヨークの今の時間は？", "ニューヨーク"),
    ("ork", "time in York please", "York"),
    ("New York", "time in New York please", "New York"),
    ("e", "What's the time here", "e"),  # one letter is left for the caller to drop
    ("Tokio", "time in Tokyo", "Tokio"),  # not in the message: as written
    ("東京", "東京の天気", "東京"),
])
def test_a_copied_value_is_the_whole_word_it_was_cut_from(value, message, whole):
    assert whole_words(value, message) == whole


@pytest.mark.parametrize("value,message,cut", [
    ("4 * 2.5 * 2.5 * 2.5 * 2.5 * 2", "I ran 4 laps of 2.5 miles each, work out the total", "4 * 2.5"),
    ("sqrt(1764)}}", "算一下 999/37，以及 sqrt(1764)", "sqrt(1764)"),
    ("80*100000000000000000000000", "how many pounds is 80 kg", "80*10"),
    ("30000", "3万円の20%オフ", "30000"),  # a number's zeros are no run
    ("100000000", "1亿", "100000000"),
    ("hahahaha", "reply hahahaha to him", "hahahaha"),  # the message says it
    ("f(x))", "f(x))", "f(x))"),
])
def test_a_value_the_model_ran_on_in_is_cut_where_it_began_to(value, message, cut):
    from agent.router.values import run_on_cut

    assert run_on_cut(value, message) == cut
    assert completed(CALC, "expression", value, message) == cut


def test_a_place_the_model_could_not_copy_is_the_one_the_message_names():
    assert takes_place(TIME, "timezone") and takes_place(WEATHER, "city") and not takes_place(CALC, "expression")
    assert completed(TIME, "timezone", "", "ドバイは今何時？") == "ドバイ"
    assert completed(WEATHER, "city", "", "莫斯科天气怎么样") == "莫斯科"
    assert completed(TIME, "timezone", "", "ロンドンとパリは今何時？") == ""  # two places: which one is not known
    assert completed(CALC, "expression", "", "ドバイは今何時？") == ""  # the parameter takes no place
    assert completed(TIME, "timezone", "", "What time is it in Dubai?") == ""  # the model copies Latin names itself
    assert place_named(TIME, "timezone", "今何時？") == ""
    assert "ニューヨーク" in place_names("ニューヨークの今の時間は？") and "ヨーク" not in place_names("ニューヨークの今の時間は？")


def weather_after(message: str, result: str) -> Context:
    return Context([Exchange(message, [Call("weather", {"city": "Lima"}, result, True)])])


@pytest.mark.parametrize("text,language,result,asked", [
    ("how warm is it in Lima in Fahrenheit", "en", "Lima: 18°C (feels like 16°C), Clear, wind 9 km/h", "convert 18 °C to °F"),
    ("what's the wind speed in Chicago in mph?", "en", "Chicago: 4°C, Cloudy, wind 28 km/h", "convert 28 km/h to mph"),
    ("芝加哥的风速换成英里每小时是多少", "zh", "Chicago: 3°C, Windy, wind 32 km/h", "把 32 km/h 换算成 mph"),
    ("リマの気温を華氏で教えて", "ja", "Lima: 19°C, Clear", "19 °C を °F に換算して"),
    ("weather in Lima in Celsius", "en", "Lima: 19°C, Clear", None),  # already in that unit
    ("weather in Lima", "en", "Lima: 19°C, Clear", None),  # no unit asked
    ("how far is Lima in miles", "en", "Lima: 19°C, Clear", None),  # nothing of that kind to convert
])
def test_a_unit_the_message_asks_for_converts_the_result(text, language, result, asked):
    from agent.router.followups import converted_request

    assert converted_request(text, weather_after(text, result), language) == asked


def test_a_message_that_asks_for_another_unit_is_a_second_step_after_the_result():
    def rules(text, context):
        if text.startswith("convert 18"):
            return Decision("unit_convert", {"value": "18", "from_unit": "°C", "to_unit": "°F"})
        if "Lima" in text:
            return Decision("weather", {"city": "Lima"})  # the message alone asks for the weather again
        return Decision(None)

    message = "how warm is it in Lima in Fahrenheit"
    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, "en", Context())
    assert calls(decisions) == [("weather", {"city": "Lima"})] and decisions[0].follows
    step = decide_next_step(RuleRouter(rules), None, TOOLS, message, "en", weather_after(message, "Lima: 18°C, Clear"))
    assert step is not None and (step.tool, step.params) == ("unit_convert", {"value": "18", "from_unit": "°C", "to_unit": "°F"})
    # the same call with no unit asked is no chain
    assert not decide_requests(RuleRouter(rules), None, TOOLS, "how warm is it in Lima", "en", Context())[0].follows


def test_a_number_and_its_unit_are_not_one_word():
    assert whole_words("GB", "1.5GB是多少MB") == "GB" and whole_words("1.5", "1.5GB是多少MB") == "1.5"


def test_a_file_path_is_no_place():
    read = ToolManifest("file_read", "Read a file", {"path": "Location of the file inside the allowed roots"})
    assert not takes_place(read, "path")
    weather = ToolManifest("get_weather", "Weather", {"location": "City name or coordinates"})
    assert takes_place(weather, "location")


def test_a_part_that_states_nothing_keeps_no_value_the_tools_examples_hold():
    listing = ToolManifest("file_list", "List a folder", {"path": "Folder"}, examples=["list ~/notes"], required=["path"])
    reading = ToolManifest("file_read", "Read a file", {"path": "File"}, examples=["read ~/notes/todo.txt"], required=["path"])

    def rules(text, context):
        if "todo.txt" in text:
            return Decision("file_read", {"path": "~/notes/todo.txt"})
        return Decision("file_list", {"path": "~/notes"})  # from the tool's own example, not the message

    decisions = decide_requests(RuleRouter(rules), None, [listing, reading], "open ~/notes/todo.txt and show me what's in it",
                                "en", Context())
    assert calls(decisions) == [("file_read", {"path": "~/notes/todo.txt"})]


def test_an_expression_made_of_two_parts_is_one_request_even_when_a_part_reads_as_another_tool():
    def rules(text, context):
        if text == "我工资8500，涨了12%，现在是多少？":
            return Decision("calculator", {"expression": "8500*1.12"})
        if "现在" in text:
            return Decision("current_time", {})  # "现在" (now) alone reads as the time
        return Decision("calculator", {"expression": "".join(ch for ch in text if ch.isdigit()) or "0"})

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "我工资8500，涨了12%，现在是多少？", "zh", Context())
    assert calls(decisions) == [("calculator", {"expression": "8500*1.12"})]
