"""``calculator``: exact arithmetic on one expression, parsed with ``ast`` (never ``eval``).

Accepted input, after normalization:

- numbers (``12``, ``2.5``, ``1e3``, ``1_000``); full-width digits and operators; ``1,000`` thousands
  separators when the expression calls no function (inside calls, commas separate arguments);
- ``+ - * / // % **`` with ``^`` for power, ``×``/``·``/``x`` (between numbers) for times, ``÷``, ``−``,
  ``²``/``³``, ``√`` for sqrt; parentheses; a trailing ``=`` or ``?`` is ignored, and so is an answer
  after ``=`` (``586 / 4 = 146.5``); currency signs ($ € £ ¥, 元, 円) are dropped; ``0x1F`` is hexadecimal;
- constants ``pi`` (``π``) and ``e``; functions sqrt, abs, round(x[, digits]), floor, ceil,
  log(x[, base]) (natural by default), ln, log10, log2, exp, sin, cos, tan (radians), factorial;
- percent: ``15% of 80`` and a ``%`` ending a number (``80*15%``) mean /100; ``7 % 3`` is modulo.

Rational results are exact (``fractions.Fraction``: 0.1+0.2 = 0.3); irrational functions use floats
and the result is shown with ``≈``. Limits against abuse: 500 characters; exact results of at most
3000 digits; exact powers only up to |exponent| 10000 (beyond that, a float approximation or a
"too large" error); factorial arguments <= 1000.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, format_number, manifest_from, pick

MAX_LENGTH = 500
MAX_EXPONENT = 10_000
MAX_DIGITS = 3000
MAX_BITS = math.ceil(MAX_DIGITS * math.log2(10))
MAX_FACTORIAL = 1000
SHOWN_DIGITS = 12  # significant digits of a non-integer result
MAX_INTEGER_DIGITS = 100  # longer integers are shown in scientific notation

Number = Fraction | float

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Calculate the exact result of an arithmetic expression (fractions, powers, roots, logs, percentages).",
        "expression": "The expression, e.g. (3+4)*2, 2^10, sqrt(2), 15% of 80, log(1000, 10)",
        "examples": ["What is 1234 * 5678?", "Calculate 15% of 80", "What's the square root of 2?"],
        "extra_examples": [
            "What's an 18% tip on a $64 bill?",
            "(45 + 15) / 4 * 3 = ?",
            "Split 237.60 between 4 people, how much each?",
            "If I save 250 a month for 18 months, how much will I have?",
            "What is 2 to the power of 16?",
            "What's 987 divided by 23?",
            "how much is 17.5% of 240",
            "Calculate (12.5 * 8) - 3^4",
            "What's the cube root of 729?",
            "log base 2 of 4096?",
            "We spent 1,842 on the trip and there are 6 of us, how much does each person owe?",
            "If a jacket costs 129 and it's 35% off, what's the final price?",
            "Could you work out 3/7 + 5/9 for me as an exact fraction?",
        ],
    },
    "zh": {
        "description": "需要精确计算算术表达式（分数、乘方、开方、对数、百分比）时使用。",
        "expression": "算式，例如 (3+4)*2、2^10、sqrt(2)、15% of 80、log(1000, 10)",
        "examples": ["1234 乘以 5678 等于多少？", "帮我算一下 (3+4)*2^5", "2 的平方根是多少？"],
        "extra_examples": [
            "3.5 乘以 12 再减去 7 是多少",
            "一共 468 元，6 个人平分每人多少？",
            "(120 - 45) / 5 = ?",
            "2 的 20 次方等于多少",
            "买了 3 件 89 元的衣服，打八折后一共多少钱？",
            "12 的 5 次方是多少？",
            "根号 500 等于多少？",
            "(128 + 256) / 16 * 3 等于几",
            "这顿饭一共 486 元，5 个人 AA 每人多少钱？",
            "每个月存 3000，存两年半一共多少钱？算一下",
            "麻烦计算一下 log(10000, 10) 的结果，谢谢",
        ],
    },
    "ja": {
        "description": "計算式の正確な結果を求めるときに使う（分数・累乗・平方根・対数・パーセント）。",
        "expression": "計算する式。例: (3+4)*2、2^10、sqrt(2)、15% of 80、log(1000, 10)",
        "examples": ["1234 × 5678 はいくつ？", "(3+4)*2^5 を計算して", "2 の平方根はいくつですか？"],
        "extra_examples": [
            "3.5 × 12 − 7 は？",
            "4680円を6人で割り勘するといくら？",
            "(120 - 45) ÷ 5 を計算して",
            "2の20乗っていくつ？",
            "月に2万円ずつ貯金したら1年でいくらになる？",
            "3456 × 78 はいくつ？",
            "12000円の8%っていくら？",
            "√169 を計算して",
            "毎月15000円ずつ貯金したら、3年でいくらになる？",
            "7/8 - 1/3 を分数で正確に出して",
        ],
    },
}

_FUNCTION_NAMES = "sqrt, abs, round, floor, ceil, log, ln, log10, log2, exp, sin, cos, tan, factorial"

_TEXT = {
    "empty": {
        "en": "No expression was given. Pass an arithmetic expression such as 2*(3+4).",
        "zh": "没有提供算式。请传入算术表达式，例如 2*(3+4)。",
        "ja": "計算式が指定されていません。2*(3+4) のような計算式を渡してください。",
    },
    "too_long": {
        "en": "The expression has {length} characters; the limit is {limit}. Split it into smaller calculations.",
        "zh": "算式有 {length} 个字符，超过了 {limit} 个字符的上限。请拆成几个较小的计算。",
        "ja": "計算式が {length} 文字あり、上限の {limit} 文字を超えています。小さな計算に分けてください。",
    },
    "syntax": {
        "en": "Could not read \"{expr}\" as a calculation. Check the brackets and operators; use numbers, + - * / ^ ( ) and functions such as sqrt(2).",
        "zh": "无法把“{expr}”识别为算式。请检查括号和运算符；可用数字、+ - * / ^ ( ) 以及 sqrt(2) 这样的函数。",
        "ja": "「{expr}」を計算式として読み取れませんでした。括弧と演算子を確認してください。数字、+ - * / ^ ( ) と sqrt(2) のような関数が使えます。",
    },
    "unknown_name": {
        "en": "\"{name}\" is not a known constant or function. Allowed: pi, e and {functions}.",
        "zh": "“{name}”不是可用的常数或函数。可用的有：pi、e 以及 {functions}。",
        "ja": "「{name}」は使える定数・関数ではありません。使えるもの: pi、e、{functions}。",
    },
    "not_allowed": {
        "en": "\"{what}\" is not allowed in a calculation; only numbers, operators, pi, e and {functions} are.",
        "zh": "算式中不能使用“{what}”；只能使用数字、运算符、pi、e 以及 {functions}。",
        "ja": "計算式に「{what}」は使えません。使えるのは数字、演算子、pi、e、{functions} だけです。",
    },
    "arg_count": {
        "en": "{name}() takes {expected} argument(s), but got {got}.",
        "zh": "{name}() 需要 {expected} 个参数，但给了 {got} 个。",
        "ja": "{name}() の引数は {expected} 個ですが、{got} 個渡されました。",
    },
    "div_zero": {
        "en": "Division by zero in \"{expr}\". Check the divisor.",
        "zh": "“{expr}”中出现了除以零。请检查除数。",
        "ja": "「{expr}」でゼロ除算が起きました。割る数を確認してください。",
    },
    "too_large": {
        "en": "The result of \"{expr}\" is too large (more than {digits} digits or beyond floating-point range).",
        "zh": "“{expr}”的结果太大（超过 {digits} 位或超出浮点数范围）。",
        "ja": "「{expr}」の結果が大きすぎます（{digits} 桁を超えるか、浮動小数点数の範囲外です）。",
    },
    "not_real": {
        "en": "\"{expr}\" has no real-number result (e.g. the root of a negative number).",
        "zh": "“{expr}”没有实数结果（例如负数开方）。",
        "ja": "「{expr}」は実数の結果になりません（負の数の平方根など）。",
    },
    "log_domain": {
        "en": "A logarithm needs a positive number and a positive base other than 1.",
        "zh": "对数的真数必须是正数，底数必须是不等于 1 的正数。",
        "ja": "対数の真数は正の数、底は 1 以外の正の数である必要があります。",
    },
    "factorial": {
        "en": "factorial() needs a whole number from 0 to {limit}.",
        "zh": "factorial() 的参数必须是 0 到 {limit} 之间的整数。",
        "ja": "factorial() の引数は 0 から {limit} までの整数にしてください。",
    },
    "round_digits": {
        "en": "round(x, digits): digits must be a whole number from -100 to 100.",
        "zh": "round(x, digits)：digits 必须是 -100 到 100 之间的整数。",
        "ja": "round(x, digits): digits は -100 から 100 までの整数にしてください。",
    },
    "long_integer": {
        "en": "{value} (an integer of {digits} digits)",
        "zh": "{value}（共 {digits} 位的整数）",
        "ja": "{value}（{digits} 桁の整数）",
    },
}


class CalcError(Exception):
    """A problem with the expression; ``key`` names a message in ``_TEXT``."""

    def __init__(self, key: str, **values: object):
        super().__init__(key)
        self.key = key
        self.values = values


# ------------------------------------------------------------------ normalization
_SYMBOLS = str.maketrans({"×": "*", "·": "*", "∗": "*", "÷": "/", "−": "-", "–": "-", "π": "pi"})


def _without_answer(text: str) -> str:
    """The text before a top-level ``=`` (not ``==``, ``<=``, nor a keyword argument inside brackets)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch in "=＝" and depth == 0 and text[i - 1 : i] not in ("=", "<", ">", "!") and text[i + 1 : i + 2] != "=":
            return text[:i].strip()
    return text


