"""A follow-up written as a request of its own before it is decided (agent.router.followups): a unit
asked for after a quantity, "save that", "there", "the first link", an arithmetic operation on the last
result, and thanks or a change of subject before a request. Decided by a stand-in router that decides
by rules."""

from __future__ import annotations

import pytest

from agent.router.context import Call, Context, Exchange
from agent.router.followups import restated, saved_request, unopened
from agent.router.prompt import Decision
from agent.router.requests import decide_requests
from agent.toolkit.base import ToolManifest
from tests.helpers.rules import RuleRouter

WEATHER = ToolManifest("weather", "Current weather for a city", {"city": "City name"}, required=["city"])
TIME = ToolManifest("current_time", "Current time in a place",
                    {"timezone": "City, country or IANA time zone; leave empty for local time"})
CALC = ToolManifest("calculator", "Evaluate an arithmetic expression", {"expression": "The expression"}, required=["expression"])
NOTES = ToolManifest("notes", "Keep notes", {"action": "add, list, search or delete", "text": "The note's text"})
LIST = ToolManifest("file_list", "List a folder", {"path": "Folder path"}, required=["path"])
TOOLS = [WEATHER, TIME, CALC, NOTES, LIST]


def after(message: str, tool: str, params: dict, result: str) -> Context:
    return Context([Exchange(message, [Call(tool, params, result, True)])])


BERLIN = after("Is it raining in Berlin?", "weather", {"city": "Berlin"}, "Berlin: 4°C (feels like 1°C), Drizzle, wind 14 km/h")
SEOUL = after("首尔冷不冷", "weather", {"city": "首尔"}, "首尔: 2°C (feels like -2°C), Clear, wind 12 km/h")
MILE = after("1マイルって何メートル？", "unit_convert", {"value": 1, "from_unit": "mi", "to_unit": "m"}, "1 mi = 1609.34 m")
RENT = after("rent is 1250, we're 4 flatmates, how much each?", "calculator", {"expression": "1250/4"}, "1250/4 = 312.5")
MEETING = Context([Exchange("提醒我明天跟王经理开会的事：上午十点，会议室B")])  # the assistant asked whether to save it


@pytest.mark.parametrize("text,context,language,written,whole", [
    ("ugh. what time is it over there?", BERLIN, "en", "ugh. what time is it in Berlin?", False),
    ("is it windy in that city?", BERLIN, "en", "is it windy in Berlin?", False),
    ("那边现在几点了？", SEOUL, "zh", "首尔现在几点了？", False),
    ("フィートだと？", MILE, "ja", "1 mi を ft に換算して", True),
    ("now in Fahrenheit", BERLIN, "en", "convert 4 °C to °F", True),
    ("save that in my notes so I don't forget", RENT, "en", "save 312.5 in my notes so I don't forget", True),
    ("remember that number", RENT, "en", "remember 312.5", True),
    ("嗯，记下来", MEETING, "zh", "嗯，记下来：提醒我明天跟王经理开会的事：上午十点，会议室B", True),
    ("把这个记到笔记里", SEOUL, "zh", "把「首尔: 2°C (feels like -2°C), Clear, wind 12 km/h」记到笔记里", True),
    ("now split that between 8 people", RENT, "en", "312.5/8", True),
])
def test_a_follow_up_is_written_out_with_what_it_refers_to(text, context, language, written, whole):
    said = restated(text, context, TOOLS, language)
    assert (said.text, said.whole) == (written, whole)


@pytest.mark.parametrize("text,context", [
    ("is there any rain in Berlin tomorrow?", BERLIN),  # names a place of its own
    ("is there a good museum?", BERLIN),  # "is there" asks whether something exists
    ("what time is it in Tokyo?", BERLIN),
    ("convert 3 miles to km", BERLIN),  # a number of its own: nothing of the result to convert
    ("save 'buy milk' as a note", RENT),  # says what to save
    ("thanks!", RENT),
])
def test_a_message_that_names_its_own_values_is_left_as_it_is(text, context):
    assert restated(text, context, TOOLS, "en").text == text


