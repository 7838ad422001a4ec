"""Values in the form a parameter asks for. A parameter whose description asks for an IANA time zone,
an ISO 4217 currency code, an ISO 3166-1 country code, an IATA airport or airline code, a unit
symbol or a CSS colour gets one when the message says it another way: "伦敦" becomes ``Europe/London``, "euros"
``EUR``, "日元" ``JPY``, "タイ" ``TH``, "London Heathrow" ``LHR``, "Lufthansa" ``LH``, "kilometres"
``km``, "华氏度" ``°F``, "蓝色" (for a CSS colour) ``blue``. The form is read from the parameter's description (as tools from
MCP servers and OpenAPI documents state it), never from the tool's name, so it holds for any tool set.
A value that is already in the form, or that no table knows, is left as written.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from agent.router.spoken import with_digits
from agent.toolkit.airports import airline_code, airline_names, airport_code, airport_names
from agent.router.prompt import value_schema
from agent.toolkit.base import ToolManifest
from agent.toolkit.colours import colour_name, names as colour_names
from agent.toolkit.dates import dates_in, iso_date, month_named, span_named, without_dates
from agent.toolkit.tickers import names as ticker_names, ticker_symbol
from agent.toolkit.times import datetimes_in, iso_datetime
from agent.toolkit.countries import country_code, names as country_names
from agent.toolkit.units import find_unit, names as unit_names
from agent.toolkit.zones import ALIASES, cities, iana_names, localized, name_key, zone_name

_CURRENCY_NAMES: dict[str, tuple[str, ...]] = {
    "USD": ("dollar", "us dollar", "american dollar", "buck", "$", "us$", "美元", "美金", "ドル", "米ドル", "米国ドル"),
    "EUR": ("euro", "€", "欧元", "歐元", "ユーロ"),
    "JPY": ("yen", "japanese yen", "日元", "日币", "日圆", "円", "日本円"),
    "CNY": ("yuan", "renminbi", "rmb", "chinese yuan", "人民币", "人民幣", "元", "块", "人民元", "中国元"),
    "GBP": ("pound", "pound sterling", "sterling", "british pound", "£", "英镑", "英鎊", "ポンド", "英ポンド"),
    "KRW": ("won", "korean won", "韩元", "韓元", "韩币", "ウォン", "韓国ウォン"),
    "CHF": ("swiss franc", "franc", "瑞士法郎", "スイスフラン"),
    "CAD": ("canadian dollar", "加元", "加币", "加拿大元", "カナダドル"),
    "AUD": ("australian dollar", "澳元", "澳币", "澳大利亚元", "豪ドル", "オーストラリアドル"),
    "NZD": ("new zealand dollar", "纽币", "新西兰元", "ニュージーランドドル", "nzドル"),
    "HKD": ("hong kong dollar", "港币", "港元", "港幣", "香港ドル"),
    "TWD": ("taiwan dollar", "new taiwan dollar", "新台币", "台币", "新台幣", "台湾ドル"),
    "SGD": ("singapore dollar", "新加坡元", "新币", "シンガポールドル"),
    "INR": ("rupee", "indian rupee", "卢比", "印度卢比", "ルピー", "インドルピー"),
    "RUB": ("ruble", "rouble", "russian ruble", "卢布", "ルーブル"),
    "BRL": ("real", "reais", "brazilian real", "雷亚尔", "巴西雷亚尔", "レアル"),
    "MXN": ("peso", "mexican peso", "墨西哥比索", "比索", "ペソ", "メキシコペソ"),
    "THB": ("baht", "thai baht", "泰铢", "バーツ", "タイバーツ"),
    "VND": ("dong", "vietnamese dong", "越南盾", "ドン"),
    "IDR": ("rupiah", "印尼盾", "ルピア"),
    "MYR": ("ringgit", "林吉特", "马币", "リンギット"),
    "PHP": ("philippine peso", "菲律宾比索", "フィリピンペソ"),
    "SEK": ("swedish krona", "krona", "kronor", "瑞典克朗", "スウェーデンクローナ"),
    "NOK": ("norwegian krone", "挪威克朗", "ノルウェークローネ"),
    "DKK": ("danish krone", "丹麦克朗", "デンマーククローネ"),
    "PLN": ("zloty", "polish zloty", "兹罗提", "ズウォティ"),
    "TRY": ("lira", "turkish lira", "里拉", "土耳其里拉", "トルコリラ"),
    "ZAR": ("rand", "south african rand", "兰特", "南非兰特", "ランド"),
    "AED": ("dirham", "uae dirham", "迪拉姆", "ディルハム"),
    "SAR": ("riyal", "saudi riyal", "里亚尔", "リヤル"),
    "ILS": ("shekel", "new shekel", "谢克尔", "シェケル"),
    "BTC": ("bitcoin", "比特币", "ビットコイン"),
    "ETH": ("ether", "ethereum", "以太坊", "以太币", "イーサリアム"),
}


def _currency_key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = re.sub(r"^[0-9.,\s]+|[0-9.,\s]+$", "", text)  # "100 dollars", "美元100"
    return re.sub(r"\s+", " ", text)


_CURRENCIES: dict[str, str] = {_currency_key(name): code for code, names in _CURRENCY_NAMES.items() for name in names}


def currency_code(text: str) -> str | None:
    """The ISO 4217 code for a currency name, symbol or code ("euros" -> ``EUR``); None when unknown."""
    key = _currency_key(text)
    if re.fullmatch(r"[a-z]{3}", key) and (key.upper() in _CURRENCY_NAMES or text.strip().isupper()):
        return key.upper()
    if key in _CURRENCIES:
        return _CURRENCIES[key]
    singular = re.sub(r"(?<=[a-z])s$", "", key)
    return _CURRENCIES.get(singular)


#: codes of ``_CURRENCY_NAMES`` that no ISO 4217 list has
_NOT_ISO = frozenset({"BTC", "ETH"})


def iso_currency_code(text: str) -> str | None:
    """:func:`currency_code`, for a parameter that asks for ISO 4217: no cryptocurrency."""
    code = currency_code(text)
    return code if code not in _NOT_ISO else None


def iana_zone(text: str) -> str | None:
    """The IANA name for a zone, city or country; None when unknown. ``UTC`` and offsets stay."""
    if re.fullmatch(r"(?i)\s*(utc|gmt)\s*([+-]\s*\d{1,2}(:?\d{2})?)?\s*", text):
        return text.strip().upper().replace(" ", "")
    if not name_key(text):
        return None
    # a city put in the wrong area ("Asia/London") is still the city
    return zone_name(text) or (zone_name(text.rpartition("/")[2]) if "/" in text else None)


def unit_symbol(text: str) -> str | None:
    """The symbol of a unit named by its symbol or name, in any of the three languages ("miles" ->
    ``mi``, "公里" -> ``km``, "摂氏" -> ``°C``); None when unknown."""
    unit = find_unit(re.sub(r"^[0-9.,\s]+|[0-9.,\s]+$", "", text))  # "5 km", "10公里"
    return unit.symbol if unit else None


#: unit names that are also everyday English words, not looked for in a message
_UNIT_WORDS = frozenset({"in", "st", "pt", "kt", "kn", "cup", "cc", "fps"})


def _finder(names: Iterable[str]) -> re.Pattern[str]:
    """One pattern for every name: Latin names as whole words, others anywhere."""
    parts = sorted({n for n in names if n}, key=len, reverse=True)
    return re.compile("|".join(rf"(?<![a-z]){re.escape(n)}(?![a-z])" if n.isascii() else re.escape(n) for n in parts))


@lru_cache(maxsize=1)
def _zone_finder() -> re.Pattern[str]:
    return _finder([*ALIASES, *cities(), *localized(), *(n.casefold() for n in iana_names())])


@lru_cache(maxsize=1)
def _currency_finder() -> re.Pattern[str]:
    names = [n for n in _CURRENCIES if len(n) > 1 or not n.isascii()]  # "$" and "元" alone, not "a"
    return _finder([*names, *(f"{n}s" for n in names if n.isascii() and n.isalpha()), *(c.casefold() for c in _CURRENCY_NAMES)])


@lru_cache(maxsize=1)
def _iso_currency_finder() -> re.Pattern[str]:
    names = [n for n, code in _CURRENCIES.items() if code not in _NOT_ISO and (len(n) > 1 or not n.isascii())]
    return _finder([*names, *(f"{n}s" for n in names if n.isascii() and n.isalpha()),
                    *(c.casefold() for c in _CURRENCY_NAMES if c not in _NOT_ISO)])


@lru_cache(maxsize=4)
def _ticker_finder(crypto: bool = True, stocks: bool = True) -> re.Pattern[str]:
    return _finder(ticker_names(crypto, stocks))


@lru_cache(maxsize=1)
def _unit_finder() -> re.Pattern[str]:
    names = {unicodedata.normalize("NFKC", n).casefold() for n in unit_names()}
    return _finder([n for n in names if (len(n) > 1 or not n.isascii()) and n not in _UNIT_WORDS]
                   + [f"{n}s" for n in names if n.isascii() and n.isalpha() and len(n) > 2])


@lru_cache(maxsize=1)
def _country_finder() -> re.Pattern[str]:
    # not two- or three-letter Latin names: "in", "it", "can" are words before they are codes
    return _finder([n for n in country_names() if not n.isascii() or len(n) > 3 or n in ("usa", "uk")])


@lru_cache(maxsize=1)
def _airport_finder() -> re.Pattern[str]:
    return _finder(airport_names())


@lru_cache(maxsize=1)
def _colour_finder() -> re.Pattern[str]:
    return _finder(colour_names())


@lru_cache(maxsize=1)
def _airline_finder() -> re.Pattern[str]:
    return _finder([n for n in airline_names() if not n.isascii() or len(n) > 2])


@lru_cache(maxsize=1)
def _one_before_name() -> re.Pattern[str]:
    names = f"(?:{_currency_finder().pattern}|{_unit_finder().pattern})"
    english = rf"(?<![a-z0-9])(?:one\s+|an?\s+(?!bit\b))(?={names})"  # not "a bit"
    cjk = rf"(?<![零〇一二两兩三四五六七八九十百千万萬亿億0-9统統同唯第逐单單专專均整])[一壹](?={names})"
    return re.compile(f"{english}|{cjk}", re.IGNORECASE)


def ones_said(text: str) -> str:
    """``text`` with one of a currency or a unit said in words written as 1: "how many yen is a dollar" is
    "how many yen is 1 dollar", "一美元等于多少日元" "1美元等于多少日元", so that the amount is one the message
    states (:func:`agent.router.spoken.with_digits` leaves "one" and 一 alone, mostly "the one" and "a"; 一 of a
    word stays: 统一, 唯一, 第一)."""
    return _one_before_name().sub(lambda m: "1" if m.group(0)[0] in "一壹" else "1 ", text)


def _folded(text: str) -> str:
    """A message as the finders read it: NFKC, case-folded, ``_`` as a space."""
    return unicodedata.normalize("NFKC", text).casefold().replace("_", " ")


@dataclass(frozen=True)
class Form:
    """A form of value: its name, how to write a value in it (None when it cannot be), and where to
    find the names a message states."""

    name: str
    normal: Callable[[str], str | None]
    finder: Callable[[], re.Pattern[str]] | None = None
    codes: re.Pattern[str] | None = None  # codes as a message writes them ("LHR"), looked for before case-folding
    closed: bool = False  # every value is in the tables ("lights" is no colour): one that is not is no value
    said: bool = False  # a value must be one the message (or the conversation) names: a date, never made up
    reader: Callable[[str], list[tuple[int, str]]] | None = None  # finds the values instead of ``finder``
    fit: Callable[[str, list[str]], str] | None = None  # a normal value made one of those the message names

    def fitted(self, value: str, named: list[str]) -> str | None:
        """``value`` in this form, fitted to the values the message ``named`` (a date-time the message
        gives no time for is its date)."""
        normal = self.normal(value)
        return self.fit(normal, named) if normal is not None and self.fit is not None else normal

    def stated(self, text: str) -> set[str]:
        """The values in this form that ``text`` names ("伦敦 … 东京" -> Europe/London, Asia/Tokyo)."""
        return set(self.in_order(text))

    def in_order(self, text: str) -> list[str]:
        """The values in this form that ``text`` names, each once, in the order it names them."""
        text = unicodedata.normalize("NFKC", text)
        if self.reader is not None:
            return list(dict.fromkeys(value for _, value in self.reader(text)))
        found = [(m.start(), self.normal(m.group(0))) for m in self.finder().finditer(_folded(text))] if self.finder else []
        found += [(m.start(), self.normal(m.group(0))) for m in self.codes.finditer(text)] if self.codes else []
        return list(dict.fromkeys(value for _, value in sorted(found, key=lambda pair: pair[0]) if value))

    def holding(self, value: str, text: str) -> str | None:
        """The one value in this form that ``text`` names with words holding ``value`` ("北京" of
        "北京首都机场" is ``PEK``); None when no name or several hold it."""
        part = unicodedata.normalize("NFKC", value).casefold().strip()
        if len(part) < 2 or self.finder is None:
            return None
        found = {self.normal(m.group(0)) for m in self.finder().finditer(_folded(text)) if part in m.group(0)}
        found.discard(None)
        return found.pop() if len(found) == 1 else None


ZONE = Form("IANA time zone", iana_zone, _zone_finder)
CURRENCY = Form("currency code", currency_code, _currency_finder)
ISO_CURRENCY = Form("ISO 4217 currency code", iso_currency_code, _iso_currency_finder)
TICKER = Form("ticker or crypto symbol", ticker_symbol, _ticker_finder)
CRYPTO = Form("crypto symbol", lambda text: ticker_symbol(text, stocks=False), lambda: _ticker_finder(True, False))
STOCK = Form("stock ticker", lambda text: ticker_symbol(text, crypto=False), lambda: _ticker_finder(False, True))
UNIT = Form("unit symbol", unit_symbol, _unit_finder)
COUNTRY = Form("ISO 3166-1 alpha-2 country code", country_code, _country_finder)
COUNTRY3 = Form("ISO 3166-1 alpha-3 country code", lambda text: country_code(text, 3), _country_finder)
AIRPORT = Form("IATA airport code", airport_code, _airport_finder, re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])"))
AIRLINE = Form("IATA airline code", airline_code, _airline_finder, re.compile(r"(?<![A-Za-z0-9])[A-Z0-9]{2}(?![A-Za-z0-9])"))
DATE = Form("ISO 8601 date", iso_date, closed=True, said=True, reader=dates_in)
DATETIME = Form("ISO 8601 date-time", iso_datetime, closed=True, said=True, reader=datetimes_in,
                fit=lambda value, named: value[:10] if value not in named and value[:10] in named else value)


def year_month(text: str) -> str | None:
    """``YYYY-MM`` of the one month ``text`` names as a whole ("2027-09", "September 2027", "2027年9月", "next
    month"); None when it names none, several, or a day of one."""
    month = month_named(text)
    return month[0][:7] if month else None


MONTH = Form("year and month (YYYY-MM)", year_month, closed=True, said=True,
             reader=lambda text: [(0, found)] if (found := year_month(text)) else [])
COLOUR = Form("CSS colour name or hex code", colour_name, _colour_finder, re.compile(r"#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b"),
              closed=True)

_ASKS_ZONE = re.compile(r"\bIANA\b|\btz ?database\b|\bOlson\b", re.IGNORECASE)
_MENTIONS_ZONE = re.compile(r"time ?zone|时区|時區|タイムゾーン", re.IGNORECASE)
_ZONE_EXAMPLE = re.compile(r"\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Z][A-Za-z_]+")
_ACCEPTS_NAMES = re.compile(r"\bcit(?:y|ies)\b|\bcountr(?:y|ies)\b|\bplace\b|城市|国家|都市|国名", re.IGNORECASE)
_ASKS_CURRENCY = re.compile(r"ISO[\s-]?4217", re.IGNORECASE)
_MENTIONS_CURRENCY = re.compile(r"currenc|货币|币种|幣別|通貨", re.IGNORECASE)
_ASKS_TICKER = re.compile(r"\bticker|\bstock\s+(?:code|symbol)|\bcrypto(?:currency)?\s+(?:code|symbol)|\bsecurity\s+symbol"
                          r"|\bsymbol\b.*\b(?:stocks?|shares?|crypto|coins?|tokens?|securit)|股票代码|股票代號|证券代码|"
                          r"加密货币(?:代码|符号)|加密貨幣(?:代碼|符號)|銘柄コード|ティッカー", re.IGNORECASE)
_NAMES_TOO = re.compile(r"\bnames?\b|名称|名稱|名前|社名|銘柄名", re.IGNORECASE)
_MENTIONS_CRYPTO = re.compile(r"crypto|\bcoins?\b|\btokens?\b|加密|数字货币|币|暗号資産|仮想通貨", re.IGNORECASE)
_MENTIONS_STOCK = re.compile(r"ticker|stock|share|equit|securit|股|証券|株|銘柄", re.IGNORECASE)
_MENTIONS_UNIT = re.compile(r"\bunits?\b|单位|單位|単位", re.IGNORECASE)
_ASKS_SYMBOL = re.compile(r"symbol|abbreviat|\bSI\b|\bUCUM\b|符号|缩写|縮寫|記号|略号|略称", re.IGNORECASE)
_ASKS_COUNTRY = re.compile(r"ISO[\s-]?3166|\bcountry[\s-]code|国家代码|國家代碼|国コード|国名コード", re.IGNORECASE)
_ALPHA3 = re.compile(r"alpha[\s-]?3|three[\s-]letter|3[\s-]letter|三字母|3文字|三文字", re.IGNORECASE)
_ASKS_AIRLINE = re.compile(r"\b(?:IATA|ICAO|two[\s-]letter|2[\s-]letter)\b.*\bairline|\bairline\b.*\b(?:IATA|designator)\b"
                           r"|航空公司(?:二字)?代码|航空公司代碼|航空会社コード", re.IGNORECASE)
_ASKS_AIRPORT = re.compile(r"\bIATA\b|\bairport\s+code|机场代码|機場代碼|空港コード", re.IGNORECASE)
_MENTIONS_COLOUR = re.compile(r"colou?r|颜色|顏色|色", re.IGNORECASE)
_ASKS_COLOUR_NAME = re.compile(r"\bCSS\b|\bhex|#[0-9A-Fa-f]{6}\b|十六进制|十六進|16進", re.IGNORECASE)
_ASKS_DATE = re.compile(r"YYYY-MM-DD|yyyy-mm-dd|ISO[\s-]?8601\s+(?:calendar\s+)?date|\bdate\b[^.]*\b\d{4}-\d{2}-\d{2}\b"
                        r"|日期[^。]*\d{4}-\d{2}-\d{2}|日付[^。]*\d{4}-\d{2}-\d{2}", re.IGNORECASE)
_ASKS_ISO = re.compile(r"ISO[\s-]?8601|\d{4}-\d{2}-\d{2}T\d{2}|YYYY-MM-DD[T ]HH", re.IGNORECASE)
_ASKS_MONTH = re.compile(r"YYYY-MM(?!-DD)|yyyy-mm(?!-dd)", re.IGNORECASE)
_HAS_TIME = re.compile(r"date[\s-]?time|HH|hh:mm|\d{4}-\d{2}-\d{2}[T ]\d|timestamp|时间|時間|時刻", re.IGNORECASE)
_NUMBERED = re.compile(r"\bnumber\b|\bflight\b|航班号|便名", re.IGNORECASE)  # "Airline code and number, e.g. BA117"
_CODE_HINT = re.compile(r"\bISO\b|\bcode\b|代码|代碼|コード|\b(?:USD|EUR|JPY|GBP|CNY)\b", re.IGNORECASE)


def value_form(manifest: ToolManifest, key: str) -> Form | None:
    """The form the description of ``manifest``'s parameter ``key`` asks for, if it is one of those
    above (a date: its JSON schema's ``"format": "date"`` too); None otherwise (the value is written
    as the message says it)."""
    description, schema = str(manifest.parameters.get(key) or ""), value_schema(manifest, key)
    if _ASKS_MONTH.search(description) or _month_pattern(schema.get("pattern")):
        return MONTH
    if schema.get("format") == "date" or _ASKS_DATE.search(description) and not _HAS_TIME.search(description):
        return DATE
    if schema.get("format") == "date-time" or _ASKS_ISO.search(description) and _HAS_TIME.search(description):
        return DATETIME  # "Start time, ISO 8601 date-time, e.g. 2026-12-01T09:00", "Due date or date-time, ISO 8601"
    if _ASKS_COUNTRY.search(description):  # "ISO 3166-1 alpha-2 country code of the passport"
        return COUNTRY3 if _ALPHA3.search(description) else COUNTRY
    if _ACCEPTS_NAMES.search(description):
        return None  # the tool takes the name as said ("City, country or IANA time zone", "City or IATA airport code")
    if _ASKS_AIRLINE.search(description) and not _NUMBERED.search(description):
        return AIRLINE
    if _ASKS_AIRPORT.search(description) and not _NUMBERED.search(description):
        return AIRPORT
    if _ASKS_ZONE.search(description) or (_MENTIONS_ZONE.search(description) and _ZONE_EXAMPLE.search(description)):
        return ZONE
    if _ASKS_TICKER.search(description):  # "Ticker or crypto symbol", "Crypto symbol, e.g. BTC, ETH"
        if _NAMES_TOO.search(description):
            return None  # "Company name or partial ticker": the name as said
        crypto, stock = bool(_MENTIONS_CRYPTO.search(description)), bool(_MENTIONS_STOCK.search(description))
        return CRYPTO if crypto and not stock else STOCK if stock and not crypto else TICKER
    if _ASKS_CURRENCY.search(description):  # ISO 4217 has no bitcoin
        return ISO_CURRENCY
    if _MENTIONS_CURRENCY.search(description) and _CODE_HINT.search(description):
        return CURRENCY
    if _MENTIONS_UNIT.search(description) and _ASKS_SYMBOL.search(description):
        return UNIT
    if _MENTIONS_COLOUR.search(description) and _ASKS_COLOUR_NAME.search(description):
        return COLOUR  # "CSS colour name (e.g. "red") or hex code like "#FFAA00""
    return None


def _month_pattern(pattern: object) -> bool:
    """Whether a schema's ``pattern`` takes a year and month and not a whole date ("^\\d{4}-\\d{2}$")."""
    try:
        return isinstance(pattern, str) and bool(re.search(pattern, "2027-09")) and not re.search(pattern, "2027-09-01") \
            and not re.search(pattern, "CDG")
    except re.error:
        return False


#: the words of a parameter's key that make it the start or the end of a span of dates
_STARTS, _ENDS = {"start", "from", "since", "begin", "after"}, {"end", "to", "until", "till", "before"}


def month_bound(key: str, text: str) -> str:
    """For a date parameter that starts or ends a span (``start_date``, ``date_to``, ``until``): the
    first or last day of the one month, months or year ``text`` names as a whole ("2026年10月の取引", "last
    month", "1 月到 6 月", "all my 2026 transactions": :func:`~agent.toolkit.dates.span_named`); "" otherwise."""
    words = set(re.split(r"[_\W]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", key).casefold()))
    month = span_named(text) if words & (_STARTS | _ENDS) else None
    if month is None or (words & _STARTS and words & _ENDS):
        return ""
    return month[0] if words & _STARTS else month[1]


