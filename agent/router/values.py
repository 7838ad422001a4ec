"""How the router writes a parameter value: filters on what may be written, and the checks that
send a value back to be copied from the message."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from difflib import SequenceMatcher
from typing import Any

from agent.i18n import detect_language
from agent.router.durations import SECONDS, durations_in
from agent.router.forms import DATE, DATETIME, month_bound, place_named, takes_path, value_form
from agent.router.lists import casefold as _casefold, held as _held
from agent.router.labels import numbers_read
from agent.router.options import RouterOptions
from agent.router.prompt import LINK, enum_values, is_link, value_schema
from agent.router.spoken import MULTIPLIED, fractions_upright, multiplied, with_digits
from agent.router.switches import stated_for_another
from agent.toolkit.dates import without_dates
from agent.toolkit.base import ToolManifest, members


#: a parameter that takes a part of a date or a time (a year, a day, an hour): they are numbers it may copy
_DATE_PART = re.compile(r"year|month|day|date|week|time|hour|minute|年|月|日|周|週|時|时|点", re.IGNORECASE)
_NUMBER = re.compile(rb"-?[0-9][0-9,]*(\.[0-9]*)?|-?")
_INTEGER = re.compile(rb"-?[0-9][0-9,]*|-?")


def value_filters(manifest: ToolManifest, key: str, message: str, options: RouterOptions) -> dict[str, Any]:
    """How a parameter's value may be written: a number for numeric types, and for an optional
    parameter (with ``copy_optional``) a piece of the message, since it is stated there or left out.
    A number is copied from the message with the numbers it says in words written in digits
    (``spoken_numbers``: "twenty percent", 二十四度)."""
    filters: dict[str, Any] = {}
    kind = value_schema(manifest, key).get("type")
    numeric = kind in ("number", "integer")
    if numeric:
        pattern = _INTEGER if kind == "integer" else _NUMBER
        filters["allowed"] = lambda text: pattern.fullmatch(text) is not None
        if options.spoken_numbers:
            message = numbers_read(manifest, key, message)
        if not _DATE_PART.search(f"{key} {manifest.parameters.get(key, '')}"):
            message = without_dates(message)  # a count or an amount is not the 8 of "8月3日" or of "朝8時"
    if (options.copy_optional and key not in manifest.required) or (is_link(manifest, key) and LINK.search(message)):
        filters["copy_from"] = message
    elif numeric and options.copy_numbers and re.search(r"[0-9]", message):
        filters["copy_from"] = message  # a number the message states (not one from the examples)
    return filters


def only_empty(filters: dict[str, Any]) -> bool:
    """Whether a value written with ``filters`` (:func:`value_filters`) can only be empty: a number
    copied from a message that states none (the digits of its dates left out)."""
    return "allowed" in filters and "copy_from" in filters and not re.search(r"[0-9]", filters["copy_from"])


def nothing_to_write(manifest: ToolManifest, key: str, text: str, written: dict[str, Any], options: RouterOptions) -> bool:
    """Whether the optional parameter ``key`` can only come out empty for the message ``text``, so that
    it is not written at all: a number when the message states none (:func:`only_empty`), or a date
    when every date the message names is a value ``written`` before it (the departure's, for the return)."""
    if key in manifest.required or enum_values(manifest, key) or members(manifest, key) is not None:
        return False
    if only_empty(value_filters(manifest, key, text, options)):
        return True
    form = value_form(manifest, key) if options.value_forms else None
    return form in (DATE, DATETIME) and not month_bound(key, text) and set(form.in_order(text)) <= {str(v) for v in written.values()}


def unsaid_left_out(manifest: ToolManifest, params: dict[str, Any], message: str | None = None) -> dict[str, Any]:
    """``params`` without the optional values that state nothing: one equal to the parameter's
    default (the tool gets it anyway: "draft": false, "state": "open"), a piece of the message
    that another parameter already holds (a tag copied again as the release's name and body, an
    attendee's address as a start date), and, with ``message`` (its numbers in digits), a number it
    states fewer times than the parameters before hold it ("2" of "2 adults" as the rooms, the stars
    and the price too). A message's words state one value, not two; but a value that is the message
    copied whole (a reminder's text) holds a date, a figure or a code by that alone: it is kept, as is a value in the
    form its parameter asks for (a due date) beside free text that says it too. Free text
    that states another parameter's value by its name is left out too (:func:`~agent.router.switches.stated_for_another`)."""
    params = stated_for_another(manifest, params, message)
    kept: dict[str, Any] = {}
    stated = Counter(_numbers_listed(message)) if message is not None else None
    for key, value in params.items():
        if key in manifest.required:
            kept[key] = value
            continue
        schema = value_schema(manifest, key)
        if "default" in schema and _same(value, schema["default"]):
            continue
        free_text = schema.get("type", "string") in ("string", "array") and "enum" not in schema
        # a date, a figure, a code: stated apart even in a copy of the whole message (not a word of it, "calendar")
        form = value_form(manifest, key)
        formed = isinstance(value, str) and (bool(re.search(r"[0-9]", value)) or form is not None)
        # a value in the form its parameter asks for (a due date) is stated apart from free text that says it too
        # ("2026-12-20 までに年賀状を出す" as the reminder's text)
        in_form = isinstance(value, str) and form is not None and form.normal(value) is not None
        if free_text and isinstance(value, str) and _held(value, [
            str(other) for other_key, other in params.items()
            if other_key != key and (other_key in manifest.required or other_key in kept) and not (formed and _whole(str(other), message))
            and not (in_form and _said_freely(manifest, other_key))
        ]):
            continue
        if stated is not None and schema.get("type") in ("number", "integer") and isinstance(value, str):
            number = _counts(value)
            held = sum(_counts(other).count(number[0]) for other in
                       [v for k, v in params.items() if k in manifest.required and k != key] + list(kept.values())) if number else 0
            if held and held >= stated[number[0]]:
                continue
        kept[key] = value
    return kept


def _said_freely(manifest: ToolManifest, key: str) -> bool:
    """Whether ``key`` takes free text: a string of no form, no choices."""
    schema = value_schema(manifest, key)
    return schema.get("type", "string") == "string" and "enum" not in schema and value_form(manifest, key) is None


def _whole(value: str, message: str | None) -> bool:
    """Whether ``value`` is ``message`` (its numbers as counted) copied whole: it covers four fifths of it."""
    if not message:
        return False
    said, copied = re.sub(r"\s+", "", _casefold(message)), re.sub(r"\s+", "", _casefold(value))
    blocks = SequenceMatcher(None, copied, said, autojunk=False).get_matching_blocks()
    return len(said) >= 16 and sum(block.size for block in blocks) >= 0.8 * len(said)


def _counts(value: Any) -> list[float]:
    """The numbers a value is: a value that is one number (not "note 7", which names a thing by it),
    or the members of an object that are."""
    if isinstance(value, dict):
        return [number for member in value.values() for number in _counts(member)]
    text = unicodedata.normalize("NFKC", str(value)).strip()
    return _numbers_listed(text) if _DIGITS.fullmatch(text) else []


def named(manifest: ToolManifest, key: str, value: str, message: str) -> bool:
    """Whether ``message`` names a choice: the words of an enum member ("aisle", "premium economy"),
    or for a boolean the words of the parameter itself ("rollover", "include offline")."""
    said = _casefold(message)
    words = re.split(r"[_\s-]+", _casefold(key if value in ("true", "false") else value))
    return any(words) and all(re.search(rf"(?<!\w){re.escape(word)}", said) for word in words if word)


def _same(value: Any, default: Any) -> bool:
    """Whether a written value (a string: "false", "10", "open") is ``default``."""
    if isinstance(default, bool):
        return str(value).strip().casefold() == ("true" if default else "false")
    if isinstance(default, (int, float)):
        try:
            return float(str(value).replace(",", "")) == float(default)
        except ValueError:
            return False
    return isinstance(default, str) and str(value).strip().casefold() == default.strip().casefold()


def foreign(value: str, message: str) -> bool:
    """Whether ``value`` is written in another script than the message (Latin letters vs CJK)."""
    written, said = detect_language(value, default=""), detect_language(message, default="")
    return bool(written and said) and (written == "en") != (said == "en")


def unstated(value: str, message: str) -> bool:
    """Whether a Chinese or Japanese ``value`` is missing from a message in the same script (the
    model wrote a word of its own, e.g. 英寸 for the message's 英尺): copied from the message instead.
    Not done for English, where a value may rightly be rewritten (sqrt(2) for "square root of 2")."""
    return detect_language(value, default="") in ("zh", "ja") and detect_language(message, default="") in ("zh", "ja") \
        and _fold(value) not in _fold(message)


#: a date or a time of day: written from words ("tomorrow", "6時半"), not copied
_DATE_OR_TIME = re.compile(r"\d{4}-\d{1,2}(?:-\d{1,2})?|\d{1,2}:\d{2}")
#: arithmetic between numbers: an expression composed from the message ("0.125*80" for "12.5% of 80")
_ARITHMETIC = re.compile(r"\d\s*[-+*/^×÷]\s*[\d(]|[a-z]\(\d", re.IGNORECASE)


#: a value that stands for one the user did not give: "your_username", "<repo>", "{id}", "xxx"
_PLACEHOLDER = re.compile(r"(?:your|my)_\w+|<[^<>]+>|\{[^{}]+\}|x{3,}", re.IGNORECASE)
#: an e-mail address (the value's own: one the message does not give is made up)
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: a parameter that names a thing by its number: ``run_id``, ``order_number``
ID_KEY = re.compile(r"(?:^|_)(?:id|ids|number|num|no)$", re.IGNORECASE)


def invented(value: str, message: str) -> bool:
    """Whether ``value`` states a number of three or more digits that ``message`` does not (device
    ``12345``, offer ``123456``: an identifier taken from an example, not from the user), or is a small
    number the message neither states whole nor says in words (``0`` of "2700 K": a piece of another), or is a
    placeholder the message does not contain (``your_username``), or an e-mail address it does not
    give (``your_email@example.com``). Dates, times and arithmetic are composed from words and are
    not judged."""
    value, message = (unicodedata.normalize("NFKC", text) for text in (value, message))
    if _PLACEHOLDER.fullmatch(value.strip()) and value.strip().casefold() not in message.casefold():
        return True
    if any(address.casefold() not in message.casefold() for address in ADDRESS.findall(value)):
        return True
    if _DATE_OR_TIME.search(value) or _ARITHMETIC.search(value):
        return False
    said = set(re.findall(r"[0-9]+", re.sub(r"(?<=[0-9])[,_' ](?=[0-9]{3})", "", message)))  # 1,500 states 1500
    if re.fullmatch(r"[1-9]?[0-9]", bare := value.strip()) and bare not in said:  # "0" of "2700", "1" of "4821":
        return bare not in re.findall(r"[0-9]+", with_digits(message, one=True))  # a piece of another number
    return any(run not in said for run in re.findall(r"[0-9]{3,}", value))


def worth_copying(value: str, copied: str) -> str:
    """What the message's words ``copied`` for a made-up ``value`` are worth: nothing when they are a
    letter picked out of a word, or no e-mail address for a value that was one (the message gives none)."""
    if len(copied) == 1 and copied.isalpha():
        return ""
    return "" if ADDRESS.search(value) and not ADDRESS.search(copied) else copied


#: a number's scale said after it: "3万円" is 30000, "2.5 million" 2500000 (千米, 千克 … are units, not thousands)
_SCALES = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8, "千": 10**3, "thousand": 10**3, "million": 10**6,
           "billion": 10**9}