def test_save_that_keeps_the_calls_value_a_result_in_another_script_does_not_hold():
    qingdao = after("青岛天气", "weather", {"city": "青岛"}, "Qingdao: 9°C, Windy")
    assert saved_request("把这个记到笔记里", qingdao) == "把「青岛 Qingdao: 9°C, Windy」记到笔记里"
    # a call that failed leaves nothing to save
    failed = Context([Exchange("weather in Atlantis", [Call("weather", {"city": "Atlantis"}, "unknown city", False)])])
    assert saved_request("save that", failed) is None


@pytest.mark.parametrize("text,rest", [
    ("ありがとう。ところでバンコクの天気ってどう？", "バンコクの天気ってどう？"),
    ("話変わるけど、5ガロンって何リットル？", "5ガロンって何リットル？"),
    ("thx. how many liters are 3 gallons?", "how many liters are 3 gallons?"),
    ("btw what's 17*23", "what's 17*23"),
    ("いいなあ。向こうって今何時？", "向こうって今何時？"),
    ("谢谢！对了，悉尼现在几点？", "悉尼现在几点？"),
    ("thanks!", "thanks!"),  # nothing after the thanks
    ("thanks, that was super helpful", "thanks, that was super helpful"),  # thanks, asking nothing
    ("好冷啊", "好冷啊"),  # "好" alone opens nothing
    ("perfect weather in Paris?", "perfect weather in Paris?"),  # no comma: a word of the request
])
def test_thanks_or_a_change_of_subject_before_a_request_is_left_out(text, rest):
    assert unopened(text) == rest


def test_a_follow_up_that_says_there_is_decided_with_the_place_and_a_save_as_one_request():
    def rules(text, context):
        if "Berlin" in text and "time" in text:
            return Decision("current_time", {"timezone": "Berlin"})
        if "记下来：" in text:
            return Decision("notes", {"action": "add", "text": text.split("：", 1)[1]})
        if "，" in text or "：" in text:
            return Decision("notes", {"action": "add", "text": "a part"})  # what a part alone would give
        return Decision(None)  # the message alone names no place: nothing to call

    router = RuleRouter(rules)
    decisions = decide_requests(router, None, TOOLS, "what time is it over there?", "en", BERLIN)
    assert [(d.tool, d.params) for d in decisions] == [("current_time", {"timezone": "Berlin"})]
    decisions = decide_requests(router, None, TOOLS, "嗯，记下来", "zh", MEETING)
    assert [(d.tool, d.params) for d in decisions] == [("notes", {"action": "add", "text": "提醒我明天跟王经理开会的事：上午十点，会议室B"})]
    assert [text for text, _ in router.asked[1:]] == ["嗯，记下来：提醒我明天跟王经理开会的事：上午十点，会议室B"]  # whole, not in parts


NOTES_LISTED = after("show me my notes", "notes", {"action": "list"}, "3 notes:\n#4 call mom\n#7 renew passport\n#9 buy printer ink")
FOLDER = after("~/Documents/旅行 に何がある？", "file_list", {"path": "~/Documents/旅行"},
               "~/Documents/旅行 (3 entries):\n京都プラン.txt (2.0 KB)\n持ち物リスト.md (0.6 KB)\n領収書.pdf (88.1 KB)")
FOUND = after("search python releases", "web_search", {"query": "python releases"},
              "1. Python Releases - python.org (https://www.python.org/downloads/)\n2. What's New - docs (https://docs.python.org/3/whatsnew/)")


