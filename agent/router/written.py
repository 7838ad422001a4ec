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
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.i18n import pick
from agent.providers.base import Provider
from agent.toolkit.base import ToolManifest

#: how many examples the model writes for a tool
COUNT = 3

PROMPT = {
    "en": (
        "Write {count} different short messages that a user of an assistant would type to get this tool used. "
        "Each asks for one thing, in everyday words, with concrete values where the tool needs them.\n"
        "Tool: {name}\nWhat it does: {description}\nParameters: {parameters}"
    ),
    "zh": (
        "写 {count} 条不同的简短消息，是助手的用户为了让这个工具被使用而会输入的话。每条只提一个要求，用日常用语，"
        "在工具需要的地方写出具体的值。用中文写。\n工具：{name}\n作用：{description}\n参数：{parameters}"
    ),
    "ja": (
        "アシスタントのユーザーがこのツールを使ってもらうために入力しそうな、短いメッセージを {count} 件、"
        "それぞれ違う言い方で書いてください。1 件につき依頼は 1 つ、日常的な言葉で、ツールが必要とする値は具体的に。"
        "日本語で書いてください。\nツール：{name}\n機能：{description}\nパラメータ：{parameters}"
    ),
}


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
        self._lock = threading.Lock()

    @staticmethod
    def key(m: ToolManifest, language: str, provider: Provider) -> str:
        model = str(getattr(provider, "model_label", "") or type(provider).__name__)
        text = json.dumps([language, model, m.name, m.description, m.parameters, m.required], ensure_ascii=False,
                          sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def known(self, provider: Provider, m: ToolManifest, language: str) -> list[str] | None:
        """The examples written before for this tool, or None (nothing is written here)."""
        key = self.key(m, language, provider)
        if key in self._memory:
            return self._memory[key]
        path = self._path(provider, key)
        if path is not None and path.is_file():
            try:
                examples = [str(e) for e in json.loads(path.read_text(encoding="utf-8"))]
            except (OSError, ValueError):
                return None
            self._memory[key] = examples
            return examples
        return None

    def write(self, provider: Provider, m: ToolManifest, language: str) -> list[str]:
        with self._lock:
            known = self.known(provider, m, language)
            if known is not None:
                return known
            prompt = pick(PROMPT, language).format(count=COUNT, name=m.name, description=m.description,
                                                  parameters=_parameters(m))
            completion = provider.complete([{"role": "user", "content": prompt}], json_schema=_schema(), max_tokens=200)
            examples = _read(completion.text)
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
    def _path(provider: Provider, key: str) -> Path | None:
        folder = getattr(provider, "cache_dir", None)
        return Path(folder) / "examples" / f"{key}.json" if folder else None

    def completed(self, provider: Provider, manifests: list[ToolManifest], language: str, write: bool) -> list[ToolManifest] | None:
        """``manifests`` with written examples for those that have none; None when some are not written
        yet and ``write`` is false."""
        out = []
        for m in manifests:
            if m.examples or m.extra_examples:
                out.append(m)
                continue
            examples = self.write(provider, m, language) if write else self.known(provider, m, language)
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
    if not isinstance(examples, list):
        return []
    seen: list[str] = []
    for example in examples:
        example = str(example).strip()
        if example and example not in seen:
            seen.append(example)
    return seen
