"""The embedded default provider: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

Nothing heavy happens at import: llama-cpp-python is imported, and the model file assembled, verified
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
process, that prefix comes back in milliseconds instead of being evaluated again
(:class:`~agent.providers.llama.context.Context`).

Sentence vectors come from a second context on the same weights
(:class:`~agent.providers.llama.vectors.SentenceVectorContext`). Every call into llama-cpp-python
goes through :mod:`agent.providers.llama.adapter`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.config import Settings
from agent.providers.base import Capabilities, Completion, ProviderError, TextCallback
from agent.providers.llama.adapter import ChatTemplate, LlamaModel, check_bindings
from agent.providers.llama.context import BRANCH_SEQUENCES, Context
from agent.providers.llama.cursor import ReplyCursor
from agent.providers.llama.model_files import ensure_default_model, verify_model_file
from agent.providers.llama.vectors import EMBED_CTX, SHIPPED_VECTORS, SentenceVectorContext

#: the repetition penalty of answers: small models otherwise fall into saying one line again and again
REPEAT_PENALTY = 1.1


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
        repeat_penalty: float = REPEAT_PENALTY,
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
        #: llama.cpp's repetition penalty for free text (answers); JSON under a grammar gets none
        self.repeat_penalty = repeat_penalty
        #: seconds llama.cpp took to load the model (None until loaded)
        self.load_seconds: float | None = None
        self._lock = threading.RLock()
        self._context: Context | None = None
        self._sentence_context: SentenceVectorContext | None = None
        self._path: Path | None = None
        self._template: ChatTemplate | None = None
        self._grammars: dict[str, Any] = {}
        #: whether a reply's values are written with guesses of what follows, from the user's message,
        #: checked several tokens to one forward pass (the same text, sooner; off for comparison)
        self.guess_ahead = True

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
    def context(self) -> Context:
        """The loaded model's context (the model is loaded on first use)."""
        self.load()
        assert self._context is not None  # set by _load
        return self._context

    def _load(self) -> None:
        check_bindings()  # before the model file is assembled: a missing or wrong llama-cpp-python says so at once
        path = self.resolve_model_file()
        started = time.perf_counter()
        model = LlamaModel.open_chat(path, n_ctx=self.n_ctx, n_threads=self.n_threads, sequences=BRANCH_SEQUENCES)
        self.load_seconds = time.perf_counter() - started
        stat = path.stat()
        self._template = ChatTemplate(model)
        self._context = Context(model, self.cache_dir, f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}")
        self._path = path

    @property
    def sentence_context(self) -> SentenceVectorContext:
        """The context that makes sentence vectors (created on first use, on the loaded model's file)."""
        self.load()
        if self._sentence_context is None:
            assert self._path is not None and self._context is not None  # loaded above
            model = LlamaModel.open_embedding(self._path, n_ctx=EMBED_CTX, n_threads=self.n_threads)
            shipped = SHIPPED_VECTORS if self.model_path is None and SHIPPED_VECTORS.is_file() else None
            self._sentence_context = SentenceVectorContext(model, self.cache_dir, self._context.file_key, shipped)
        return self._sentence_context

    # -------------------------------------------------------------------------------- tokens
    def tokenize(self, text: str) -> list[int]:
        """Plain text to tokens (special-token markup in ``text`` stays text)."""
        return self.context.model.tokenize(text, add_bos=False, special=False)

    def render(self, messages: list[dict[str, Any]], *, open_reply: bool = True) -> list[int]:
        """``messages`` in the model's chat template, as tokens; ``open_reply`` adds the assistant's opening."""
        self.load()
        assert self._template is not None  # set by _load
        return self._template.tokens(_plain(messages), open_reply=open_reply)

    # ---------------------------------------------------------------------------- interfaces
    def has_prefix(self, messages: list[dict[str, Any]]) -> bool:
        """Whether the KV state of ``messages`` (a fixed prompt) is already kept, in memory or on
        disk, so that :meth:`open_reply` with them as its prefix starts at once."""
        with self._lock:
            return self.context.is_kept(self.render(messages, open_reply=False))

    def leaves_room(self, messages: list[dict[str, Any]], room: int) -> bool:
        """Whether ``messages`` (a fixed prompt) leave at least ``room`` tokens of the context free."""
        return len(self.render(messages, open_reply=False)) + room <= self.n_ctx

    def prepare_prefix(self, messages: list[dict[str, Any]]) -> None:
        """Evaluate ``messages`` (a fixed prompt) and keep their KV state, in memory and on disk,
        unless that was done before: what :meth:`open_reply` with ``keep`` does on first use."""
        with self._lock:
            tokens = self.render(messages, open_reply=False)
            if len(tokens) + 16 > self.n_ctx:
                raise ProviderError(
                    f"the tool prompt ({len(tokens)} tokens) does not fit the model's context of {self.n_ctx} tokens; "
                    "turn some tools off (tools: NAME: {enabled: false}), or raise llm.n_ctx"
                )
            self.context.keep(tokens)

    def embed(self, texts: list[str], *, keep: bool = False) -> Any:
        """Unit-length sentence vectors of ``texts``, one row each (a numpy array; the dot product of
        two rows is their cosine similarity). ``keep``: remember them, in memory and on disk, for
        texts that come back (a tool's examples); the router asks for a message's vector without it."""
        with self._lock:
            return self.sentence_context.embed(list(texts), keep)

    def has_embedded(self, texts: list[str]) -> bool:
        """Whether the vectors of all ``texts`` are kept (see :meth:`embed`)."""
        with self._lock:
            return self.sentence_context.has(list(texts))

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
            # values are mostly copied from what comes after the kept prompt (the message, the conversation)
            lookup = "\n".join(str(m.get("content") or "") for m in _plain(messages[keep:])) if self.guess_ahead else None
            # the pending tokens are evaluated with what the reply does first
            yield ReplyCursor(self, context, None, tokens[common:], lookup=lookup)

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
            # closed also when on_text raises: the model is free again before the lock is
            with context.model.completion(
                tokens,
                max_tokens=min(max_tokens or self.max_tokens, room),
                temperature=0.0 if json_schema else self.temperature,
                grammar=grammar,
                repeat_penalty=1.0 if json_schema else self.repeat_penalty,
            ) as stream:
                for piece in stream:
                    if piece:
                        pieces.append(piece)
                        if on_text:
                            on_text(piece)
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
            self._grammars[key] = self.context.model.grammar(key)
        return self._grammars[key]


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