@pytest.mark.parametrize("text,context,item", [
    ("I renewed it yesterday, delete the passport one", NOTES_LISTED, "#7"),
    ("持ち物リストを開いて", FOLDER, "~/Documents/旅行/持ち物リスト.md"),
    ("open the what's new one", FOUND, "https://docs.python.org/3/whatsnew/"),
    ("open the python one", FOUND, "https://www.python.org/downloads/"),
    ("delete the note", NOTES_LISTED, None),  # names no item
    ("delete the call one", after("notes", "notes", {"action": "list"}, "#4 call mom\n#5 call the dentist"), None),  # fits both
    ("and Passport?", NOTES_LISTED, None),  # asks the question again of something new
    ("delete the passport one", after("x", "weather", {"city": "Passport"}, "Passport: 4°C"), None),  # one line lists nothing
])
def test_an_item_of_a_listing_is_named_by_its_number_path_or_address(text, context, item):
    from agent.router.followups import listed_item

    assert listed_item(text, context) == item


SUM = after("3800加2650加1270是多少", "calculator", {"expression": "3800+2650+1270"}, "3800+2650+1270 = 7720")


@pytest.mark.parametrize("text,written", [
    ("add 8% sales tax to that", "7720*(1+8/100)"),
    ("plus a 15% tip", "7720*(1+15/100)"),
    ("take 20% off", "7720*(1-20/100)"),
    ("now split that between 8 people", "7720/8"),
    ("打个八五折是多少", "7720*0.85"),
    ("打8折", "7720*0.8"),
    ("それを3人で割ると？", "7720/3"),
    ("4人で分けると？", "7720/4"),
])
def test_an_operation_said_in_words_works_on_the_last_result(text, written):
    assert restated(text, SUM, TOOLS).text == written


F_TO_C = after("convert 72 F to celsius", "unit_convert", {"value": 72, "from_unit": "°F", "to_unit": "°C"}, "72 °F = 22.2222 °C")
ROOT = after("256の平方根は？", "calculator", {"expression": "sqrt(256)"}, "sqrt(256) = 16.0")
SHARE = after("240 的 15% 是多少", "calculator", {"expression": "240*0.15"}, "240*0.15 = 36")


@pytest.mark.parametrize("text,context,params", [
    ("now 90", F_TO_C, {"value": 90, "from_unit": "°F", "to_unit": "°C"}),
    ("じゃあ 50 は？", F_TO_C, {"value": 50, "from_unit": "°F", "to_unit": "°C"}),
    ("80 だったら？", F_TO_C, {"value": 80, "from_unit": "°F", "to_unit": "°C"}),
    ("那９０呢", F_TO_C, {"value": 90, "from_unit": "°F", "to_unit": "°C"}),
    ("324だと？", ROOT, {"expression": "sqrt(324)"}),
    ("and 90 km?", F_TO_C, None),  # says more than a number
    ("what is 90", F_TO_C, None),
    ("那 20 呢", SHARE, None),  # two numbers in the expression: which one is meant is for the model
    ("now 90", BERLIN, None),  # the weather has no number to replace
])
def test_a_follow_up_that_is_only_a_number_is_the_previous_call_with_it(text, context, params):
    from agent.router.followups import renumbered

    tools = [*TOOLS, ToolManifest("unit_convert", "Convert units", {"value": "Number", "from_unit": "Unit", "to_unit": "Unit"})]
    again = renumbered(text, context, tools)
    assert (again.params if again else None) == params
    assert again is None or again.tool == context.exchanges[-1].calls[-1].tool


def test_a_bare_number_never_repeats_a_call_that_writes():
    from agent.router.followups import renumbered

    deleting = ToolManifest("notes", "Keep notes", {"action": "add, list or delete", "id": "The note's number"}, risk="write")
    deleted = after("delete note 7", "notes", {"action": "delete", "id": 7}, "deleted note #7")
    assert renumbered("and 9?", deleted, [deleting]) is None
    reading = ToolManifest("notes", "Keep notes", {"action": "add, list or delete", "id": "The note's number"}, risk="read")
    assert renumbered("and 9?", deleted, [reading]).params == {"action": "delete", "id": 9}  # the guard is the risk