_SCALED = re.compile(r"\s*(万|萬|亿|億|千(?![米克瓦卡伏赫帕字兆秒])|thousand\b|million\b|billion\b)", re.IGNORECASE)


def scaled(value: str, message: str) -> str:
    """``value``, a number copied from ``message``, times the scale the message says after it ("3"
    of "月3万円" is ``30000``); unchanged when the message says none, or says it differently in
    different places."""
    message = unicodedata.normalize("NFKC", message)
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        return value
    found = set()
    for match in re.finditer(rf"(?<![0-9.,]){re.escape(value)}(?![0-9]|[.,][0-9])", message):
        after = _SCALED.match(message, match.end())
        found.add(_SCALES[after.group(1).casefold()] if after else 1)
    if len(found) != 1 or found == {1}:
        return value
    result = number * found.pop()
    return str(int(result)) if result.is_integer() else str(result)


#: a number written in digits (1,500 and 24.5 are one number each)
_DIGITS = re.compile(r"[0-9]+(?:[,.][0-9]+)*")


def _numbers_listed(text: str) -> list[float]:
    """Every number ``text`` writes in digits, as often as it writes it."""
    found = []
    for run in _DIGITS.findall(unicodedata.normalize("NFKC", text)):
        try:
            found.append(float(run.replace(",", "")))
        except ValueError:  # 1.2.3, a version: no one number
            continue
    return found


