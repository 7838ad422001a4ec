"""Sentence vectors: the model's hidden state at a text's last token, from a second llama.cpp
context on the same (memory-mapped) weights, in embedding mode.

Vectors of texts that come back (a tool's examples) are kept in memory and in one ``.npz`` file per
model; the default model's vectors of the built-in tools' texts ship with Riverse
(:data:`SHIPPED_VECTORS`, made by ``bench/routing/shipped_vectors.py``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from agent.providers.llama.adapter import LlamaModel
from agent.providers.llama.context import shared_prefix_length

#: the default model's vectors of the built-in tools' texts (made by ``bench/routing/shipped_vectors.py``)
SHIPPED_VECTORS = Path(__file__).resolve().parent / "data" / "default-model-vectors.npz"
#: context size of the embedding context (longer texts are cut to it)
EMBED_CTX = 512
#: vectors of texts not kept (messages) remembered in memory, the last ones only
RECENT_VECTORS = 16
#: vectors kept on disk per model (about 3.5 KB each with the default model)
MAX_KEPT_VECTORS = 20000


def read_vectors(path: Path, width: int, *, strict: bool = False) -> dict[str, Any]:
    """Vectors saved by :class:`SentenceVectorContext` (or shipped with Riverse): text key -> float32
    row. A file of another width (another model) gives none; with ``strict``, an unreadable file raises."""
    import numpy as np

    try:
        with np.load(path) as data:
            keys, matrix = data["keys"], data["matrix"]
    except (OSError, ValueError, KeyError):
        if strict:
            raise
        return {}
    if matrix.ndim != 2 or matrix.shape != (len(keys), width):
        return {}
    return {str(k): row for k, row in zip(keys, matrix.astype(np.float32))}


def write_vectors(path: Path, keys: list[str], rows: list[Any]) -> None:
    """Save ``rows`` under their text ``keys`` for :func:`read_vectors`, atomically (a file that
    cannot be written only costs time: the vectors are computed again)."""
    import numpy as np

    if not keys:
        return
    scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(scratch, keys=np.array(keys), matrix=np.stack(rows))
        os.replace(scratch, path)
    except OSError:
        pass
    finally:
        scratch.unlink(missing_ok=True)


class SentenceVectorContext:
    """Unit-length sentence vectors from a llama.cpp context in embedding mode: the model's hidden
    state at a text's last token. Vectors of texts that come back are kept in memory and in one file
    per model (``file_key``); ``shipped`` vectors are used, not copied. Not thread-safe."""

    def __init__(self, model: LlamaModel, cache_dir: Path | None, file_key: str, shipped: Path | None = None):
        self.model = model
        self._held: list[int] = []  # tokens whose KV state the context holds (texts share a beginning)
        self.path = None if cache_dir is None else cache_dir / f"vectors-{hashlib.sha256(file_key.encode()).hexdigest()[:32]}.npz"
        self.shipped = shipped  # vectors that come with Riverse (the built-in tools' texts, default model)
        self.kept: dict[str, Any] = {}
        self._recent: dict[str, Any] = {}  # the last few vectors not kept (a message is weighed several times)
        self._own: set[str] = set()  # keys computed here (saved), as opposed to shipped ones
        self._loaded = False

    @staticmethod
    def key(text: str) -> str:
        """The key of ``text``'s vector in memory and in the files."""
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def has(self, texts: list[str]) -> bool:
        """Whether the vectors of all ``texts`` are kept (or shipped)."""
        self._load()
        return all(self.key(text) in self.kept for text in texts)

    def embed(self, texts: list[str], keep: bool) -> Any:
        """The unit-length vectors of ``texts``, one row each; ``keep``: remember the new ones."""
        import numpy as np

        self._load()
        rows, added = [], False
        for text in texts:
            key = self.key(text)
            vector = self.kept.get(key)
            if vector is None:
                vector = self._recent.get(key)
            if vector is None:
                vector = self._state(text)
                vector /= float(np.linalg.norm(vector)) or 1.0
                if keep:
                    self.kept[key], added = vector, True
                    self._own.add(key)
                else:
                    if len(self._recent) >= RECENT_VECTORS:
                        del self._recent[next(iter(self._recent))]
                    self._recent[key] = vector
            rows.append(vector)
        if added:
            self._save()
        width = self.model.n_embd
        return np.stack(rows) if rows else np.zeros((0, width), dtype=np.float32)

    def _state(self, text: str) -> Any:
        """The hidden state at the last token of ``text``. Only that token's output is asked for
        (in embedding mode llama.cpp computes every output of a batch, logits included), and the
        tokens this text shares with the previous one are not evaluated again."""
        import numpy as np

        model = self.model
        tokens = model.tokenize(text, add_bos=True)[:EMBED_CTX] or [model.token_eos()]
        common = shared_prefix_length(self._held, tokens, len(tokens) - 1)
        model.remove(-1, common)
        self._held = tokens[:common]
        try:
            model.set_embeddings(False)
            rest = tokens[common:-1]
            if rest:
                model.decode([(token, common + k, [0], False) for k, token in enumerate(rest)])
            model.set_embeddings(True)
            (last,) = model.decode([(tokens[-1], len(tokens) - 1, [0], True)])
            vector = model.embedding_at(last)
        finally:
            model.remove(-1, len(tokens) - 1)
        self._held = tokens[:-1]
        return vector.astype(np.float32)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.shipped is not None:
            self.kept.update(read_vectors(self.shipped, self.model.n_embd))
        if self.path is None or not self.path.is_file():
            return
        try:
            own = read_vectors(self.path, self.model.n_embd, strict=True)
        except (OSError, ValueError, KeyError):
            self.path.unlink(missing_ok=True)  # unreadable: computed again when needed
            return
        self.kept.update(own)
        self._own.update(own)

    def _save(self) -> None:
        if self.path is not None:
            keys = [key for key in self.kept if key in self._own][-MAX_KEPT_VECTORS:]
            write_vectors(self.path, keys, [self.kept[k] for k in keys])