@pytest.mark.parametrize("text,marked", [
    ("南京也查一下", True), ("厦门咧", True), ("ダウンロードフォルダも同じように", True), ("Lyon too?", True),
    ("and Paris as well", True), ("me too", False), ("I like it too", False), ("东京的天气呢", False),
])
def test_more_ways_of_asking_the_same_of_something_else(text, marked):
    from agent.router.references import marked_follow_up

    assert marked_follow_up(text) is marked


def two_temperatures(a: str, b: str) -> Context:
    return Context([Exchange("m", [Call("weather", {"city": "A"}, f"A: {a}°C (feels like 1°C), wind 5 km/h", True),
                                   Call("weather", {"city": "B"}, f"B: {b}°C, wind 3 km/h", True)])])


@pytest.mark.parametrize("text,language,a,b,asked", [
    ("Check the weather in Athens and in Rome, then tell me the temperature difference", "en", "19", "14", "calculate 19-14"),
    ("how much warmer is it in Bangkok than in Helsinki?", "en", "-5", "31", "calculate 31+5"),
    ("大连和厦门现在温差多少度？", "zh", "1", "21", "计算 21-1"),
    ("旭川と鹿児島の気温差を計算して", "ja", "-5", "15", "15+5 を計算して"),
    ("the weather in Athens and in Rome", "en", "19", "14", None),  # asks for no difference
])
def test_how_far_apart_two_results_are_is_their_subtraction(text, language, a, b, asked):
    from agent.router.followups import difference_request

    assert difference_request(text, two_temperatures(a, b), language) == asked


def test_a_difference_of_results_in_two_units_is_not_made():
    from agent.router.followups import difference_request

    mixed = Context([Exchange("m", [Call("weather", {"city": "A"}, "A: 19°C", True), Call("weather", {"city": "B"}, "B: 60°F", True)])])
    assert difference_request("what's the temperature difference?", mixed) is None


@pytest.mark.parametrize("text,result,language,asked", [
    ("每袋大米 2.5 公斤，买了 6 袋，一共多少磅？", "2.5*6 = 15", "zh", "把 15 kg 换算成 lb"),
    ("2リットルのペットボトルを6本買ったんだけど、合計何ガロン？", "2*6 = 12", "ja", "12 L を gal に換算して"),
    ("I ran 4 laps of 2.5 miles each, total in km please", "4*2.5 = 10", "en", "convert 10 mi to km"),
    ("what is 4 times 2.5?", "4*2.5 = 10", "en", None),  # asks for no unit
])
def test_a_bare_figure_converts_in_the_unit_the_message_gives_its_numbers_in(text, result, language, asked):
    from agent.router.followups import converted_request

    assert converted_request(text, after(text, "calculator", {"expression": "x"}, result), language) == asked


def test_the_difference_of_two_results_is_a_second_step():
    from agent.router.requests import decide_next_step

    def rules(text, context):
        if text == "计算 21-1":
            return Decision("calculator", {"expression": "21-1"})
        if "大连" in text and "厦门" not in text:
            return Decision("weather", {"city": "大连"})
        if "厦门" in text and "大连" not in text:
            return Decision("weather", {"city": "厦门"})
        return Decision("weather", {"city": "大连"})

    message = "大连和厦门现在温差多少度？"
    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [("weather", {"city": "大连"}), ("weather", {"city": "厦门"})]
    assert decisions[0].follows
    router = RuleRouter(rules)
    step = decide_next_step(router, None, TOOLS, message, "zh", two_temperatures("1", "21"))
    assert step is not None and (step.tool, step.params) == ("calculator", {"expression": "21-1"})
    assert [context for text, context in router.asked if text == "计算 21-1"] == [Context()]  # a request of its own


