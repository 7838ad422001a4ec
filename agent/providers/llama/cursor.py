"""The assistant's reply being written, for the router: score what may come next, or write it greedily.

:meth:`ReplyCursor.option_logprobs` scores options as a token trie, evaluating every branch point in
one forward pass; :meth:`ReplyCursor.until` writes greedily, optionally limited to text a check
accepts (a number, a piece of the user's message). Text appended is evaluated lazily, in one batch
with what comes next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agent.providers.llama.context import Context

#: how many of the likeliest tokens a copied value may choose from at each step
COPY_CANDIDATES = 200
#: how many tokens of the user's message :meth:`ReplyCursor.until` guesses ahead, checked in one forward pass:
#: first this many, twice as many after a guess that was right, up to :data:`GUESSED_TOKENS`
GUESSED_FIRST = 2
GUESSED_TOKENS = 8


class Tokenizer(Protocol):
    """What turns the reply's text into the model's tokens (the provider)."""

    def tokenize(self, text: str) -> list[int]: ...


class ReplyCursor:
    """The assistant's reply being written: score what may come next, or write it (greedily).

    Obtained from :meth:`LocalProvider.open_reply` and valid only inside its ``with`` block.
    """

    def __init__(self, tokenizer: Tokenizer, context: Context, logits: Any, tokens: list[int] | None = None,
                 *, lookup: str | None = None):
        self._tokenizer = tokenizer
        self._context = context
        # guessing ahead (see :meth:`until`) is on with a lookup text, the text values are likely copied
        # from (the user's message; "" guesses only a value's opening)
        self._guessing = lookup is not None
        self._lookup = (lookup or "").encode("utf-8")
        self._ahead: list[tuple[int, Any]] = []
        self._size = GUESSED_FIRST
        self._hint = b""  # what the value being written likely is (see :meth:`until`)
        self._logits = logits  # after what is evaluated (None: not known yet, ``tokens`` are pending)
        # Tokens and text appended but not evaluated yet: they are evaluated in one batch with what
        # comes next (a forward pass costs about as much for one token as for several).
        self._tokens = list(tokens or [])
        self._pending = ""

    def mark(self) -> tuple[int, Any, list[int], str]:
        """A point in the reply to :meth:`rewind` to."""
        return self._context.token_count, self._logits, list(self._tokens), self._pending

    def rewind(self, mark: tuple[int, Any, list[int], str]) -> None:
        """Forget what was written after ``mark``. Text that was pending at the mark and has been
        evaluated since, as it was (a value's frame, ``"origin": "``), stays evaluated: a value
        written again after it costs its own tokens, not the frame's again."""
        count, self._logits, tokens, self._pending = mark
        self._tokens = list(tokens)
        pending = self._tokens + (self._tokenizer.tokenize(self._pending) if self._pending else [])
        held = self._context.tokens[count:count + len(pending)]
        if len(pending) > 1 and held == pending:  # its last token pending again: the logits after it are needed
            count += len(pending) - 1
            self._tokens, self._pending, self._logits = pending[-1:], "", None
        self._context.truncate(count)

    def extend(self, text: str) -> None:
        """Append ``text`` to the reply (evaluated lazily, in one batch with what follows)."""
        self._pending += text

    def _take_pending(self) -> list[int]:
        tokens, self._tokens = self._tokens, []
        text, self._pending = self._pending, ""
        return tokens + (self._tokenizer.tokenize(text) if text else [])

    def _flush(self) -> None:
        tokens = self._take_pending()
        if tokens:
            self._logits = self._context.feed(tokens)

    def option_logprobs(self, options: list[str]) -> dict[str, float]:
        """Log-probability of each option as the reply's continuation, normalised over the options.

        The options are a token trie: the model's next-token distribution is needed only where it
        branches, and all branch points are evaluated in one forward pass, together with the text
        still pending (the user's message, the reply's opening). A token only one option can take
        costs nothing. End every option with a delimiter (a closing quote) so that none is a prefix
        of another. The reply is left as it was.
        """
        import numpy as np

        context = self._context
        head = self._take_pending()
        sequences = {option: self._tokenizer.tokenize(option) for option in dict.fromkeys(options)}
        # branch points: token path (after the head) -> the tokens the options go on with there
        points: dict[tuple[int, ...], list[int]] = {}
        walk: list[tuple[tuple[int, ...], list[list[int]]]] = [((), [s for s in sequences.values() if s])]
        while walk:
            prefix, members = walk.pop()
            branches: dict[int, list[list[int]]] = {}
            for sequence in members:
                if len(sequence) > len(prefix):
                    branches.setdefault(sequence[len(prefix)], []).append(sequence)
            if len(branches) > 1:
                points[prefix] = list(branches)
            walk.extend(((*prefix, token), group) for token, group in branches.items())
        base = context.token_count
        first = min(points, key=len, default=())  # every other branch point lies below it
        others = [point for point in points if point != first]
        shared = head + list(first)
        if shared:
            logits, below = context.evaluate_paths(shared, [list(point[len(first):]) for point in others])
        else:
            logits, below = self._logits, context.evaluate_paths([], [list(point) for point in others])[1]
        at = {first: logits, **dict(zip(others, below))}
        scores = {}
        for option, sequence in sequences.items():
            total = 0.0 if sequence else float("-inf")
            for i, token in enumerate(sequence):
                point = tuple(sequence[:i])
                if point in points:
                    values = np.array([at[point][t] for t in points[point]], dtype=np.float64)
                    total += float(at[point][token] - np.logaddexp.reduce(values))
            scores[option] = total
        if not first:
            self._logits = logits  # after the head
        elif head:  # the options' common start is not part of the reply: keep the head, its last token pending
            context.truncate(base + len(head) - 1)
            self._tokens, self._logits = [head[-1]], None
        else:
            context.truncate(base)
        return scores

    def until(
        self,
        stop: str,
        max_tokens: int = 48,
        *,
        allowed: Callable[[bytes], bool] | None = None,
        copy_from: str | None = None,
        opening: str = "",
        hint: str = "",
    ) -> str:
        """Write greedily until ``stop`` (one character), a line end or the end of the reply.

        ``allowed`` (checked on the UTF-8 text after every token) limits what may be written, e.g.
        to a number; ``copy_from`` limits it to a piece of that text (copying a value out of the
        user's message). The likeliest of the model's top candidates that keeps the text acceptable
        is taken; when none does (the model meant something else), the text ends.

        ``opening`` is text the reply must start with (a JSON value's opening quote), written by the
        model rather than forced, so that it can pick the token that joins the opening to what follows
        (``"(`` or ``"/`` are single tokens; after a forced ``"`` the model rarely writes ``(`` or ``/``).
        It is not part of the returned text. Returns the text before the end; the reply then continues
        after ``stop``, which is written even when the model ended otherwise.

        ``hint``: what the value likely is, one per line (the dates a message names, in the form the
        parameter asks for); with guessing on, the first is guessed whole with the opening, and all are
        guessed from as the message is. It changes nothing that is written, only how fast.
        """
        context = self._context
        head = opening.encode("utf-8")
        self._hint = hint.encode("utf-8") if self._guessing else b""
        self._begin(opening)
        checks = [check for check in (allowed, _substring_of(copy_from)) if check is not None]
        produced = b""
        stop_bytes = stop.encode("utf-8")
        start, whole_head = (context.token_count - len(self._ahead), self._logits), False
        try:
            for step in range(max_tokens):
                token, piece = self._next_piece(produced, checks, stop_bytes, head, whole_head)
                if token is None and 0 < len(produced) < len(head) and not whole_head:
                    # a part of the opening led nowhere (`` `` then an unquoted number): start again,
                    # with the whole opening in one token
                    self._drop_ahead()
                    context.truncate(start[0])
                    self._logits, produced, whole_head = start[1], b"", True
                    token, piece = self._next_piece(produced, checks, stop_bytes, head, whole_head)
                if token is None:
                    break
                skip = max(0, len(head) - len(produced))  # bytes of this piece that are still the opening
                ends = [i for i in (piece.find(stop_bytes, skip), piece.find(b"\n", skip)) if i >= 0]
                if ends:
                    tail = piece[: min(ends)]
                    produced += tail
                    self.extend(tail.decode("utf-8", "ignore") + stop)
                    return produced[len(head):].decode("utf-8", "ignore")
                produced += piece
                # a value's first token is mostly all of it: guessing starts at its second (or a hint's)
                copied = len(produced) - len(piece) > len(head) or bool(self._hint) and len(produced) > len(head)
                self._advance(token, produced[len(head):] if copied else b"", max_tokens - step - 1)
            if len(produced) < len(head):
                self.extend(head[len(produced):].decode("utf-8", "ignore"))
            self.extend(stop)
            return produced[len(head):].decode("utf-8", "ignore")
        finally:
            self._drop_ahead()
            self._hint = b""

    # Guessing ahead: ``_ahead`` holds tokens evaluated ahead of what is written, each with the logits
    # after it, used while they are what is written anyway; the text is the one written a token at a
    # time, up to the rounding of a batched evaluation.

    def _begin(self, opening: str) -> None:
        """Evaluate the pending text; a value's opening (mostly a token of its own) is guessed with it."""
        self._size = GUESSED_FIRST
        pending = self._take_pending()
        hinted = self._hint.split(b"\n", 1)[0].decode("utf-8", "ignore")
        if pending and (opening or hinted) and self._guessing:
            guessed = self._tokenizer.tokenize(opening + hinted)
            rows = self._context.feed_each(pending + guessed, first=len(pending) - 1)
            self._logits, self._ahead = rows[0], list(zip(guessed, rows[1:]))
        elif pending:
            self._logits = self._context.feed(pending)

    def _advance(self, token: int, value: bytes, room: int) -> None:
        """``token`` was written (``value`` is the value so far, b"" when not to guess after it): use
        the guess it was, or evaluate it with a guess of what follows ``value`` in the lookup text
        (``_size`` tokens, twice as many after a guess that was right), or alone."""
        if self._ahead and self._ahead[0][0] == token:
            self._logits = self._ahead.pop(0)[1]
            if not self._ahead and value:
                self._size = min(2 * self._size, GUESSED_TOKENS)
            return
        if self._ahead:
            self._drop_ahead()
            self._size = GUESSED_FIRST
        guess = self._guess(value, min(self._size, room))
        if guess:
            rows = self._context.feed_each([token, *guess])
            self._logits, self._ahead = rows[0], list(zip(guess, rows[1:]))
        else:
            self._logits = self._context.feed([token])

    def _drop_ahead(self) -> None:
        """Forget the tokens evaluated ahead and not written."""
        if self._ahead:
            self._context.truncate(self._context.token_count - len(self._ahead))
            self._ahead = []

    def _guess(self, value: bytes, room: int) -> list[int]:
        """At most ``room`` tokens that follow ``value`` in the lookup text:
        where the value's end (at least three bytes, or all of it) appears first, to the line's end."""
        lookup = b"\n".join(filter(None, (self._hint, self._lookup)))
        if not value or not lookup:
            return []
        room = min(room, self._context.room - 2)
        if room <= 0:
            return []
        for size in range(len(value), min(len(value), 3) - 1, -1):
            at = lookup.find(value[-size:])
            if at >= 0:
                break
        else:
            return []
        after = lookup[at + size:].split(b"\n", 1)[0][:96]
        if not after or 0x80 <= after[0] < 0xC0:  # not at a character's start
            return []
        return self._tokenizer.tokenize(after.decode("utf-8", "ignore"))[:room]

    def _next_piece(
        self, produced: bytes, checks: list[Callable[[bytes], bool]], stop: bytes, head: bytes = b"",
        whole_head: bool = False,
    ) -> tuple[int | None, bytes]:
        """The greedy next token and its text; with ``checks`` or an unfinished ``head``, the likeliest
        of the top candidates whose text starts with ``head`` and, after it and up to ``stop``, passes
        every check."""
        import numpy as np

        context = self._context
        if not checks and len(produced) >= len(head):
            token = int(self._logits.argmax())
            return (None, b"") if context.is_control(token) else (token, context.piece(token))
        top = np.argpartition(self._logits, -COPY_CANDIDATES)[-COPY_CANDIDATES:]
        for token in top[np.argsort(-self._logits[top])]:
            token = int(token)
            if context.is_control(token):
                return None, b""
            piece = context.piece(token)
            text = produced + piece
            if len(text) <= len(head):
                if head.startswith(text) and not (whole_head and len(text) < len(head)):
                    return token, piece
                continue
            if not text.startswith(head):
                continue
            value = text[len(head):]
            end = value.find(stop)
            if all(check(value if end < 0 else value[:end]) for check in checks):
                return token, piece
        return None, b""


def _substring_of(source: str | None) -> Callable[[bytes], bool] | None:
    """Whether a text is a piece of ``source`` that does not begin inside one of its runs of Latin
    letters or of digits: "1" of "pf_2231" or "ok" of "Tokyo" is no value the message gives ("2231" of
    "pf_2231" and "kg" of "5kg" are)."""
    if source is None:
        return None
    encoded = source.encode("utf-8")

    def piece(text: bytes) -> bool:
        at = encoded.find(text)
        if at < 0 or not text[:1].isalnum():
            return at >= 0
        inside = bytes.isdigit if text[:1].isdigit() else bytes.isalpha  # ASCII only, as bytes are
        while at > 0 and inside(encoded[at - 1:at]):
            at = encoded.find(text, at + 1)
        return at >= 0

    return piece