def normalize(expression: str) -> str:
    """The expression in Python syntax (see the module docstring for what is accepted)."""
    text = expression.replace("²", "**2").replace("³", "**3")
    text = unicodedata.normalize("NFKC", text).translate(_SYMBOLS).strip().rstrip("=?").strip()
    text = _without_answer(text)  # "586 / 4 = 146.5": the part before the answer
    text = re.sub(r"[$€£¥￥₩₹]|(?<=\d)\s*(?:元|円|块)", "", text)  # amounts of money are numbers
    text = re.sub(r"√\s*(\d+(?:\.\d+)?)", r"sqrt(\1)", text).replace("√", "sqrt")  # √2 and √(x)
    text = re.sub(r"(?<=[\d)])\s*(?=sqrt\()", "*", text)  # 2√9: 2*sqrt(9)
    text = re.sub(r"(?<=[\d)])(?<!(?<![\w.])0)\s*[xX]\s*(?=[\d(.])", "*", text)  # not in hex 0x1F
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%\s*of\b", r"(\1/100)*", text, flags=re.IGNORECASE)
    text = re.sub(r"(\d+(?:\.\d+)?)%(?=\s*(?:$|[)*/,]))", r"(\1/100)", text)
    if not re.search(r"[A-Za-z_]\w*\s*\(", text):
        text = re.sub(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d.]|,\d)", lambda m: m.group(0).replace(",", ""), text)
    return text.replace("^", "**")


