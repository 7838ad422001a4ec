"""A reply cursor that answers from a script: log-probabilities by option, values in order; and the
tokenizer of scripted llama.cpp contexts."""

from __future__ import annotations

from typing import Any


class FakeCursor:
    def __init__(self, scores: dict[str, float], values: list[str]):
        self.scores = scores
        self.values = list(values)
        self.written: list[str] = []
        self.filters: list[dict[str, Any]] = []

    def extend(self, text: str) -> None:
        self.written.append(text)

    def mark(self) -> int:
        return len(self.written)

    def rewind(self, mark: int) -> None:
        del self.written[mark:]

    def option_logprobs(self, options: list[str]) -> dict[str, float]:
        return {o: self.scores.get(o.strip().strip('"'), -20.0) for o in options}

    def until(self, stop: str, max_tokens: int = 48, **filters: Any) -> str:
        self.filters.append(filters)
        value = self.values.pop(0)
        self.written.append(filters.get("opening", "") + value + stop)
        return value


def longest_pieces(pieces: list[bytes], text: str) -> list[int]:
    """``text`` as tokens of a scripted context: the longest of ``pieces`` that starts what is left, in turn."""
    data, tokens = text.encode(), []
    while data:
        token = max((i for i, piece in enumerate(pieces) if data.startswith(piece)), key=lambda i: len(pieces[i]))
        tokens.append(token)
        data = data[len(pieces[token]):]
    return tokens
