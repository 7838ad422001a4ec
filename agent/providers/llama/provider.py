"""The embedded default provider: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

Nothing heavy happens at import: ``llama_cpp`` is imported, and the model file assembled, verified
and loaded, when the model is first needed. The model then stays loaded for the life of the
provider, and one lock serialises its use (llama.cpp runs one generation at a time; the CLI and the
HTTP server share one provider).

Two ways to use it:

- :meth:`LocalProvider.complete`, the generic provider interface: the conversation is rendered with
  the model's own chat template, the answer is streamed, and ``json_schema`` becomes a grammar.
- :meth:`LocalProvider.open_reply`, a :class:`ReplyCursor` on the assistant's reply, for the router
  (``agent.router``): it scores options for what comes next and writes the reply greedily, so a
  tool decision costs a few forward passes instead of a sampled JSON document. The model's context
  holds several sequences in one KV cache, so the branches of a choice (``file_list`` / ``file_read``
  after ``file``) are evaluated side by side, in the same pass as the user's message.

Prompt-prefix caching: consecutive prompts share the longest common prefix of the KV cache. A reply
opened with ``keep=n`` also snapshots the KV state of its first ``n`` messages (the router's
unchanging tool prompt), in memory and on disk, so after another prompt (an answer), or in a new
process, that prefix comes back in milliseconds instead of being evaluated again.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.providers.llama.model_files import ensure_default_model, verify_model_file
from agent.config import Settings
from agent.providers.base import Capabilities, Completion, ProviderError, TextCallback

INSTALL_HINT = "pip install 'llama-cpp-python==0.3.36'"
#: prefix snapshots kept on disk (about 12 KB per token with the default model)
MAX_SNAPSHOT_FILES = 4
#: prefix snapshots kept in memory (about 25 MB each with the default model)
MAX_SNAPSHOTS = 6
#: how many of the likeliest tokens a copied value may choose from at each step
COPY_CANDIDATES = 200
#: the default model's vectors of the built-in tools' texts (made by ``bench/routing/shipped_vectors.py``)
SHIPPED_VECTORS = Path(__file__).resolve().parent / "data" / "default-model-vectors.npz"
#: sequences of the model's context: the most branch points of a choice evaluated in one pass, less one
BRANCH_SEQUENCES = 16
#: context size of the embedding context (longer texts are cut to it)
EMBED_CTX = 512
#: vectors kept on disk per model (about 3.5 KB each with the default model)
MAX_KEPT_VECTORS = 20000


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or an error that says what to install."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise ProviderError(
            f"the embedded model needs the llama-cpp-python package, which cannot be imported ({exc}). "
            f"Install it with: {INSTALL_HINT} - or choose another provider, e.g. riverse -p ollama chat"
        ) from None
    return llama_cpp


class _Context:
    """One llama.cpp context: what it has evaluated, prefix reuse, KV snapshots. Not thread-safe."""

    def __init__(self, llm: Any, lib: Any, cache_dir: Path | None, file_key: str):
        self.llm = llm
        self.lib = lib
        self.cache_dir = cache_dir
        self.file_key = file_key
        self.snapshots: list[tuple[list[int], bytes]] = []
        self.vocab = lib.llama_model_get_vocab(llm.model)
        # several sequences in one KV cache: the branches of a choice are then evaluated in one batch
        self.sequences = lib.llama_n_seq_max(llm.ctx)
        self.parallel = self.sequences > 1 and not getattr(llm, "_is_recurrent", False) and not getattr(llm, "_is_hybrid", False)

    @property
    def tokens(self) -> list[int]:
        return [int(t) for t in self.llm.input_ids[: self.llm.n_tokens]]

    def truncate(self, count: int) -> None:
        """Forget everything after the first ``count`` tokens."""
        self.llm.n_tokens = count
        self.lib.llama_memory_seq_rm(self.lib.llama_get_memory(self.llm.ctx), 0, count, -1)

    def prepare(self, tokens: list[int]) -> None:
        """Hold ``tokens[:-1]`` evaluated, reusing the longest cached prefix (context or snapshot)."""
        target = len(tokens) - 1
        common = self.reuse(tokens, target)
        if common < target:
            self.llm.eval(tokens[common:target])

    def reuse(self, tokens: list[int], target: int) -> int:
        """Keep (or restore from a snapshot) the longest prefix of ``tokens[:target]`` already
        evaluated, forget the rest; return its length."""
        common = _shared(self.tokens, tokens, target)
        better = [s for s in self.snapshots if common < len(s[0]) <= target and tokens[: len(s[0])] == s[0]]
        if better:
            self.restore(max(better, key=lambda s: len(s[0])))
            common = self.llm.n_tokens  # the snapshot's length, or 0 when it could not be restored
        self.truncate(common)
        return common

    def evaluate_to(self, tokens: list[int]) -> Any:
        """Hold all of ``tokens`` evaluated (reusing the longest cached prefix, evaluating the rest in
        one batch) and return the logits of the token after them."""
        common = self.reuse(tokens, len(tokens) - 1)
        return self.feed(tokens[common:])

    def feed(self, tokens: list[int]) -> Any:
        """Evaluate ``tokens`` after what is held; return the logits of the next token (a copy)."""
        import numpy as np

        self.llm.eval(tokens)
        raw = self.lib.llama_get_logits(self.llm.ctx)
        return np.ctypeslib.as_array(raw, shape=(self.llm.n_vocab(),)).copy()

    def evaluate_paths(self, shared: list[int], paths: list[list[int]]) -> tuple[Any, list[Any]]:
        """Evaluate ``shared`` after what is held (and keep it), and each of ``paths`` after that
        (without keeping them); return the logits after ``shared`` (None when it is empty) and after
        each path. With several sequences in the KV cache this is one forward pass: each path is a
        sequence of its own that shares the held tokens and ``shared``."""
        paths = [list(path) for path in paths]
        count = len(shared) + sum(len(path) for path in paths)
        if not self.parallel or len(paths) + 1 > self.sequences or not all(paths) or count > self.llm.n_batch:
            logits = self.feed(shared) if shared else None
            held, after = self.llm.n_tokens, []
            for path in paths:
                after.append(self.feed(path) if path else logits)
                self.truncate(held)
            return logits, after
        import numpy as np

        lib, llm = self.lib, self.llm
        held = llm.n_tokens
        memory = lib.llama_get_memory(llm.ctx)
        sequences = list(range(1, len(paths) + 1))
        lib.llama_memory_seq_rm(memory, -1, held, -1)
        for sequence in sequences:
            lib.llama_memory_seq_cp(memory, 0, sequence, 0, held)
        entries = [(token, held + k, [0, *sequences], k == len(shared) - 1) for k, token in enumerate(shared)]
        for sequence, path in zip(sequences, paths):
            entries += [(token, held + len(shared) + k, [sequence], k == len(path) - 1) for k, token in enumerate(path)]
        try:
            outputs = _decode(lib, llm, entries)
            rows = [np.ctypeslib.as_array(lib.llama_get_logits_ith(llm.ctx, k), shape=(llm.n_vocab(),)).copy() for k in outputs]
        finally:
            for sequence in sequences:
                lib.llama_memory_seq_rm(memory, sequence, -1, -1)
        llm.input_ids[held : held + len(shared)] = shared
        llm.n_tokens = held + len(shared)
        return (rows.pop(0) if shared else None), rows

    def is_control(self, token: int) -> bool:
        return bool(self.lib.llama_vocab_is_eog(self.vocab, token) or self.lib.llama_vocab_is_control(self.vocab, token))

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
        size = self.lib.llama_state_seq_get_size(self.llm.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = self.lib.llama_state_seq_get_data(self.llm.ctx, buffer, size, 0)
        self.snapshots = self.snapshots[-(MAX_SNAPSHOTS - 1):] + [(list(prefix), bytes(buffer)[:written])]
        self.save_file(prefix)

    def restore(self, snapshot: tuple[list[int], bytes]) -> bool:
        tokens, data = snapshot
        self.truncate(0)
        source = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if not self.lib.llama_state_seq_set_data(self.llm.ctx, source, len(data), 0):
            self.snapshots.remove(snapshot)
            return False
        self.llm.input_ids[: len(tokens)] = tokens
        self.llm.n_tokens = len(tokens)
        return True

    def snapshot_file(self, prefix: list[int]) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha256(json.dumps([self.file_key, self.llm.n_ctx(), prefix]).encode()).hexdigest()[:32]
        return self.cache_dir / f"prefix-{digest}.kv"

    def load_file(self, prefix: list[int]) -> bool:
        path = self.snapshot_file(prefix)
        if path is None or not path.is_file():
            return False
        self.truncate(0)
        capacity = len(prefix)
        tokens = (self.lib.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        loaded = self.lib.llama_state_seq_load_file(self.llm.ctx, str(path).encode(), 0, tokens, capacity, ctypes.byref(count))
        if not loaded or count.value != capacity or list(tokens) != prefix:
            self.truncate(0)
            path.unlink(missing_ok=True)
            return False
        self.llm.input_ids[:capacity] = prefix
        self.llm.n_tokens = capacity
        os.utime(path)  # most recently used
        return True

    def save_file(self, prefix: list[int]) -> None:
        path = self.snapshot_file(prefix)
        if path is None or path.exists():
            return
        scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tokens = (self.lib.llama_token * len(prefix))(*prefix)
            if self.lib.llama_state_seq_save_file(self.llm.ctx, str(scratch).encode(), 0, tokens, len(prefix)):
                os.replace(scratch, path)
            kept = sorted(path.parent.glob("prefix-*.kv"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in kept[MAX_SNAPSHOT_FILES:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            scratch.unlink(missing_ok=True)


def _shared(held: list[int], tokens: list[int], limit: int) -> int:
    """How many of the first ``limit`` tokens ``held`` and ``tokens`` have in common."""
    common = 0
    while common < min(len(held), limit) and held[common] == tokens[common]:
        common += 1
    return common


@contextmanager
def _sequences_at_most(lib: Any, count: int) -> Iterator[None]:
    """Cap the sequences of the contexts made inside. In embedding mode llama-cpp-python asks for as
    many as llama.cpp allows (256), and llama.cpp reserves a row of logits for each: about 150 MB with
    a 152k-token vocabulary."""
    module = getattr(getattr(lib, "llama", None), "llama_cpp", None)  # llama_cpp.llama's view of the C API
    original = getattr(module, "llama_max_parallel_sequences", None)
    if original is None:
        yield
        return
    module.llama_max_parallel_sequences = lambda: min(count, original())
    try:
        yield
    finally:
        module.llama_max_parallel_sequences = original


def _decode(lib: Any, llm: Any, entries: list[tuple[int, int, list[int], bool]]) -> list[int]:
    """One forward pass over ``entries`` (token, position, sequences, whether its output is wanted);
    returns the batch indices of the outputs."""
    batch = lib.llama_batch_init(len(entries), 0, max((len(owners) for _, _, owners, _ in entries), default=1))
    try:
        outputs = []
        for i, (token, position, owners, output) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.logits[i] = token, position, len(owners), output
            for k, owner in enumerate(owners):
                batch.seq_id[i][k] = owner
            if output:
                outputs.append(i)
        batch.n_tokens = len(entries)
        if lib.llama_decode(llm.ctx, batch) != 0:
            raise ProviderError("llama.cpp could not evaluate the prompt (llama_decode failed)")
        return outputs
    finally:
        lib.llama_batch_free(batch)


def read_vectors(path: Path, width: int, *, strict: bool = False) -> dict[str, Any]:
    """Vectors saved by :class:`_Vectors` (or shipped with Riverse): text key -> float32 row. A file
    of another width (another model) gives none; with ``strict``, an unreadable file raises."""
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


class _Vectors:
    """Sentence vectors from a second llama.cpp context on the same (memory-mapped) weights, in
    embedding mode: the model's hidden state at a text's last token, unit length. Vectors of texts that
    come back (a tool's examples) are kept in memory and in one file per model. Not thread-safe."""

    def __init__(self, llm: Any, cache_dir: Path | None, file_key: str, shipped: Path | None = None, lib: Any = None):
        self.llm = llm
        self.lib = lib  # llama_cpp: texts are then evaluated by :meth:`_state`, else with ``llm.embed``
        self._held: list[int] = []  # tokens whose KV state the context holds (texts share a beginning)
        self.path = None if cache_dir is None else cache_dir / f"vectors-{hashlib.sha256(file_key.encode()).hexdigest()[:32]}.npz"
        self.shipped = shipped  # vectors that come with Riverse (the built-in tools' texts, default model)
        self.kept: dict[str, Any] = {}
        self._own: set[str] = set()  # keys computed here (saved), as opposed to shipped ones
        self._loaded = False

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def has(self, texts: list[str]) -> bool:
        self._load()
        return all(self.key(text) in self.kept for text in texts)

    def vectors(self, texts: list[str], keep: bool) -> Any:
        import numpy as np

        self._load()
        rows, added = [], False
        for text in texts:
            key = self.key(text)
            vector = self.kept.get(key)
            if vector is None:
                if self.lib is not None:
                    vector = self._state(text)
                else:
                    vector = np.asarray(self.llm.embed(text, truncate=True), dtype=np.float32)
                    if vector.ndim == 2:  # one vector per token (a chat model pools nothing): the last one
                        vector = vector[-1].copy()
                vector /= float(np.linalg.norm(vector)) or 1.0
                if keep:
                    self.kept[key], added = vector, True
                    self._own.add(key)
            rows.append(vector)
        if added:
            self._save()
        width = self.llm.n_embd()
        return np.stack(rows) if rows else np.zeros((0, width), dtype=np.float32)

    def _state(self, text: str) -> Any:
        """The hidden state at the last token of ``text``. Only that token's output is asked for
        (in embedding mode llama.cpp computes every output of a batch, logits included), and the
        tokens this text shares with the previous one are not evaluated again."""
        import numpy as np

        lib, llm = self.lib, self.llm
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=True)[:EMBED_CTX] or [llm.token_eos()]
        common = _shared(self._held, tokens, len(tokens) - 1)
        memory = lib.llama_get_memory(llm.ctx)
        lib.llama_memory_seq_rm(memory, -1, common, -1)
        self._held = tokens[:common]
        try:
            lib.llama_set_embeddings(llm.ctx, False)
            rest = tokens[common:-1]
            if rest:
                _decode(lib, llm, [(token, common + k, [0], False) for k, token in enumerate(rest)])
            lib.llama_set_embeddings(llm.ctx, True)
            (last,) = _decode(lib, llm, [(tokens[-1], len(tokens) - 1, [0], True)])
            vector = np.ctypeslib.as_array(lib.llama_get_embeddings_ith(llm.ctx, last), shape=(llm.n_embd(),)).copy()
        finally:
            lib.llama_memory_seq_rm(memory, -1, len(tokens) - 1, -1)
        self._held = tokens[:-1]
        return vector.astype(np.float32)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.shipped is not None:
            self.kept.update(read_vectors(self.shipped, self.llm.n_embd()))
        if self.path is None or not self.path.is_file():
            return
        try:
            own = read_vectors(self.path, self.llm.n_embd(), strict=True)
        except (OSError, ValueError, KeyError):
            self.path.unlink(missing_ok=True)  # unreadable: computed again when needed
            return
        self.kept.update(own)
        self._own.update(own)

    def _save(self) -> None:
        import numpy as np

        if self.path is None:
            return
        keys = [key for key in self.kept if key in self._own][-MAX_KEPT_VECTORS:]
        scratch = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp.npz")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(scratch, keys=np.array(keys), matrix=np.stack([self.kept[k] for k in keys]))
            os.replace(scratch, self.path)
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            scratch.unlink(missing_ok=True)


