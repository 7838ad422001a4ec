"""Testing a tool the way Riverse runs it, from a tool author's own tests.

    from agent.testing import run_tool

    def test_rolls(tmp_path):
        outcome = run_tool(Path(__file__).parent.parent / "dice.py", {"sides": "20"}, home=tmp_path)
        assert outcome.success and outcome.params == {"sides": 20}

A call goes through the same :class:`~agent.toolkit.runtime.ToolRunner` as a chat turn: the parameters
are checked and converted to the manifest's types, approval is asked as ``riverse ask`` asks it (a
``write`` or ``execute`` tool is refused unless the test passes ``approve=True``), the tool runs in a
worker process with its timeout, and its output is capped. The result is a
:class:`~agent.toolkit.runtime.ToolOutcome` (``success``, ``data``, ``error``, ``status``, ``params``).

Everything happens in a Riverse home of the test's own: ``home`` (e.g. pytest's ``tmp_path``), or a
temporary folder deleted afterwards. The tool's ``config["home"]`` points there; the user's
``~/.riverse``, ``RIVERSE_*`` variables and settings file are never read. A ``settings.yaml`` in that
home is read, and ``settings`` overrides keys (``{"language": "ja", "tools": {"dice": {...}}}``).

:class:`ToolHarness` keeps the tool loaded for several calls and runs whole turns with the scripted
model; :func:`sample_params` gives values that fit a manifest.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

from agent.config import load_settings
from agent.errors import RiverseError
from agent.loop import Agent
from agent.loop.events import TurnResult
from agent.providers.fake import ScriptedProvider
from agent.storage import Store, open_store
from agent.toolkit.base import ToolManifest
from agent.toolkit.registry import ToolRegistry, isolation_options
from agent.toolkit.runtime import ApprovalRequest, Approver, ToolOutcome, ToolRunner
from agent.toolkit.schema import parameter_schema

__all__ = ["ToolHarness", "ToolTestError", "run_tool", "sample_params"]

Approval = bool | Callable[[ApprovalRequest], str]


class ToolTestError(RiverseError):
    """The tool under test cannot be loaded or chosen; the message says which and how to fix it."""


def run_tool(
    source: str | os.PathLike,
    params: Mapping[str, Any] | None = None,
    *,
    home: str | os.PathLike | None = None,
    approve: Approval = False,
    settings: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> ToolOutcome:
    """Load ``source`` (a tool file, a folder of them, or a tool's name), run one call with ``params``
    as the runtime does, and return its outcome. See :class:`ToolHarness` for the arguments."""
    with ToolHarness(source, home=home, approve=approve, settings=settings) as harness:
        return harness.run(params, name=name)


class ToolHarness:
    """A tool loaded the way Riverse loads it, in a Riverse home of its own.

    ``source``: the path of a tool file or folder (only those tools load), or the name of a built-in
    or installed tool. ``approve``: ``False`` answers approval requests as ``riverse ask`` does without
    ``--yes`` (refused), ``True`` approves them, a function ``(ApprovalRequest) -> "yes" | "no"``
    decides. ``settings``: settings keys to override, dotted (``"runtime.isolation"``) or nested.
    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        source: str | os.PathLike,
        *,
        home: str | os.PathLike | None = None,
        approve: Approval = False,
        settings: Mapping[str, Any] | None = None,
    ):
        self._temporary = tempfile.TemporaryDirectory(prefix="riverse-test-") if home is None else None
        self.home = Path(self._temporary.name if self._temporary else home).expanduser().resolve()
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        # env={}: nothing of the user's environment (RIVERSE_HOME, RIVERSE_CONFIG, ...) reaches the test.
        self.settings = load_settings(home=self.home, env={}, overrides=dict(settings or {}))
        self.approve = approve
        path = _as_path(source)
        self._store: Store | None = None
        try:
            self.registry = _load(path, source, self.settings)
        except BaseException:
            self._cleanup()
            raise
        try:
            self.name = self._default_name(path, source)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ what was loaded
    @property
    def manifest(self) -> ToolManifest:
        """The manifest of the tool under test (the one tool of the file, or the one named)."""
        return self._entry(None).manifest

    def needs_approval(self, name: str | None = None) -> bool:
        """Whether a call of the tool asks the user first under these settings (its risk's policy)."""
        return self._runner(None).gate.policy(self._entry(name).manifest) != "never"

    # ------------------------------------------------------------------ running
    def run(self, params: Mapping[str, Any] | None = None, *, name: str | None = None,
            approve: Approval | None = None) -> ToolOutcome:
        """One call of the tool (or of tool ``name``), as a chat turn makes it."""
        entry = self._entry(name)
        return self._runner(approve).run(entry.name, dict(params or {}))

    def ask(self, message: str, model: ScriptedProvider | list, *, approve: Approval | None = None) -> TurnResult:
        """One turn of the agent with the scripted model: ``model`` is a :class:`ScriptedProvider` or
        its script (e.g. ``[ToolCall("dice", {"sides": 20}), "You rolled it."]``)."""
        provider = model if isinstance(model, ScriptedProvider) else ScriptedProvider(model)
        approver = _approver(self.approve if approve is None else approve)
        agent = Agent.from_settings(self.settings, provider, self.registry, self.store, approver)
        return agent.ask(message)

    @property
    def store(self) -> Store:
        """The conversations and tool calls of this home (opened on first use)."""
        if self._store is None:
            self._store = open_store(self.settings.db_path)
        return self._store

    def close(self) -> None:
        """End the tool's worker processes and delete a temporary home."""
        self.registry.close()
        if self._store is not None:
            self._store.close()
            self._store = None
        self._cleanup()

    def _cleanup(self) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()
            self._temporary = None

    def __enter__(self) -> "ToolHarness":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def _runner(self, approve: Approval | None) -> ToolRunner:
        approver = _approver(self.approve if approve is None else approve)
        return ToolRunner.from_settings(self.registry, self.settings, approver)

    def _entry(self, name: str | None):
        wanted = name or self.name
        if wanted is None:
            names = ", ".join(self.registry.names())
            raise ToolTestError(f"more than one tool was loaded ({names}); say which with name=...")
        entry = self.registry.entry(wanted)
        if entry is None:
            off = [e for e in self.registry.entries(include_unavailable=True) if e.name == wanted]
            if off:
                raise ToolTestError(f"tool '{wanted}' is unavailable: {off[0].reason}")
            names = ", ".join(self.registry.names()) or "(none)"
            raise ToolTestError(f"no tool named '{wanted}' was loaded; loaded: {names}")
        return entry

    def _default_name(self, path: Path | None, source: str | os.PathLike) -> str | None:
        if path is None:
            self._entry(str(source))  # fails clearly when there is no such tool
            return str(source)
        found = sorted({e.name for e in self.registry.entries(include_unavailable=True)})
        if not found:
            raise ToolTestError(f"{path} defines no tool: write a BaseTool subclass with manifest() and execute()")
        return found[0] if len(found) == 1 else None