# ------------------------------------------------------------------ arithmetic
def _check(value: Number) -> Number:
    if isinstance(value, Fraction):
        if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
            raise CalcError("too_large")
    elif not math.isfinite(value):
        raise CalcError("too_large")
    return value


def _exact(value: Number) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(repr(value))


def _whole(value: Number, low: int, high: int) -> int | None:
    """``value`` as an int when it is a whole number in [low, high], else None."""
    return int(value) if _exact(value).denominator == 1 and low <= value <= high else None


def _iroot(n: int, q: int) -> int | None:
    """The exact integer q-th root of ``n >= 0``, or None."""
    if n < 2:
        return n
    guess = math.isqrt(n) if q == 2 else round(math.exp(math.log(n) / q))
    return next((r for r in (guess - 1, guess, guess + 1) if r >= 0 and r**q == n), None)


def _power(base: Number, exponent: Number) -> Number:
    """``base ** exponent``: exact for rationals when the exponent and the result are small enough
    (|p| <= 10000, at most 3000 digits) and for perfect roots (8**(1/3) = 2), else a float."""
    if base == 0 and exponent < 0:
        raise CalcError("div_zero")
    if isinstance(base, Fraction) and isinstance(exponent, Fraction) and abs(exponent.numerator) <= MAX_EXPONENT:
        p, q = exponent.numerator, exponent.denominator
        bits = max(base.numerator.bit_length(), base.denominator.bit_length()) - 1
        if q == 1 and bits * abs(p) <= MAX_BITS:
            return _check(base**p)
        if base > 0 and 1 < q <= 64:
            num, den = _iroot(base.numerator, q), _iroot(base.denominator, q)
            if num is not None and den is not None:
                return _power(Fraction(num, den), Fraction(p))
    try:
        return _check(math.pow(float(base), float(exponent)))
    except ValueError:
        raise CalcError("not_real") from None


