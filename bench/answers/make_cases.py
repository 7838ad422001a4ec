"""Writes ``bench/answers/cases.yaml``: the answer benchmark's cases, in English, Chinese and Japanese.

Each case is a user's message and what this turn's tools returned (no tool runs in the benchmark):
one or two calls that succeeded, failed, or partly failed; or none, for a message that asks for live
data no tool looked up (the tool is off, its last call failed, or the message lacks what it needs).
Results are the built-in tools' own output where they run without a network (calculator,
unit_convert, current_time with a fixed clock), their own texts otherwise (weather, file_list,
notes), and the output of a user's own tools (a currency converter, a stock quote). A third of the
cases are the second or third turn of a conversation whose earlier answers hold other figures.
Every third case (by a hash of its id) is held out.

    .venv/bin/python -m bench.answers.make_cases
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from agent.i18n import pick
from agent.toolkit.base import answering_in
from agent.tools.calculator import CalculatorTool
from agent.tools.current_time import CurrentTimeTool
from agent.tools.unit_convert import UnitConvertTool
from agent.tools.weather import _TEXT as WEATHER_TEXT

OUT = Path(__file__).resolve().parent / "cases.yaml"
LANGS = ("en", "zh", "ja")

CITIES = [
    ("Tokyo", "东京", "東京"), ("London", "伦敦", "ロンドン"), ("Paris", "巴黎", "パリ"), ("New York", "纽约", "ニューヨーク"),
    ("Sydney", "悉尼", "シドニー"), ("Berlin", "柏林", "ベルリン"), ("Osaka", "大阪", "大阪"), ("Shanghai", "上海", "上海"),
    ("Seoul", "首尔", "ソウル"), ("Dubai", "迪拜", "ドバイ"), ("Madrid", "马德里", "マドリード"), ("Toronto", "多伦多", "トロント"),
]
SKIES = [("Partly cloudy", "局部多云", "晴れ時々曇り"), ("Light rain", "小雨", "小雨"), ("Sunny", "晴", "晴れ"),
         ("Overcast", "阴", "曇り"), ("Clear", "晴朗", "快晴"), ("Light snow", "小雪", "小雪"), ("Mist", "薄雾", "霧")]
L = {"en": 0, "zh": 1, "ja": 2}

WEATHER_Q = {
    "en": ["What's the weather in {c}?", "How hot is it in {c} right now?", "Is it raining in {c}?", "weather {c} rn",
           "Do I need a jacket in {c} today?", "What's the temperature in {c}?"],
    "zh": ["{c}今天天气怎么样？", "{c}现在多少度？", "{c}在下雨吗？", "{c}冷不冷？", "查一下{c}的天气", "{c}现在湿度大吗？"],
    "ja": ["{c}の天気は？", "{c}は今何度？", "{c}は雨が降っていますか？", "{c}って今寒い？", "{c}の天気を調べて", "{c}の湿度はどれくらい？"],
}
TIME_Q = {
    "en": ["What time is it in {c}?", "What's the date in {c} today?", "Is it night in {c} right now?", "Current time in {c}, please"],
    "zh": ["{c}现在几点？", "{c}今天几号？", "{c}现在是晚上吗？", "{c}现在是星期几？"],
    "ja": ["{c}は今何時？", "{c}は今日何日？", "{c}は今夜ですか？", "{c}の現在時刻を教えて"],
}
CALC_Q = {
    "en": ["What is {e}?", "Calculate {e}", "how much is {e}", "Can you work out {e} for me?"],
    "zh": ["{e} 等于多少？", "算一下 {e}", "帮我计算 {e}", "{e} 是多少"],
    "ja": ["{e} はいくつ？", "{e} を計算して", "{e} っていくら？", "{e} の答えは？"],
}
EXPRESSIONS = ["17*23", "1234*5678", "2**10", "sqrt(2)", "(3+4)*12", "1/3", "99*99", "365*24", "7.5*12", "100/8", "2**32", "48*52"]
CONVERSIONS = [("72", "°F", "°C"), ("10", "km", "mi"), ("5", "kg", "lb"), ("100", "km/h", "mph"), ("1.5", "GB", "MB"), ("6", "ft", "cm")]
CONVERT_Q = {
    "en": ["Convert {v} {f} to {t}", "How many {t} is {v} {f}?", "{v} {f} in {t}?"],
    "zh": ["把 {v} {f} 换算成 {t}", "{v} {f} 等于多少 {t}？", "{v} {f} 是多少 {t}"],
    "ja": ["{v} {f} を {t} に換算して", "{v} {f} は何 {t}？", "{v} {f} って {t} でどれくらい？"],
}
MOMENTS = [datetime(2026, 11, 30, 16, 7, 12), datetime(2026, 3, 5, 8, 45, 3), datetime(2025, 12, 31, 23, 58, 40),
           datetime(2026, 7, 14, 12, 0, 9), datetime(2026, 1, 2, 5, 30, 55)]
FOLDERS = ["Documents", "Downloads", "projects", "reports/2026"]
FILES = ["budget-2026.xlsx (48.2 KB)", "notes.txt (1.1 KB)", "photos/", "slides_final.pptx (3.4 MB)", "invoice_0412.pdf (220.5 KB)",
         "todo.md (612 B)", "archive/", "meeting-minutes.docx (35.0 KB)", "map.png (1.8 MB)", "draft_v2.txt (4.0 KB)"]
FILES_Q = {
    "en": ["What's in my {d} folder?", "List the files in {d}", "Show me what's in {d}"],
    "zh": ["我的 {d} 文件夹里有什么？", "列出 {d} 里的文件", "看看 {d} 里有哪些文件"],
    "ja": ["{d} フォルダーに何がある？", "{d} のファイルを一覧にして", "{d} の中身を見せて"],
}
NOTE_Q = {
    "en": ("Remember that my locker code is {n}", "my locker code is {n}"),
    "zh": ("记住我的储物柜密码是 {n}", "我的储物柜密码是 {n}"),
    "ja": ("ロッカーの番号は {n} だと覚えておいて", "ロッカーの番号は {n}"),
}
NOTE_SAVED = {"en": "Saved note #{id}: {text}", "zh": "已保存笔记 #{id}：{text}", "ja": "メモ #{id} を保存しました: {text}"}
CURRENCY_Q = {"en": "How much is {a} euros in yen?", "zh": "{a}欧元是多少日元？", "ja": "{a}ユーロは何円？"}
STOCK_Q = {"en": "What's the stock price of {s}?", "zh": "{s} 的股价是多少？", "ja": "{s} の株価は？"}
TWO_Q = {
    "time_calc": {"en": "What time is it in {c}? Also, what is {e}?", "zh": "{c}现在几点？顺便算一下 {e}",
                  "ja": "{c}は今何時？ついでに {e} も計算して"},
    "weather_time": {"en": "What's the weather and the time in {c}?", "zh": "{c}现在几点，天气怎么样？",
                     "ja": "{c}の今の時刻と天気を教えて"},
    "two_cities": {"en": "Compare the weather in {c} and {c2}", "zh": "{c}和{c2}哪里更热？", "ja": "{c}と{c2}の天気を比べて"},
    "calc_convert": {"en": "What is {e}, and how many {t} is {v} {f}?", "zh": "{e} 等于多少？另外 {v} {f} 是多少 {t}？",
                     "ja": "{e} はいくつ？あと {v} {f} は何 {t}？"},
}
FOLLOW_UPS = {
    "en": ["And tomorrow?", "What about tonight?", "Is it going to rain there later?", "How about the weekend?", "Is it colder now?"],
    "zh": ["那明天呢？", "晚上会下雨吗？", "那边周末天气如何？", "现在那边冷吗？", "现在比刚才冷吗？"],
    "ja": ["明日は？", "夜は雨が降る？", "週末はどう？", "向こうは今寒い？", "さっきより寒くなった？"],
}
ADVICE_FOLLOW_UPS = {
    "en": ["So what should I wear?", "Hmm, what should I pack then?", "Thanks. Anything I should take with me?"],
    "zh": ["那我该穿什么？", "那出门要带什么？", "好的，那我出门要注意什么？"],
    "ja": ["それなら何を着ればいい？", "じゃあ何を持っていけばいい？", "了解。出かけるとき何に気をつければいい？"],
}
NEWS_Q = {"en": "What's the latest news about {t}?", "zh": "{t}的最新消息是什么？", "ja": "{t}の最新ニュースは？"}
TOPICS = [("the Mars mission", "火星任务", "火星探査"), ("the World Cup", "世界杯", "ワールドカップ"), ("electric cars", "电动汽车", "電気自動車")]
PAGE_Q = {"en": "Summarize {u}", "zh": "总结一下 {u} 的内容", "ja": "{u} を要約して"}
PAGES = ["https://example.com/news/today", "https://blog.example.org/2026/11/release-notes"]
EARLIER = {  # earlier exchanges, with figures of their own
    "weather": ({"en": "What's the weather in {c}?", "zh": "{c}天气怎么样？", "ja": "{c}の天気は？"},
                {"en": "It's {t}°C and {s} in {c}, humidity {h}%.", "zh": "{c}现在{t}°C，{s}，湿度{h}%。",
                 "ja": "{c}は今{t}°C、{s}、湿度{h}%です。"}),
    "time": ({"en": "What time is it in {c}?", "zh": "{c}现在几点？", "ja": "{c}は今何時？"},
             {"en": "It's {hh}:{mm} in {c}.", "zh": "{c}现在是{hh}:{mm}。", "ja": "{c}は今{hh}:{mm}です。"}),
    "calc": ({"en": "What is {a}*{b}?", "zh": "{a}*{b} 等于多少？", "ja": "{a}*{b} はいくつ？"},
             {"en": "{a}*{b} = {p}.", "zh": "{a}*{b} = {p}。", "ja": "{a}*{b} = {p} です。"}),
}


RUNTIME_ERRORS = {
    "timeout": "tool '{tool}' did not finish within 30 s and was abandoned",
    "refused": "the user did not approve running tool '{tool}'",
    "error": "tool '{tool}' raised ConnectionResetError: [Errno 104] Connection reset by peer",
}
USER_ERRORS = {  # a user's own tools, which write their errors in English only
    "currency": "The exchange-rate service answered HTTP 503",
    "stock_quote": "api.quotes.example returned no data for this symbol",
}


def ok(tool: str, params: dict[str, Any], data: str) -> dict[str, Any]:
    return {"tool": tool, "params": params, "ok": True, "status": "ok", "data": data}


def failed(tool: str, params: dict[str, Any], error: str, status: str = "failed") -> dict[str, Any]:
    return {"tool": tool, "params": params, "ok": False, "status": status, "error": error}


def city(index: int, lang: str) -> str:
    return CITIES[index % len(CITIES)][L[lang]]


def weather_ok(rng: random.Random, lang: str, index: int) -> dict[str, Any]:
    temp = rng.randint(-6, 37)
    values = dict(city=city(index, lang), temp=temp, feels=temp + rng.randint(-4, 3), desc=rng.choice(SKIES)[L[lang]],
                  humidity=rng.randint(20, 95), wind=rng.randint(2, 40))
    return ok("weather", {"city": city(index, lang)}, pick(WEATHER_TEXT["report"], lang, **values))


def weather_failed(rng: random.Random, lang: str, index: int) -> dict[str, Any]:
    kind = rng.choice(["unreachable", "unreachable", "timeout", "unknown_city"])
    values = {"url": "https://wttr.in", "reason": "[Errno 111] Connection refused", "timeout": "10", "city": city(index, lang)}
    return failed("weather", {"city": city(index, lang)}, pick(WEATHER_TEXT[kind], lang, **values))


def time_ok(lang: str, index: int, moment: datetime) -> dict[str, Any]:
    tool = CurrentTimeTool({"language": lang, "tools": {}})
    tool.now = lambda zone: moment.replace(tzinfo=zone)
    with answering_in(lang):
        result = tool.execute({"timezone": city(index, lang)})
    return ok("current_time", {"timezone": city(index, lang)}, result.data)


def calc_ok(lang: str, expression: str) -> dict[str, Any]:
    with answering_in(lang):
        result = CalculatorTool({"language": lang, "tools": {}}).execute({"expression": expression})
    return ok("calculator", {"expression": expression}, result.data)


def convert_ok(lang: str, conversion: tuple[str, str, str]) -> dict[str, Any]:
    value, source, target = conversion
    params = {"value": value, "from_unit": source, "to_unit": target}
    with answering_in(lang):
        result = UnitConvertTool({"language": lang, "tools": {}}).execute(params)
    return ok("unit_convert", params, result.data)


def files_ok(rng: random.Random, lang: str, folder: str) -> dict[str, Any]:
    chosen = sorted(rng.sample(FILES, rng.randint(3, 6)), key=lambda f: (not f.endswith("/"), f))
    header = {"en": "~/{d} ({n} entries):", "zh": "~/{d}（{n} 项）：", "ja": "~/{d}（{n} 件）:"}[lang]
    return ok("file_list", {"path": folder}, "\n".join([header.format(d=folder, n=len(chosen)), *chosen]))


def files_failed(lang: str, folder: str) -> dict[str, Any]:
    text = {"en": "The folder '{d}' cannot be read: Permission denied.", "zh": "无法读取文件夹“{d}”：Permission denied。",
            "ja": "フォルダー「{d}」を読めません: Permission denied。"}[lang]
    return failed("file_list", {"path": folder}, text.format(d=folder))


def currency(rng: random.Random, amount: int, success: bool) -> dict[str, Any]:
    params = {"amount": amount, "from": "EUR", "to": "JPY"}
    if not success:
        return failed("currency", params, USER_ERRORS["currency"])
    rate = round(rng.uniform(150, 175), 2)
    return ok("currency", params, f"{amount} EUR = {amount * rate:,.2f} JPY (rate {rate:.2f}, 2026-11-30)")


def stock(rng: random.Random, symbol: str, success: bool) -> dict[str, Any]:
    if not success:
        return failed("stock_quote", {"symbol": symbol}, USER_ERRORS["stock_quote"])
    price, change = round(rng.uniform(20, 600), 2), round(rng.uniform(-3, 3), 1)
    return ok("stock_quote", {"symbol": symbol}, f"{symbol}: {price} USD ({change:+.1f}%), 2026-11-30 15:59 EST")


def runtime_failure(tool: str, params: dict[str, Any], status: str) -> dict[str, Any]:
    return failed(tool, params, RUNTIME_ERRORS[status].format(tool=tool), status)


def earlier(rng: random.Random, lang: str, turns: int) -> list[dict[str, str]]:
    """Earlier exchanges of the conversation, with figures of their own."""
    out = []
    for _ in range(turns):
        kind = rng.choice(list(EARLIER))
        asked, answered = EARLIER[kind]
        a, b = rng.randint(11, 99), rng.randint(11, 99)
        values = dict(c=city(rng.randrange(len(CITIES)), lang), t=rng.randint(-5, 35), s=rng.choice(SKIES)[L[lang]],
                      h=rng.randint(20, 95), hh=f"{rng.randint(0, 23):02d}", mm=f"{rng.randint(0, 59):02d}", a=a, b=b, p=a * b)
        out.append({"role": "user", "content": asked[lang].format(**values)})
        out.append({"role": "assistant", "content": answered[lang].format(**values)})
    return out


def success_cases(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    cases = []
    for i in range(8):
        cases.append({"question": rng.choice(WEATHER_Q[lang]).format(c=city(i, lang)), "results": [weather_ok(rng, lang, i)]})
    for i in range(6):
        q = rng.choice(TIME_Q[lang]).format(c=city(i + 3, lang))
        cases.append({"question": q, "results": [time_ok(lang, i + 3, MOMENTS[i % len(MOMENTS)])]})
    for i in range(6):
        e = EXPRESSIONS[(i * 2 + L[lang]) % len(EXPRESSIONS)]
        cases.append({"question": rng.choice(CALC_Q[lang]).format(e=e), "results": [calc_ok(lang, e)]})
    for i in range(4):
        v, f, t = CONVERSIONS[(i + L[lang]) % len(CONVERSIONS)]
        cases.append({"question": rng.choice(CONVERT_Q[lang]).format(v=v, f=f, t=t), "results": [convert_ok(lang, (v, f, t))]})
    for i in range(2):
        d = FOLDERS[(i + L[lang]) % len(FOLDERS)]
        cases.append({"question": rng.choice(FILES_Q[lang]).format(d=d), "results": [files_ok(rng, lang, d)]})
    n = rng.randint(1000, 9999)
    asked, text = NOTE_Q[lang]
    cases.append({"question": asked.format(n=n), "results": [ok("notes", {"action": "add", "text": text.format(n=n)},
                                                               NOTE_SAVED[lang].format(id=rng.randint(2, 40), text=text.format(n=n)))]})
    amount = rng.choice([50, 120, 35])
    cases.append({"question": CURRENCY_Q[lang].format(a=amount), "results": [currency(rng, amount, True)]})
    cases.append({"question": STOCK_Q[lang].format(s="AAPL"), "results": [stock(rng, "AAPL", True)]})
    for i, pair in enumerate(["time_calc", "time_calc", "weather_time", "weather_time", "two_cities", "two_cities",
                              "calc_convert", "time_calc"]):
        cases.append(two_tools(rng, lang, pair, i, fail=None))
    return cases


def two_tools(rng: random.Random, lang: str, pair: str, i: int, fail: int | None) -> dict[str, Any]:
    e = EXPRESSIONS[(i + 5 + L[lang]) % len(EXPRESSIONS)]
    v, f, t = CONVERSIONS[(i + 2) % len(CONVERSIONS)]
    c, c2 = i + 1, i + 6
    if pair == "time_calc":
        results = [time_ok(lang, c, MOMENTS[i % len(MOMENTS)]), calc_ok(lang, e)]
    elif pair == "weather_time":
        results = [time_ok(lang, c, MOMENTS[(i + 2) % len(MOMENTS)]), weather_ok(rng, lang, c)]
    elif pair == "two_cities":
        results = [weather_ok(rng, lang, c), weather_ok(rng, lang, c2)]
    else:
        results = [calc_ok(lang, e), convert_ok(lang, (v, f, t))]
    if fail is not None:
        broken = results[fail]
        if broken["tool"] == "weather":
            results[fail] = weather_failed(rng, lang, c if fail == 0 or pair != "two_cities" else c2)
        else:
            results[fail] = runtime_failure(broken["tool"], broken["params"], rng.choice(["timeout", "error"]))
    question = TWO_Q[pair][lang].format(c=city(c, lang), c2=city(c2, lang), e=e, v=v, f=f, t=t)
    return {"question": question, "results": results}


def failure_cases(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    cases = []
    for i in range(5):
        cases.append({"question": rng.choice(WEATHER_Q[lang]).format(c=city(i + 2, lang)), "results": [weather_failed(rng, lang, i + 2)]})
    for amount in (50, 80):
        cases.append({"question": CURRENCY_Q[lang].format(a=amount), "results": [currency(rng, amount, False)]})
    cases.append({"question": STOCK_Q[lang].format(s="TSLA"), "results": [stock(rng, "TSLA", False)]})
    for d in FOLDERS[:2]:
        cases.append({"question": rng.choice(FILES_Q[lang]).format(d=d), "results": [files_failed(lang, d)]})
    page = PAGES[0]
    cases.append({"question": PAGE_Q[lang].format(u=page), "results": [runtime_failure("web_fetch", {"url": page}, "timeout")]})
    cases.append({"question": {"en": "Run ls in my home folder", "zh": "在我的主目录里运行 ls", "ja": "ホームフォルダーで ls を実行して"}[lang],
                  "results": [runtime_failure("shell_exec", {"command": "ls ~"}, "refused")]})
    both = {"en": "What's the weather in {c} and {c2}?", "zh": "{c}和{c2}的天气怎么样？", "ja": "{c}と{c2}の天気は？"}[lang]
    cases.append({"question": both.format(c=city(4, lang), c2=city(9, lang)),
                  "results": [weather_failed(rng, lang, 4), weather_failed(rng, lang, 9)]})
    e = EXPRESSIONS[3]
    cases.append({"question": TWO_Q["time_calc"][lang].format(c=city(7, lang), e=e),
                  "results": [runtime_failure("current_time", {"timezone": city(7, lang)}, "error"),
                              runtime_failure("calculator", {"expression": e}, "timeout")]})
    return cases


def partial_cases(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    cases = [two_tools(rng, lang, pair, i, fail) for i, (pair, fail) in enumerate(
        [("weather_time", 1), ("weather_time", 1), ("weather_time", 0), ("two_cities", 1), ("two_cities", 0),
         ("time_calc", 1), ("time_calc", 0), ("calc_convert", 1)])]
    amount = 60
    question = {"en": "How much is {a} euros in yen, and what is {e}?", "zh": "{a}欧元是多少日元？另外 {e} 等于多少？",
                "ja": "{a}ユーロは何円？それと {e} はいくつ？"}[lang].format(a=amount, e="48*52")
    cases.append({"question": question, "results": [currency(rng, amount, False), calc_ok(lang, "48*52")]})
    return cases


def live_cases(rng: random.Random, lang: str) -> list[dict[str, Any]]:
    """Messages no tool answered although they ask for live data."""
    cases = []
    for i in range(4):  # the weather tool is off
        cases.append({"question": WEATHER_Q[lang][i].format(c=city(i + 5, lang)), "off": ["weather"]})
    for i in range(2):  # the file tools are off
        cases.append({"question": FILES_Q[lang][i].format(d=FOLDERS[i]), "off": ["file_list", "file_read", "grep"]})
    for i in range(2):  # web search is off (as it is by default)
        cases.append({"question": NEWS_Q[lang].format(t=TOPICS[i][L[lang]]), "off": ["web_search"]})
    cases.append({"question": PAGE_Q[lang].format(u=PAGES[1]), "off": ["web_fetch"]})
    for i, follow_up in enumerate(FOLLOW_UPS[lang]):  # a follow-up about an earlier weather question
        c = city(i + 1, lang)
        asked = WEATHER_Q[lang][0].format(c=c)
        result = weather_ok(rng, lang, i + 1) if i % 2 == 0 else weather_failed(rng, lang, i + 1)
        if result["ok"]:
            answer = result["data"]
        else:
            answer = {"en": "The weather tool failed: ", "zh": "工具 weather 失败了：", "ja": "ツール weather が失敗しました："}[lang] + result["error"]
        case: dict[str, Any] = {"question": follow_up, "history": [{"role": "user", "content": asked},
                                                                  {"role": "assistant", "content": answer}]}
        if result["ok"]:
            case["succeeded_before"] = {"weather": result["data"]}
        else:
            case["failed_before"] = {"weather": result["error"]}
        cases.append(case)
    cases.append({"question": CURRENCY_Q[lang].format(a=70)})  # no tool for it at all
    cases.append({"question": STOCK_Q[lang].format(s="NVDA")})
    own = random.Random(f"follow-ups-{lang}")  # apart, so that the cases above stay as they were
    for i, follow_up in enumerate(ADVICE_FOLLOW_UPS[lang]):  # a follow-up that needs no value, after a weather call
        result = weather_ok(own, lang, i + 7) if i == 1 else weather_failed(own, lang, i + 7)
        answer = result["data"] if result["ok"] else {"en": "The weather tool failed: ", "zh": "工具 weather 失败了：",
                                                       "ja": "ツール weather が失敗しました："}[lang] + result["error"]
        case = {"question": follow_up, "history": [{"role": "user", "content": WEATHER_Q[lang][0].format(c=city(i + 7, lang))},
                                                   {"role": "assistant", "content": answer}]}
        if result["ok"]:
            case["succeeded_before"] = {"weather": result["data"]}
        else:
            case["failed_before"] = {"weather": result["error"]}
        cases.append(case)
    return cases


def stable_split(case_id: str) -> str:
    """Every third case, by a hash of its id, is held out."""
    return "holdout" if int(hashlib.sha256(case_id.encode()).hexdigest(), 16) % 3 == 0 else "tune"


def build() -> list[dict[str, Any]]:
    out = []
    for lang in LANGS:
        rng = random.Random(f"answers-{lang}")
        groups = [("success", success_cases(rng, lang)), ("failed", failure_cases(rng, lang)),
                  ("partial", partial_cases(rng, lang)), ("live", live_cases(rng, lang))]
        for kind, cases in groups:
            for n, case in enumerate(cases, 1):
                case_id = f"{lang}-{kind}-{n:02d}"
                entry = {"id": case_id, "split": stable_split(case_id), "lang": lang, "kind": kind, **case}
                if kind != "live" and n % 3 == 2:  # a third: the second or third turn of a conversation
                    entry["history"] = earlier(rng, lang, 1 + n % 2)
                out.append(entry)
    return out


def main() -> None:
    cases = build()
    header = "# Generated by `.venv/bin/python -m bench.answers.make_cases`; see that module for what each case is.\n"
    OUT.write_text(header + yaml.safe_dump(cases, allow_unicode=True, sort_keys=False, width=140), encoding="utf-8")
    kinds: dict[str, int] = {}
    for case in cases:
        kinds[case["kind"]] = kinds.get(case["kind"], 0) + 1
    later = sum(1 for c in cases if c.get("history"))
    held = sum(1 for c in cases if c["split"] == "holdout")
    print(f"{len(cases)} cases {kinds}; {later} in a conversation; {held} held out -> {OUT}")


if __name__ == "__main__":
    main()
