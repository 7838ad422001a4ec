"""The one place that uses llama-cpp-python: importing it, checking its version, and every call
into its ``Llama`` objects and llama.cpp's C API.

:class:`LlamaModel` wraps one llama.cpp context (a ``Llama``) with plainly named operations: the
tokens it holds, evaluating tokens and reading logits, a hand-built batch over several sequences,
copying and removing sequences of the KV cache, saving and restoring the KV state, sentence
embeddings. :class:`ChatTemplate` renders a conversation with the model's own chat template. The
rest of the package works through these and never imports ``llama_cpp``.

``llama_cpp`` is imported when a model is loaded, not when this module is: importing the package
stays cheap for commands that never run the model.
"""

from __future__ import annotations

import ctypes
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.providers.base import ProviderError

#: the llama-cpp-python release this package is written and tested against (its internals are used)
LLAMA_CPP_VERSION = "0.3.36"
INSTALL_HINT = f"pip install 'llama-cpp-python=={LLAMA_CPP_VERSION}'"

#: one entry of a batch: token, position, the sequences it belongs to, whether its output is wanted
BatchEntry = tuple[int, int, list[int], bool]


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or an error that says what to install: when it cannot be imported,
    or when it is another version than :data:`LLAMA_CPP_VERSION`."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise ProviderError(
            f"the embedded model needs the llama-cpp-python package, which cannot be imported ({exc}). "
            f"Install it with: {INSTALL_HINT} - or choose another provider, e.g. riverse -p ollama chat"
        ) from None
    installed = getattr(llama_cpp, "__version__", "unknown")
    if installed != LLAMA_CPP_VERSION:
        raise ProviderError(
            f"the embedded model needs llama-cpp-python {LLAMA_CPP_VERSION}, but {installed} is installed "
            f"(Riverse uses internals of that exact version). Install the supported version with: {INSTALL_HINT}"
        )
    return llama_cpp


def check_bindings() -> None:
    """Raise :class:`ProviderError` unless the supported llama-cpp-python can be imported."""
    import_llama_cpp()


@contextmanager
def sequences_at_most(lib: Any, count: int) -> Iterator[None]:
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


def has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU has Intel AMX (whose ggml kernels, compiled in by a native build, crash the
    embedded model's evaluation in llama-cpp-python 0.3.36)."""
    try:
        flags = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"\bamx_int8\b", flags) is not None


@contextmanager
def safe_buffers(lib: Any) -> Iterator[None]:
    """Models loaded inside keep their weights as stored, without llama.cpp's extra CPU buffer types,
    on a CPU with AMX: there the AMX buffer type is chosen and its matrix multiplication segfaults
    (seen on Xeon processors with amx_int8; ``RIVERSE_LLAMA_EXTRA_BUFFERS=on`` keeps them anyway)."""
    module = getattr(getattr(lib, "llama", None), "llama_cpp", None)
    original = getattr(module, "llama_model_default_params", None)
    wanted = os.environ.get("RIVERSE_LLAMA_EXTRA_BUFFERS", "").strip().lower()
    if original is None or wanted in ("on", "1", "true") or (wanted not in ("off", "0", "false") and not has_amx()):
        yield
        return

    def without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False  # a field of llama_model_params in the pinned llama-cpp-python
        return params

    module.llama_model_default_params = without_extra_buffers
    try:
        yield
    finally:
        module.llama_model_default_params = original


