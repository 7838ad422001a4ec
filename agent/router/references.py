"""Follow-ups that name no value of their own: "make that 3 times bigger", "divide that by 4", "除以5呢",
"それを2倍にして" work on the number the previous exchange gave, and "and Spain?", "墨尔本呢", "奈良は？"
ask the previous question again about something else.

An arithmetic follow-up is written out before it is decided: "divide that by 4" after ``1200/16 = 75``
is decided as ``75/4``, which any tool that evaluates expressions takes as it is, and which no other
tool of a set is chosen for. The number is the last one the previous exchange's last successful call
returned. A message that states a second number, or anything besides the operation, is left alone.

A marked follow-up ("and X?", "what about X?", "X呢？", "Xは？") is only recognised here; the router
gives the previous exchange's tools more weight for it than for any short message (see
``RouterOptions.marked_follow_weight``).
"""

from __future__ import annotations

import re
import unicodedata

from agent.router.context import Context
from agent.router.forms import place_names, takes_place, value_form
from agent.router.prompt import Decision
from agent.toolkit.base import ToolManifest

_NUMBER = r"(\d+(?:[.,]\d+)?)"
_THAT = r"(?:that|it|this|the result|the answer|the number)"
_FILL_EN = r"(?:please|pls|now|then|again|instead|too|ok|okay|can you|could you|and|so)"

# (pattern, operator): each pattern is the whole message (with fillers around it) and holds the
# operand as its one group; the operator ``{n}`` is replaced by that operand.
_EN = [
    (rf"(?:make|multiply) (?:{_THAT} )?{_NUMBER} ?(?:times|x) (?:bigger|larger|more|as (?:big|much|large))", "*{n}"),
    (rf"(?:multiply|multiplied) (?:{_THAT} )?by {_NUMBER}", "*{n}"),
    (rf"(?:{_THAT} )?(?:times|x|\*|×) ?{_NUMBER}", "*{n}"),
    (rf"(?:divide|divided|split|share) (?:{_THAT} )?(?:by|into|between|among|amongst) {_NUMBER}(?: ways| parts| people| persons| of us)?", "/{n}"),
    (rf"(?:{_THAT} )?(?:/|÷|over) ?{_NUMBER}", "/{n}"),
    (rf"add {_NUMBER}(?: to {_THAT})?|(?:{_THAT} )?(?:plus|\+) ?{_NUMBER}", "+{n}"),
    (rf"(?:subtract|take away|take off) {_NUMBER}(?: from {_THAT})?|(?:{_THAT} )?(?:minus|-) ?{_NUMBER}", "-{n}"),
    (rf"{_NUMBER} ?(?:%|percent) of {_THAT}", "*{n}/100"),
    # "add 8% sales tax to that", "plus a 15% tip", "take 20% off"
    (rf"(?:add|plus|with) (?:an? )?{_NUMBER} ?(?:%|percent)(?: [a-z]+){{0,3}}(?: (?:to|on|on top of) {_THAT})?", "*(1+{n}/100)"),
    (rf"(?:take|knock|minus|subtract) (?:an? )?{_NUMBER} ?(?:%|percent)(?: [a-z]+){{0,2}} off(?: (?:of )?{_THAT})?"
     rf"|(?:{_THAT} )?(?:with )?(?:an? )?{_NUMBER} ?(?:%|percent) (?:off|discount)", "*(1-{n}/100)"),
]
_EN_WORDS = [
    (rf"double (?:{_THAT})?|(?:{_THAT} )?doubled|twice (?:{_THAT})", "*2"),
    (rf"triple (?:{_THAT})?|(?:{_THAT} )?tripled", "*3"),
    (rf"half (?:of )?(?:{_THAT})|halve (?:{_THAT})?|(?:{_THAT} )?halved", "/2"),
    (rf"square (?:{_THAT})|(?:{_THAT} )?squared", "**2"),
]
_PRE_ZH = r"(?:那|那么|再|然后|把|将)?(?:它|这个|那个|结果|这个数|这个数字|那个数|得数)?(?:再)?"
_POST_ZH = r"(?:呢|吧|呀|啊|一下|看看|是多少|等于多少|得多少)*"
_ZH = [
    (rf"{_PRE_ZH}(?:乘以|乘上|乘|×|\*){_NUMBER}", "*{n}"),
    (rf"{_PRE_ZH}(?:变成|扩大|放大|翻)?{_NUMBER}倍", "*{n}"),
    (rf"{_PRE_ZH}(?:除以|除|÷|/){_NUMBER}", "/{n}"),
    (rf"{_PRE_ZH}(?:加上|加|\+){_NUMBER}", "+{n}"),
    (rf"{_PRE_ZH}(?:减去|减掉|减|-){_NUMBER}", "-{n}"),
    (rf"{_PRE_ZH}(?:翻倍|翻一番|乘二)", "*2"),
    (rf"{_PRE_ZH}(?:打个|打)?([1-9一二三四五六七八九]{{1,2}})折", "*0.{n}"),  # "打个八五折": 85% of it
    (rf"{_PRE_ZH}(?:的)?(?:一半|减半)", "/2"),
    (rf"{_PRE_ZH}(?:的)?平方", "**2"),
]
_PRE_JA = r"(?:じゃあ|では|それじゃ)?(?:それ|これ|その数|その数字|その結果|結果|答え)?(?:を|に|は)?"
_POST_JA = r"(?:にして|して|する|は|なら|だと|では|だったら|ください|下さい|くれる|くれ|みて|てみて|て|で|？|\?)*"
_JA = [
    (rf"{_PRE_JA}{_NUMBER}(?:を|で)?(?:掛け|かけ|掛けると|かけると)", "*{n}"),
    (rf"{_PRE_JA}{_NUMBER}倍", "*{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:人|つ|等分)?で(?:割|わ)(?:って|る|ると|った)", "/{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:人|等分)で(?:分け|わけ)(?:て|る|ると|たら)", "/{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:を)?(?:足|た)(?:して|す|すと)", "+{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:を)?(?:引|ひ)(?:いて|く|くと)", "-{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:を)?(?:プラス|ぷらす)", "+{n}"),
    (rf"{_PRE_JA}{_NUMBER}(?:を)?(?:マイナス)", "-{n}"),
    (rf"{_PRE_JA}(?:半分)", "/2"),
    (rf"{_PRE_JA}(?:二乗|2乗)", "**2"),
]

