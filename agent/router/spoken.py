"""Numbers said in words, written in digits: "twenty percent" is 20 percent, "二十四度" 24度,
"三時間" 3時間. A numeric parameter's value is copied from the message in digits (see
:func:`agent.router.values.value_filters`), so the message's words for a number must become digits
first. English goes through text2num, Chinese and Japanese numerals through cn2an (both libraries
made for the job); neither changes a number already in digits."""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

from agent.router.prompt import value_schema
from agent.toolkit.base import ToolManifest

#: a Chinese or Japanese numeral character (零, 一 … 九, 两, 十, 百, 千, 万, 亿)
_CJK_NUMERAL = re.compile(r"[零〇一二两兩三四五六七八九十百千万萬亿億]")
#: an English number word
_NUMBER_WORD = re.compile(
    r"\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
    r"thousand|million|billion)\b",
    re.IGNORECASE,
)
#: what may follow a numeral of one character that counts something (一杯, 三个, 五時間, or the
#: message's end or a particle: "调到五", "五にして"); before anything else it is part of a word or a name (一起, 一緒, 九州,
#: 四川, 八王子) and stays as it is
_COUNTED = re.compile(
    r"$|[\s,，.。!！?？、;；)）にでをへとがはも]|まで|から|より"
    r"|[个個杯只本台件张張次位天年月周週日号號元块塊円度分秒米里斤瓶份条條盒包双雙把家间間人回枚冊匹頭つ歳岁倍层層楼樓階%％]"
    r"|小时|小時|时间|時間|分钟|公里|千米|公斤|毫升|ヶ月|か月|カ月|週間|キロ|メートル|パーセント"
)
#: a run of numerals, with a decimal part said after 点 (二十四点五), and a percentage (百分之二十)
_RUN = re.compile(r"(?:百分之)?负?[零〇一二两兩三四五六七八九十百千万萬亿億]+(?:[点點][零〇一二两三四五六七八九]+)?")


def with_digits(text: str, one: bool = False) -> str:
    """``text`` with the numbers it says in words written in digits. Words that only look like a
    number stay as they are ("the one I meant", 一起, 一緒に, 九州), and so does 一 alone, mostly "a"
    (找一个, 一つ), unless ``one`` (一楼 is 1楼 then)."""
    if _CJK_NUMERAL.search(text):
        text = _cjk_digits(text, one)
    if _NUMBER_WORD.search(text):
        text = _english_digits(text)
    return text


#: digits with a Chinese or Japanese multiplier ("3万円", "1.5万", "3万5千", "5億", "2千円"; not 千米 or 千克,
#: kilometres and kilograms, which are units of their own)
MULTIPLIED = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?:[万萬](?:\d+千|\d{1,4}(?![\d.]))?|[亿億](?:\d+[万萬])?|千(?![米克瓦卡伏帕赫焦兆]))")


def multiplied(text: str) -> str:
    """``text`` with digits said with a multiplier written as one number: "3万円" is "30000円". (The numbers a
    value is copied from keep the message's "3" and scale it after: :func:`agent.router.values.scaled`.)"""
    return MULTIPLIED.sub(_one_number, text)


def _one_number(match: re.Match) -> str:
    run = match.group(0).replace("萬", "万").replace("億", "亿")
    return _cn2an(lambda cn2an: str(cn2an.cn2an(run, "smart")).removesuffix(".0"), match.group(0))


def _cn2an(read, run: str) -> str:
    """``read(cn2an)``, or ``run`` as it is when cn2an cannot read it (it warns of what it cannot read, and leaves it)."""
    import cn2an

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return read(cn2an)
    except (ValueError, KeyError, IndexError, TypeError):
        return run


@lru_cache(maxsize=256)
def _cjk_digits(text: str, one: bool) -> str:
    def convert(match: re.Match) -> str:
        run = match.group(0)
        if run in ("一", "壹") and not one or len(run) == 1 and not _COUNTED.match(text, match.end()):
            return run
        # cn2an reads 两 only inside a number (两万), not alone (两个)
        return _cn2an(lambda c: c.transform(re.sub(r"^([负]?)[两兩]", r"\1二", run), "cn2an"), run)

    return _RUN.sub(convert, text)


