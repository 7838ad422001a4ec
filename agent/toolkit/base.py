"""The tool contract: ``BaseTool``, ``ToolManifest`` and ``ToolResult``.

Everything here keeps the exact shape of the tool contract (docs/tools.md: ``ToolManifest(name, description, parameters,
examples)``, ``ToolResult(success, data, error="")``); every extension is an optional keyword.
"""

from __future__ import annotations

import abc
import contextvars
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agent.toolkit.schema import RISK_LEVELS, RISK_ORDER, parameter_schema

__all__ = ["BaseTool", "ToolManifest", "ToolResult"]

# The language of the message being answered, while the agent answers it (see BaseTool.language).
_MESSAGE_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("riverse_message_language", default=None)


@contextmanager
def answering_in(language: str | None) -> Iterator[None]:
    """Tools called inside this block (in this thread, or in threads started from a copy of its
    context) see ``language`` as :attr:`BaseTool.language`."""
    token = _MESSAGE_LANGUAGE.set(language)
    try:
        yield
    finally:
        _MESSAGE_LANGUAGE.reset(token)


# Whose message is being answered on a server with users (a user's key); None: the machine's own user.
_ACTING_OWNER: contextvars.ContextVar[str | None] = contextvars.ContextVar("riverse_acting_owner", default=None)


@contextmanager
def acting_for(owner: str | None) -> Iterator[None]:
    """Tools called inside this block (here, in threads started from a copy of its context, and in
    worker processes) keep their data as ``owner``'s: the notes tool reads and writes that user's notes."""
    token = _ACTING_OWNER.set(owner)
    try:
        yield
    finally:
        _ACTING_OWNER.reset(token)


def acting_owner() -> str | None:
    """The owner set by :func:`acting_for` (None outside it, or for the machine's own user)."""
    return _ACTING_OWNER.get()