_TRIM = re.compile(r"^[\s,.!?，。！？、]+|[\s,.!?，。！？、]+$")
_ZH_DIGITS = str.maketrans("一二三四五六七八九", "123456789")
_WIDE = str.maketrans("０１２３４５６７８９．，＊／＋－", "0123456789.,*/+-")


def _compiled(rules: list[tuple[str, str]], before: str = "", after: str = "") -> list[tuple[re.Pattern, str]]:
    return [(re.compile(f"^{before}(?:{pattern}){after}$", re.IGNORECASE), op) for pattern, op in rules]


_FILLED = rf"(?:{_FILL_EN} )*"
_RULES = _compiled(_EN + _EN_WORDS, _FILLED, rf"(?: {_FILL_EN})*")
_RULES_CJK = [*_compiled(_ZH, after=_POST_ZH), *_compiled(_JA, after=_POST_JA)]  # matched with spaces removed

# "and Spain?", "what about Kyiv?", "how about in Lyon?", "那上海呢", "墨尔本呢", "奈良は？", "大阪も？"
_MARKED = [
    re.compile(r"^(?:and|what about|how about|and what about|and how about|same (?:question )?for|now|then)\s+(?:in |for |at )?(.+?)\??$"
               r"|^(?:and )?(?:in |for )?(.+?),? (?:too|as well)\??$", re.IGNORECASE),
    re.compile(r"^(?:那|那么|还有)?(.+?)(?:的呢|呢|咧|嘞|也(?:查一下|查查|看一下|看看|一样|是)?)[?？]?$"),
    re.compile(r"^(?:じゃあ|では|それじゃ|それでは)?、?(.+?)(?:は|も|では|だと|なら)(?:どう|どうですか|どうなの|は|同じように|同じく|お願い)?[?？]?$"),
]
# what a marked follow-up about a person asks is small talk ("and you?", "你呢", "あなたは？")
_PEOPLE = re.compile(r"^(?:you|u|yourself|me|us|him|her|them|你|您|我|他|她|你们|我们|あなた|君|きみ|私|僕|俺|彼|彼女|自分)$", re.IGNORECASE)