def _ln(value: Number) -> float:
    if isinstance(value, Fraction):  # works for integers beyond the float range
        return math.log(value.numerator) - math.log(value.denominator)
    return math.log(value)


def _log(value: Number, base: Number | None = None) -> Number:
    if value <= 0 or (base is not None and (base <= 0 or base == 1)):
        raise CalcError("log_domain")
    if value == 1:
        return Fraction(0)
    if base is None:
        return _ln(value)
    result = _ln(value) / _ln(base)
    nearest = round(result)
    candidate = isinstance(value, Fraction) and isinstance(base, Fraction) and abs(result - nearest) < 1e-9
    if candidate and abs(nearest) <= MAX_EXPONENT and _power(base, Fraction(nearest)) == value:
        return Fraction(nearest)  # log(1000, 10) is exactly 3
    return result


def _round(value: Number, digits: Number = Fraction(0)) -> Fraction:
    places = _whole(digits, -100, 100)
    if places is None:
        raise CalcError("round_digits")
    scale = Fraction(10) ** places
    exact = _exact(value)
    magnitude = math.floor(abs(exact) * scale + Fraction(1, 2)) / scale  # halves round away from zero
    return magnitude if exact >= 0 else -magnitude


def _trig(fn: Callable[[float], float]) -> Callable[[Number], float]:
    def apply(value: Number) -> float:
        result = fn(float(value))
        return 0.0 if abs(result) < 1e-15 else result  # sin(pi) is 0, not 1.2e-16

    return apply


def _sqrt(value: Number) -> Number:
    if value < 0:
        raise CalcError("not_real")
    return _power(value, Fraction(1, 2))


def _factorial(value: Number) -> Fraction:
    n = _whole(value, 0, MAX_FACTORIAL)
    if n is None:
        raise CalcError("factorial", limit=MAX_FACTORIAL)
    return Fraction(math.factorial(n))


# name: (minimum arguments, maximum arguments, implementation)
FUNCTIONS: dict[str, tuple[int, int, Callable[..., Number]]] = {
    "sqrt": (1, 1, _sqrt),
    "abs": (1, 1, abs),
    "round": (1, 2, _round),
    "floor": (1, 1, lambda x: Fraction(math.floor(x))),
    "ceil": (1, 1, lambda x: Fraction(math.ceil(x))),
    "log": (1, 2, _log),
    "ln": (1, 1, _log),
    "log10": (1, 1, lambda x: _log(x, Fraction(10))),
    "log2": (1, 1, lambda x: _log(x, Fraction(2))),
    "exp": (1, 1, lambda x: math.exp(float(x))),
    "sin": (1, 1, _trig(math.sin)),
    "cos": (1, 1, _trig(math.cos)),
    "tan": (1, 1, _trig(math.tan)),
    "factorial": (1, 1, _factorial),
}
CONSTANTS: dict[str, Number] = {"pi": math.pi, "e": math.e}
_BINARY: dict[type, Callable[[Number, Number], Number]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}


