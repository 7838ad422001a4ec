"""Writing a value with guesses of what follows (``ReplyCursor.until`` with a lookup text).

A value is mostly copied from the user's message: the tokens that follow it there are evaluated with
the token just written, in one forward pass, and each is used while it is what the model writes
anyway. The text written must be exactly what one token at a time gives, and the context must hold
exactly what was written, whatever the guesses were.

The ``model`` test runs the real embedded model.
"""

from __future__ import annotations

from typing import Any

import numpy
import pytest

from agent.providers.llama.cursor import ReplyCursor
from tests.helpers.cursor import longest_pieces


class _Model:
    """A scripted context and tokenizer: the likeliest next token after the text written so far comes
    from a table; every forward pass (``feed``, ``feed_each``) is counted."""

    PIECES = [b"x:", b'"', b' "', b"(", b"3", b"/", b"8", b" +", b" ", b"5", b")", b" please",
              b"Seattle", b" this", b" afternoon", b"2", b"0", b"-"] + [b"~"] * 300

    def __init__(self, table: dict[bytes, Any]):
        self.table = table  # text so far -> the piece written next (or several, likeliest first)
        self.history: list[int] = []
        self.passes = 0

    def token(self, piece: bytes) -> int:
        return self.PIECES.index(piece)

    def tokenize(self, text: str) -> list[int]:
        return longest_pieces(self.PIECES, text)

    @property
    def token_count(self) -> int:
        return len(self.history)

    @property
    def tokens(self) -> list[int]:
        return list(self.history)

    @property
    def room(self) -> int:
        return 100 - len(self.history)

    def detokenize(self, tokens: list[int]) -> bytes:
        return b"".join(self.PIECES[t] for t in tokens)

    def piece(self, token: int) -> bytes:
        return self.PIECES[token]

    def is_control(self, token: int) -> bool:
        return False

    def _logits(self) -> Any:
        values = numpy.full(len(self.PIECES), -100.0)
        ranked = self.table.get(self.detokenize(self.history), b"~")
        for rank, piece in enumerate([ranked] if isinstance(ranked, bytes) else ranked):
            values[self.token(piece)] = -float(rank)
        return values

    def feed(self, tokens: list[int]) -> Any:
        self.passes += 1
        self.history += tokens
        return self._logits()

    def feed_each(self, tokens: list[int], first: int = 0) -> list[Any]:
        self.passes += 1
        rows = []
        for k, token in enumerate(tokens):
            self.history.append(token)
            if k >= first:
                rows.append(self._logits())
        return rows

    def truncate(self, count: int) -> None:
        del self.history[count:]


def _writes(table: dict[bytes, Any], lookup: str | None, **filters: Any) -> tuple[str, _Model]:
    model = _Model(table)
    cursor = ReplyCursor(model, model, None, [model.token(b"x:")], lookup=lookup)  # type: ignore[arg-type]
    return cursor.until('"', **filters), model


_EXPRESSION = {b"x:": b"(", b"x:(": b"3", b"x:(3": b"/", b"x:(3/": b"8", b"x:(3/8": b" +", b"x:(3/8 +": b" ",
               b"x:(3/8 + ": b"5", b"x:(3/8 + 5": b")", b"x:(3/8 + 5)": b'"'}


def test_a_value_copied_from_the_message_takes_fewer_forward_passes_and_is_the_same_text():
    alone, one_by_one = _writes(_EXPRESSION, None)
    guessed, model = _writes(_EXPRESSION, "compute (3/8 + 5) please")
    assert alone == guessed == "(3/8 + 5)"
    # the head, "(" (a value's first token is mostly all of it: no guess), "3" with the guess "/8", then
    # " +" with " 5)": four passes instead of nine
    assert (one_by_one.passes, model.passes) == (9, 4)
    assert model.detokenize(model.history) == one_by_one.detokenize(one_by_one.history) == b"x:(3/8 + 5)"


def test_a_wrong_guess_is_dropped_and_the_context_holds_what_was_written():
    # the model goes on with ")" where the message goes on with " + 5)"
    table = {**_EXPRESSION, b"x:(3/8": b")", b"x:(3/8)": b'"'}
    alone, one_by_one = _writes(table, None)
    guessed, model = _writes(table, "compute (3/8 + 5) please")
    assert alone == guessed == "(3/8)"
    assert model.detokenize(model.history) == b"x:(3/8)" == one_by_one.detokenize(one_by_one.history)
    # the value ends where the message goes on: the tokens guessed after it are not held
    table = {b"x:": b"Seattle", b"x:Seattle": b'"'}
    guessed, model = _writes(table, "rain in Seattle this afternoon")
    assert guessed == "Seattle" and model.detokenize(model.history) == b"x:Seattle"


def test_guesses_come_from_the_same_line_of_the_lookup_text_only():
    table = {b"x:": b"Seattle", b"x:Seattle": b" this", b"x:Seattle this": b" afternoon", b"x:Seattle this afternoon": b'"'}
    guessed, model = _writes(table, "Seattle this\n afternoon")
    assert guessed == "Seattle this afternoon" and model.passes == 4  # nothing after the line's end was guessed
    guessed, model = _writes(table, "Seattle this afternoon")
    assert guessed == "Seattle this afternoon" and model.passes == 3