def _numbers(text: str) -> set[float]:
    return set(_numbers_listed(text))


def loose_numbers(message: str, params: dict[str, Any]) -> set[float]:
    """The numbers ``message`` states in digits that no value of ``params`` holds, in digits or in
    words, as written or scaled ("3" of "3万" is held by 30000, "2" of "2楼" by 二楼)."""
    message = unicodedata.normalize("NFKC", message)
    held = set().union(*(_numbers(with_digits(str(value))) for value in params.values()))
    # "2" of "两个小时" is held by 120 minutes
    held |= {amount for amount, unit in durations_in(message) if any(amount * SECONDS[unit] / SECONDS[other] in held for other in SECONDS)}
    loose = set()
    for run in _DIGITS.findall(message):
        plain = _numbers(run)
        if plain and not plain & held and not _numbers(scaled(run, message)) & held:
            loose |= plain
    return loose


def numberless(value: str, message: str) -> bool:
    """Whether ``value``, written for a number the tool needs, is a number of two or more digits while
    ``message`` (in digits, its number words written as digits) states no number at all: made up, as
    ``100`` mph for "芝加哥的风速换成英里每小时是多少" or ``30`` for "拉萨现在多少华氏度" (a small one is what
    "a mile", "half a kilo" or "a couple" say)."""
    return bool(re.fullmatch(r"-?[0-9]{2,}(?:\.[0-9]+)?", value.strip())) and not _numbers(message)