_PRONOUN = re.compile(r"^(?:i|you|me|it|that|this|we|they|he|she|him|her|them|us|so|same)\b", re.IGNORECASE)


def previous_number(context: Context) -> str | None:
    """The last number the previous exchange's last successful call returned."""
    if not context:
        return None
    for call in reversed(context.exchanges[-1].calls):
        if call.ok and call.result:
            numbers = re.findall(r"-?\d[\d,]*(?:\.\d+)?", call.result.translate(_WIDE))
            if numbers:
                return numbers[-1].replace(",", "")
    return None


def _operation(text: str) -> tuple[str, str] | None:
    """The operator and operand of ``text`` when it is only an arithmetic operation on something
    earlier ("divide that by 4", "乘以 5", "4で割って"): ``("/{n}", "4")``."""
    message = _TRIM.sub("", text.translate(_WIDE)).strip()
    if not message or len(message) > 48:
        return None
    squeezed = re.sub(r"\s+", "", message)
    for pattern, operator, candidate in [*((p, o, message) for p, o in _RULES), *((p, o, squeezed) for p, o in _RULES_CJK)]:
        match = pattern.match(candidate)
        if match:
            return operator, next((g for g in match.groups() if g), "").replace(",", "").translate(_ZH_DIGITS)
    return None


def written_out(text: str, context: Context) -> str:
    """``text`` with the earlier result it works on written in, when it is an arithmetic follow-up
    ("times 2 please" after ``26.2 mi = 42.1648 km``: ``42.1648*2``); else ``text`` as it is."""
    operation = _operation(text)
    number = previous_number(context) if operation is not None else None
    if operation is None or number is None:
        return text
    operator, operand = operation
    if number.startswith("-"):
        number = f"({number})"
    return number + operator.format(n=operand)


#: a message this short (in characters) after a tool turn reads as a follow-up of that turn
FOLLOW_UP_CHARS = 24


def is_follow_up(text: str) -> bool:
    """Whether ``text``, after a tool turn, reads as its follow-up: short, or marked as one."""
    return len(text.strip()) <= FOLLOW_UP_CHARS or marked_follow_up(text)


def marked_follow_up(text: str) -> bool:
    """Whether ``text`` is "and X?" / "X呢" / "Xは？" about something other than a person."""
    message = text.strip()
    if not message or len(message) > 40:
        return False
    for pattern in _MARKED:
        match = pattern.match(message)
        if match:
            subject = _TRIM.sub("", next(group for group in match.groups() if group)).strip()
            if not subject or _PEOPLE.match(subject):
                return False
            if pattern is _MARKED[0]:
                if match.group(2):  # "Lyon too?": a name, not "I like it too"
                    return len(subject.split()) <= 2 and not _PRONOUN.match(subject)
                return len(subject.split()) <= 4
            return len(subject) <= 10 and not re.search(r"[的の]", subject)  # "东京的天气呢" asks a question of its own
    return False


# a request that works on what an earlier request of the same message returns: "and convert the result
# to miles", "并把结果存到笔记", "それを4倍して"
# "the first result", "第一个结果", "最初の結果": an item of a list an earlier request returned (a link)
_NTH = re.compile(
    r"\bthe (?P<en>first|second|third|top|1st|2nd|3rd|last) (?:search )?(?:result|link|hit|match|page)s?\b"
    r"|第(?P<zh>[一二三1-3])(?:个|條|条|項|项)?(?:搜索)?(?:结果|結果|链接|鏈接)"
    r"|(?P<ja>最初|一番上|先頭|1番目|一番目|2番目|二番目|3番目|三番目|最後)の(?:検索)?(?:結果|リンク)",
    re.IGNORECASE,
)
_NTH_INDEX = {"first": 0, "top": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "last": -1,
              "一": 0, "1": 0, "二": 1, "2": 1, "三": 2, "3": 2, "最初": 0, "一番上": 0, "先頭": 0, "1番目": 0,
              "一番目": 0, "2番目": 1, "二番目": 1, "3番目": 2, "三番目": 2, "最後": -1}