class LocalProvider:
    """An in-process llama.cpp model; see the module docstring."""

    name = "local"
    #: scored decoding, sentence vectors and a kept prompt prefix; one generation at a time (the
    #: server queues requests for it first come, first served); decisions by the router
    capabilities = Capabilities(
        scored_decoding=True, sentence_vectors=True, prefix_cache=True, concurrency=1, preferred_protocol="router"
    )

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        models_dir: str | os.PathLike | None = None,
        cache_dir: str | os.PathLike | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        temperature: float = 0.2,
        max_tokens: int = 512,
        language: str = "en",
    ):
        if model_path is None and models_dir is None:
            raise ValueError("LocalProvider needs a model_path, or the models_dir where the default model lives")
        self.model_path = Path(model_path).expanduser() if model_path else None
        self.models_dir = Path(models_dir).expanduser() if models_dir else Path(".")
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.language = language
        #: seconds llama.cpp took to load the model (None until loaded)
        self.load_seconds: float | None = None
        self._lock = threading.RLock()
        self._context: _Context | None = None
        self._vectors: _Vectors | None = None
        self._path: Path | None = None
        self._formatters: tuple[Any, Any] = (None, None)
        self._grammars: dict[str, Any] = {}

    # ------------------------------------------------------------------------------- loading
    def resolve_model_file(self) -> Path:
        """The GGUF file to run: ``llm.model_path`` checked, or the default model (assembled and verified if needed)."""
        if self.model_path is not None:
            status = verify_model_file(self.model_path, None, None, language=self.language)
            if status.verified is False:
                raise ProviderError(status.message)
            return self.model_path
        return ensure_default_model(self.models_dir, progress=True, language=self.language)

    def load(self) -> None:
        """Load the model now instead of on first use (assembling and verifying the default model if needed)."""
        with self._lock:
            if self._context is None:
                self._load()

    @property
    def context(self) -> _Context:
        """The loaded model's context (the model is loaded on first use)."""
        self.load()
        assert self._context is not None  # set by _load
        return self._context

    def _load(self) -> None:
        lib = import_llama_cpp()
        path = self.resolve_model_file()
        started = time.perf_counter()
        try:
            # ``embedding=True`` is how llama-cpp-python makes a context with several sequences in one
            # KV cache (the router evaluates a choice's branches side by side); logits stay on
            with _sequences_at_most(lib, BRANCH_SEQUENCES):
                llm = lib.Llama(
                    model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads, n_threads_batch=self.n_threads,
                    embedding=True, verbose=False,
                )
            lib.llama_set_embeddings(llm.ctx, False)
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp could not load {path}: {exc}. Is it a complete GGUF chat model?") from None
        self.load_seconds = time.perf_counter() - started
        stat = path.stat()
        self._formatters = _formatters(llm)
        self._context = _Context(llm, lib, self.cache_dir, f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}")
        self._path = path

    @property
    def vectors(self) -> _Vectors:
        """The embedding context (created on first use, on the loaded model's file)."""
        self.load()
        if self._vectors is None:
            lib = import_llama_cpp()
            try:
                with _sequences_at_most(lib, 1):
                    llm = lib.Llama(
                        model_path=str(self._path), embedding=True, n_ctx=EMBED_CTX, n_batch=EMBED_CTX, n_ubatch=EMBED_CTX,
                        n_threads=self.n_threads, n_threads_batch=self.n_threads, verbose=False,
                    )
            except (ValueError, RuntimeError) as exc:
                raise ProviderError(f"llama.cpp could not open {self._path} for sentence vectors: {exc}") from None
            assert self._context is not None  # loaded above
            shipped = SHIPPED_VECTORS if self.model_path is None and SHIPPED_VECTORS.is_file() else None
            self._vectors = _Vectors(llm, self.cache_dir, self._context.file_key, shipped, lib)
        return self._vectors

    # -------------------------------------------------------------------------------- tokens
    def tokenize(self, text: str) -> list[int]:
        """Plain text to tokens (special-token markup in ``text`` stays text)."""
        return self.context.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def render(self, messages: list[dict[str, Any]], *, open_reply: bool = True) -> list[int]:
        """``messages`` in the model's chat template, as tokens; ``open_reply`` adds the assistant's opening."""
        llm = self.context.llm
        result = self._formatters[0 if open_reply else 1](messages=_plain(messages))
        return llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)

    # ---------------------------------------------------------------------------- interfaces
    def has_prefix(self, messages: list[dict[str, Any]]) -> bool:
        """Whether the KV state of ``messages`` (a fixed prompt) is already kept, in memory or on
        disk, so that :meth:`open_reply` with them as its prefix starts at once."""
        with self._lock:
            return self.context.is_kept(self.render(messages, open_reply=False))

    def prepare_prefix(self, messages: list[dict[str, Any]]) -> None:
        """Evaluate ``messages`` (a fixed prompt) and keep their KV state, in memory and on disk,
        unless that was done before: what :meth:`open_reply` with ``keep`` does on first use."""
        with self._lock:
            self.context.keep(self.render(messages, open_reply=False))

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        """Unit-length sentence vectors of ``texts``, one row each (a numpy array; the dot product of
        two rows is their cosine similarity). ``keep``: remember them, in memory and on disk, for
        texts that come back (a tool's examples); the router asks for a message's vector without it."""
        with self._lock:
            return self.vectors.vectors(list(texts), keep)

    def has_embedded(self, texts: list[str]) -> bool:
        """Whether the vectors of all ``texts`` are kept (see :meth:`embed`)."""
        with self._lock:
            return self.vectors.has(list(texts))

    @contextmanager
    def open_reply(self, messages: list[dict[str, Any]], *, keep: int = 0) -> Iterator[ReplyCursor]:
        """A cursor at the start of the assistant's reply to ``messages``; holds the model's lock.

        ``keep``: the first ``keep`` messages form a prefix that will come back (the router's tool
        prompt); its KV state is snapshotted so it is evaluated once, ever.
        """
        with self._lock:
            context = self.context
            tokens = self.render(messages)
            self._check_room(tokens)
            if keep:
                prefix = self.render(messages[:keep], open_reply=False)
                if prefix == tokens[: len(prefix)]:
                    context.keep(prefix)
            common = context.reuse(tokens, len(tokens) - 1)
            yield ReplyCursor(self, context, None, tokens[common:])  # evaluated with what the reply does first

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_text: TextCallback | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """The assistant's next message, streamed to ``on_text``.

        ``tools`` is ignored: there is no native function calling here (the router or the JSON
        protocol handle tools). ``json_schema`` constrains the output with a llama.cpp grammar and
        makes decoding greedy.
        """
        with self._lock:
            context = self.context
            tokens = self.render(messages)
            room = self._check_room(tokens)
            grammar = self._grammar(json_schema) if json_schema else None
            context.prepare(tokens)
            pieces: list[str] = []
            stream = context.llm.create_completion(
                tokens,
                max_tokens=min(max_tokens or self.max_tokens, room),
                temperature=0.0 if json_schema else self.temperature,
                grammar=grammar,
                stream=True,
            )
            try:
                for chunk in stream:
                    piece = chunk["choices"][0]["text"]
                    if piece:
                        pieces.append(piece)
                        if on_text:
                            on_text(piece)
            finally:
                stream.close()  # also when on_text raised: the model is free again before the lock is
            return Completion(text="".join(pieces))

    def _check_room(self, tokens: list[int]) -> int:
        room = self.n_ctx - len(tokens)
        if room < 16:
            raise ProviderError(
                f"the conversation ({len(tokens)} tokens) does not fit the model's context of {self.n_ctx} tokens; "
                "start a new conversation, or lower llm.history_turns, or raise llm.n_ctx"
            )
        return room

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        if key not in self._grammars:
            from llama_cpp import LlamaGrammar

            try:
                self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
            except (ValueError, RuntimeError, KeyError, TypeError) as exc:
                raise ProviderError(f"llama.cpp cannot turn this JSON schema into a grammar: {exc}") from None
        return self._grammars[key]


