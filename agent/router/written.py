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
#: fewer usable examples than this (the model's JSON ran on, or every example echoed the request's own
#: example): the tool's examples are asked for again with the next shot
ENOUGH = 2
#: changes when the way examples are written changes, so that older ones are written again (see
#: :meth:`ExampleWriter._stored`: those of ``_KEPT_FROM`` with ``ENOUGH`` examples are still good)
_VERSION = 4
_KEPT_FROM = 3

#: the request for examples; they are written in English, which the small default model writes best,
#: and translated one by one for a Chinese or Japanese tool prompt
PROMPT = (
    "Write {count} different short requests that a user would type to an assistant, each of which this tool "
    "carries out. Write them as the user says them: a command or a question about their own things, in everyday "
    "words, with concrete values (names, numbers, dates) where the tool needs them. Never ask about the tool "
    "itself and never name it.\n"
    "For example, for {shot}\n"
    "Tool: {name}\nWhat it does: {description}\nParameters: {parameters}"
)
#: the request's example tools, in the order they are tried, each with the names and things of its
#: examples, which the model sometimes writes into a tool's examples ("List all repositories for the
#: broken heater", "Get the issue with the body 'I am running late'"); not Monday: any request may say a day
SHOTS = (
    ('send_email (Send an email; to, subject, body): {"examples": ["Email Anna that I am running late", '
     '"Send bob@acme.com the agenda for Monday", "Write to my landlord about the broken heater"]}',
     ("anna", "running late", "bob", "agenda", "landlord", "heater")),
    ('track_parcel (Where a parcel is now; tracking_number, carrier): {"examples": ["Where is my parcel 1Z999AA1?", '
     '"Has the blender I ordered from Kettle & Co shipped yet?", "Track DHL shipment 4420178 for me"]}',
     ("1z999aa1", "blender", "kettle", "4420178")),
)
_SHOT_THINGS = tuple(thing for _, things in SHOTS for thing in things)
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
    def key(m: ToolManifest, language: str, provider: Provider, version: int = _VERSION) -> str:
        model = str(getattr(provider, "model_label", "") or type(provider).__name__)
        text = json.dumps([version, language, model, m.name, m.description, m.parameters, m.required], ensure_ascii=False,
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
        """The examples kept for this tool: written by this version, or by ``_KEPT_FROM`` when there are
        ``ENOUGH`` of them (those fewer are written again, with a second shot when the first fails)."""
        key = self.key(m, language, provider)
        if key in self._memory:
            return self._memory[key]
        if key in self._absent:
            return None
        for version in (_VERSION, _KEPT_FROM):
            examples = self._read_file(self._path(provider, self.key(m, language, provider, version)))
            if examples is not None and (version == _VERSION or len(examples) >= ENOUGH):
                self._memory[key] = examples
                return examples
        self._absent.add(key)
        return None

    @staticmethod
    def _read_file(path: Path | None) -> list[str] | None:
        if path is None or not path.is_file():
            return None
        try:
            return [str(e) for e in json.loads(path.read_text(encoding="utf-8"))]
        except (OSError, ValueError, TypeError):
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
            examples = []
            for shot, _ in SHOTS:  # the next shot only when this one leaves too few
                examples = _unique([*examples, *self._asked(provider, m, shot)])[:COUNT]
                if len(examples) >= ENOUGH:
                    break
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
    def _asked(provider: Provider, m: ToolManifest, shot: str) -> list[str]:
        """The examples the model writes for ``m`` when shown ``shot``, those that do not use the tool
        or echo a shot left out."""
        prompt = PROMPT.format(count=COUNT, shot=shot, name=m.name, description=m.description,
                               parameters=_parameters(m))
        completion = provider.complete([{"role": "user", "content": prompt}], json_schema=_schema(), max_tokens=200)
        return [e for e in _about_use(_read(completion.text), m) if not echoes(e, m)]

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
    """The examples of the model's reply, also when it ran on: an example that goes on past its end
    ("... with reason 'bug']]} \n\nTool: create_issue ...") is cut where it closed, and a reply cut
    short keeps its whole strings."""
    try:
        data = json.loads(text, strict=False)
        examples = data.get("examples") if isinstance(data, dict) else None
    except ValueError:
        examples = [_string(raw) for raw in _STRING.findall(text.partition("[")[2])]
    if not isinstance(examples, list):
        return []
    return _unique(cut for cut in (_RUN_ON.sub("", str(e).split("\n")[0]).strip() for e in examples) if len(cut) >= 4)


#: a JSON string, and the close of an array or object the model wrote inside one
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_RUN_ON = re.compile(r"(?<=\S)\s*[\]}]{2,}[\s\]}]*$")


def _string(raw: str) -> str:
    try:
        return str(json.loads(f'"{raw}"', strict=False))
    except ValueError:
        return raw


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
