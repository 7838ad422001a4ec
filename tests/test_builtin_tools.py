"""The built-in tools: weather, calculator, current_time and unit_convert. No network is used: the
weather tool talks to a local HTTP server that imitates wttr.in's ``?format=j1`` JSON."""

from __future__ import annotations

import socket
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from agent.tools import ToolRegistry
from agent.i18n import detect_language
from agent.toolkit.validate import manifest_problems
from agent.tools.calculator import CalculatorTool
from agent.tools.current_time import CurrentTimeTool
from agent.tools.unit_convert import UnitConvertTool
from agent.tools.weather import WeatherTool
from tests.helpers.wttr import WttrStandIn

TOOLS = {"weather": WeatherTool, "calculator": CalculatorTool, "current_time": CurrentTimeTool, "unit_convert": UnitConvertTool}
FILES = {"weather.py", "calculator.py", "current_time.py", "unit_convert.py"}
LANGUAGES = ("en", "zh", "ja")


# ---------------------------------------------------------------- manifests and registry
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(TOOLS))
def test_manifest_is_valid_and_in_the_configured_language(name, language):
    manifest = TOOLS[name]({"language": language, "tools": {}}).manifest()
    assert manifest.name == name
    assert manifest_problems(manifest, language) == []
    assert 2 <= len(manifest.examples) <= 3
    texts = [manifest.description, *manifest.examples, *manifest.parameters.values()]
    assert all(text.strip() for text in texts)
    assert {detect_language(text, default="") for text in texts} == {language}
    assert manifest.risk == ("network" if name == "weather" else "read")
    assert set(manifest.required) <= set(manifest.parameters)


def test_registry_loads_the_builtin_tools_cleanly():
    registry = ToolRegistry({"language": "zh", "tools": {}}, builtin=True, packages=False)
    assert [p for p in registry.problems if Path(p.path).name in FILES] == []
    assert set(TOOLS) <= set(registry.names())
    assert registry.get("calculator").manifest().description == CalculatorTool({"language": "zh"}).manifest().description


def test_disabled_tool_is_not_registered():
    registry = ToolRegistry({"tools": {"calculator": {"enabled": False}}}, builtin=True, packages=False)
    assert "calculator" not in registry
    assert {"weather", "current_time", "unit_convert"} <= set(registry.names())
    # the registry applies the switch for every tool: the built-in tools need no check of their own
    (entry,) = [e for e in registry.entries(include_unavailable=True) if e.name == "calculator"]
    assert not entry.available and entry.reason == "disabled in settings (tools.calculator.enabled: false)"
    assert CalculatorTool({}).is_available()


# ---------------------------------------------------------------- weather
J1 = {
    "current_condition": [
        {
            "temp_C": "12", "FeelsLikeC": "10", "humidity": "40", "windspeedKmph": "9",
            "weatherDesc": [{"value": "Sunny"}], "lang_zh": [{"value": "晴"}], "lang_ja": [{"value": "晴れ"}],
        }
    ],
    "nearest_area": [{"areaName": [{"value": "Tokyo"}]}],
}


@pytest.fixture(scope="module")
def wttr_server():
    with WttrStandIn(J1) as server:
        yield server


@pytest.fixture
def wttr(wttr_server):
    """The local wttr.in stand-in, with the request paths of this test in ``.paths``."""
    wttr_server.clear()
    return wttr_server


def _weather(server_or_url, language: str = "en") -> WeatherTool:
    base = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    return WeatherTool({"language": language, "tools": {"weather": {"base_url": base, "timeout": 5}}})


def test_weather_reports_the_current_condition(wttr):
    result = _weather(wttr).execute({"city": "Tokyo"})
    assert result.success, result.error
    assert result.data == "Tokyo: 12°C (feels like 10°C), Sunny, humidity 40%, wind 9 km/h"
    (path,) = wttr.paths
    assert urlsplit(path).path == "/Tokyo"
    assert parse_qs(urlsplit(path).query) == {"format": ["j1"]}


