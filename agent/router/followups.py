"""A follow-up written as a request of its own before it is decided.

A message after a tool turn often names nothing of what it works on: "now in Fahrenheit", "what time is
it over there?", "save that in my notes", "打开第一个链接", "嗯，记下来". The model reads the previous
exchange too (see :mod:`agent.router.context`), but a small model copies values out of the message it
decides far more reliably than out of an earlier turn. So such a message is first written out with
what it refers to, from the previous exchange's calls and results:

- an arithmetic operation on the last result: ``1728/8`` for "now split that between 8 people"
  (:func:`agent.router.references.written_out`);
- "the first result" / "第一个链接" / "最初のリンク": that result's address;
- a unit asked for with no number of its own: the request to convert the result's quantity
  ("フィートだと？" after ``1 mi = 1609.34 m``: "1 mi を ft に換算して");
- "save that" / "记下来" / "保存しといて": with what is saved written in (the result's figure, or
  the earlier message when it led to no call);
- "there" / "那边" / "向こう": the place of the previous call.

A message that opens with thanks or a change of subject ("ありがとう。ところで…", "btw, …",
"话说回来，…") is decided without the opening, context or not.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.router.context import Context
from agent.router.forms import UNIT, place_names, takes_place
from agent.router.prompt import Decision
from agent.router.references import _NTH, is_follow_up, marked_follow_up, nth_link, written_out
from agent.toolkit.units import find_unit

if TYPE_CHECKING:
    from agent.toolkit.base import ToolManifest

# thanks (or another word said back), or a change of subject, before the request itself
_THANKS = (r"(?:ok(?:ay)?|great|cool|perfect|nice|wow|awesome|thanks|thank you|thx|got it"
           r"|好的|嗯|谢谢|多谢|感谢|明白了|知道了|哇|太好了|不错"
           r"|ありがとう(?:ございます)?|どうも|了解|なるほど|うん|はい|いいなあ|いいな|いいね|すごい(?:ね)?|へえ)")
_SWITCH = (r"(?:by the way|btw|anyways?|on another note|changing the subject|different question|another question"
           r"|对了|顺便问一下|顺便问下|另外问一下|换个话题|话说回来"
           r"|ところで|話(?:は)?変わる(?:けど|けれど|んだけど)|それはそうと|ちなみに|別件(?:だけど|ですが)?)")
_OPENER = re.compile(rf"^\s*(?P<thanks>(?:{_THANKS}[,，、。.!！～~]+\s*)*)(?P<switch>{_SWITCH}[\s,，、。:：!！]*)?", re.IGNORECASE)


def unopened(text: str) -> str:
    """``text`` without thanks or a change of subject before its request ("ありがとう。ところでバンコクの
    天気ってどう？": "バンコクの天気ってどう？", "thx. how many liters are 3 gallons?"); as it is when
    nothing follows the opening, or thanks are followed by no question ("thanks, that was helpful" is
    thanks still)."""
    match = _OPENER.match(text)
    rest = text[match.end():].strip() if match else ""
    if not match or not re.search(r"[0-9A-Za-z\u3040-\u30ff\u3400-\u9fff]{2,}", rest):
        return text
    if match.group("switch") or re.search(r"[?？]\s*$", rest):
        return rest
    return text


@dataclass
class Restated:
    """A message as it is decided: ``text``; ``whole`` when it is one request written out, which is
    decided as it is, not in parts."""

    text: str
    whole: bool = False


def restated(text: str, context: Context, manifests: list["ToolManifest"], language: str = "en") -> Restated:
    """``text`` written out with what it refers to in the previous exchange (see the module docstring);
    ``text`` without its opening, as it is otherwise."""
    text = unopened(text)
    if not context:
        return Restated(text)
    written = written_out(text, context)
    if written != text:
        return Restated(written, whole=True)
    link = nth_link(text, context)
    if link is not None:
        return Restated(_NTH.sub(link, text, count=1), whole=True)
    names_nothing = not re.search(r"\d", text) and not place_names(text)
    if names_nothing and is_follow_up(text):
        conversion = converted_request(text, context, language)
        if conversion is not None:
            return Restated(conversion, whole=True)
    saved = saved_request(text, context)
    if saved is not None:
        return Restated(saved, whole=True)
    item = listed_item(text, context)
    if item is not None:
        return Restated(f"{text.rstrip()}（{item}）" if _CJK.search(text) else f"{text.rstrip()} ({item})", whole=True)
    if names_nothing:
        place = previous_place(context, manifests)
        if place:
            return Restated(_there_replaced(text, place))
    return Restated(text)


# a follow-up that is only another number: "now 90", "and 130?", "那90呢", "じゃあ 50 は？", "80 だったら？"
_ANOTHER_NUMBER = re.compile(
    r"^\s*(?:(?:and|now|what about|how about|then|ok|so|same for|and for|try)\s+)*(?P<n>-?\d+(?:\.\d+)?)\s*(?:instead|then|now|please|too)?\s*[?？]?\s*$"
    r"|^\s*(?:那|那么|那如果是|如果是|换成)?\s*(?P<zh>-?\d+(?:\.\d+)?)\s*(?:呢|的话呢|的话|咧|嘞)?\s*[?？]?\s*$"
    r"|^\s*(?:じゃあ|では|それじゃ|なら)?[、,\s]*(?P<ja>-?\d+(?:\.\d+)?)\s*(?:は|なら|だと|だったら|では|の場合は?)?\s*[?？]?\s*$",
    re.IGNORECASE,
)
_ONE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def renumbered(text: str, context: Context, manifests: list["ToolManifest"]) -> Decision | None:
    """The previous exchange's call again with the number ``text`` gives in place of its one number,
    when ``text`` is only that number ("now 90" after converting 72 °F: 90 °F; "324だと？" after
    ``sqrt(256)``: ``sqrt(324)``); None when it says more, the call has no one number to replace, or it
    would do more than read (a note deleted by its number is decided by the model, with the approval it needs)."""
    match = _ANOTHER_NUMBER.match(text.translate(_WIDE)) if context else None
    calls = [call for call in context.exchanges[-1].calls if call.ok] if match else []
    manifest = next((m for m in manifests if calls and m.name == calls[-1].tool), None)
    if manifest is None or manifest.risk_of(calls[-1].params) != "read":
        return None  # a call that writes, sends or runs something is the model's decision, never a bare number's
    number = next(group for group in match.groups() if group)
    call = calls[-1]
    numeric = [key for key, value in call.params.items()
               if not isinstance(value, bool) and (isinstance(value, (int, float)) or _ONE_NUMBER.fullmatch(str(value)))]
    if len(numeric) == 1:
        key = numeric[0]
        value: object = number if isinstance(call.params[key], str) else float(number) if "." in number else int(number)
        return Decision(call.tool, {**call.params, key: value}, carried=True)
    held = [key for key, value in call.params.items() if isinstance(value, str) and len(_ONE_NUMBER.findall(value)) == 1]
    if not numeric and len(held) == 1:  # an expression around one number
        key = held[0]
        return Decision(call.tool, {**call.params, key: _ONE_NUMBER.sub(number, call.params[key], count=1)}, carried=True)
    return None


_QUANTITY = re.compile(r"(-?\d+(?:\.\d+)?)\s?((?:°\s?)?[^\W\d_][\w/]{0,5})")
_CONVERT = {"en": "convert {n} {unit} to {target}", "zh": "把 {n} {unit} 换算成 {target}", "ja": "{n} {unit} を {target} に換算して"}


def converted_request(text: str, context: Context, language: str = "en") -> str | None:
    """A request to convert the first quantity of the last exchange's results into the unit ``text`` asks
    for, when the results state it in another unit of the same kind ("how warm is it in Lima in Fahrenheit"
    after "Lima: 18°C": "convert 18 °C to °F"), or to convert a bare figure of them in the unit the
    message gives its numbers in ("每袋大米 2.5 公斤，买了 6 袋，一共多少磅？" after ``2.5*6 = 15``: "把 15 kg 换算成
    lb"); None when the message asks for no unit, or the results hold nothing to convert."""
    if not context:
        return None
    results = " ".join(call.result for call in context.exchanges[-1].calls if call.ok)
    write = _CONVERT.get(language, _CONVERT["en"])
    for symbol in UNIT.in_order(text):
        target = find_unit(symbol)
        if target is None or symbol in {UNIT.normal(m.group(2)) for m in _QUANTITY.finditer(results)}:
            continue  # the results already say it in that unit
        for match in _QUANTITY.finditer(results):
            unit = find_unit(match.group(2))
            if unit is not None and unit.dimension == target.dimension and unit.symbol != target.symbol:
                return write.format(n=match.group(1), unit=unit.symbol, target=target.symbol)
    figure = _FIGURE.search(results)
    given, asked = _units_said(f"{context.exchanges[-1].message}\n{text}")
    for symbol in asked:
        target = find_unit(symbol)
        unit = next((find_unit(g) for g in given if target and (u := find_unit(g)) and u.dimension == target.dimension
                     and u.symbol != target.symbol), None)
        if figure and target and unit:
            return write.format(n=figure.group(1), unit=unit.symbol, target=target.symbol)
    return None


#: a result's figure with no unit after it: "2.5*6 = 15"
_FIGURE = re.compile(r"=\s*(-?\d+(?:\.\d+)?)\s*$")


def _units_said(text: str) -> tuple[list[str], list[str]]:
    """The units ``text`` gives a number in ("2.5 公斤", "400 m") and those it asks for (no number
    before them: "多少磅", "in km"), as symbols, in the order it says them."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("_", " ")
    given: list[str] = []
    asked: list[str] = []
    for match in UNIT.finder().finditer(folded):  # type: ignore[misc]
        symbol = UNIT.normal(match.group(0))
        if symbol:
            (given if re.search(r"\d\s*$", folded[:match.start()]) else asked).append(symbol)
    return list(dict.fromkeys(given)), [a for a in dict.fromkeys(asked) if a not in given]


# how a unit is asked for around its name: "换成英里每小时", "in mph", "マイル毎時で"
_ASK_BEFORE = re.compile(r"(?:(?:换算|转换|折合|折算|换|转)成?|(?:converted |convert it )?(?:in|into|to))\s*$", re.IGNORECASE)
_ASK_AFTER = re.compile(r"^(?:に換算して|に換算|にすると|だと|では|で)")


def unit_dropped(text: str) -> str | None:
    """``text`` without the units it asks for ("芝加哥的风速换成英里每小时是多少" is "芝加哥的风速是多少",
    "シカゴの風速をマイル毎時で教えてください" "シカゴの風速を教えてください"): what to ask first, when the
    message gives no number to convert and the quantity is a result to come; None when it asks for none."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("_", " ")
    if len(folded) != len(text):
        return None
    spans = []
    for match in UNIT.finder().finditer(folded):  # type: ignore[misc]
        if not UNIT.normal(match.group(0)) or re.search(r"\d\s*$", folded[:match.start()]):
            continue  # a unit a number is given in
        before = _ASK_BEFORE.search(folded[:match.start()])
        after = _ASK_AFTER.match(folded[match.end():])
        if before or after:
            spans.append((before.start() if before else match.start(), match.end() + (after.end() if after else 0)))
    if not spans:
        return None
    for start, end in reversed(spans):
        head, tail = text[:start].rstrip(), text[end:].lstrip()
        text = f"{head} {tail}" if head[-1:].isascii() and tail[:1].isalnum() else head + tail
    return text.strip() or None


# "the temperature difference", "how much warmer", "温差多少", "气温差", "比…高多少", "気温差", "より何度高い"
_DIFFERENCE = re.compile(
    r"\bdifferences?\b|\bhow much (?:warmer|colder|hotter|cooler|higher|lower|more|less|bigger|smaller)\b"
    r"|\b(?:warmer|colder|hotter|cooler|higher|lower) than\b"
    r"|温差|差多少|相差|差几|差距|比.{1,12}?(?:高|低|热|冷|暖|多|少)(?:多少|几)"
    r"|気温差|温度差|[のの]差|差は|差を|差って|より.{0,8}?(?:何度|どれくらい|どのくらい|いくら)",
    re.IGNORECASE,
)


def compares(text: str) -> bool:
    """Whether ``text`` asks how far apart two results are ("how much warmer is Bangkok than Helsinki")."""
    return bool(_DIFFERENCE.search(text))


# the two sides of a comparison: "in Bangkok than in Helsinki", "曼谷比哈尔滨热", "バンコクはヘルシンキより"
_NAME_EN = r"[A-Z][\w'.-]*(?:[ -][A-Z][\w'.-]*)*"
_SIDES = [
    re.compile(rf"\b(?P<a>{_NAME_EN})(?: (?:right now|now|today|tonight|tomorrow))?(?:'s)? (?:\w+ ){{0,2}}?than"
               rf" (?:(?:it is|it's|is it) )?(?:(?:in|at|for|on) )?(?:the )?(?P<b>{_NAME_EN})"),
    re.compile(rf"\b(?:in|at|for) (?P<a>{_NAME_EN}) than (?:(?:in|at|for|on) )?(?P<b>{_NAME_EN})"),
    re.compile(r"(?P<a>[\u3400-\u9fff]{2,8}?)(?:的\w{0,4}?)?比(?P<b>[\u3400-\u9fff]{2,8}?)(?=的|[高低热冷暖凉多少贵便宜快慢大小])"),
    re.compile(r"(?P<a>[\u30a0-\u30ff\u3400-\u9fff]{2,10})(?:は|の方が|のほうが|が)(?P<b>[\u30a0-\u30ff\u3400-\u9fff]{2,10})(?:の\w{0,4}?)?より"),
    re.compile(r"(?P<b>[\u30a0-\u30ff\u3400-\u9fff]{2,10})(?:の\w{0,4}?)?より(?:も)?(?P<a>[\u30a0-\u30ff\u3400-\u9fff]{2,10})(?:は|の方|のほう|が)"),
]


def compared_other(text: str, value: str) -> str | None:
    """The other side of the comparison ``text`` asks for, when ``value`` (a call's place) is one side:
    "Helsinki" of "how much warmer is it in Bangkok than in Helsinki" for ``Bangkok``, "哈尔滨" of
    "曼谷比哈尔滨热多少度" for ``曼谷``; None when the message compares nothing or ``value`` is neither side."""
    if not value:
        return None
    mine = value.casefold()
    for pattern in _SIDES:
        for match in pattern.finditer(text):
            a, b = match.group("a"), match.group("b")
            if a.casefold().endswith(mine) and mine not in b.casefold():
                return b
            if b.casefold() == mine and mine not in a.casefold():
                return a
    return None


_CALCULATE = {"en": "calculate {e}", "zh": "计算 {e}", "ja": "{e} を計算して"}


def difference_request(text: str, context: Context, language: str = "en") -> str | None:
    """The request to subtract that ``text`` asks for between the last exchange's results, when it asks
    how far apart they are and two or more calls each state a quantity in the same unit: the larger
    minus the smaller ("温差多少" after 大连 1°C and 厦门 21°C: "计算 21-1"; a bare "21-1" is no request
    the model takes for one); None otherwise."""
    if not context or not compares(text):
        return None
    firsts = [_QUANTITY.search(call.result) for call in context.exchanges[-1].calls if call.ok]
    found = [(float(m.group(1)), m.group(1), UNIT.normal(m.group(2))) for m in firsts if m]
    if len(found) < 2 or len({unit for _, _, unit in found}) != 1:
        return None
    high, low = max(found)[1], min(found)[1]
    expression = f"{high}+{low[1:]}" if low.startswith("-") else f"{high}-{low}"  # 15-(-5) as 15+5
    return _CALCULATE.get(language, _CALCULATE["en"]).format(e=expression)


# "save that", "note it down", "记下来", "存一下", "保存しといて", "メモしておいて": a request to keep
# something said before, with nothing of its own to keep
_SAVE = re.compile(
    r"\b(?:save|note|store|remember|keep|write|jot|put|add)\b(?: (?:that|it|this)\b| (?:down|in my notes|as a note|to my notes)\b)"
    r"|记下|记住|记一下|记到|记成|存一下|存下|存成|存为|存到|存进|保存|备忘"
    r"|メモ(?:して|しと|っと|に(?:残|入|書|追加))|覚えて|記録して|控えて",
    re.IGNORECASE,
)
_IT = re.compile(r"\b(?:the|that|this) (?:result|answer|number|total|sum|value|figure)s?\b|\b(?:that|it|this)\b"
                 r"|(?:这个|那个)(?:数字|数|结果)?|它|その(?:数字|数|結果|値)|これ|それ", re.IGNORECASE)
_WIDE = str.maketrans("０１２３４５６７８９．－", "0123456789.-")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_QUOTED = re.compile(r"[\"“「『'‘].+?[\"”」』'’]")
#: the longest message read as a bare "save that"
SAVE_CHARS = 60


def saved_request(text: str, context: Context) -> str | None:
    """``text``, a request to save what was said before ("save that in my notes", "嗯，记下来"), with
    it written in: the figure of the last call's result ("1250/4 = 312.5": 312.5) or that result,
    or the earlier message when it led to no call (the user said what to remember, the assistant asked
    whether to). None when ``text`` asks something else or says what to save itself."""
    if len(text.strip()) > SAVE_CHARS or not _SAVE.search(text) or _QUOTED.search(text) or ":" in text or "：" in text:
        return None
    exchange = context.exchanges[-1]
    results = [call.result for call in exchange.calls if call.ok and call.result]
    if exchange.calls and not results:
        return None
    kept = _kept(exchange.calls[-1].params, results[-1]) if results else exchange.message.strip()
    if not kept:
        return None
    if _IT.search(text):
        if _CJK.search(text) and not re.fullmatch(r"-?[\d.,]+", kept):
            kept = f"「{kept}」"  # "それメモしといて": "「京都 Kyoto: 9°C, Cloudy」メモしといて"
        return _IT.sub(lambda _: kept, text, count=1)
    colon = "：" if _CJK.search(text) else ": "
    return f"{text.rstrip('。.!！ ')}{colon}{kept}"


#: the most of a result's first line that is saved for "save that"
KEPT_CHARS = 120


def _kept(params: dict, result: str) -> str:
    """What "save that" keeps of a call: the figure after its result's last "=" ("1250/4 = 312.5":
    312.5), else the result's first line, after the call's values it does not hold ("青岛" before
    "Qingdao: 9°C, Windy")."""
    line = result.strip().splitlines()[0][:KEPT_CHARS] if result.strip() else ""
    if "=" in line:
        return line.rsplit("=", 1)[1].strip()
    said = [str(v) for v in params.values() if isinstance(v, str) and v.strip() and v.casefold() not in line.casefold()]
    return " ".join([*said, line]).strip()


# an item of a listing: "#7 renew passport", "持ち物リスト.md (0.6 KB)", "1. Python Releases (https://…)"
_ITEM = re.compile(r"^\s*(?:#(?P<id>\d+)[:.]?\s+|\d+[.)]\s+|[-*•]\s+)?(?P<name>.+?)\s*(?:\((?P<aside>[^()]*)\))?\s*$")
_URL = re.compile(r"https?://[^\s<>\"'）)\]]+")
_LATIN = re.compile(r"[A-Za-z][\w.-]{3,}")
_KANA = re.compile(r"[\u3040-\u309f]")
_PATH_KEYS = ("path", "folder", "directory", "dir")


def listed_item(text: str, context: Context) -> str | None:
    """What names the one item of the previous exchange's listing that ``text`` speaks of by its words
    ("delete the passport one" after "#4 call mom / #7 renew passport": ``#7``; "持ち物リストを開いて"
    after a folder's listing: that file's path; a search result: its address). None when the results
    list nothing, the words fit no item or more than one, or the item has no address, number or path
    ("and Bern?" asks the question again of something new: no item either)."""
    if marked_follow_up(text):
        return None
    found: list[str] = []
    for call in (c for c in context.exchanges[-1].calls if c.ok and c.result):
        lines = [line for line in call.result.splitlines() if line.strip() and not line.rstrip().endswith(":")]
        if len(lines) < 2:
            continue  # one line is a result, not a listing
        folder = next((str(v) for k, v in call.params.items() if k.casefold() in _PATH_KEYS and isinstance(v, str)), "")
        for line in lines:
            match = _ITEM.match(line)
            if match is None or not _spoken_of(match.group("name"), text):
                continue
            link = _URL.search(line)
            if link:
                found.append(link.group(0).rstrip(".,;:"))
            elif match.group("id"):
                found.append(f"#{match.group('id')}")
            elif folder:
                found.append(f"{folder.rstrip('/')}/{match.group('name').rstrip('/')}")
    return found[0] if len(found) == 1 else None


def _spoken_of(name: str, text: str) -> bool:
    """Whether ``text`` says a word of an item's ``name``: a Latin word of four letters or more, or two
    characters of Chinese or Japanese script that are not both kana ("牛乳" of "牛乳を買う")."""
    folded = text.casefold()
    if any(re.search(rf"(?<![\w]){re.escape(word.casefold())}(?![\w])", folded) for word in _LATIN.findall(name)
           if not word.replace(".", "").isdigit()):
        return True
    pairs = {name[i:i + 2] for i in range(len(name) - 1)}
    return any(_CJK.fullmatch(p[0]) and _CJK.fullmatch(p[1]) and not _KANA.search(p) and p in text for p in pairs)


# "there", "over there", "那边", "向こう": the place the previous exchange asked about
_THERE_EN = re.compile(r"(?<!is )(?<!are )(?<!was )(?<!were )\b(?:(?:over|out|up|down|back) )?there\b(?!'s| is| are| was| were)|\bthat (?:city|place|town)\b",
                       re.IGNORECASE)
_THERE_CJK = re.compile(r"那边|那里|那儿|当地|向こう|そこ|現地|あっち|あちら")


def previous_place(context: Context, manifests: list["ToolManifest"]) -> str:
    """The place the previous exchange's first call that takes one was made for; "" when none did."""
    for call in context.exchanges[-1].calls:
        manifest = next((m for m in manifests if m.name == call.tool), None)
        for key, value in call.params.items():
            if manifest is not None and isinstance(value, str) and value.strip() and takes_place(manifest, key):
                return value.strip()
    return ""


def _there_replaced(text: str, place: str) -> str:
    """``text`` with its "there" the place itself ("what time is it over there?": "what time is it in
    Berlin?", "那边现在几点了？": "首尔现在几点了？"); as it is when it says no "there"."""
    text = _THERE_EN.sub(lambda m: place if m.group(0).casefold().startswith("that") else f"in {place}", text, count=1)
    return _THERE_CJK.sub(place, text, count=1)