_URL = re.compile(r"https?://[^\s<>\"'）)\]]+")
_RESULT = re.compile(
    _NTH.pattern + r"|\b(?:the|that|this) (?:result|answer|number|total|sum|value|figure)s?\b"
    r"|\b(?:convert|save|note|store|remember|multiply|divide|double|halve|triple|write down|round) (?:it|that|this)\b"
    r"|结果|得数|这个数|那个数|把它|将它|它[乘除加减]"
    r"|その結果|結果を|結果に|それを|それに|それで|その数|その値|答えを",
    re.IGNORECASE,
)
_RESULT_PHRASE = re.compile(
    r"\b(?:the|that|this) (?:result|answer|number|total|sum|value|figure)s?\b|(?<=\s)(?:it|that|this)\b"
    r"|(?:这个|那个)?结果|得数|这个数|那个数|它|その結果|結果|それ|その数|その値|答え",
    re.IGNORECASE,
)


def works_on_result(part: str) -> bool:
    """Whether ``part`` (a request after the first of a message) works on an earlier request's result:
    it refers to one, or it is only an operation ("then multiply by 4", "然后乘以 4")."""
    return bool(_RESULT.search(part)) or _operation(part) is not None


def with_result(part: str, context: Context) -> str:
    """``part`` with the earlier result it works on written in: written out when it is arithmetic
    ("それを4倍して" after ``5 mi = 8.04672 km``: ``8.04672*4``), else the words that refer to it
    replaced by the number ("save the result as a note": "save 391 as a note")."""
    written = written_out(part, context)
    if written != part:
        return written
    link = nth_link(part, context)
    if link is not None:  # "open the first result" after a search: that result's address
        return _NTH.sub(link, part, count=1)
    number = previous_number(context)
    said = result_said(context, number)
    if said is None:
        return part
    return _RESULT_PHRASE.sub(lambda m: number if number and _FIGURE.search(m.group(0)) else said, part, count=1)


#: words for a result that is a figure ("the total", "得数", "その値")
_FIGURE = re.compile(r"number|total|sum|value|figure|得数|数|値", re.IGNORECASE)


def result_said(context: Context, number: str | None) -> str | None:
    """What "the result" of the previous exchange is: its figure when its last call computed one ("17*23 = 391",
    "5 mi = 8.04672 km", "391"), else the first line of what it returned ("青岛: 8°C (feels like 5°C), Windy, …":
    a note of "the result" holds that, not the 32 of its wind); None when no call returned anything. ``number``:
    :func:`previous_number` of ``context``."""
    call = next((c for c in reversed(context.exchanges[-1].calls) if c.ok and c.result.strip()), None) if context else None
    if call is None:
        return None
    line = call.result.strip().splitlines()[0].strip()[:160]
    computed = "=" in line or re.fullmatch(r"-?[\d.,]+\s*[^\s\d]{0,12}", line.translate(_WIDE))
    return number if number is not None and computed else line


def nth_link(part: str, context: Context) -> str | None:
    """The address ``part`` points at with "the first result", "第二个结果", "最初のリンク": that link
    of the previous exchange's results, in their order; None when it names none, or there is none."""
    match = _NTH.search(part)
    if match is None or not context:
        return None
    links = [link.rstrip(".,;:") for call in context.exchanges[-1].calls if call.ok for link in _URL.findall(call.result)]
    said = next(group for group in match.groups() if group)
    index = _NTH_INDEX.get(said.casefold(), _NTH_INDEX.get(said, 0))
    return links[index] if links and (index < len(links)) else None


# "there", "that city", "那边", "そこ": the place of the previous exchange
_THERE = re.compile(r"\b(?:there|that (?:city|place|town))\b|那边|那里|那儿|当地|向こう|そこ|現地|あっち", re.IGNORECASE)