@pytest.mark.parametrize(
    "language, city, encoded, expected",
    [
        ("zh", "东京", "/%E4%B8%9C%E4%BA%AC", "东京: 12°C (体感 10°C), 晴, 湿度 40%, 风速 9 km/h"),
        ("ja", "東京", "/%E6%9D%B1%E4%BA%AC", "東京: 12°C (体感 10°C)、晴れ、湿度 40%、風速 9 km/h"),
        ("en", "New York", "/New%20York", "New York: 12°C"),
    ],
)
def test_weather_encodes_the_city_and_localizes(wttr, language, city, encoded, expected):
    result = _weather(wttr, language).execute({"city": city})
    assert result.success, result.error
    assert result.data.startswith(expected)
    path, _, query = wttr.paths[0].partition("?")
    assert path == encoded
    assert "format=j1" in query
    assert ("lang=" + language in query) == (language != "en")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "city, fragment",
    [
        ("Nowhere", {"en": "Nowhere", "zh": "Nowhere", "ja": "Nowhere"}),
        ("Html", {"en": "not JSON", "zh": "JSON", "ja": "JSON"}),
        ("Empty", {"en": "does not know", "zh": "找不到", "ja": "見つけられません"}),
        ("Broken", {"en": "503", "zh": "503", "ja": "503"}),
        ("  ", {"en": "No city", "zh": "城市名", "ja": "都市名"}),
    ],
)
def test_weather_errors_are_clean_and_localized(wttr, language, city, fragment):
    result = _weather(wttr, language).execute({"city": city})
    assert not result.success and result.data == ""
    assert fragment[language] in result.error
    assert detect_language(result.error, default="") == language


def test_weather_reports_an_unreachable_service():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = _weather(f"http://127.0.0.1:{port}").execute({"city": "Tokyo"})
    assert not result.success
    assert "could not be reached" in result.error and f"127.0.0.1:{port}" in result.error
    assert "Errno" in result.error or "refused" in result.error.lower()


@pytest.mark.parametrize("language, fragment", [("en", "did not answer within 5 seconds"), ("ja", "5 秒以内")])
def test_weather_reports_a_timeout(monkeypatch, language, fragment):
    def slow(*args: object, **kwargs: object) -> None:
        raise requests.Timeout("read timed out")

    monkeypatch.setattr(requests, "get", slow)
    result = _weather("http://127.0.0.1:9", language).execute({"city": "Tokyo"})
    assert not result.success and fragment in result.error


def test_weather_default_settings():
    tool = WeatherTool({})
    assert tool._settings() == ("https://wttr.in", 10.0)


# ---------------------------------------------------------------- calculator
def calc(expression: str, language: str = "en"):
    return CalculatorTool({"language": language}).execute({"expression": expression})


@pytest.mark.parametrize(
    "expression, data",
    [
        ("2**10", "2**10 = 1024"),
        ("0.1+0.2", "0.1+0.2 = 0.3"),
        ("1 - 0.9", "1 - 0.9 = 0.1"),
        ("1/3", "1/3 = 0.333333333333 (= 1/3)"),
        ("2^10", "2^10 = 1024"),
        ("１２＋３×４", "１２＋３×４ = 24"),
        ("7÷2", "7÷2 = 3.5"),
        ("3 x 4", "3 x 4 = 12"),
        ("3²", "3² = 9"),
        ("1,000 + 2,500", "1,000 + 2,500 = 3500"),
        ("15% of 80", "15% of 80 = 12"),
        ("80*15%", "80*15% = 12"),
        ("7 % 3", "7 % 3 = 1"),
        ("-(2+3)*4", "-(2+3)*4 = -20"),
        ("7 // 2", "7 // 2 = 3"),
        ("sqrt(16)", "sqrt(16) = 4"),
        ("8**(1/3)", "8**(1/3) = 2"),
        ("sqrt(2)", "sqrt(2) ≈ 1.41421356237"),
        ("log(1000, 10)", "log(1000, 10) = 3"),
        ("log10(0.001)", "log10(0.001) = -3"),
        ("ln(e)", "ln(e) ≈ 1"),
        ("sin(pi)", "sin(pi) ≈ 0"),
        ("round(2.5)", "round(2.5) = 3"),
        ("round(2.675, 2)", "round(2.675, 2) = 2.68"),
        ("floor(-2.5) + ceil(2.1) + abs(-4)", "floor(-2.5) + ceil(2.1) + abs(-4) = 4"),
        ("factorial(20)", "factorial(20) = 2432902008176640000"),
        ("2**-3", "2**-3 = 0.125"),
        ("1.0000001**20000", "1.0000001**20000 ≈ 1.00200200123"),
        ("1+1=", "1+1 = 2"),
        ("√2025", "√2025 = 45"),
        ("2√9 + √(16+9)", "2√9 + √(16+9) = 11"),
        ("$247.50 / 6", "$247.50 / 6 = 41.25"),
        ("586 元 / 4", "586 元 / 4 = 146.5"),
        ("586 / 4 = 141.5", "586 / 4 = 146.5"),  # a guessed answer after "=" is dropped, not trusted
        ("0x1F", "0x1F = 31"),
    ],
)
def test_calculator_is_exact(expression, data):
    result = calc(expression)
    assert result.success, result.error
    assert result.data == data