def told_apart(manifest: ToolManifest, params: dict[str, object], text: str) -> dict[str, object]:
    """``params`` with the parameters of one form given the values the message names in that form, in
    the order it names them, when it names as many as there are such parameters and the call holds
    others ("origin" and "destination" both ``CDG``, or ``HND`` and a ``KYO`` the message never
    names, for "from Paris Charles de Gaulle to Tokyo Haneda", "羽田から那覇まで"); else as they were
    (a call that holds the values the message names, in any order, is left to the model)."""
    groups: dict[Form, list[str]] = {}
    for key in params:
        form = value_form(manifest, key) if isinstance(params[key], str) else None  # not an object's members
        if form is not None:
            groups.setdefault(form, []).append(key)
    out = dict(params)
    for form, keys in groups.items():
        if len(keys) < 2:
            continue
        named = form.in_order(text)
        if form in (CURRENCY, ISO_CURRENCY, UNIT) and (converted := conversion(manifest, keys, named, form, text)):
            out.update(converted)  # "1万円はドルでいくら": from JPY, whatever the model or the order says
        elif len(named) == len(keys) and {str(params[key]) for key in keys} != set(named):
            out.update(zip(keys, named))
    return from_marked(manifest, out, text)


#: words of a parameter that takes what a conversion starts from, and of one that takes what it comes to
_SOURCE_WORDS = frozenset("from source src base sell original origin".split())
_TARGET_WORDS = frozenset("to target quote buy into destination dest".split())
#: a number, with a scale after it, that a currency's or a unit's name follows ("1万円", "100 dollars", "3 metres")
_AMOUNT_BEFORE = re.compile(r"[0-9](?:[.,][0-9]+)?\s*(?:[万萬千亿億]|thousand|million|billion|k)?\s*$")
#: ... or comes before ("USD 100", "€50")
_AMOUNT_AFTER = re.compile(r"\s*[0-9]")