def _as_path(source: str | os.PathLike) -> Path | None:
    """``source`` as a path when it is one (a PathLike, or text with a '/' or ending in .py), else None."""
    if isinstance(source, os.PathLike):
        return Path(source).expanduser().resolve()
    text = str(source)
    if text.endswith(".py") or "/" in text or os.sep in text:
        return Path(text).expanduser().resolve()
    return None


def _load(path: Path | None, source: str | os.PathLike, settings: Any) -> ToolRegistry:
    """The registry of the tool under test: only ``path``'s tools, or every tool the home would load."""
    if path is None:
        return ToolRegistry.from_settings(settings)
    if not path.exists():
        raise ToolTestError(
            f"{path} does not exist; give the path of a tool file, e.g. Path(__file__).parent.parent / 'hello.py'"
        )
    registry = ToolRegistry(settings.config_for_tools(), folders=[path], builtin=False, packages=False,
                            **isolation_options(settings))
    if registry.errors:
        registry.close()
        lines = "\n".join(f"  {problem}" for problem in registry.errors)
        raise ToolTestError(f"{source} does not load (run 'riverse tools check {path}'):\n{lines}")
    return registry


def _approver(approve: Approval) -> Approver | None:
    if approve is True:
        return lambda request: "yes"
    if approve is False or approve is None:
        return None
    return approve


def sample_params(manifest: ToolManifest, *, required_only: bool = False) -> dict[str, Any]:
    """Values that fit each parameter's declared type: a JSON-schema ``default`` or first ``examples``
    value when the manifest gives one, the first value of an enum, ``1`` for a number, ``True``
    for a boolean, a link for a ``uri``, ``"sample"`` for text. With ``required_only``, only the
    required parameters."""
    required = set(manifest.required or [])
    out: dict[str, Any] = {}
    for key, description in (manifest.parameters or {}).items():
        if required_only and key not in required:
            continue
        schema = parameter_schema((manifest.parameter_types or {}).get(key), str(description))
        out[key] = _sample(schema)
    return out


def _sample(schema: Mapping[str, Any]) -> Any:
    if "default" in schema:
        return schema["default"]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        value = low if isinstance(low, (int, float)) and low > 1 else 1
        return high if isinstance(high, (int, float)) and high < value else value
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [_sample(items)] if isinstance(items, Mapping) and items else []
    if kind == "object":
        return {}
    return "https://example.com/" if schema.get("format") in ("uri", "url") else "sample"