_WHERE = re.compile(r"path|folder|dir", re.IGNORECASE)


def named_tool(manifests: dict[str, ToolManifest], chosen: str, params: dict[str, Any], message: str) -> str | None:
    """Another tool that the call of ``chosen`` names as where to look: a folder written as a bare word
    of the message that is that tool's name or a word of its description, and none of ``chosen``'s
    ("search my notes for X" chose the file search with the folder ``notes``; "在我的笔记里搜" ``笔记``).
    None: no value names one, or the message names ``chosen`` itself."""
    own = f"{chosen} {manifests[chosen].description}".casefold()
    if re.search(rf"\b{re.escape(chosen)}\b", message, re.IGNORECASE):
        return None  # "grep TODO in notes" names the tool it chose
    for key, value in params.items():
        word = str(value).strip().casefold()
        if not _WHERE.search(key) or len(word) < 2 or re.search(r"[/\\~.\s]", word) or word not in message.casefold():
            continue
        for name, manifest in manifests.items():
            if name != chosen and word not in own and (word in name.casefold().split("_")
                                                       or word in manifest.description.casefold()):
                return name
    return None


def in_range(value: str, schema: dict[str, Any]) -> bool:
    """Whether a number written for a parameter lies within its ``minimum`` and ``maximum`` (a value
    that is not a number is not judged here)."""
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        return True
    low, high = schema.get("minimum"), schema.get("maximum")
    return not (isinstance(low, (int, float)) and number < low or isinstance(high, (int, float)) and number > high)


def unsaid_number(value: str, message: str) -> bool:
    """Whether a text value is a bare number that ``message`` does not write in digits: the model
    turned the message's words into it ("1" for 一楼, "2" for "second floor"), where a text
    parameter takes the words as said."""
    value, message = unicodedata.normalize("NFKC", value).strip(), unicodedata.normalize("NFKC", message)
    if re.fullmatch(r"[0-9]+", value) is None or value in re.findall(r"[0-9]+", message):
        return False
    return value in re.findall(r"[0-9]+", with_digits(message, one=True))  # said in words (not "09" made of nothing)