def conversion(manifest: ToolManifest, keys: list[str], named: list[str], form: Form, text: str) -> dict[str, str]:
    """The two currencies (or units: ``form``) of a conversion, when ``text`` names two (``named``) and says an amount
    in one of them: that one for the parameter of ``keys`` that takes what is converted from ("from", "source", "base"),
    the other for the one it comes to. "1万円はドルでいくら" and "how many yen is 100 dollars" start from the amount's
    currency, "how many feet is 3 metres" from metres, whichever the message names first. {} when the message or the
    parameters do not say so (no amount, an amount in both, keys of no such words)."""
    if len(keys) != 2 or len(named) != 2:
        return {}
    roles = [_role(manifest, key) for key in keys]
    if sorted(roles) != ["source", "target"]:
        return {}
    said = _folded(ones_said(with_digits(without_dates(unicodedata.normalize("NFKC", text)))))  # no amount of "USD on 2026-12-01"
    amounts = {form.normal(m.group(0)) for m in form.finder().finditer(said)
               if _AMOUNT_BEFORE.search(said[:m.start()]) or _AMOUNT_AFTER.match(said, m.end())} if form.finder else set()
    amounts.discard(None)
    if len(amounts) != 1 or not amounts <= set(named):
        return {}
    source = amounts.pop()
    target = next(code for code in named if code != source)
    return {key: source if role == "source" else target for key, role in zip(keys, roles)}


