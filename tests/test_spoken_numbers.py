"""Numbers said in words become digits before a numeric value is copied from the message."""

import pytest

from agent.router import Router, RouterOptions
from agent.router.spoken import with_digits
from agent.toolkit.base import ToolManifest
from tests.test_routing import ScoringProvider


@pytest.mark.parametrize("said, digits", [
    ("set the bedroom lights to twenty percent", "set the bedroom lights to 20 percent"),
    ("twenty-four degrees", "24 degrees"),
    ("one hundred and twenty dollars", "120 dollars"),
    ("把卧室空调调到二十四度", "把卧室空调调到24度"),
    ("温度调到二十四点五度", "温度调到24.5度"),
    ("三万五千块", "35000块"),
    ("两个小时后提醒我", "2个小时后提醒我"),
    ("百分之二十的折扣", "20%的折扣"),
    ("负五度", "-5度"),
    ("エアコンを二十四度にして", "エアコンを24度にして"),
    ("三時間後に起こして", "3時間後に起こして"),
    ("音量を五にして", "音量を5にして"),  # a numeral alone before a particle
    ("给我来两杯咖啡", "给我来2杯咖啡"),
])
def test_numbers_said_in_words_are_written_in_digits(said, digits):
    assert with_digits(said) == digits


@pytest.mark.parametrize("said", [
    "the one I meant",  # "one" alone is a pronoun
    "我们一起去吧",  # 一起, 一下, 一緒: words, not numbers
    "帮我找一个大家都有空的半小时",  # 一 alone is "a"
    "りんごを一つ",
    "ちょっと一緒に来て",
    "九州の天気は？",  # a place's name
    "四川的天气",
    "百度一下",
    "月3万円で",  # digits stay as they are (the scale is read elsewhere)
    "halfway",
])
def test_words_that_only_look_like_numbers_stay(said):
    assert with_digits(said) == said


THERMOSTAT = ToolManifest("set_thermostat", "Set a room's target temperature",
                          {"room": "The room", "temperature": "Target temperature in degrees"},
                          ["Set the living room to 21 degrees"],
                          parameter_types={"room": "string", "temperature": "number"}, required=["room", "temperature"])


def test_a_number_said_in_words_is_copied_in_digits():
    provider = ScoringProvider({"set_thermostat": 0.0, "none": -9.0}, ["卧室", "24"])
    decision = Router(RouterOptions()).decide(provider, [THERMOSTAT], "把卧室空调调到二十四度", "zh")
    assert decision.params == {"room": "卧室", "temperature": "24"}
    assert provider.cursor.filters[1]["copy_from"] == "把卧室空调调到24度"
    assert provider.cursor.filters[1]["allowed"](b"24")
    plain = ScoringProvider({"set_thermostat": 0.0, "none": -9.0}, ["卧室", "24"])
    Router(RouterOptions(spoken_numbers=False)).decide(plain, [THERMOSTAT], "把卧室空调调到二十四度", "zh")
    assert "copy_from" not in plain.cursor.filters[1]  # the lever off: no digits to copy, written freely


MODE = ToolManifest("set_thermostat_mode", "Change a zone's operating mode without changing its setpoint",
                    {"zone": "The zone", "mode": "The mode"}, ["Switch downstairs to cooling"],
                    parameter_types={"zone": "string", "mode": ["heat", "cool", "auto"]}, required=["zone", "mode"])
SETPOINT = ToolManifest("set_thermostat", "Set a zone's target temperature",
                        {"zone": "The zone", "target_temperature": "Desired temperature"}, ["Downstairs to 21 degrees"],
                        parameter_types={"zone": "string", "target_temperature": "number"},
                        required=["zone", "target_temperature"])
COLOUR = ToolManifest("set_light_color", "Change the colour or white temperature of lights",
                      {"room": "The room", "color_temperature_k": "White colour temperature in Kelvin"}, ["Kitchen lights warm white"],
                      parameter_types={"room": "string",
                                       "color_temperature_k": {"type": "integer", "minimum": 2000, "maximum": 6500}},
                      required=["room"])