def test_calculator_summarizes_long_integers():
    result = calc("factorial(1000)", "zh")
    assert result.success
    assert result.data.startswith("factorial(1000) ≈ 4.02387260077e+2567")
    assert "2568 位" in result.data


@pytest.mark.parametrize(
    "expression, fragment",
    [
        ("", "No expression"),
        ("1+" * 300 + "1", "limit is 500"),
        ("1/0", "Division by zero"),
        ("5 % 0", "Division by zero"),
        ("0**-1", "Division by zero"),
        ("2**100000", "too large"),
        ("9**9**9", "too large"),
        ("10**5000", "too large"),
        ("2**9999", "too large"),
        ("1e5000", "too large"),
        ("exp(1000)", "too large"),
        ("factorial(1001)", "factorial() needs a whole number from 0 to 1000"),
        ("factorial(2.5)", "factorial()"),
        ("sqrt(-4)", "no real-number result"),
        ("(-8)**(1/3)", "no real-number result"),
        ("log(0)", "logarithm"),
        ("x + 1", "\"x\" is not a known constant or function"),
        ("__import__('os')", "\"__import__\" is not a known"),
        ("__import__('os').system('true')", "is not allowed"),
        ("(1).__class__", "is not allowed"),
        ("[1, 2]", "is not allowed"),
        ("'a' * 3", "is not allowed"),
        ("lambda: 1", "is not allowed"),
        ("round(1.5, ndigits=1)", "is not allowed"),
        ("sqrt(1, 2)", "sqrt() takes 1 argument(s), but got 2"),
        ("(1 + 2", "Could not read"),
        ("sqrt 2", "Could not read"),
        ("3加5", "Could not read"),
    ],
)
def test_calculator_rejects_bad_input_cleanly(expression, fragment):
    result = calc(expression)
    assert not result.success and result.data == ""
    assert fragment in result.error


@pytest.mark.parametrize("language, fragment", [("zh", "除以零"), ("ja", "ゼロ除算")])
def test_calculator_errors_are_localized(language, fragment):
    assert fragment in calc("1/0", language).error


# ---------------------------------------------------------------- current_time
FIXED = datetime(2024, 3, 15, 12, 0, 0, tzinfo=timezone.utc)  # a Friday


def clock_tool(language: str = "en") -> CurrentTimeTool:
    tool = CurrentTimeTool({"language": language})
    tool.now = lambda tz: FIXED.astimezone(tz)
    return tool


@pytest.mark.parametrize(
    "language, zone, expected",
    [
        ("en", "Asia/Tokyo", "Asia/Tokyo: Friday, 2024-03-15 21:00:00 (UTC+09:00, JST)"),
        ("en", "tokyo", "tokyo (Asia/Tokyo): Friday, 2024-03-15 21:00:00 (UTC+09:00, JST)"),
        ("zh", "东京", "东京 (Asia/Tokyo)：2024年3月15日 星期五 21:00:00（UTC+09:00, JST）"),
        ("ja", "東京", "東京 (Asia/Tokyo): 2024年3月15日 金曜日 21:00:00（UTC+09:00, JST）"),
        ("en", "New York", "New York (America/New_York): Friday, 2024-03-15 08:00:00 (UTC-04:00, EDT)"),
        ("zh", "伦敦", "伦敦 (Europe/London)：2024年3月15日 星期五 12:00:00（UTC+00:00, GMT）"),
        ("ja", "ムンバイ", "ムンバイ (Asia/Kolkata): 2024年3月15日 金曜日 17:30:00（UTC+05:30, IST）"),
        ("en", "UTC", "UTC: Friday, 2024-03-15 12:00:00 (UTC+00:00)"),
        ("en", "UTC+8", "UTC+8 (UTC+08:00): Friday, 2024-03-15 20:00:00 (UTC+08:00)"),
        ("en", "GMT-05:30", "GMT-05:30 (UTC-05:30): Friday, 2024-03-15 06:30:00 (UTC-05:30)"),
    ],
)
def test_current_time_with_an_injected_clock(language, zone, expected):
    result = clock_tool(language).execute({"timezone": zone})
    assert result.success, result.error
    assert result.data == expected