def takes_number(manifest: ToolManifest, numbers: set[float]) -> bool:
    """Whether a numeric parameter of ``manifest`` can take one of ``numbers``: its type (an integer
    takes no fraction) and its ``minimum`` and ``maximum`` admit it."""
    for key in manifest.parameters:
        schema = value_schema(manifest, key)
        kind = schema.get("type")
        inner = members(manifest, key)
        if inner is not None and takes_number(inner, numbers):  # "adults" of "passengers"
            return True
        if kind not in ("number", "integer"):
            continue
        low, high = schema.get("minimum", float("-inf")), schema.get("maximum", float("inf"))
        if any(low <= number <= high and (kind == "number" or number.is_integer()) for number in numbers):
            return True
    return False


_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{4,}")


def respelled(value: str, message: str) -> str:
    """``value`` with every Latin word that the message lacks but has in a close spelling written as
    the message writes it (Lisboa for the message's Lisbon): a name the model changed, not a value
    it composed (sqrt for "square root" stays)."""
    said = {word.casefold(): word for word in _LATIN_WORD.findall(message)}

    def respell(match: re.Match) -> str:
        word = match.group(0)
        if word.casefold() in said:
            return word
        ratio, closest = max(((SequenceMatcher(None, word.casefold(), key).ratio(), original)
                              for key, original in said.items()), default=(0.0, word))
        return closest if ratio >= 0.8 else word

    return _LATIN_WORD.sub(respell, value) if said else value


def rewrite(cursor: Any, mark: Any, value: str, opening: bool) -> None:
    """Replace what was written for a value since ``mark`` by ``value`` (with its opening quote when
    the model was to write it)."""
    cursor.rewind(mark)
    written = json.dumps(value, ensure_ascii=False)
    cursor.extend(" " + written if opening else written[1:])


