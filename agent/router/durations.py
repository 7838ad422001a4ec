"""A length of time said in one unit, for a parameter that takes another: "两个小时" for ``duration_minutes``
is 120, "2時間半" 150, "an hour and a half" 90, "30 seconds" for ``timeout_ms`` 30000.

The model copies the number the message says ("2" of "两个小时"); :func:`in_unit` writes it in the unit the
parameter's key or description names (``duration_minutes``, "Timeout in seconds", "提前多少分钟提醒"),
when the number written is one the message says with another unit of time. A parameter that names no
unit, or several, and a number the message does not say with a unit, are left as written.
"""

from __future__ import annotations

import re
import unicodedata

from agent.router.prompt import value_schema
from agent.router.spoken import with_digits
from agent.toolkit.base import ToolManifest

#: seconds in each unit
SECONDS = {"millisecond": 0.001, "second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}

# a unit as a parameter's key ends with it ("duration_minutes", "timeoutMs", "wait_secs")
_KEY_UNIT = re.compile(r"(?:^|_)(ms|millis(?:econds?)?|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)$")
# ... or as its description names it
_DESCRIBED = {
    "millisecond": re.compile(r"\bmillis(?:econds?)?\b|\bms\b|毫秒|ミリ秒", re.IGNORECASE),
    "second": re.compile(r"\bseconds?\b|\bsecs?\b|(?<!毫)(?<!ミリ)秒", re.IGNORECASE),
    "minute": re.compile(r"\bminutes?\b|\bmins?\b|分钟|分鐘|分間|(?<![0-9])分(?:数|數)", re.IGNORECASE),
    "hour": re.compile(r"\bhours?\b|\bhrs?\b|小时|小時|時間(?:数|数)?", re.IGNORECASE),
    "day": re.compile(r"\bdays?\b|天数|天數|日数|日數", re.IGNORECASE),
    "week": re.compile(r"\bweeks?\b|周数|週數|週数", re.IGNORECASE),
}
_KEY_NAMES = {"ms": "millisecond", "millis": "millisecond", "sec": "second", "min": "minute", "hr": "hour"}

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
# a number and a unit of time as a message says them ("2 hours", "90-minute", "2个小时", "3時間", "30分間", "45秒")
_SAID = [
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:ms|milliseconds?|毫秒|ミリ秒)(?![a-z])", re.IGNORECASE), "millisecond"),
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:seconds?|secs?|秒(?:钟|鐘|間)?)(?![a-z])", re.IGNORECASE), "second"),
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:minutes?|mins?|分钟|分鐘|分間)(?![a-z])", re.IGNORECASE), "minute"),
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:hours?|hrs?|(?:个|個)?\s*(?:小时|小時|钟头|鐘頭)|時間(?!目))(?![a-z])", re.IGNORECASE), "hour"),
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:days?|天|日間)(?![a-z])", re.IGNORECASE), "day"),
    (re.compile(_NUMBER + r"\s*[-\s]?\s*(?:weeks?|(?:个|個)\s*(?:星期|礼拜|禮拜)|週間)(?![a-z])", re.IGNORECASE), "week"),
]
# halves: "1个半小时", "2時間半", "an hour and a half", "2 and a half hours", "半小时", "half an hour"
_HALVES = [
    (re.compile(_NUMBER + r"\s*(?:个|個)?\s*半\s*(?:小时|小時|钟头|鐘頭)"), 0.5),
    (re.compile(_NUMBER + r"\s*時間半"), 0.5),
    (re.compile(_NUMBER + r"\s+and\s+a\s+half\s+hours?", re.IGNORECASE), 0.5),
]
_HALF_HOUR = re.compile(r"(?<![0-9个個])\s*半\s*(?:个|個)?\s*(?:小时|小時|钟头|鐘頭)|\bhalf\s+(?:an\s+)?hour\b|\bhalf-hour\b", re.IGNORECASE)
_HOUR_AND_HALF = re.compile(r"\b(?:an|one)\s+hour\s+and\s+a\s+half\b|\bone\s+and\s+a\s+half\s+hours?\b", re.IGNORECASE)
_ONE_HOUR = re.compile(r"\b(?:an|one)\s+hour\b(?!\s+and\s+a\s+half)", re.IGNORECASE)