class ReplyCursor:
    """The assistant's reply being written: score what may come next, or write it (greedily).

    Obtained from :meth:`LocalProvider.open_reply` and valid only inside its ``with`` block.
    """

    def __init__(self, provider: LocalProvider, context: _Context, logits: Any, tokens: list[int] | None = None):
        self._provider = provider
        self._context = context
        self._logits = logits  # after what is evaluated (None: not known yet, ``tokens`` are pending)
        # Tokens and text appended but not evaluated yet: they are evaluated in one batch with what
        # comes next (a forward pass costs about as much for one token as for several).
        self._tokens = list(tokens or [])
        self._pending = ""

    def mark(self) -> tuple[int, Any, list[int], str]:
        """A point in the reply to :meth:`rewind` to."""
        return self._context.llm.n_tokens, self._logits, list(self._tokens), self._pending

    def rewind(self, mark: tuple[int, Any, list[int], str]) -> None:
        """Forget what was written after ``mark``."""
        count, self._logits, tokens, self._pending = mark
        self._tokens = list(tokens)
        self._context.truncate(count)

    def extend(self, text: str) -> None:
        """Append ``text`` to the reply (evaluated lazily, in one batch with what follows)."""
        self._pending += text

    def _take_pending(self) -> list[int]:
        tokens, self._tokens = self._tokens, []
        text, self._pending = self._pending, ""
        return tokens + (self._provider.tokenize(text) if text else [])

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
        sequences = {option: self._provider.tokenize(option) for option in dict.fromkeys(options)}
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
        base = context.llm.n_tokens
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
        """
        context = self._context
        self._flush()
        checks = [check for check in (allowed, _substring_of(copy_from)) if check is not None]
        head = opening.encode("utf-8")
        produced = b""
        stop_bytes = stop.encode("utf-8")
        start, whole_head = (context.llm.n_tokens, self._logits), False
        for _ in range(max_tokens):
            token, piece = self._next_piece(produced, checks, stop_bytes, head, whole_head)
            if token is None and 0 < len(produced) < len(head) and not whole_head:
                # a part of the opening led nowhere (`` `` then an unquoted number): start again,
                # with the whole opening in one token
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
            self._logits = context.feed([token])
        if len(produced) < len(head):
            self.extend(head[len(produced):].decode("utf-8", "ignore"))
        self.extend(stop)
        return produced[len(head):].decode("utf-8", "ignore")

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
            return (None, b"") if context.is_control(token) else (token, context.llm.detokenize([token]))
        top = np.argpartition(self._logits, -COPY_CANDIDATES)[-COPY_CANDIDATES:]
        for token in top[np.argsort(-self._logits[top])]:
            token = int(token)
            if context.is_control(token):
                return None, b""
            piece = context.llm.detokenize([token])
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
    if source is None:
        return None
    encoded = source.encode("utf-8")
    return lambda text: text in encoded


def _formatters(llm: Any) -> tuple[Any, Any]:
    """Renderers of the model's chat template, with and without the assistant's opening."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise ProviderError("the model file has no chat template (tokenizer.chat_template); use an instruction-tuned GGUF model")

    def text(token: int) -> str:
        return llm.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""

    eos, bos = text(llm.token_eos()), text(llm.token_bos())
    return (
        Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True),
        Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=False),
    )


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as a plain chat template expects them: text content; tool results become user turns."""
    out = []
    for message in messages:
        content = message.get("content") or ""
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False, default=str)
        out.append({"role": "user" if message.get("role") == "tool" else message.get("role", "user"), "content": content})
    return out


def from_settings(settings: Settings) -> LocalProvider:
    llm = settings.llm
    return LocalProvider(
        llm.model_path,
        models_dir=settings.models_dir,
        cache_dir=settings.home / "cache",
        n_ctx=llm.n_ctx,
        n_threads=llm.n_threads,
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        language=settings.language,
    )