LIGHT = ToolManifest("set_light", "Turn lights on or off, optionally setting brightness",
                     {"room": "The room", "brightness": "Brightness in percent"}, ["Dim the hall lights"],
                     parameter_types={"room": "string", "brightness": {"type": "integer", "minimum": 0, "maximum": 100}},
                     required=["room"])


def test_a_stated_number_the_chosen_call_has_no_place_for_moves_the_choice_to_a_close_tool_that_takes_it():
    scores = {"set_thermostat_mode": 0.0, "set_thermostat": -1.5, "none": -9.0}
    provider = ScoringProvider(scores, ["upstairs", "upstairs", "68"])  # the mode's call, then the setpoint's
    decision = Router(RouterOptions()).decide(provider, [MODE, SETPOINT], "set the upstairs thermostat to 68", "en")
    assert (decision.tool, decision.params) == ("set_thermostat", {"zone": "upstairs", "target_temperature": "68"})
    written = "".join(provider.cursor.written)
    assert "set_thermostat_mode" not in written and written.endswith('"target_temperature": "68"')  # rewound
    # a number out of the parameter's range has no place either: 20 percent is no colour temperature
    lights = ScoringProvider({"set_light_color": 0.0, "set_light": -2.0, "none": -9.0}, ["bedroom", "", "bedroom", "20"])
    decision = Router(RouterOptions()).decide(lights, [COLOUR, LIGHT], "bedroom lights to twenty percent", "en")
    assert (decision.tool, decision.params) == ("set_light", {"room": "bedroom", "brightness": "20"})


@pytest.mark.parametrize("message, values, scores, options", [
    ("set the upstairs thermostat to heat", ["upstairs"], {"set_thermostat": -1.0}, {}),  # no number: kept
    ("2楼切换成制热模式", ["2楼"], {"set_thermostat": -1.0}, {}),  # the number is the zone's
    ("二楼切换成制热模式", ["二楼"], {"set_thermostat": -1.0}, {}),  # the same, said in words
    ("set the upstairs thermostat to 68", ["upstairs"], {"set_thermostat": -4.0}, {}),  # the other is not close
    ("set the upstairs thermostat to 68", ["upstairs"], {"set_thermostat": -1.0}, {"number_fit": False}),
])
def test_the_choice_stays_when_every_number_has_a_place_or_no_close_tool_takes_it(message, values, scores, options):
    provider = ScoringProvider({"set_thermostat_mode": 0.0, "none": -9.0, **scores}, values)
    decision = Router(RouterOptions(**options)).decide(provider, [MODE, SETPOINT], message, "en")
    assert decision.tool == "set_thermostat_mode" and decision.params["zone"] == values[0]
    assert len(provider.cursor.filters) == 1  # one value written: the other tool's call was not tried


def test_a_number_out_of_the_parameters_range_is_no_value_for_it():
    # the model put 20 ("twenty percent") in the Kelvin, which start at 2000: left out, and the loose
    # number then moves the choice to the close tool that takes it
    lights = ScoringProvider({"set_light_color": 0.0, "set_light": -2.0, "none": -9.0}, ["bedroom", "20", "bedroom", "20"])
    decision = Router(RouterOptions()).decide(lights, [COLOUR, LIGHT], "bedroom lights to twenty percent", "en")
    assert (decision.tool, decision.params) == ("set_light", {"room": "bedroom", "brightness": "20"})
    alone = ScoringProvider({"set_light_color": 0.0, "none": -9.0}, ["bedroom", "20"])
    assert Router(RouterOptions()).decide(alone, [COLOUR], "bedroom lights to twenty percent", "en").params == {"room": "bedroom"}
    warm = ScoringProvider({"set_light_color": 0.0, "none": -9.0}, ["bedroom", "2700"])
    assert Router(RouterOptions()).decide(warm, [COLOUR], "bedroom lights at 2700 K", "en").params == {
        "room": "bedroom", "color_temperature_k": "2700"}