def _fold(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def opening(forced: str) -> str:
    """The space and opening quote an option starts with when they were not forced before it."""
    return "" if forced else ' "'


def clean_value(raw: str) -> str:
    """A value the model wrote inside JSON quotes, unescaped when it is valid JSON string content."""
    text = raw.strip()
    try:
        text = json.loads(f'"{text}"')
    except ValueError:
        text = text.rstrip("\\")
    return text.strip()


# the characters a word of a message is made of, for a value copied from inside one: Latin letters, digits
# (apart: "1.5GB" is a number and a unit), or katakana (with its long-vowel mark), which write foreign
# names without spaces
_WORD_CLASSES = (re.compile(r"[A-Za-z\u00c0-\u024f]"), re.compile(r"[0-9]"), re.compile(r"[\u30a0-\u30ff\uff66-\uff9f]"))


def completed(manifest: ToolManifest, key: str, value: str, message: str) -> str:
    """A value written as the message says it, made whole: the word it was cut from (:func:`whole_words`),
    or, when nothing was written for a parameter that takes a place, the one place the message names
    in Chinese or Japanese script (:func:`~agent.router.forms.place_named`), an identifier's number the
    identifier with its prefix ("4410" of "evt_4410"). A value the model ran on in is cut where it began
    to (:func:`run_on_cut`); a fraction said the Chinese or Japanese way and written upside down is turned
    (:func:`~agent.router.spoken.fractions_upright`: "7/3" of "7分の3" is "3/7")."""
    value = fractions_upright(rescaled(run_on_cut(value, message), message), message)
    if value and takes_path(manifest, key):
        value = whole_path(value, message)
    if value and ID_KEY.search(key) and value_schema(manifest, key).get("type", "string") == "string":
        value = next((run for run in _PREFIXED.findall(message) if value != run and (run.endswith(value) or run.startswith(value))), value)
    return whole_words(value, message) if value else place_named(manifest, key, message)


#: an identifier with a prefix ("evt_4410", "acc-002"): its number alone is no identifier of it
_PREFIXED = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*[_-][A-Za-z0-9_-]*[A-Za-z0-9]")


def rescaled(value: str, message: str) -> str:
    """``value`` with a number that the message states with a multiplier, written at the wrong scale, at the
    message's: "3000 * 0.80" or "3 * 0.8" of "3万円の20%オフ" is "30000 * 0.80". A number the message states as
    it is stays."""
    runs = MULTIPLIED.findall(message)
    said = set(re.findall(r"[0-9]+(?:\.[0-9]+)?", multiplied(with_digits(message)))) if runs else set()
    for run in runs:
        full = multiplied(run)
        value = re.sub(r"(?<![0-9.])[0-9]+(?![0-9.])",
                       lambda m: full if m.group(0) not in said and m.group(0).rstrip("0") == full.rstrip("0") else m.group(0),
                       value)
    return value


_REPEATED = re.compile(r"(.{1,8}?)\1{3,}")
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def run_on_cut(value: str, message: str) -> str:
    """``value`` up to where the model began to repeat itself ("4 * 2.5 * 2.5 * 2.5 * 2.5 * 2" is "4 * 2.5")
    or close what it never opened ("sqrt(1764)}}" is "sqrt(1764)"), when the message says no such run."""
    for match in _REPEATED.finditer(value):
        digits = not re.search(r"[^0-9.,]", match.group(1))  # 100000000 is 1亿: only a run past any amount
        if match.group(0) not in message and (not digits or len(match.group(0)) > 15):
            value = value[:match.start() + len(match.group(1))].rstrip(" *+-/^,.")
            break
    while value and value[-1] in _CLOSERS and value.count(value[-1]) > value.count(_CLOSERS[value[-1]]) \
            and value not in message:
        value = value[:-1].rstrip()
    return value


def whole_words(value: str, message: str) -> str:
    """``value`` widened to the whole word of ``message`` it starts or ends inside: "ヨーク" copied
    out of "ニューヨーク" is "ニューヨーク", "ork" of "York" is "York". Left as it is when the message
    does not hold it, or holds it as whole words already."""
    at = message.find(value) if len(value) > 1 else -1  # one letter picked out of a word is no part of a name
    if at < 0:
        return value
    start, end = at, at + len(value)
    for kind in _WORD_CLASSES:
        if kind.match(value[0]):
            while start > 0 and kind.match(message[start - 1]):
                start -= 1
        if kind.match(value[-1]):
            while end < len(message) and kind.match(message[end]):
                end += 1
    return message[start:end]


# a run of a message that may be a path or an address: no spaces, quotes, brackets or Chinese/Japanese text
_PATH_RUN = re.compile(r"[^\s\"'“”‘’「」『』（）()<>\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]+")


def whole_path(value: str, message: str) -> str:
    """``value`` widened to the path or address of ``message`` it was cut from ("Desktop" of "~/Desktop",
    "src/app.py" of "./src/app.py"), for a parameter that takes one; as it is when the message holds no
    such run around it (a folder named in words, "桌面")."""
    if len(value) < 2:
        return value
    for run in _PATH_RUN.finditer(message):
        path = run.group(0).rstrip(".,;:!?")
        # widened at a separator only: "config.py" of "config.py:7" (a file and a line) is the file
        if re.search(r"[/\\]|^~", path) and (path.startswith(value) and path[len(value):][:1] in ("/", "\\")
                                               or path.endswith(value) and path[:-len(value)][-1:] in ("/", "\\")):
            return path
    return value


#: what a parameter's description says its empty value stands for ("leave empty for local time", "留空表示本地时间",
#: "空欄ならローカル時刻", "blank means all folders")
_EMPTY_MEANS = re.compile(
    r"(?:leave (?:it )?(?:empty|blank)|(?:empty|blank|omitted|omit(?: it)?)(?: means| for| is| =)?)\s+(?:for |means |=\s*)?(?:the )?(?P<en>[^.;,)]+)"
    r"|(?:留空|为空|不填|空白)(?:则|表示|即|为|时为|代表)?(?P<zh>[^。；;，,)）]+)"
    r"|(?:空欄|空|未指定|省略)(?:なら|の場合は?|時は|で)(?:は)?(?P<ja>[^。；;、,)）]+)",
    re.IGNORECASE,
)


def means_empty(manifest: ToolManifest, key: str, value: str) -> bool:
    """Whether ``value`` is what the parameter's description says an empty value stands for: "local" for a
    zone "leave empty for local time" (the message's "my local time" states no zone)."""
    said = _EMPTY_MEANS.search(str((manifest.parameters or {}).get(key, "")))
    meaning = next((g for g in said.groups() if g), "") if said else ""
    words = re.findall(r"[a-z]{3,}|[\u3040-\u30ff\u3400-\u9fff]{2,}", _casefold(value))
    return bool(meaning and words) and all(word in _casefold(meaning) for word in words)