class LlamaModel:
    """One llama.cpp context on a GGUF model: what it holds, evaluation, its KV cache. Not thread-safe.

    Sequence 0 is the context's main line: :attr:`n_tokens` and :attr:`held_tokens` are what it holds
    (llama-cpp-python's own record, kept in step by :meth:`truncate` and :meth:`mark_held` when the
    KV cache is changed directly). Other sequences are scratch space for :meth:`decode`.
    """

    def __init__(self, llm: Any, lib: Any):
        self._llm = llm
        self._lib = lib
        self._vocab = lib.llama_model_get_vocab(llm.model)

    # ------------------------------------------------------------------------------- opening
    @classmethod
    def open_chat(cls, path: Path, *, n_ctx: int, n_threads: int, sequences: int) -> LlamaModel:
        """A context with ``sequences`` sequences in one KV cache and logits on (the chat model)."""
        lib = import_llama_cpp()
        try:
            # ``embedding=True`` is how llama-cpp-python makes a context with several sequences in one
            # KV cache (the router evaluates a choice's branches side by side); logits stay on
            with sequences_at_most(lib, sequences), safe_buffers(lib):
                llm = lib.Llama(
                    model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                    embedding=True, verbose=False,
                )
            lib.llama_set_embeddings(llm.ctx, False)
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp could not load {path}: {exc}. Is it a complete GGUF chat model?") from None
        return cls(llm, lib)

    @classmethod
    def open_embedding(cls, path: Path, *, n_ctx: int, n_threads: int) -> LlamaModel:
        """A context in embedding mode with one sequence and a batch of ``n_ctx`` (sentence vectors)."""
        lib = import_llama_cpp()
        try:
            with sequences_at_most(lib, 1), safe_buffers(lib):
                llm = lib.Llama(
                    model_path=str(path), embedding=True, n_ctx=n_ctx, n_batch=n_ctx, n_ubatch=n_ctx,
                    n_threads=n_threads, n_threads_batch=n_threads, verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"llama.cpp could not open {path} for sentence vectors: {exc}") from None
        return cls(llm, lib)

    # ----------------------------------------------------------------------------- the model
    @property
    def n_vocab(self) -> int:
        return self._llm.n_vocab()

    @property
    def n_embd(self) -> int:
        return self._llm.n_embd()

    @property
    def n_ctx(self) -> int:
        return self._llm.n_ctx()

    @property
    def n_batch(self) -> int:
        """The most tokens one :meth:`decode` may take."""
        return self._llm.n_batch

    @property
    def sequences(self) -> int:
        """How many sequences the KV cache holds (llama.cpp's ``n_seq_max``)."""
        return self._lib.llama_n_seq_max(self._llm.ctx)

    @property
    def chat_template(self) -> str | None:
        """The chat template (Jinja) in the model file's metadata, if any."""
        return self._llm.metadata.get("tokenizer.chat_template")

    @property
    def recurrent(self) -> bool:
        """Whether the model is recurrent or hybrid: its sequences cannot share a prefix then."""
        return bool(getattr(self._llm, "_is_recurrent", False) or getattr(self._llm, "_is_hybrid", False))

    # -------------------------------------------------------------------------------- tokens
    def tokenize(self, text: str, *, add_bos: bool, special: bool = False) -> list[int]:
        """``text`` as tokens; ``special``: special-token markup in it becomes special tokens."""
        return self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special)

    def detokenize(self, tokens: list[int], *, special: bool = False) -> bytes:
        return self._llm.detokenize(tokens, special=special)

    def token_eos(self) -> int:
        return self._llm.token_eos()

    def token_bos(self) -> int:
        return self._llm.token_bos()

    def is_control(self, token: int) -> bool:
        """Whether ``token`` ends the reply or is a control token (never text)."""
        return bool(self._lib.llama_vocab_is_eog(self._vocab, token) or self._lib.llama_vocab_is_control(self._vocab, token))

    # ---------------------------------------------------------------------- sequence 0 held
    @property
    def n_tokens(self) -> int:
        """How many tokens sequence 0 holds evaluated."""
        return self._llm.n_tokens

    @property
    def held_tokens(self) -> list[int]:
        """The tokens sequence 0 holds evaluated."""
        return [int(t) for t in self._llm.input_ids[: self._llm.n_tokens]]

    def truncate(self, count: int) -> None:
        """Forget everything of sequence 0 after its first ``count`` tokens."""
        self._llm.n_tokens = count
        self._lib.llama_memory_seq_rm(self._memory(), 0, count, -1)

    def mark_held(self, tokens: list[int], start: int = 0) -> None:
        """Record that sequence 0 holds ``tokens`` from position ``start`` on, and nothing after them
        (after the KV cache was filled directly: a batch, a restored state)."""
        self._llm.input_ids[start : start + len(tokens)] = tokens
        self._llm.n_tokens = start + len(tokens)

    def evaluate(self, tokens: list[int]) -> None:
        """Evaluate ``tokens`` after what sequence 0 holds (in batches of :attr:`n_batch`)."""
        self._llm.eval(tokens)

    def logits(self) -> Any:
        """A copy of the logits of the last evaluated token (a numpy array of :attr:`n_vocab`)."""
        import numpy as np

        raw = self._lib.llama_get_logits(self._llm.ctx)
        return np.ctypeslib.as_array(raw, shape=(self._llm.n_vocab(),)).copy()

    # ------------------------------------------------------------------------- the KV cache
    def _memory(self) -> Any:
        return self._lib.llama_get_memory(self._llm.ctx)

    def remove(self, sequence: int, start: int, end: int = -1) -> None:
        """Remove positions ``start`` to ``end`` (-1: open) of ``sequence`` (-1: every sequence) from
        the KV cache. The record of held tokens is not changed."""
        self._lib.llama_memory_seq_rm(self._memory(), sequence, start, end)

    def copy_sequence(self, source: int, target: int, start: int, end: int) -> None:
        """Make ``target`` share the cached positions ``start`` to ``end`` of ``source``."""
        self._lib.llama_memory_seq_cp(self._memory(), source, target, start, end)

    def decode(self, entries: list[BatchEntry]) -> list[int]:
        """One forward pass over ``entries`` (token, position, sequences, whether its output is wanted);
        returns the batch indices of the outputs, for :meth:`logits_at` and :meth:`embedding_at`."""
        lib = self._lib
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
            if lib.llama_decode(self._llm.ctx, batch) != 0:
                raise ProviderError("llama.cpp could not evaluate the prompt (llama_decode failed)")
            return outputs
        finally:
            lib.llama_batch_free(batch)

    def logits_at(self, output: int) -> Any:
        """A copy of the logits at batch index ``output`` of the last :meth:`decode`."""
        import numpy as np

        raw = self._lib.llama_get_logits_ith(self._llm.ctx, output)
        return np.ctypeslib.as_array(raw, shape=(self._llm.n_vocab(),)).copy()

    def set_embeddings(self, on: bool) -> None:
        """Whether outputs are embeddings (the hidden state) rather than logits."""
        self._lib.llama_set_embeddings(self._llm.ctx, on)

    def embedding_at(self, output: int) -> Any:
        """A copy of the embedding at batch index ``output`` of the last :meth:`decode`."""
        import numpy as np

        raw = self._lib.llama_get_embeddings_ith(self._llm.ctx, output)
        return np.ctypeslib.as_array(raw, shape=(self._llm.n_embd(),)).copy()

    # ---------------------------------------------------------------------------- KV states
    def state(self) -> bytes:
        """The KV state of sequence 0."""
        lib, ctx = self._lib, self._llm.ctx
        size = lib.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = lib.llama_state_seq_get_data(ctx, buffer, size, 0)
        return bytes(buffer)[:written]

    def set_state(self, data: bytes) -> bool:
        """Put ``data`` (from :meth:`state`) into sequence 0; False when llama.cpp refuses it."""
        source = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        return bool(self._lib.llama_state_seq_set_data(self._llm.ctx, source, len(data), 0))

    def save_state(self, path: Path, tokens: list[int]) -> bool:
        """Write the KV state of sequence 0, which holds ``tokens``, to ``path``."""
        array = (self._lib.llama_token * len(tokens))(*tokens)
        return bool(self._lib.llama_state_seq_save_file(self._llm.ctx, str(path).encode(), 0, array, len(tokens)))

    def load_state(self, path: Path, capacity: int) -> list[int] | None:
        """Read a KV state saved by :meth:`save_state` into sequence 0; the tokens saved with it (at
        most ``capacity``), or None when it cannot be read."""
        tokens = (self._lib.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        loaded = self._lib.llama_state_seq_load_file(
            self._llm.ctx, str(path).encode(), 0, tokens, capacity, ctypes.byref(count)
        )
        if not loaded:
            return None
        return list(tokens)[: count.value]

    # ---------------------------------------------------------------------------- generation
    def grammar(self, schema: str) -> Any:
        """A llama.cpp grammar of the JSON schema ``schema`` (JSON text), for :meth:`completion`."""
        try:
            return self._lib.LlamaGrammar.from_json_schema(schema, verbose=False)
        except (ValueError, RuntimeError, KeyError, TypeError) as exc:
            raise ProviderError(f"llama.cpp cannot turn this JSON schema into a grammar: {exc}") from None

    @contextmanager
    def completion(
        self, tokens: list[int], *, max_tokens: int, temperature: float, grammar: Any = None, repeat_penalty: float = 1.0
    ) -> Iterator[Iterator[str]]:
        """The text pieces sampled after ``tokens`` (llama-cpp-python reuses the prefix sequence 0
        holds); the generation is closed when the ``with`` block ends, also on an error.
        ``repeat_penalty`` above 1 makes tokens of the last 64 less likely (llama.cpp's penalty)."""
        stream = self._llm.create_completion(
            tokens, max_tokens=max_tokens, temperature=temperature, grammar=grammar, stream=True,
            repeat_penalty=repeat_penalty,
        )
        try:
            yield (chunk["choices"][0]["text"] for chunk in stream)
        finally:
            stream.close()


class ChatTemplate:
    """The model's own chat template (from the GGUF metadata), rendering a conversation to tokens."""

    def __init__(self, model: LlamaModel):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = model.chat_template
        if not template:
            raise ProviderError("the model file has no chat template (tokenizer.chat_template); use an instruction-tuned GGUF model")

        def text(token: int) -> str:
            return model.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""

        eos, bos = text(model.token_eos()), text(model.token_bos())
        self._model = model
        self._open = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True)
        self._closed = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=False)

    def tokens(self, messages: list[dict[str, Any]], *, open_reply: bool) -> list[int]:
        """``messages`` (plain: role and text content) as tokens; ``open_reply`` adds the assistant's opening."""
        result = (self._open if open_reply else self._closed)(messages=messages)
        return self._model.tokenize(result.prompt, add_bos=not result.added_special, special=True)