def test_a_text_value_the_model_turned_into_a_number_is_copied_as_the_message_says_it():
    provider = ScoringProvider({"set_thermostat": 0.0, "none": -9.0}, ["1", "一楼", "24"])
    decision = Router(RouterOptions()).decide(provider, [SETPOINT], "一楼温度设到二十四度", "zh")
    assert decision.params == {"zone": "一楼", "target_temperature": "24"}
    assert provider.cursor.filters[1]["copy_from"] == "一楼温度设到二十四度"  # the zone, copied as said
    stated = ScoringProvider({"set_thermostat": 0.0, "none": -9.0}, ["2", "21"])
    assert Router(RouterOptions()).decide(stated, [SETPOINT], "zone 2 to 21 degrees", "en").params == {
        "zone": "2", "target_temperature": "21"}  # the message writes it in digits: kept


def test_a_bare_number_the_message_says_neither_in_digits_nor_in_words_is_not_copied_for():
    from agent.router.values import unsaid_number

    assert unsaid_number("1", "一楼温度设到二十四度") and unsaid_number("2", "second floor, two rooms")
    assert not unsaid_number("09", "cheapest day to fly Boston to Denver in September 2027")  # "02" of 2027 is no copy
    assert not unsaid_number("2", "zone 2") and not unsaid_number("upstairs", "upstairs")


CONVERT = ToolManifest("unit_convert", "Convert a quantity between units",
                       {"value": "The number", "from_unit": "Unit it is in", "to_unit": "Unit wanted"},
                       ["How many feet is 3 metres"], parameter_types={"value": "number", "from_unit": "string",
                                                                        "to_unit": "string"},
                       required=["value", "from_unit", "to_unit"])
WEATHER = ToolManifest("weather", "Current weather for a city", {"city": "City name"}, ["Weather in Oslo"],
                       parameter_types={"city": "string"}, required=["city"])


def test_a_required_number_the_message_states_nowhere_moves_the_choice_to_a_close_tool_that_needs_none():
    # "拉萨现在多少华氏度": the converter was chosen and wrote 30, a number of no message
    provider = ScoringProvider({"unit_convert": 0.0, "weather": -2.0, "none": -9.0}, ["30", "拉萨"])
    decision = Router(RouterOptions()).decide(provider, [CONVERT, WEATHER], "拉萨现在多少华氏度？", "zh")
    assert (decision.tool, decision.params) == ("weather", {"city": "拉萨"})
    # no close tool: declined for the missing number, not called with a made-up one
    far = ScoringProvider({"unit_convert": 0.0, "weather": -6.0, "none": -9.0}, ["1234"])
    decision = Router(RouterOptions()).decide(far, [CONVERT, WEATHER], "convert miles to feet", "en")  # ("a mile" states 1)
    assert (decision.tool, decision.declined, decision.missing) == (None, "unit_convert", "value")


@pytest.mark.parametrize("message,values", [
    ("把 30 度换成华氏", ["30", "度", "华氏"]),  # the message states its number
    ("把三十度换成华氏", ["30", "度", "华氏"]),  # in words
    ("how many feet in a mile", ["1", "mile", "foot"]),  # "a mile" is 1
])
def test_a_number_the_message_states_or_a_small_one_stays(message, values):
    provider = ScoringProvider({"unit_convert": 0.0, "weather": -2.0, "none": -9.0}, values)
    decision = Router(RouterOptions()).decide(provider, [CONVERT, WEATHER], message, "en")
    assert decision.tool == "unit_convert" and decision.params["value"] == values[0]


def test_a_made_up_number_is_one_of_two_or_more_digits_in_a_message_with_none():
    from agent.router.values import numberless

    assert numberless("100", "芝加哥的风速换成英里每小时是多少") and numberless("1234", "how many feet in a mile")
    assert not numberless("1", "how many feet in a mile") and not numberless("0.5", "half a kilo in pounds")
    assert not numberless("100", "convert 100 miles") and not numberless("12", "convert 3 miles")  # it states a number
    assert not numberless("Oslo", "weather in Oslo")


GREP = ToolManifest("grep", "Search the text files in the user's folders for lines containing a phrase",
                    {"pattern": "What to look for", "path": "Folder to search"}, ["Find TODO in ~/code"],
                    parameter_types={"pattern": "string", "path": "string"}, required=["pattern"])
