"""Example messages for tools that come without any (tools from MCP servers, OpenAPI, other frameworks
arrive with a name, a description and a JSON schema only): the model writes a few from the
description and the parameters, once, when the tool prompt is prepared. They then serve as the
tool's few-shot turns and as its texts for nearest-example retrieval, as a tool author's examples do.

Written examples are kept per tool, language and model, in memory and (when the provider keeps a
cache folder) on disk, so that a tool costs its examples once, and a changed tool only its own.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

from agent.providers.base import Provider
from agent.toolkit.base import ToolManifest

#: told ``(done, total)`` as the examples of each tool are written
Progress = Callable[[int, int], None]

#: how many examples the model writes for a tool
COUNT = 3
#: changes when the way examples are written changes, so that older ones are written again
_VERSION = 3

#: the request for examples; they are written in English, which the small default model writes best,
#: and translated one by one for a Chinese or Japanese tool prompt
PROMPT = (
    "Write {count} different short requests that a user would type to an assistant, each of which this tool "
    "carries out. Write them as the user says them: a command or a question about their own things, in everyday "
    "words, with concrete values (names, numbers, dates) where the tool needs them. Never ask about the tool "
    "itself and never name it.\n"
    "For example, for send_email (Send an email; to, subject, body): "
    '{{"examples": ["Email Anna that I am running late", "Send bob@acme.com the agenda for Monday", '
    '"Write to my landlord about the broken heater"]}}\n'
    "Tool: {name}\nWhat it does: {description}\nParameters: {parameters}"
)
TRANSLATE = {"zh": "Translate into Chinese: {text}", "ja": "Translate into Japanese: {text}"}
#: a translation must begin in the language's script (the model otherwise repeats the English)
_SCRIPT = {"zh": "^[\\u4e00-\\u9fff][^\"\\\\]{3,120}$", "ja": "^[\\u3040-\\u30ff\\u4e00-\\u9fff][^\"\\\\]{3,120}$"}


def _schema() -> dict[str, Any]:
    item = {"type": "string", "minLength": 4, "maxLength": 120}
    return {"type": "object", "properties": {"examples": {"type": "array", "items": item, "minItems": COUNT,
                                                          "maxItems": COUNT}}, "required": ["examples"]}


def _parameters(m: ToolManifest) -> str:
    if not m.parameters:
        return "-"
    return "; ".join(f"{key} ({'required' if key in m.required else 'optional'}): {desc}"
                     for key, desc in m.parameters.items())


class ExampleWriter:
    """Writes, keeps and hands out example messages for manifests that have none."""

    def __init__(self) -> None:
        self._memory: dict[str, list[str]] = {}
        self._absent: set[str] = set()  # keys looked for on disk and not found (written here, they are found)
        self._lock = threading.Lock()

    @staticmethod
    def key(m: ToolManifest, language: str, provider: Provider) -> str:
        model = str(getattr(provider, "model_label", "") or type(provider).__name__)
        text = json.dumps([_VERSION, language, model, m.name, m.description, m.parameters, m.required], ensure_ascii=False,
                          sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def known(self, provider: Provider, m: ToolManifest, language: str) -> list[str] | None:
        """The examples written before for this tool, or None (nothing is written here). Those that
        echo the request's own example (:func:`echoes`) are left out, a translation of them by the
        place of its English example (examples kept from before the echoes were dropped), and those
        that run in a loop (:func:`looping`)."""
        examples = self._stored(provider, m, language)
        if examples is None:
            return None
        if language not in TRANSLATE:
            examples = [e for e in examples if not echoes(e, m)]
        elif (english := self._stored(provider, m, "en")) is not None and len(english) == len(examples):
            examples = [e for e, source in zip(examples, english) if not echoes(source, m)]
        return [e for e in examples if not looping(e)]

    def _stored(self, provider: Provider, m: ToolManifest, language: str) -> list[str] | None:
        key = self.key(m, language, provider)
        if key in self._memory:
            return self._memory[key]
        if key in self._absent:
            return None
        path = self._path(provider, key)
        if path is not None and path.is_file():
            try:
                examples = [str(e) for e in json.loads(path.read_text(encoding="utf-8"))]
            except (OSError, ValueError):
                return None
            self._memory[key] = examples
            return examples
        self._absent.add(key)
        return None

    def write(self, provider: Provider, m: ToolManifest, language: str) -> list[str]:
        with self._lock:
            return self._write(provider, m, language)

    def _write(self, provider: Provider, m: ToolManifest, language: str) -> list[str]:
        known = self.known(provider, m, language)
        if known is not None:
            return known
        if language in TRANSLATE:
            english = self._write(provider, m, "en")
            examples = _unique(t for t in (self._translated(provider, text, language) for text in english) if not looping(t)) or english
        else:
            prompt = PROMPT.format(count=COUNT, name=m.name, description=m.description, parameters=_parameters(m))
            completion = provider.complete([{"role": "user", "content": prompt}], json_schema=_schema(), max_tokens=200)
            examples = [e for e in _about_use(_read(completion.text), m) if not echoes(e, m)]
        key = self.key(m, language, provider)
        self._memory[key] = examples
        path = self._path(provider, key)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(examples, ensure_ascii=False), encoding="utf-8")
            except OSError:
                pass  # kept in memory: written again by the next process
        return examples

    @staticmethod
    def _translated(provider: Provider, text: str, language: str) -> str:
        schema = {"type": "object", "properties": {"translation": {"type": "string", "pattern": _SCRIPT[language]}},
                  "required": ["translation"]}
        completion = provider.complete([{"role": "user", "content": TRANSLATE[language].format(text=text)}],
                                       json_schema=schema, max_tokens=120)
        try:
            data = json.loads(completion.text)
        except ValueError:
            return ""
        return str(data.get("translation") or "").strip() if isinstance(data, dict) else ""

    @staticmethod
    def _path(provider: Provider, key: str) -> Path | None:
        folder = getattr(provider, "cache_dir", None)
        return Path(folder) / "examples" / f"{key}.json" if folder else None

    def completed(self, provider: Provider, manifests: list[ToolManifest], language: str, write: bool,
                  partial: bool = False, progress: Progress | None = None) -> list[ToolManifest] | None:
        """``manifests`` with written examples for those that have none; None when some are not written
        yet and ``write`` is false (with ``partial``, those are left without). ``progress(done, total)``
        hears of each tool whose examples had to be written now."""
        out = []
        unwritten = {m.name for m in manifests if write and progress and not (m.examples or m.extra_examples)
                     and self.known(provider, m, language) is None}
        done = 0
        for m in manifests:
            if m.examples or m.extra_examples:
                out.append(m)
                continue
            examples = self.write(provider, m, language) if write else self.known(provider, m, language)
            if progress and m.name in unwritten:
                done += 1
                progress(done, len(unwritten))
            if examples is None and partial:
                out.append(m)
                continue
            if examples is None:
                return None
            out.append(replace(m, extra_examples=examples))
        return out


def _read(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    examples = data.get("examples") if isinstance(data, dict) else None
    return _unique(examples) if isinstance(examples, list) else []


#: the names and things of the request's example (``PROMPT``), which the model sometimes writes into a
#: tool's examples ("List all repositories for the broken heater", "Get the issue with the body 'I am
#: running late'")
_SHOT_THINGS = ("anna", "running late", "bob", "agenda", "landlord", "heater")  # not Monday: any request may say a day


def echoes(example: str, m: ToolManifest) -> bool:
    """Whether ``example`` says a name or thing of the request's own example that the tool's name,
    description and parameters do not (an email tool's "agenda" is its own)."""
    own = " ".join([m.name, m.description, *(f"{k} {v}" for k, v in (m.parameters or {}).items())]).casefold()
    said = example.casefold()
    return any(re.search(rf"\b{re.escape(thing)}\b", said) and thing not in own for thing in _SHOT_THINGS)


def looping(example: str) -> bool:
    """Whether the model ran ``example`` in a loop: one run of six characters three times or more
    ("チェックルクルバーサイドの…チェックルクルバーサイドの…")."""
    runs = Counter(example[i:i + 6] for i in range(len(example) - 5))
    return bool(runs) and max(runs.values()) >= 3


def _about_use(examples: list[str], m: ToolManifest) -> list[str]:
    """``examples`` without those that speak of the tool instead of using it ("What is the purpose of
    the set_light tool?"): they name it or say "tool". All of them when none is left."""
    name = m.name.casefold()
    spoken = {name, name.replace("_", " "), name.replace("-", " ")}
    kept = [e for e in examples if not any(n in e.casefold() for n in spoken) and not re.search(r"\btools?\b", e.casefold())]
    return kept or examples


def _unique(examples: Iterable[Any]) -> list[str]:
    seen: list[str] = []
    for example in examples:
        example = str(example).strip()
        if example and example not in seen:
            seen.append(example)
    return seen
