"""The grounding check (agent.loop.grounding) and the answers Riverse composes (agent.loop.answers):
pure functions, with examples from real answers of the embedded model and generated cases."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.i18n import detect_language
from agent.loop.answers import LiveData, compose, failure_line, live_data_answer, with_failures
from agent.loop.grounding import (
    check,
    claims_failure,
    cut_loop,
    figures,
    is_echo,
    leaked,
    loop_start,
    mentions,
    names,
    normalize,
    unsupported_figures,
    unsupported_names,
)
from agent.toolkit.runtime import ToolOutcome

WEATHER = "Tokyo: 31°C (feels like 34°C), Partly cloudy, humidity 62%, wind 7 km/h"
WEATHER_ZH = "东京: 31°C (体感 34°C), 局部多云, 湿度 62%, 风速 7 km/h"
TIME_ZH = "东京 (Asia/Tokyo)：2026年11月30日 星期一 16:07:12（UTC+09:00, JST）"
TIME_EN = "Tokyo (Asia/Tokyo): Monday, 2026-11-30 16:07:12 (UTC+09:00, JST)"
UNREACHABLE = ("The weather service (http://127.0.0.1:9) could not be reached: [Errno 111] Connection refused. "
               "Check the network connection or try again later.")


def kinds(text: str) -> list[tuple[str, tuple]]:
    return [(f.kind, f.value) for f in figures(text)]


# ------------------------------------------------------------------------------------- figures
def test_normalize_makes_one_spelling_of_each_figure():
    assert normalize("３１℃、１，２３４円、−５度") == "31°C、1234円、-5度"
    assert normalize("1,234,567.5 and 12,5") == "1234567.5 and 12,5"


@pytest.mark.parametrize("text", ["31°C", "31 °C", "31 度", "31度", "31 degrees", "３１℃", "气温31摄氏度", "31℃"])
def test_temperatures_are_their_number(text):
    assert kinds(text) == [("number", (Decimal(31),))]


@pytest.mark.parametrize("text", ["2026年11月30日", "2026-11-30", "2026/11/30", "November 30, 2026", "30 November 2026",
                                  "Nov. 30, 2026", "２０２６年１１月３０日"])
def test_dates_in_every_format_are_one_date(text):
    assert kinds(text) == [("date", (2026, 11, 30))]


def test_dates_without_a_year_and_times_of_every_kind():
    assert kinds("11月30日") == [("date", (None, 11, 30))]
    assert kinds("16:07:12") == [("time", (16, 7, 12, False))]
    assert kinds("4:07 pm") == [("time", (16, 7, None, True))]
    assert kinds("下午4点07分") == [("time", (16, 7, None, True))]
    assert kinds("16時07分") == [("time", (16, 7, None, False))]
    assert kinds("4点半") == [("time", (4, 30, None, False))]
    assert kinds("3時間") == [("number", (Decimal(3),))]  # hours of duration, not a time of day


def test_list_marks_and_words_with_digits_are_no_figures():
    assert kinds("1. Tokyo\n2. Osaka") == []
    assert kinds("report_2024 and v2") == []


@pytest.mark.parametrize(
    "answer",
    [
        "It's 31°C in Tokyo, feels like 34 degrees, partly cloudy.",
        "东京现在31度，体感34度，局部多云，湿度62%。",
        "東京は今３１℃、湿度６２％です。",
        "The temperature is about 31 °C with a 7 km/h wind.",
    ],
)
def test_figures_from_the_result_in_any_format_are_supported(answer):
    assert unsupported_figures(answer, [WEATHER]) == []


def test_the_invented_weather_of_the_issue_is_caught():
    invented = unsupported_figures("The weather in Tokyo is currently cloudy with a low of 22 degrees Celsius.", ["What's the weather in Tokyo?", UNREACHABLE])
    assert [f.text for f in invented] == ["22"]
    chinese = unsupported_figures("东京和大阪的天气分别是阴天，气温22度。", ["东京和大阪天气怎么样？"])
    assert [f.text for f in chinese] == ["22"]
    yen = unsupported_figures("50ユーロは1円です。", ["50ユーロは何円？", "HTTP 503"])
    assert [f.text for f in yen] == ["1"]


def test_times_and_dates_match_across_formats_and_clocks():
    assert unsupported_figures("东京现在是下午4点07分，2026年11月30日，星期一。", [TIME_ZH]) == []
    assert unsupported_figures("It is 4:07 pm on November 30 in Tokyo.", [TIME_EN]) == []
    assert unsupported_figures("It's 16:07 on 2026-11-30, UTC+9.", [TIME_EN]) == []
    assert [f.text for f in unsupported_figures("It is 5:07 pm.", [TIME_EN])] == ["5:07 pm"]
    assert [f.text for f in unsupported_figures("It is December 1.", [TIME_EN])] == ["December 1"]


def test_rounded_figures_are_the_results_own():
    assert unsupported_figures("sqrt(2) is about 1.41, and 72 °F is 22.2 °C", ["sqrt(2) ≈ 1.41421356237", "72 °F = 22.2222 °C"]) == []
    assert [f.text for f in unsupported_figures("about 1.5", ["sqrt(2) ≈ 1.41421356237"])] == ["1.5"]


# --------------------------------------------------------------------------------------- names
def test_named_values_are_capitalised_words_quotes_files_paths_links_and_weekdays():
    text = "The folder has `ls` and report.pdf in ~/Documents/work; see https://example.com. It is Monday in Tokyo."
    assert names(text) == ["ls", "https://example.com", "~/Documents/work", "report.pdf", "Tokyo", "Monday"]


def test_the_invented_file_of_the_issue_is_caught():
    answer = "The directory contains several files, including `ls`."
    assert unsupported_names(answer, ["What's in my home folder?", "The folder '~' cannot be read: Permission denied."]) == ["ls"]


def test_weekdays_count_in_any_language():
    assert unsupported_names("It is Monday in Tokyo.", [TIME_ZH, "Tokyo"]) == []
    assert unsupported_names("今天是星期二。", [TIME_EN]) == ["星期二"]


# ----------------------------------------------------------------------- echo, leaks, loops
def test_an_answer_that_is_the_question_is_an_echo():
    assert is_echo("东京现在几点？顺便算一下 17*23", "东京现在几点？顺便算一下 17*23")
    assert is_echo("東京は今何時？ついでに 17*23 も計算して。", "東京は今何時？ついでに 17*23 も計算して")
    assert not is_echo("东京现在是16:07，17*23 = 391。", "东京现在几点？顺便算一下 17*23")


def test_the_prompts_own_instructions_are_a_leak():
    instruction = "これらの結果だけを使って、上の質問に一、二文で短く答えてください。"
    assert leaked("この結果だけを使って答えてください", [instruction]) == "の結果だけを"
    assert leaked("It is 31°C in Tokyo.", ["Answer the question in one or two short sentences, using only these results"]) == ""
    assert leaked("Answer the question in one or two sentences.", ["Answer the question in one or two short sentences"])


def test_a_line_said_again_is_a_loop_and_is_cut():
    looping = "It is 31°C in Tokyo.\nIt is 31°C in Tokyo.\nIt is 31°C in Tokyo."
    assert loop_start(looping) == len("It is 31°C in Tokyo.\n")
    assert cut_loop(looping) == "It is 31°C in Tokyo."
    assert cut_loop("哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈") .startswith("哈哈")
    assert loop_start("- a.txt (1 KB)\n- b.txt (2 KB)\n- c.txt (3 KB)") is None
    assert loop_start("1,000,000,000,000,000,000,000,000") is None


def test_claims_of_failure_in_three_languages():
    assert claims_failure("工具失败了。") and claims_failure("The tool failed.") and claims_failure("取得できませんでした")
    assert not claims_failure("東京は31°Cです。")


def test_a_result_is_mentioned_by_its_own_figures_or_names():
    assert mentions("17*23 = 391", "17*23 = 391", "What is 17*23?")
    assert not mentions("17 times 23, let me see.", "17*23 = 391", "What is 17*23?")
    assert mentions("It is partly cloudy in Tokyo", WEATHER, "Weather in Tokyo?")
    assert mentions("ok", "done", "do it")  # nothing to mention


# ----------------------------------------------------------------------------------- the check
def test_check_passes_a_faithful_answer_and_names_each_problem():
    assert check("It's 31°C and partly cloudy in Tokyo.", "What's the weather in Tokyo?", [("weather", WEATHER)]).ok
    verdict = check("工具失败了。", "17*23 等于多少？", [("calculator", "17*23 = 391")])
    assert verdict.problems == ["the answer claims a failure that did not happen", "the answer does not mention the result of calculator"]
    assert check("What's the weather in Tokyo?", "What's the weather in Tokyo?", [("weather", WEATHER)]).problems[0] == "the answer repeats the question"
    assert not check("", "q", []).ok


# ------------------------------------------------------------------------------ composed answers
def outcome(name: str, success: bool, data: str = "", error: str = "", status: str | None = None) -> ToolOutcome:
    return ToolOutcome(name, {}, success, data, error, status=status or ("ok" if success else "failed"))


def test_every_call_failed_says_which_tool_why_and_what_to_do():
    answer = compose([outcome("weather", False, error=UNREACHABLE)], "en")
    assert answer == f"I could not get an answer from the tools this time.\nThe weather tool failed: {UNREACHABLE}"
    zh = compose([outcome("currency", False, error="The exchange-rate service answered HTTP 503")], "zh")
    assert zh == "这次没能从工具得到结果。\n工具 currency 失败了：The exchange-rate service answered HTTP 503。请稍后再试，或换个说法。"
    timeout = failure_line(outcome("web_fetch", False, error="tool 'web_fetch' did not finish within 30 s", status="timeout"), "ja")
    assert "web_fetch" in timeout and "tools.web_fetch.timeout" in timeout


def test_partly_failed_states_the_failure_after_the_answer():
    outcomes = [outcome("current_time", True, TIME_EN), outcome("calculator", False, error="tool 'calculator' raised ValueError", status="error")]
    answer = with_failures("It is 16:07 in Tokyo.", outcomes, "en")
    assert answer.startswith("It is 16:07 in Tokyo.\nThe calculator tool broke down (tool 'calculator' raised ValueError).")
    assert compose(outcomes, "en").startswith(TIME_EN + "\nThe calculator tool broke down")


def test_live_data_answers_say_why_and_hold_no_value():
    for reason in ("off", "failed", "missing", "declined"):
        for language in ("en", "zh", "ja"):
            text = live_data_answer(LiveData("weather", reason, "detail", "What's the weather like in Tokyo?"), language)
            assert "weather" in text and detect_language(text.replace("What's the weather like in Tokyo?", "")) == language


# ------------------------------------------------------------------------------------ generated
EXAMPLES = 300
NUMBER = st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False, allow_infinity=False)
PLAIN = [lambda n: f"{n}", lambda n: f"{n:,}", lambda n: f"{n}".translate(str.maketrans("0123456789.", "０１２３４５６７８９．"))]
TEMPERATURES = [lambda n: f"{n}°C", lambda n: f"{n} 度", lambda n: f"{n} degrees", lambda n: f"{n}℃", lambda n: f"{n} degrees Celsius"]
FORMATS = PLAIN + TEMPERATURES
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def run(generated_cases: dict[str, int], name: str, test, count: dict[str, int]) -> None:
    """Run a property ``test`` (which counts its examples in ``count``) and report the count."""
    test()
    generated_cases[f"grounding: {name}"] = count["n"]
    assert count["n"] >= EXAMPLES // 2


def test_a_number_from_the_sources_in_any_format_is_supported(generated_cases):
    count = {"n": 0}

    @SETTINGS
    @given(number=NUMBER, said=st.sampled_from(FORMATS), source=st.sampled_from(FORMATS), plain=st.sampled_from(PLAIN))
    def check_number(number, said, source, plain):
        count["n"] += 1
        if said in TEMPERATURES and source in PLAIN:  # a unit said must have been stated
            assert unsupported_figures(f"It is {said(number)} now.", [f"value: {source(number)}"])
        else:
            assert unsupported_figures(f"It is {said(number)} now.", [f"value: {source(number)}"]) == []
        assert unsupported_figures(f"It is {plain(number)} now.", [f"value: {source(number)}"]) == []

    run(generated_cases, "a number of the sources, any format", check_number, count)


def test_a_number_in_neither_source_is_caught(generated_cases):
    count = {"n": 0}

    @SETTINGS
    @given(number=st.integers(min_value=0, max_value=10**6), other=st.integers(min_value=0, max_value=10**6),
           said=st.sampled_from(FORMATS))
    def check_other(number, other, said):
        count["n"] += 1
        if number != other:
            assert [f.value for f in unsupported_figures(f"It is {said(other)}.", [f"value: {number}"])] == [(Decimal(other),)]

    run(generated_cases, "a number in no source", check_other, count)


def test_a_date_written_in_any_format_is_the_same_date(generated_cases):
    count = {"n": 0}

    @SETTINGS
    @given(year=st.integers(1900, 2100), month=st.integers(1, 12), day=st.integers(1, 28), other=st.integers(1, 28))
    def check_date(year, month, day, other):
        count["n"] += 1
        spellings = [f"{year}-{month:02d}-{day:02d}", f"{year}年{month}月{day}日", f"{year}/{month}/{day}"]
        for said in spellings:
            for source in spellings:
                assert unsupported_figures(f"Date: {said}.", [source]) == []
        moved = f"{year}年{month}月{other}日"
        assert bool(unsupported_figures(moved, [spellings[0]])) == (other != day)

    run(generated_cases, "a date in three formats", check_date, count)


TEXT = st.text(alphabet=st.sampled_from(list("abc XYZ12.,:°C度年月日时点%\n东京。！？-")), max_size=80)


def test_cutting_a_loop_keeps_a_prefix_and_leaves_no_loop(generated_cases):
    count = {"n": 0}

    @SETTINGS
    @given(text=TEXT, times=st.integers(2, 4))
    def check_cut(text, times):
        count["n"] += 1
        kept = cut_loop(text)
        assert text.startswith(kept)
        assert loop_start(kept) is None
        sentence = "It is 31°C in Tokyo. "
        assert cut_loop(sentence * times + text) == sentence.strip()

    run(generated_cases, "cutting loops", check_cut, count)


RESULT_TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ 0123456789.:°C%-/年月日时点东京，。")), min_size=1, max_size=60)


def test_a_composed_answer_states_nothing_the_results_do_not(generated_cases):
    count = {"n": 0}

    @SETTINGS
    @given(data=st.lists(st.tuples(st.sampled_from(["weather", "calculator", "my_tool"]), st.booleans(), RESULT_TEXT),
                         min_size=1, max_size=3),
           language=st.sampled_from(["en", "zh", "ja"]))
    def check_composed(data, language):
        count["n"] += 1
        outcomes = [outcome(name, ok, text if ok else "", "" if ok else text) for name, ok, text in data]
        answer = compose(outcomes, language)
        sources = [o.data or o.error for o in outcomes]
        assert unsupported_figures(answer, sources) == []
        assert unsupported_names(answer, sources) == []
        for o in outcomes:
            assert o.success or o.name in answer

    run(generated_cases, "composed answers", check_composed, count)


def test_a_number_said_with_a_unit_must_have_been_stated_with_it():
    assert unsupported_figures("It is 31 degrees, 62 percent humidity, wind 7 kilometers per hour.", [WEATHER]) == []
    assert unsupported_figures("72 degrees Fahrenheit is about 22.2 degrees Celsius.", ["72 °F = 22.2222 °C"]) == []
    assert [f.text for f in unsupported_figures("17*23 equals 391 mph.", ["17*23 = 391"])] == ["391"]
    assert [f.unit for f in unsupported_figures("48*52 is 2496 pounds", ["48*52 = 2496"])] == ["lb"]
    assert unsupported_figures("50 EUR is ¥8,150", ["50 EUR = 8,150.00 JPY (rate 163.00)"]) == []
    assert [f.text for f in unsupported_figures("It is 31°F.", [WEATHER])] == ["31"]


def test_the_same_failure_twice_is_said_once():
    twice = [outcome("weather", False, error=UNREACHABLE), outcome("weather", False, error=UNREACHABLE)]
    assert compose(twice, "en").count("The weather tool failed") == 1
    assert loop_start(compose(twice, "en")) is None