NOTES = ToolManifest("notes", "替用户记住事情并在之后查找：添加笔记、搜索笔记、列出或删除笔记。",
                     {"action": "add, search, list or delete", "text": "The note's text"}, ["记一下明天开会"],
                     parameter_types={"action": ["add", "search", "list", "delete"], "text": "string"},
                     required=["action"])


@pytest.mark.parametrize("message,written,named", [
    ("search my notes for wifi password", ["wifi password", "notes", "wifi password"], "notes"),  # the tool's name
    ("在我的笔记里搜一下 密码", ["密码", "笔记", "密码"], "notes"),  # a word of its description
    ("search the src folder for TODO", ["TODO", "src"], "grep"),  # a folder that names no tool
    ("grep TODO in notes", ["TODO", "notes"], "grep"),  # the message names the tool it chose
    ("search ~/notes for TODO", ["TODO", "~/notes"], "grep"),  # a path, not a word
])
def test_a_folder_that_names_another_tool_moves_the_choice_to_it(message, written, named):
    provider = ScoringProvider({"grep": 0.0, "notes": -8.0, "none": -9.0, "search": -0.1}, written)
    decision = Router(RouterOptions()).decide(provider, [GREP, NOTES], message, "en")
    assert decision.tool == named
    if named == "notes":
        assert decision.params == {"action": "search", "text": written[-1]}


@pytest.mark.parametrize("said, percent", [
    ("close the office blinds halfway", "close the office blinds 50%"),
    ("lights at half brightness", "lights at 50% brightness"),
    ("open them three-quarters", "open them 75%"),
    ("a quarter of the way up", "25% of the way up"),
    ("音量调到一半", "音量调到50%"),
    ("窗帘开到四分之三", "窗帘开到75%"),
    ("ブラインドを半分まで開けて", "ブラインドを50%まで開けて"),
    ("4分の1だけ開けて", "25%だけ開けて"),
    # the half of a time or of an amount is no share of a level
    ("half past nine", "half past nine"), ("in half an hour", "in half an hour"), ("half a kilo", "half a kilo"),
    ("半分钟后", "半分钟后"),
])
def test_a_share_said_in_words_is_a_percentage(said, percent):
    from agent.router.spoken import as_percent

    assert as_percent(said) == percent


BLINDS = ToolManifest("set_blinds", "Move motorised blinds to a position.",
                      {"room": "Room name", "position": "0 = fully closed, 100 = fully open."},
                      parameter_types={"room": {"type": "string"},
                                       "position": {"type": "integer", "minimum": 0, "maximum": 100}},
                      required=["room", "position"])


@pytest.mark.parametrize("message, room, lever, position", [
    ("close the office blinds halfway", "office", True, "50"),
    ("书房的窗帘开一半", "书房", True, "50"),
    ("close the office blinds halfway", "office", False, None),  # the lever off: 50 of a message with no number is made up
    ("close the office blinds", "office", True, "0"),  # no share said: 0 of "0 = fully closed" (agent.router.labels)
    ("move the office blinds", "office", True, None),  # neither: 50 is made up
])
def test_a_share_said_in_words_is_a_percentage_the_message_states(message, room, lever, position):
    from agent.router.spoken import percent_scale

    provider = ScoringProvider({"set_blinds": 0.0, "none": -9.0}, [room, "50"])
    decision = Router(RouterOptions(write_examples=False, spoken_numbers=lever)).decide(provider, [BLINDS], message, "en")
    assert decision.params.get("position") == position
    if position:  # copied from the message, as "50%", or the number the description names
        assert ("50%" if position == "50" else "(0)") in provider.cursor.filters[1]["copy_from"]
    else:
        assert (decision.declined, decision.missing) == ("set_blinds", "position")
    assert percent_scale(BLINDS, "position") and percent_scale(LIGHT, "brightness") and not percent_scale(BLINDS, "room")
    assert not percent_scale(COLOUR, "color_temperature_k") and not percent_scale(SETPOINT, "target_temperature")