@pytest.mark.parametrize(
    "names, zone",
    [
        (("Beijing", "北京", "Shanghai", "上海"), "Asia/Shanghai"),
        (("London", "伦敦", "ロンドン"), "Europe/London"),
        (("Paris", "巴黎", "パリ"), "Europe/Paris"),
        (("Berlin", "柏林", "ベルリン"), "Europe/Berlin"),
        (("Sydney", "悉尼", "シドニー"), "Australia/Sydney"),
        (("Los Angeles", "洛杉矶", "ロサンゼルス", "San Francisco"), "America/Los_Angeles"),
        (("Chicago",), "America/Chicago"),
        (("Toronto",), "America/Toronto"),
        (("Singapore", "新加坡", "シンガポール"), "Asia/Singapore"),
        (("Hong Kong", "香港"), "Asia/Hong_Kong"),
        (("Seoul", "首尔", "ソウル"), "Asia/Seoul"),
        (("Moscow", "莫斯科", "モスクワ"), "Europe/Moscow"),
        (("Dubai", "迪拜", "ドバイ"), "Asia/Dubai"),
        (("Mumbai", "Delhi"), "Asia/Kolkata"),
        (("Bangkok",), "Asia/Bangkok"),
        (("Taipei", "台北"), "Asia/Taipei"),
        (("Osaka", "大阪"), "Asia/Tokyo"),
        (("NEW YORK", "纽约", "ニューヨーク", "america/new_york"), "America/New_York"),
        (("Helsinki", "赫尔辛基", "赫爾辛基", "ヘルシンキ"), "Europe/Helsinki"),  # CLDR's city names
        (("Reykjavik", "雷克雅未克", "レイキャビク"), "Atlantic/Reykjavik"),
        (("Nagoya", "名古屋", "広島", "广岛", "札幌"), "Asia/Tokyo"),  # large cities of one country's zone
        (("Harbin", "哈尔滨", "ハルビン", "拉萨", "青岛", "青島"), "Asia/Shanghai"),
    ],
)
def test_current_time_city_aliases(names, zone):
    for name in names:
        result = clock_tool().execute({"timezone": name})
        assert result.success, (name, result.error)
        assert zone in result.data


@pytest.mark.parametrize("text", ["昭和の時代の話", "大分寒いね", "千葉さんに連絡して"])
def test_words_that_are_also_a_stations_or_a_citys_name_are_no_place(text):
    from agent.router.forms import place_names

    assert place_names(text) == []