#: what marks the value something starts from: "from main", "从 main", "main から"
_FROM_BEFORE = re.compile(r"(?:(?<![a-z])from|从|從)\s*$")
_FROM_AFTER = re.compile(r"\s*から")


def from_marked(manifest: ToolManifest, params: dict[str, object], text: str) -> dict[str, object]:
    """``params`` with the value ``text`` says something starts from ("main から hotfix/x ブランチを切って", "从 savings
    转到 checking", "a branch hotfix/x from main") in the parameter that takes it ("from_ref": :func:`_role`), when the
    model wrote it in another parameter of the call and the source parameter's own value is said unmarked: the two
    are swapped. Else as they were (a value said nowhere, two values marked, more than one source parameter)."""
    said = {key: value for key, value in params.items() if isinstance(value, str) and value}
    sources = [key for key in said  # by its name and by its description: not a ``base`` "to merge into"
               if _role(manifest, key) == "source" == _role(manifest, key, key_first=False)]
    if len(sources) != 1 or _marked(text, said[sources[0]]) is not False:
        return params
    source = sources[0]
    marked = [key for key in said if key != source and _marked(text, said[key])]
    if len(marked) != 1 or not (_role(manifest, marked[0]) == "target" or _kin(manifest, source, marked[0])):
        return params  # a merchant "from Amazon" is no date to start from
    return {**params, source: said[marked[0]], marked[0]: said[source]}