@pytest.mark.parametrize("message,place,other", [
    ("how much warmer is it in Bangkok than in Helsinki?", "Bangkok", "Helsinki"),
    ("Is Oslo colder than Reykjavik right now?", "Oslo", "Reykjavik"),
    ("How much colder is it in Oslo than in Rome?", "Rome", "Oslo"),  # the call took the second side
    ("曼谷比哈尔滨热多少度？", "曼谷", "哈尔滨"),
    ("今天上海比北京的气温高几度", "上海", "北京"),
    ("バンコクはヘルシンキより何度暖かい？", "バンコク", "ヘルシンキ"),
    ("東京より札幌はどのくらい寒い？", "札幌", "東京"),
])
def test_the_other_side_of_a_comparison_is_found(message, place, other):
    from agent.router.followups import compared_other

    assert compared_other(message, place) == other


@pytest.mark.parametrize("message,value", [
    ("what's the weather in Bangkok?", "Bangkok"),  # compares nothing
    ("search laptops better than MacBook Air", "laptops better than MacBook Air"),  # the value is no side
    ("Is it warmer in Paris than Rome?", "Berlin"),
    ("", "Paris"),
])
def test_a_message_that_compares_nothing_of_the_value_has_no_other_side(message, value):
    from agent.router.followups import compared_other

    assert compared_other(message, value) is None


def test_a_comparison_of_two_places_asks_the_same_call_of_both_and_then_their_difference():
    def rules(text, context):
        return Decision("weather", {"city": "曼谷"}) if "曼谷" in text else Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, "曼谷比哈尔滨热多少度？", "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [("weather", {"city": "曼谷"}), ("weather", {"city": "哈尔滨"})]
    assert decisions[0].follows  # how far apart the two are: a calculation once both returned
    # a yes-or-no comparison asks for both too, with nothing to work out after them
    yes_no = decide_requests(RuleRouter(lambda text, context: Decision("weather", {"city": "Paris"})), None, TOOLS,
                             "Is it warmer in Paris than Rome?", "en", Context())
    assert [d.params for d in yes_no] == [{"city": "Paris"}, {"city": "Rome"}] and not yes_no[0].follows
    # a call that takes no place is not asked again
    calc = decide_requests(RuleRouter(lambda text, context: Decision("calculator", {"expression": "2**10"})), None, TOOLS,
                           "is 2**10 bigger than Tokyo's population?", "en", Context())
    assert [d.tool for d in calc] == ["calculator"]


@pytest.mark.parametrize("message,language,items", [
    ("添加两条笔记：买鸡蛋、给花浇水", "zh", ["买鸡蛋", "给花浇水"]),
    ("add two notes: call mom, buy milk", "en", ["call mom", "buy milk"]),
    ("add two notes: 'buy eggs' and 'water plants'", "en", ["buy eggs", "water plants"]),  # quoted
    ("メモを3つ追加して：牛乳を買う、鍵を返す、花に水をやる", "ja", ["牛乳を買う", "鍵を返す", "花に水をやる"]),
])
def test_a_counted_list_after_a_colon_is_a_call_for_each_item(message, language, items):
    def rules(text, context):  # the first part is a note with its item (and the count taken for an id); the rest vary
        if items[0] in text and items[1] not in text:
            return Decision("notes", {"action": "add", "text": items[0], "id": str(len(items))})
        if text == message:
            return Decision("notes", {"action": "add", "text": "、".join(items)})
        return Decision("notes", {"action": "delete", "text": text}) if text == items[-1] else Decision(None)

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, language, Context())
    assert [(d.tool, d.params) for d in decisions] == [("notes", {"action": "add", "text": item}) for item in items]