def _literal(node: ast.Constant, source: str) -> Fraction:
    """A number literal, exactly: ``0.1`` is 1/10 (read from the source text, not from the float)."""
    if type(node.value) is int:
        text = str(node.value)
    else:
        text = (ast.get_source_segment(source, node) or repr(node.value)).replace("_", "")
    literal = Decimal(text)
    if abs(literal.adjusted()) > MAX_DIGITS:
        raise CalcError("too_large")
    return Fraction(literal)


def evaluate(source: str) -> Number:
    """Evaluate a normalized expression; raises CalcError or SyntaxError."""

    def walk(node: ast.AST) -> Number:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return _literal(node, source)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:  # "sqrt 2": a function needs parentheses
                raise CalcError("syntax")
            raise CalcError("unknown_name", name=node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = walk(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return _power(walk(node.left), walk(node.right))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = walk(node.left), walk(node.right)
            if right == 0 and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                raise CalcError("div_zero")
            if not (isinstance(left, Fraction) and isinstance(right, Fraction)):
                left, right = float(left), float(right)
            return _check(_BINARY[type(node.op)](left, right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id not in FUNCTIONS:
                raise CalcError("unknown_name", name=node.func.id)
            low, high, function = FUNCTIONS[node.func.id]
            if not low <= len(node.args) <= high or any(isinstance(a, ast.Starred) for a in node.args):
                expected = str(low) if low == high else f"{low}-{high}"
                raise CalcError("arg_count", name=node.func.id, expected=expected, got=len(node.args))
            return _check(function(*[walk(arg) for arg in node.args]))
        raise CalcError("not_allowed", what=ast.get_source_segment(source, node) or type(node).__name__)

    return walk(ast.parse(source, mode="eval").body)


def _value_of(expression: object) -> float | None:
    """The value of an expression as a float, or None when it cannot be computed."""
    try:
        return float(evaluate(normalize(str(expression))))
    except (CalcError, ArithmeticError, SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None


class CalculatorTool(BaseTool):
    """Exact arithmetic without eval."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="calculator",
            parameter_types={"expression": "string"},
            required=["expression"],
            risk="read",
        )


    def same_value(self, param: str, expected: object, got: object) -> bool | None:
        """Expressions are the same when they have the same value (``17*23`` and ``17 × 23``)."""
        if param != "expression":
            return None
        a, b = _value_of(expected), _value_of(got)
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        expression = str(params.get("expression") or "").strip().rstrip("=?＝？ ")
        expression = _without_answer(expression)  # "586 / 4 = 146.5": the question, not the guess
        if not expression:
            return failure(_TEXT["empty"], lang)
        if len(expression) > MAX_LENGTH:
            return failure(_TEXT["too_long"], lang, length=len(expression), limit=MAX_LENGTH)
        try:
            value = evaluate(normalize(expression))
        except CalcError as exc:
            values = {"expr": expression, "functions": _FUNCTION_NAMES, "digits": MAX_DIGITS, **exc.values}
            return failure(_TEXT[exc.key], lang, **values)
        except ZeroDivisionError:
            return failure(_TEXT["div_zero"], lang, expr=expression)
        except OverflowError:
            return failure(_TEXT["too_large"], lang, expr=expression, digits=MAX_DIGITS)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return failure(_TEXT["syntax"], lang, expr=expression)
        return ToolResult(success=True, data=f"{expression} {self._show(value)}")

    def _show(self, value: Number) -> str:
        """``= 0.3``, ``= 0.333333333333 (= 1/3)``, ``≈ 1.41421356237`` or a long integer's summary."""
        if isinstance(value, float):
            return f"≈ {format_number(Decimal(repr(value)), SHOWN_DIGITS)}"
        if value.denominator == 1:
            digits = len(str(abs(value.numerator)))
            if digits <= MAX_INTEGER_DIGITS:
                return f"= {value.numerator}"
            summary = format_number(value, SHOWN_DIGITS)
            return "≈ " + pick(_TEXT["long_integer"], self.language, value=summary, digits=digits)
        decimal = format_number(value, SHOWN_DIGITS)
        if Fraction(Decimal(decimal)) == value:
            return f"= {decimal}"
        fraction = f"{value.numerator}/{value.denominator}"
        return f"= {decimal} (= {fraction})" if len(fraction) <= 40 else f"≈ {decimal}"
