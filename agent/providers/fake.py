"""A scripted provider for tests and demos, shipped so tool authors can test their tools too.

    from agent.providers.fake import ScriptedProvider, ToolCall

    provider = ScriptedProvider([ToolCall("weather", {"city": "Tokyo"}), "It is 12°C in Tokyo."])

Each call to ``complete`` takes the next step of the script. A step is:

- a string: the model answers with that text (with the JSON protocol, the text is parsed as usual);
- a :class:`ToolCall`, or a list of them: the model calls those tools;
- a :class:`~agent.providers.base.Completion`;
- a callable ``(messages, tools) -> step``, to answer from what the model was sent.

Every request is kept in ``provider.requests`` so a test can check what the model saw.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Union

import yaml

from agent.config import Settings
from agent.providers.base import Capabilities, Completion, ProviderError, TextCallback, ToolCallRequest


@dataclass
class ToolCall:
    name: str
    params: dict[str, Any] | str = field(default_factory=dict)


Step = Union[str, ToolCall, list, Completion, Callable[[list, Any], Any]]


class ScriptExhausted(ProviderError):
    """The script has no step left for this request."""


class ScriptedProvider:
    """A :class:`~agent.providers.base.Provider` that answers from a script (plain completion, with
    or without native tool calls)."""

    name = "fake"

    def __init__(self, script: Iterable[Step] = (), *, native_tools: bool = True, default: Step | None = None):
        self.script: list[Step] = list(script)
        self.capabilities = Capabilities(native_tools=native_tools)
        self.default = default
        self.requests: list[dict[str, Any]] = []

    def add(self, *steps: Step) -> "ScriptedProvider":
        self.script.extend(steps)
        return self

    @property
    def last_messages(self) -> list[dict[str, Any]]:
        return self.requests[-1]["messages"] if self.requests else []

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_text: TextCallback | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        self.requests.append(
            {"messages": json.loads(json.dumps(messages, default=str)), "tools": tools, "json_schema": json_schema}
        )
        if self.script:
            step = self.script.pop(0)
        elif self.default is not None:
            step = self.default
        else:
            raise ScriptExhausted(
                f"the scripted provider has no response left for request {len(self.requests)}; add more steps"
            )
        completion = self._to_completion(step, messages, tools)
        if on_text and completion.text:
            for piece in _chunks(completion.text):
                on_text(piece)
        return completion

    def _to_completion(self, step: Step, messages: list, tools: Any) -> Completion:
        if callable(step) and not isinstance(step, (ToolCall, Completion)):
            step = step(messages, tools)
        if isinstance(step, Completion):
            return step
        if isinstance(step, str):
            return Completion(text=step)
        if isinstance(step, ToolCall):
            step = [step]
        if isinstance(step, list) and all(isinstance(s, ToolCall) for s in step):
            return Completion(
                tool_calls=[
                    ToolCallRequest(name=s.name, arguments=s.params, id=f"call_{len(self.requests)}_{i}")
                    for i, s in enumerate(step)
                ]
            )
        raise TypeError(f"unsupported script step: {step!r}")


def _chunks(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def load_script(path: str | Path) -> list[Step]:
    """Read a script file (YAML or JSON): a list whose items are text, ``{tool: NAME, params: {...}}``,
    or ``{tool_calls: [{tool: NAME, params: {...}}, ...]}``."""
    path = Path(path).expanduser()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ProviderError(f"cannot read the fake provider's script {path}: {exc}") from None
    if not isinstance(data, list):
        raise ProviderError(f"{path}: the script must be a list of steps")
    steps: list[Step] = []
    for index, item in enumerate(data, 1):
        if isinstance(item, str):
            steps.append(item)
        elif isinstance(item, dict) and "tool" in item:
            steps.append(ToolCall(str(item["tool"]), item.get("params") or {}))
        elif isinstance(item, dict) and isinstance(item.get("tool_calls"), list):
            steps.append([ToolCall(str(c["tool"]), c.get("params") or {}) for c in item["tool_calls"]])
        else:
            raise ProviderError(f"{path}: step {index} must be text, {{tool: NAME, params: {{...}}}} or {{tool_calls: [...]}}")
    return steps


def from_settings(settings: Settings) -> ScriptedProvider:
    steps = load_script(settings.llm.script) if settings.llm.script else []
    return ScriptedProvider(steps, native_tools=settings.llm.tool_protocol != "json", default=None if steps else "(fake provider: no script)")