def unit_of(manifest: ToolManifest, key: str) -> str | None:
    """The unit of time the parameter ``key`` takes its number in, as its key or, else, its description
    names it; None when neither names one, or the description names several."""
    ending = _KEY_UNIT.search(re.sub(r"(?<=[a-z])(?=[A-Z])", "_", key).casefold())
    if ending:
        word = ending.group(1).rstrip("s") if ending.group(1) != "ms" else "ms"
        word = _KEY_NAMES.get(word, _KEY_NAMES.get(word[:3], word))
        return word if word in SECONDS else next((unit for unit in SECONDS if unit.startswith(word)), None)
    described = str(manifest.parameters.get(key, ""))
    named = [unit for unit, pattern in _DESCRIBED.items() if pattern.search(described)]
    return named[0] if len(named) == 1 else None


def durations_in(message: str) -> list[tuple[float, str]]:
    """Each length of time ``message`` says: its number (in the unit said) and its unit."""
    text = with_digits(re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", unicodedata.normalize("NFKC", message)), one=True)  # "two-hour", 一个半
    found: list[tuple[float, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern, half in _HALVES:
        for match in pattern.finditer(text):
            whole = match.group(1)
            found.append((float(whole) + half, "hour"))
            taken.append(match.span())
    for pattern, number in ((_HOUR_AND_HALF, 1.5), (_HALF_HOUR, 0.5), (_ONE_HOUR, 1.0)):
        for match in pattern.finditer(text):
            if not any(start <= match.start() < end for start, end in taken):
                found.append((number, "hour"))
                taken.append(match.span())
    for pattern, unit in _SAID:
        for match in pattern.finditer(text):
            if not any(start <= match.start() < end for start, end in taken):
                found.append((float(match.group(1)), unit))
    return found


def in_unit(manifest: ToolManifest, key: str, value: str, message: str) -> str:
    """``value`` (a number written for ``key``) in the unit ``key`` takes, when it is a number ``message``
    says with another unit of time ("2" of "两个小时" for minutes: "120"); else ``value`` as it is."""
    unit, number = unit_of(manifest, key), _number(value)
    if unit is None or number is None:
        return value
    said = durations_in(message)
    if any(amount == number and said_unit == unit for amount, said_unit in said):
        return value  # said in the parameter's own unit
    # the number said, or its whole part ("1" of "1个半小时")
    converted = {_converted(amount, said_unit, unit) for amount, said_unit in said
                 if said_unit != unit and (amount == number or amount % 1 and int(amount) == number)}
    if len(converted) != 1:
        return value
    result = converted.pop()
    if value_schema(manifest, key).get("type") == "integer" and not float(result).is_integer():
        return value
    return str(int(result)) if float(result).is_integer() else str(round(result, 6))


def says_length(manifest: ToolManifest, key: str, value: str, message: str) -> bool:
    """Whether ``value``, a number written for ``key``, is a length of time ``message`` says, in the unit the parameter
    takes: 30 for ``duration_minutes`` of "半小时" or "half an hour", 60 of "an hour" (no digit in the message, yet the
    number is stated, not made up)."""
    unit, number = unit_of(manifest, key), _number(value)
    return unit is not None and number is not None and any(
        _converted(amount, said, unit) == number for amount, said in durations_in(message))


def _number(value: str) -> float | None:
    """``value`` as a number ("1,500" is 1500); None when it is none."""
    try:
        return float(value.replace(",", ""))
    except ValueError:
        return None


def _converted(amount: float, unit: str, into: str) -> float:
    """``amount`` of ``unit`` in ``into`` (0.5 hour is 30 minutes)."""
    return amount * SECONDS[unit] / SECONDS[into]