@pytest.mark.parametrize("message", [
    "add a note: call mom, buy milk",  # no count: one note holds the list as said
    "add two notes: call mom, buy milk, water the plants",  # the count is not the list's
])
def test_a_list_without_its_count_stays_one_call(message):
    whole = Decision("notes", {"action": "add", "text": message.split(": ")[1]})

    def rules(text, context):
        return whole if text == message else Decision("notes", {"action": "add", "text": text.split(": ")[-1]})

    decisions = decide_requests(RuleRouter(rules), None, TOOLS, message, "en", Context())
    assert [(d.tool, d.params) for d in decisions] == [("notes", whole.params)]


def test_the_whole_message_loses_a_value_it_took_from_another_parts_call():
    def rules(text, context):
        if text.startswith("~/code"):
            return Decision("grep", {"pattern": "TODO", "path": "~/code"})
        if text.startswith("2**20"):
            return Decision("calculator", {"expression": "2**20"})
        return Decision("grep", {"pattern": "2**20", "path": "~/code"})  # the whole: the calculation as the pattern

    router = RuleRouter(rules)
    decisions = decide_requests(router, None, TOOLS, "~/code で TODO を検索して、2の20乗も計算して", "ja", Context())
    assert [(d.tool, d.params) for d in decisions] == [("grep", {"pattern": "TODO", "path": "~/code"}),
                                                       ("calculator", {"expression": "2**20"})]
    assert router.asked[0][0] == "~/code で TODO を検索して、2**20も計算して"  # the power written as the model copies it


@pytest.mark.parametrize("said,written", [
    ("2の20乗っていくつ？", "2**20っていくつ？"),
    ("2 的 20 次方等于多少", "2**20等于多少"),
    ("What is 2 to the power of 16?", "What is 2**16?"),
    ("3 raised to the 4th power", "3**4"),
    ("1.5 raised to 2", "1.5**2"),
    ("5 to the 3rd power", "5**3"),
    ("take me from 2 to the 3rd floor", "take me from 2 to the 3rd floor"),  # no power
    ("2乗数", "2乗数"),
])
def test_a_power_said_in_words_is_written_as_an_expression(said, written):
    from agent.router.spoken import with_powers

    assert with_powers(said) == written


@pytest.mark.parametrize("message,rest", [
    ("芝加哥的风速换成英里每小时是多少", "芝加哥的风速是多少"),
    ("シカゴの風速をマイル毎時で教えてください", "シカゴの風速を教えてください"),
    ("what is the wind speed in Chicago in mph?", "what is the wind speed in Chicago?"),
    ("how warm is it in Lima in Fahrenheit today", "how warm is it in Lima today"),
])
def test_a_unit_asked_for_is_dropped_for_the_first_step(message, rest):
    from agent.router.followups import unit_dropped

    assert unit_dropped(message) == rest


def test_a_number_to_convert_that_is_a_result_to_come_is_asked_for_first():
    from agent.router.requests import _other_unit

    convert = ToolManifest("unit_convert", "Convert", {"value": "Number", "from_unit": "Unit", "to_unit": "Unit"},
                           parameter_types={"value": "number", "from_unit": "string", "to_unit": "string"},
                           required=["value", "from_unit", "to_unit"])

    def rules(text, context):
        if text == "芝加哥的风速是多少":
            return Decision("weather", {"city": "芝加哥"})
        declined = Decision(None)
        declined.declined, declined.missing = "unit_convert", "value"  # no number to convert in the message
        return declined

    message = "芝加哥的风速换成英里每小时是多少"
    decisions = decide_requests(RuleRouter(rules), None, [*TOOLS, convert], message, "zh", Context())
    assert [(d.tool, d.params) for d in decisions] == [("weather", {"city": "芝加哥"})]
    assert decisions[0].follows and _other_unit(message, decisions)  # the wind speed, converted once it is known
    # a message that gives its number is declined as it was: nothing of it is a result to come
    stated = decide_requests(RuleRouter(rules), None, [*TOOLS, convert], "把三十公里换成英里", "zh", Context())
    assert [d.tool for d in stated] == [None] and stated[0].declined == "unit_convert"