def _kin(manifest: ToolManifest, source: str, other: str) -> bool:
    """Whether parameter ``other``'s name says a word of ``source``'s name or description (``branch`` of "from_ref":
    "Branch or commit to branch from"): values of one kind."""
    words = set(re.findall(r"[a-z]{3,}", f"{source} {manifest.parameters.get(source) or ''}".replace("_", " ").casefold()))
    return bool(words & (set(re.findall(r"[a-z]{3,}", other.replace("_", " ").casefold())) - _SOURCE_WORDS - _TARGET_WORDS))


def _marked(text: str, value: str) -> bool | None:
    """Whether ``text`` says ``value`` as what something starts from (:data:`_FROM_BEFORE`, :data:`_FROM_AFTER`);
    None when it does not say it (as a whole word, for a Latin one)."""
    folded, value = unicodedata.normalize("NFKC", text).casefold(), unicodedata.normalize("NFKC", value).casefold()
    spots = [m for m in re.finditer(rf"(?<![a-z0-9_]){re.escape(value)}(?![a-z0-9_])", folded)]
    if not spots:
        return None
    return any(_FROM_BEFORE.search(folded[:m.start()]) or _FROM_AFTER.match(folded, m.end()) for m in spots)


def _role(manifest: ToolManifest, key: str, key_first: bool = True) -> str:
    """Whether ``key`` takes what a conversion starts from ("source") or comes to ("target"), by the last such word
    of its name, else of its description ("from_currency"; "Currency to convert from"); "" when neither says.
    Not ``key_first``: the description's word first."""
    described = str(manifest.parameters.get(key) or "")
    for said in ((key, described) if key_first else (described, key)):
        for word in reversed(re.findall(r"[a-z]+", said.replace("_", " ").casefold())):
            if word in _SOURCE_WORDS or word in _TARGET_WORDS:
                return "source" if word in _SOURCE_WORDS else "target"
    return ""