def _as_text(value: Any) -> str:
    """A parameter's value as ``risk_by_value`` names it: a string as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def message_language() -> str | None:
    """The language of the message being answered, inside :func:`answering_in` (else None)."""
    return _MESSAGE_LANGUAGE.get()


@dataclass
class ToolManifest:
    """What the model sees of a tool.

    The first four fields are the contract's. The rest are optional extensions:

    - ``parameter_types``: ``{param: type}`` where type is ``"string"``, ``"integer"``, ``"number"``,
      ``"boolean"``, ``"array"``, ``"object"`` (or the Python spellings ``"str"``, ``"int"``,
      ``"float"``, ``"bool"``), a list of allowed values (an enum), or a JSON-schema fragment (a dict).
      Untyped parameters are strings.
    - ``required``: parameter names that must be given. By default none is required.
    - ``timeout``: seconds this tool may run before it is abandoned (default: the runtime's).
    - ``risk``: what the tool can do, one of ``read``, ``write``, ``network``, ``execute``.
    - ``risk_by_value``: the risk of a call by the value of a parameter, for a tool whose actions differ
      (``{"action": {"list": "read", "add": "write"}}``); a call whose values are not listed has
      ``risk``. When several parameters name a risk, the highest counts (see :meth:`risk_of`).
    - ``extra_examples``: more messages that should trigger the tool, beyond the 2-3
      ``examples``: used only to choose tools (retrieval, and few-shot turns for the embedded model),
      where more varied phrasings help a small model most.
    """

    name: str
    description: str
    parameters: dict[str, str] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    parameter_types: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    timeout: float | None = None
    risk: str | None = None
    extra_examples: list[str] = field(default_factory=list)
    risk_by_value: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def risk_level(self) -> str:
        """The risk used for policy: undeclared or unknown risk counts as ``read``."""
        return self.risk if self.risk in RISK_LEVELS else "read"

    def risk_of(self, params: Mapping[str, Any] | None) -> str:
        """The risk of a call with ``params`` (after type conversion): the highest risk that
        ``risk_by_value`` gives one of its values, else :attr:`risk_level`."""
        return self.value_risk(params) or self.risk_level

    def value_risk(self, params: Mapping[str, Any] | None) -> str | None:
        """The highest risk ``risk_by_value`` gives a value in ``params``; None when it names none.
        Values are compared as text: a value that is not a string by its JSON text (``true``, ``3``)."""
        found = [
            risks[_as_text(params[param])]
            for param, risks in (self.risk_by_value or {}).items()
            if isinstance(risks, Mapping) and params and param in params and _as_text(params[param]) in risks
        ]
        known = [risk for risk in found if risk in RISK_LEVELS]
        return max(known, key=RISK_ORDER.index) if known else None

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of this tool's parameters (for native function calling and grammars)."""
        properties = {
            pname: parameter_schema(self.parameter_types.get(pname), str(desc))
            for pname, desc in (self.parameters or {}).items()
        }
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        required = [p for p in (self.required or []) if p in properties]
        if required:
            schema["required"] = required
        return schema

    def openai_tool(self) -> dict[str, Any]:
        """This manifest as an OpenAI ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.json_schema(),
            },
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": dict(self.parameters or {}),
            "examples": list(self.examples or []),
            "parameter_types": dict(self.parameter_types or {}),
            "required": list(self.required or []),
            "timeout": self.timeout,
            "risk": self.risk,
            "extra_examples": list(self.extra_examples or []),
            "risk_by_value": {k: dict(v) for k, v in (self.risk_by_value or {}).items() if isinstance(v, Mapping)},
        }


@dataclass
class ToolResult:
    """The outcome of ``execute()``: ``data`` is injected into the model's context.

    ``error`` is only meaningful when ``success`` is False.
    """

    success: bool
    data: str = ""
    error: str = ""


class BaseTool(abc.ABC):
    """Base class of every Riverse tool.

    Subclasses implement ``manifest()`` and ``execute()`` and may override ``is_available()``. The
    registry constructs each subclass with one argument, the configuration dict, which has the
    top-level keys ``language`` and ``tools`` (``{tool_name: {...}}``).
    """

    def __init__(self, config: dict | None = None):
        self.config = config if config is not None else {}

    @abc.abstractmethod
    def manifest(self) -> ToolManifest:
        """Describe the tool to the model."""

    @abc.abstractmethod
    def execute(self, params: dict) -> ToolResult:
        """Run the tool with the parameters the model chose."""

    def is_available(self) -> bool:
        """Return False to keep the tool out of the registry (a missing dependency, disabled, ...)."""
        return True

    def same_value(self, param: str, expected: Any, got: Any) -> bool | None:
        """Optional: whether ``got`` is as good as ``expected`` for ``param``, by this tool's own rule,
        when ``riverse tools eval`` scores a decision (``17*23`` and ``17 × 23`` are the same
        expression). None leaves it to the usual comparison (numbers as numbers, text by content)."""
        return None

    # Helpers for tool authors; none of them is required by the contract.
    def tool_config(self, name: str | None = None) -> dict:
        """This tool's own settings section, ``config["tools"][name]`` (empty when absent). ``name``
        defaults to the manifest's; pass it when calling from ``manifest()`` itself."""
        config = getattr(self, "config", None) or {}
        tools = config.get("tools") if isinstance(config, Mapping) else None
        section = tools.get(name or self.manifest().name) if isinstance(tools, Mapping) else None
        return dict(section) if isinstance(section, Mapping) else {}

    @property
    def language(self) -> str:
        """The language to write in: that of the user's message while the agent answers one (a
        Chinese question gets a Chinese weather report whatever the settings say), else
        ``config["language"]``; ``en`` when neither is English, Chinese or Japanese."""
        config = getattr(self, "config", None) or {}
        lang = _MESSAGE_LANGUAGE.get() or config.get("language", "en")
        return lang if lang in ("en", "zh", "ja") else "en"


def members(m: ToolManifest, key: str) -> ToolManifest | None:
    """The named values of an object-typed parameter (``"changes": {"new_date": …, "seat": …}``,
    ``"passengers": {"adults": …}``), as a manifest of their own: the router writes each as it writes
    a parameter, and an evaluation judges each as it judges one. None for any other parameter, and for
    an object whose members are not named."""
    schema = parameter_schema(m.parameter_types.get(key), str(m.parameters.get(key, "")))
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict) or not properties:
        return None
    if not all(isinstance(name, str) and isinstance(spec, dict) for name, spec in properties.items()):
        return None
    required = [name for name in schema.get("required") or [] if name in properties]
    return ToolManifest(m.name, m.description, {name: str(spec.get("description") or name) for name, spec in properties.items()},
                        parameter_types=dict(properties), required=required)