@lru_cache(maxsize=256)
def _english_digits(text: str) -> str:
    from text_to_num import alpha2digit

    try:
        # "one" alone is mostly a pronoun ("the one I meant"); "two" and up are numbers
        return alpha2digit(text, "en", threshold=2)
    except (ValueError, RuntimeError):
        return text


_N = r"(\d+(?:\.\d+)?)"
#: a power said in words: "2 to the power of 20", "3 raised to the 4th", "2 的 20 次方", "2の20乗"
_POWERS = [
    re.compile(rf"{_N}\s+(?:raised\s+)?to\s+the\s+power\s+of\s+{_N}\b", re.IGNORECASE),
    re.compile(rf"{_N}\s+raised\s+to\s+(?:the\s+)?{_N}(?:st|nd|rd|th)?(?:\s+power)?\b", re.IGNORECASE),
    re.compile(rf"{_N}\s+to\s+the\s+{_N}(?:st|nd|rd|th)\s+power\b", re.IGNORECASE),
    re.compile(rf"{_N}\s*的\s*{_N}\s*(?:次方|次幂|次冪)"),
    re.compile(rf"{_N}\s*の\s*{_N}\s*乗(?!数)"),
]


def with_powers(text: str) -> str:
    """``text`` with the powers it says in words written as ``**``: "2の20乗も計算して" is "2**20も計算して",
    the expression a calculation's value is copied as (the model, left with the words, wrote
    "2 * 20 * 20 * …")."""
    for pattern in _POWERS:
        text = pattern.sub(r"\1**\2", text)
    return text


#: shares of a whole said in words, and the percentage each is: "halfway", "a quarter", 一半, 四分之三, 半分, 4分の1
_SHARES = [
    (re.compile(r"\bthree[\s-]quarters?\b|四分之三|(?:4|四)分の(?:3|三)", re.IGNORECASE), 75),
    (re.compile(r"\b(?:a|one)\s+quarter\b|\bquarter[\s-]way\b|四分之一|(?:4|四)分の(?:1|一)", re.IGNORECASE), 25),
    # not the half of a time ("half past", "half an hour") nor of an amount ("half a kilo")
    (re.compile(r"\bhalf(?:[\s-]?way)?\b(?!\s+(?:past|an?\b|hour))|一半|半分(?!钟|鐘)|半开|半開|半关|半關", re.IGNORECASE), 50),
]


def as_percent(text: str) -> str:
    """``text`` with the shares of a whole it says in words written as percentages, for a parameter that is one
    (a position or a level from 0 to 100): "close the blinds halfway" is "… 50%", "音量调到一半" "音量调到50%"."""
    for pattern, percent in _SHARES:
        text = pattern.sub(f"{percent}%", text)
    return text


#: a fraction said the Chinese or Japanese way, the whole first: "7分の3", "七分之三" (three sevenths)
_FRACTION = re.compile(r"([0-9]+|[零〇一二两兩三四五六七八九十百]+)\s*分\s*[の之]\s*([0-9]+|[零〇一二两兩三四五六七八九十百]+)")


def fractions_upright(value: str, message: str) -> str:
    """``value`` with each fraction ``message`` says the Chinese or Japanese way ("7分の3", 四分之一) that it wrote
    upside down ("7/3", "4/1": the numbers in the order said) the right way up ("3/7", "1/4")."""
    for whole, part in _FRACTION.findall(message):
        whole, part = with_digits(whole, one=True), with_digits(part, one=True)
        if whole.isdigit() and part.isdigit() and whole != part:
            value = re.sub(rf"(?<![0-9.]){whole}(\s*/\s*){part}(?![0-9.])", rf"{part}\g<1>{whole}", value)
    return value


#: a parameter that is a share of a whole, by its words
_PERCENT = re.compile(r"percent|percentage|%|百分比|パーセント", re.IGNORECASE)


def percent_scale(manifest: ToolManifest, key: str) -> bool:
    """Whether ``key`` of ``manifest`` takes a percentage: a number from 0 to 100, or one its words call a percent
    (a position, a level, a volume; "halfway" is 50 of it: :func:`~agent.router.spoken.as_percent`)."""
    schema = value_schema(manifest, key)
    return schema.get("type") in ("number", "integer") and (
        (schema.get("minimum"), schema.get("maximum")) == (0, 100) or bool(_PERCENT.search(f"{key} {manifest.parameters.get(key, '')}")))