def there_named(decision: Decision, text: str, manifest: ToolManifest | None) -> Decision:
    """``decision`` with the place ``text`` names once and then points back to ("シドニーの友達に電話したいんだけど、
    向こうは今何時くらい？", "我在伦敦出差，那边明天下雨吗") for its tool's place parameter, when the model wrote none
    there (or declined the tool for want of it, when it needs nothing else); as it was otherwise (no place, or two)."""
    key = next((k for k in manifest.parameters if takes_place(manifest, k)), None) if manifest is not None else None
    there = _THERE.search(text)
    if key is None or there is None or decision.params.get(key):
        return decision
    said = unicodedata.normalize("NFKC", text)
    names = place_names(said[:there.start()])
    if len(names) != 1 or place_names(said) != names:
        return decision
    spot, form = re.search(re.escape(names[0]), said, re.IGNORECASE), value_form(manifest, key)
    place = spot and (form.normal(spot.group(0)) if form is not None else spot.group(0))  # as the message writes it
    if not place:
        return decision
    if decision.tool is None:
        if decision.missing != key or not set(manifest.required) <= {key}:
            return decision
        decision = Decision(manifest.name, {}, decision.scores, decision.logprobs, decision.nearest)
    decision.params[key], decision.carried = place, True
    return decision


def refers_back(part: str) -> bool:
    """Whether ``part`` takes a value from something said before it: "there", "那边", a result."""
    return bool(_THERE.search(part)) or works_on_result(part)


def folded(value: object) -> str:
    """``value`` as compared with a message: without spaces, case folded."""
    return re.sub(r"\s+", "", str(value)).casefold()


def _stated(value: object, text: str) -> bool:
    return bool(folded(value)) and folded(value) in folded(text.translate(_WIDE))


def carried(tool: str, params: dict, keys: list[str], text: str, context: Context, follow_up: bool) -> dict:
    """``params`` of a decision for ``text`` completed from the previous exchange's last call:

    - a follow-up to the same tool that states a value ("and 130?", "那90呢", "now look for FIXME") keeps
      that call's values for what the message does not state, and a number takes the place of the one
      of an expression (``sqrt(256)``, then "324だと？": ``sqrt(324)``); what the decision left out is
      that call's;
    - "there" / "那边" / "向こう" is the first value of that call, for the first of the tool's
      parameters (``keys``) left empty.
    """
    if not context:
        return params
    previous = next((call for call in reversed(context.exchanges[-1].calls) if call.ok), None)
    if previous is None:
        return params
    out = dict(params)
    if previous.tool == tool and follow_up:
        # when the message states a value, it is what changed; a value it does not state was written
        # from nowhere (else the model's values stand: "in ounces?" is written "oz", "20%?" "0.2*240")
        states = any(_stated(value, text) for value in out.values())
        kept: list[object] = []  # the values kept so far, in the order of the tool's parameters
        for key in sorted(out, key=lambda k: keys.index(k) if k in keys else len(keys)):
            if key in previous.params and (states and not _stated(out[key], text) or out[key] in kept):
                out[key] = previous.params[key]  # written from nowhere, or a word already put in its place
            kept.append(out[key])
        for key, before in previous.params.items():
            now = out.get(key)
            if now in (None, ""):
                out[key] = before
            elif re.fullmatch(r"\d+(?:\.\d+)?", str(now)) and isinstance(before, str):
                numbers = re.findall(r"\d+(?:\.\d+)?", before)
                if len(numbers) == 1 and numbers[0] != before:  # an expression around one number
                    out[key] = before.replace(numbers[0], str(now))
        return out
    if _THERE.search(text) and previous.params:
        place = next((v for v in previous.params.values() if isinstance(v, str) and v.strip()), None)
        empty = [key for key in keys if out.get(key) in (None, "")]
        if place is not None and empty:
            out[empty[0]] = place
    return out


def followed_tools(context: Context, text: str, failed: bool = False) -> set[str]:
    """The tools of the previous exchange that ran (with ``failed``, also those that failed), when
    ``text`` is short enough to be its follow-up."""
    if not context or not is_follow_up(text):
        return set()
    return {call.tool for call in context.exchanges[-1].calls if call.ok or failed}