def test_a_values_opening_is_evaluated_with_the_text_before_it():
    table = {b"x:": b' "', b'x: "': b"Seattle", b'x: "Seattle': b'"'}
    alone, one_by_one = _writes(table, None, opening=' "')
    guessed, model = _writes(table, "", opening=' "')
    assert alone == guessed == "Seattle"
    assert (one_by_one.passes, model.passes) == (3, 2)
    # the model writes the opening in two tokens: the guessed opening is dropped
    table = {b"x:": b" ", b"x: ": b'"', b'x: "': b"Seattle", b'x: "Seattle': b'"'}
    alone, one_by_one = _writes(table, None, opening=' "')
    guessed, model = _writes(table, "", opening=' "')
    assert alone == guessed == "Seattle"
    assert model.detokenize(model.history) == one_by_one.detokenize(one_by_one.history) == b'x: "Seattle'


def test_a_check_on_the_value_still_holds_for_guessed_tokens():
    # the model would write "(3/8 + 5)", but only digits are allowed: the value ends at the first that is not
    digits = lambda text: text.isdigit() or not text  # noqa: E731
    table = {b"x:": b"3", b"x:3": [b"/", b'"'], b"x:3/": b"8"}
    alone, _ = _writes(table, None, allowed=digits)
    guessed, model = _writes(table, "3/8", allowed=digits)
    assert alone == guessed == "3" and model.detokenize(model.history) == b"x:3"


def test_a_value_written_again_does_not_evaluate_its_frame_again():
    """A value rewritten (copied from the message, put in the asked form) is rewound to a mark taken
    while its frame was still pending: the frame, evaluated since, stays held, and only the value and
    what follows it are evaluated again; the context holds exactly what was written."""
    table = {b'x: "': b"3", b'x: "3': b'"', b'x: "8"': b'"'}
    model = _Model(table)
    cursor = ReplyCursor(model, model, None, [model.token(b"x:")], lookup="")  # type: ignore[arg-type]
    cursor.extend(' "')
    start = cursor.mark()  # the frame (x: ") not evaluated yet
    assert cursor.until('"') == "3"
    passes = model.passes
    cursor.rewind(start)
    assert model.detokenize(model.history) == b"x:"  # the frame's last token waits, to give the logits after it
    cursor.extend('8"')
    assert cursor.until('"') == ""  # evaluates what is pending: ' "' and '8"' in one pass
    assert model.detokenize(model.history) == b'x: "8"' and model.passes == passes + 1
    # text appended after the mark that the frame's last token joins (" " and '"' are ' "'): nothing is kept
    model = _Model({b'x: "': b"3", b'x: "3': b'"', b"x: ": b'"'})
    cursor = ReplyCursor(model, model, None, [model.token(b"x:")], lookup="")  # type: ignore[arg-type]
    cursor.extend(" ")
    start = cursor.mark()
    cursor.extend('"')
    assert cursor.until('"') == "3"
    cursor.rewind(start)
    assert model.history == []
    assert cursor.until('"') == "" and model.detokenize(model.history) == b"x: "


def test_a_hinted_value_is_guessed_whole_with_its_opening_and_a_wrong_hint_changes_nothing():
    """A date the message names, in the form the parameter asks for ("2027-03-02" of "March 2, 2027"),
    is no piece of the message: given as a hint, it is guessed with the value's opening."""
    date = {b"x:": b' "', b'x: "': b"2", b'x: "2': b"0", b'x: "20': b"2", b'x: "202': b"0", b'x: "2020': b"-",
            b'x: "2020-': b"0", b'x: "2020-0': b"3", b'x: "2020-03': b'"'}
    alone, one_by_one = _writes(date, None, opening=' "', hint="2020-03")
    hinted, model = _writes(date, "", opening=' "', hint="2020-03")
    assert alone == hinted == "2020-03"
    assert (one_by_one.passes, model.passes) == (9, 1)  # the head, the opening and seven tokens, against one pass
    # the second of two hints, and one the model does not write
    for hint in ("2020-05\n2020-03", "3838-88"):
        guessed, model = _writes(date, "", opening=' "', hint=hint)
        assert guessed == "2020-03" and model.detokenize(model.history) == b'x: "2020-03'
        assert model.passes < one_by_one.passes or hint == "3838-88"


@pytest.mark.model
def test_the_embedded_model_copies_an_expression_in_fewer_forward_passes(tmp_path, monkeypatch):
    from agent.router import Router
    from bench.model import decision_model
    from bench.routing.run import manifests_for

    monkeypatch.setenv("RIVERSE_HOME", str(tmp_path))
    provider = decision_model()
    model = provider.context.model
    passes = {"count": 0}
    for name in ("evaluate", "decode"):
        method = getattr(model, name)

        def counted(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
            passes["count"] += 1
            return _method(*args, **kwargs)

        monkeypatch.setattr(model, name, counted)
    router, manifests, message = Router(), manifests_for("en"), "can you compute (3/8 + 5/12) * 24 exactly"
    router.prepare(provider, manifests, "en")
    got = {}
    for guessing in (False, True):
        provider.guess_ahead = guessing
        provider.context.truncate(0)
        passes["count"] = 0
        decision = router.decide(provider, manifests, message, "en")
        got[guessing] = (decision.tool, decision.params, passes["count"])
    assert got[False][:2] == got[True][:2] == ("calculator", {"expression": "(3/8 + 5/12) * 24"})
    assert got[True][2] < got[False][2] - 5  # about 17 tokens copied: a pass each, against a few
