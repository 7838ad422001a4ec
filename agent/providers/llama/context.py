"""The chat model's context: what it has evaluated, prefix reuse, KV snapshots, branches side by side.

Consecutive prompts share the longest common prefix of the KV cache. A prefix that will come back
(the router's unchanging tool prompt) is snapshotted, in memory and on disk, so after another
prompt, or in a new process, it comes back in milliseconds instead of being evaluated again.

The KV cache holds several sequences: :meth:`Context.evaluate_paths` evaluates the branches of a
choice (``file_list`` / ``file_read`` after ``file``) each in a sequence of its own, in one batch
with the tokens they share.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from agent.providers.llama.adapter import LlamaModel

#: prefix snapshots kept on disk (about 12 KB per token with the default model)
MAX_SNAPSHOT_FILES = 4
#: prefix snapshots kept in memory (about 25 MB each with the default model)
MAX_SNAPSHOTS = 6
#: sequences of the model's context: the most branch points of a choice evaluated in one pass, less one
BRANCH_SEQUENCES = 16


def shared_prefix_length(held: list[int], tokens: list[int], limit: int) -> int:
    """How many of the first ``limit`` tokens ``held`` and ``tokens`` have in common."""
    common = 0
    while common < min(len(held), limit) and held[common] == tokens[common]:
        common += 1
    return common


class Context:
    """The chat model's context: what it has evaluated, prefix reuse, KV snapshots. Not thread-safe."""

    def __init__(self, model: LlamaModel, cache_dir: Path | None, file_key: str):
        self.model = model
        self.cache_dir = cache_dir
        self.file_key = file_key
        self.snapshots: list[tuple[list[int], bytes]] = []
        # several sequences in one KV cache: the branches of a choice are then evaluated in one batch
        self.sequences = model.sequences
        self.parallel = self.sequences > 1 and not model.recurrent

    @property
    def tokens(self) -> list[int]:
        """The tokens evaluated and held."""
        return self.model.held_tokens

    @property
    def room(self) -> int:
        """How many more tokens the context can hold."""
        return self.model.n_ctx - self.model.n_tokens

    @property
    def token_count(self) -> int:
        """How many tokens are evaluated and held."""
        return self.model.n_tokens

    def piece(self, token: int) -> bytes:
        """The text of ``token`` (UTF-8 bytes, maybe part of a character)."""
        return self.model.detokenize([token])

    def is_control(self, token: int) -> bool:
        return self.model.is_control(token)

    def truncate(self, count: int) -> None:
        """Forget everything after the first ``count`` tokens."""
        self.model.truncate(count)

    def prepare(self, tokens: list[int]) -> None:
        """Hold ``tokens[:-1]`` evaluated, reusing the longest cached prefix (context or snapshot)."""
        target = len(tokens) - 1
        common = self.reuse(tokens, target)
        if common < target:
            self.model.evaluate(tokens[common:target])

    def reuse(self, tokens: list[int], target: int) -> int:
        """Keep (or restore from a snapshot) the longest prefix of ``tokens[:target]`` already
        evaluated, forget the rest; return its length."""
        common = shared_prefix_length(self.tokens, tokens, target)
        better = [s for s in self.snapshots if common < len(s[0]) <= target and tokens[: len(s[0])] == s[0]]
        if better:
            self.restore(max(better, key=lambda s: len(s[0])))
            common = self.model.n_tokens  # the snapshot's length, or 0 when it could not be restored
        self.truncate(common)
        return common

    def feed(self, tokens: list[int]) -> Any:
        """Evaluate ``tokens`` after what is held; return the logits of the next token (a copy)."""
        self.model.evaluate(tokens)
        return self.model.logits()

    def feed_each(self, tokens: list[int], first: int = 0) -> list[Any]:
        """Evaluate ``tokens`` after what is held, in one forward pass; return the logits after each
        of them from the ``first`` on (copies). A guess of what comes next is checked so
        (:meth:`~agent.providers.llama.cursor.ReplyCursor.until`)."""
        model = self.model
        split = len(tokens) - model.n_batch
        if split > first:
            raise ValueError(f"feed_each: the logits of at most {model.n_batch} tokens at once")
        if split > 0:  # more than one batch: the first tokens as usual
            model.evaluate(tokens[:split])
            tokens, first = tokens[split:], first - split
        held = model.n_tokens
        model.remove(0, held)
        outputs = model.decode([(token, held + k, [0], k >= first) for k, token in enumerate(tokens)])
        rows = [model.logits_at(k) for k in outputs]
        model.mark_held(tokens, held)
        return rows

    def evaluate_paths(self, shared: list[int], paths: list[list[int]]) -> tuple[Any, list[Any]]:
        """Evaluate ``shared`` after what is held (and keep it), and each of ``paths`` after that
        (without keeping them); return the logits after ``shared`` (None when it is empty) and after
        each path. With several sequences in the KV cache this is one forward pass: each path is a
        sequence of its own that shares the held tokens and ``shared``."""
        paths = [list(path) for path in paths]
        count = len(shared) + sum(len(path) for path in paths)
        model = self.model
        if not self.parallel or len(paths) + 1 > self.sequences or not all(paths) or count > model.n_batch:
            logits = self.feed(shared) if shared else None
            held, after = model.n_tokens, []
            for path in paths:
                after.append(self.feed(path) if path else logits)
                self.truncate(held)
            return logits, after
        held = model.n_tokens
        sequences = list(range(1, len(paths) + 1))
        model.remove(-1, held)
        for sequence in sequences:
            model.copy_sequence(0, sequence, 0, held)
        entries = [(token, held + k, [0, *sequences], k == len(shared) - 1) for k, token in enumerate(shared)]
        for sequence, path in zip(sequences, paths):
            entries += [(token, held + len(shared) + k, [sequence], k == len(path) - 1) for k, token in enumerate(path)]
        try:
            outputs = model.decode(entries)
            rows = [model.logits_at(k) for k in outputs]
        finally:
            for sequence in sequences:
                model.remove(sequence, -1)
        model.mark_held(shared, held)
        return (rows.pop(0) if shared else None), rows

    # ----------------------------------------------------------------------------- snapshots
    def is_kept(self, prefix: list[int]) -> bool:
        """Whether a snapshot of ``prefix`` is in memory or on disk."""
        if any(tokens == prefix for tokens, _ in self.snapshots):
            return True
        path = self.snapshot_file(prefix)
        return path is not None and path.is_file()

    def keep(self, prefix: list[int]) -> None:
        """Snapshot the KV state of ``prefix``: from disk if saved before, else evaluated now (and saved)."""
        if any(tokens == prefix for tokens, _ in self.snapshots):
            return
        if not self.load_file(prefix):
            self.prepare(prefix + [0])
        if self.tokens != prefix:
            return
        self.snapshots = self.snapshots[-(MAX_SNAPSHOTS - 1):] + [(list(prefix), self.model.state())]
        self.save_file(prefix)

    def restore(self, snapshot: tuple[list[int], bytes]) -> bool:
        tokens, data = snapshot
        self.truncate(0)
        if not self.model.set_state(data):
            self.snapshots.remove(snapshot)
            return False
        self.model.mark_held(tokens)
        return True

    def snapshot_file(self, prefix: list[int]) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(json.dumps([self.file_key, self.model.n_ctx, prefix]).encode()).hexdigest()[:32]
        return self.cache_dir / f"prefix-{digest}.kv"

    def load_file(self, prefix: list[int]) -> bool:
        path = self.snapshot_file(prefix)
        if path is None or not path.is_file():
            return False
        self.truncate(0)
        if self.model.load_state(path, len(prefix)) != prefix:
            self.truncate(0)
            path.unlink(missing_ok=True)
            return False
        self.model.mark_held(prefix)
        os.utime(path)  # most recently used
        return True

    def save_file(self, prefix: list[int]) -> None:
        path = self.snapshot_file(prefix)
        if path is None or path.exists():
            return
        scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if self.model.save_state(scratch, prefix):
                os.replace(scratch, path)
            kept = sorted(path.parent.glob("prefix-*.kv"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in kept[MAX_SNAPSHOT_FILES:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            scratch.unlink(missing_ok=True)