#: a parameter that takes a place by its name (its key or its description says so)
_TAKES_PLACE = re.compile(r"\bcit(?:y|ies)\b|\btown\b|\bplace\b|\blocation\b|城市|地点|地點|都市|場所|地名", re.IGNORECASE)


#: a parameter that takes a file, a folder or an address, however it names it ("the file's location")
_TAKES_PATH = re.compile(r"\bpath\b|\bfiles?\b|\bfolders?\b|\bdirector(?:y|ies)\b|\burl\b|\blink\b"
                         r"|文件|目录|路径|網址|网址|链接|ファイル|フォルダ|ディレクトリ|パス", re.IGNORECASE)


def takes_place(manifest: ToolManifest, key: str) -> bool:
    """Whether ``manifest``'s parameter ``key`` takes a place (a city, a location) by its name."""
    said = f"{key.replace('_', ' ')} {manifest.parameters.get(key) or ''}"
    return bool(_TAKES_PLACE.search(said)) and not _TAKES_PATH.search(said)


def takes_path(manifest: ToolManifest, key: str) -> bool:
    """Whether ``manifest``'s parameter ``key`` takes a file, a folder or an address."""
    return bool(_TAKES_PATH.search(f"{key.replace('_', ' ')} {manifest.parameters.get(key) or ''}"))


def place_names(text: str) -> list[str]:
    """The places (cities, countries) that ``text`` names, as the tables know them, folded (NFKC, case)."""
    folded = _folded(text)
    found = [m.group(0) for finder in (_zone_finder, _country_finder) for m in finder().finditer(folded)]
    return list(dict.fromkeys(name for name in found if not any(name != other and name in other for other in found)))


def place_named(manifest: ToolManifest, key: str, text: str) -> str:
    """The one place that ``text`` names in Chinese or Japanese script ("ドバイ", "莫斯科"), as it writes
    it, when ``manifest``'s parameter ``key`` takes a place by its name; "" when the parameter takes no
    place, or the message names none or several. What a value is when the model could not copy the
    name out of the message (its tokens break a katakana name apart)."""
    if not takes_place(manifest, key):
        return ""
    found = [name for name in place_names(text) if not name.isascii()]
    return found[0] if len(found) == 1 else ""