def test_current_time_local_zone(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    result = clock_tool().execute({})
    assert result.data == "Asia/Tokyo: Friday, 2024-03-15 21:00:00 (UTC+09:00, JST)"


def test_current_time_without_injected_clock_uses_the_real_clock():
    result = CurrentTimeTool({}).execute({"timezone": "UTC"})
    assert result.success and str(datetime.now(timezone.utc).year) in result.data


@pytest.mark.parametrize("language, fragment", [("en", "IANA name"), ("zh", "IANA 时区名"), ("ja", "IANA 名")])
def test_current_time_unknown_zone(language, fragment):
    result = clock_tool(language).execute({"timezone": "Atlantis/Nowhere"})
    assert not result.success and result.data == ""
    assert "Atlantis/Nowhere" in result.error and fragment in result.error
    assert not clock_tool().execute({"timezone": "UTC+15"}).success


# ---------------------------------------------------------------- unit_convert
def convert(value, from_unit: str, to_unit: str, language: str = "en"):
    return UnitConvertTool({"language": language}).execute({"value": value, "from_unit": from_unit, "to_unit": to_unit})


@pytest.mark.parametrize(
    "value, from_unit, to_unit, data",
    [
        (10, "km", "mi", "10 km = 6.21371 mi"),
        (10, "公里", "英里", "10 km = 6.21371 mi"),
        (1, "nautical mile", "m", "1 nmi = 1852 m"),
        (12, "inches", "ft", "12 in = 1 ft"),
        (5, "lb", "kg", "5 lb = 2.26796 kg"),
        (1, "ポンド", "グラム", "1 lb = 453.592 g"),
        (1, "st", "lb", "1 st = 14 lb"),
        (100, "℃", "℉", "100 °C = 212 °F"),
        (37, "摂氏", "華氏", "37 °C = 98.6 °F"),
        (-40, "华氏度", "摄氏度", "-40 °F = -40 °C"),
        (0, "K", "degrees Celsius", "0 K = -273.15 °C"),
        (1, "gallon", "liters", "1 gal = 3.78541 L"),
        (3, "tbsp", "tsp", "3 tbsp = 9 tsp"),
        (1, "cup", "ml", "1 cup = 236.588 mL"),
        (1, "m³", "升", "1 m3 = 1000 L"),
        (100, "km/h", "mph", "100 km/h = 62.1371 mph"),
        (10, "knots", "km/h", "10 knot = 18.52 km/h"),
        (1, "m/s", "ft/s", "1 m/s = 3.28084 ft/s"),
        (1, "GB", "MiB", "1 GB = 953.674 MiB"),
        (3, "ギガ", "メガバイト", "3 GB = 3000 MB"),
        (2, "太字节", "吉字节", "2 TB = 2000 GB"),
        (2, "大さじ", "小さじ", "2 tbsp = 6 tsp"),
        (1, "KiB", "B", "1 KiB = 1024 B"),
        (8, "b", "B", "8 bit = 1 B"),
        ("1,500", "m", "km", "1500 m = 1.5 km"),
        (0.1, "m", "cm", "0.1 m = 10 cm"),
    ],
)
def test_unit_convert_each_dimension(value, from_unit, to_unit, data):
    result = convert(value, from_unit, to_unit)
    assert result.success, result.error
    assert result.data == data


@pytest.mark.parametrize("value, from_unit, to_unit, data", [
    (10, "キロ", "ポンド", "10 kg = 22.0462 lb"),  # "10キロは何ポンド": kilograms
    (10, "キロ", "マイル", "10 km = 6.21371 mi"),  # "10キロは何マイル": kilometres
    (5, "mile", "kilo", "5 mi = 8.04672 km"),
    (70, "kilos", "lb", "70 kg = 154.324 lb"),
])
def test_unit_convert_reads_a_bare_kilo_by_the_other_unit(value, from_unit, to_unit, data):
    result = convert(value, from_unit, to_unit)
    assert result.success and result.data == data
    assert UnitConvertTool({"language": "ja"}).same_value("from_unit", "kg", "キロ")  # as the bench judges a call
    assert not UnitConvertTool({"language": "ja"}).same_value("from_unit", "kg", "km")


@pytest.mark.parametrize(
    "language, fragments",
    [("en", ("length", "mass", "km", "kg")), ("zh", ("长度", "质量")), ("ja", ("長さ", "質量"))],
)
def test_unit_convert_refuses_mixed_dimensions(language, fragments):
    result = convert(10, "km", "kg", language)
    assert not result.success and result.data == ""
    assert all(fragment in result.error for fragment in fragments)


@pytest.mark.parametrize(
    "value, from_unit, to_unit, fragment",
    [
        (1, "parsec", "m", "Unknown unit \"parsec\""),
        ("abc", "m", "km", "\"abc\" is not a number"),
        ("1,5", "m", "km", "is not a number"),
        (None, "m", "km", "Missing value"),
        (1, "m", " ", "Missing to_unit"),
        (-300, "C", "K", "below absolute zero"),
    ],
)
def test_unit_convert_bad_input(value, from_unit, to_unit, fragment):
    result = convert(value, from_unit, to_unit)
    assert not result.success and fragment in result.error
