"""Running tools: parameter validation, approval, timeouts, isolation and output limits.

Nothing a tool does can escape :meth:`ToolRunner.run`: an exception (even ``SystemExit``), a hang,
a return value that is not a ``ToolResult``, huge or non-string output, all become a failed
:class:`ToolOutcome` whose ``error`` says what happened. Each call is started from a daemon thread.
A tool in a worker process (:class:`~agent.toolkit.remote_tools.RemoteTool`, the registry's default)
that exceeds its timeout has its worker's process group killed; one that exits or crashes ends only
its worker. A tool run in this process (``isolation: thread``) that exceeds its timeout is abandoned
(Python cannot kill a thread) and reported as timed out.
"""

from __future__ import annotations

import contextvars
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from agent.config import Settings
from agent.toolkit.base import ToolManifest, message_language
from agent.toolkit.registry import ToolRegistry
from agent.toolkit.remote_tools import RemoteTool
from agent.toolkit.results import settle
from agent.toolkit.schema import ParameterError, coerce_params


@dataclass
class ToolOutcome:
    """What one tool call came to. ``status``: ``ok`` (the tool succeeded), ``failed`` (it returned
    success=False), ``error`` (it raised or returned garbage), ``timeout``, ``unknown`` (no such tool),
    ``invalid`` (bad parameters), ``refused`` (the user, or the policy, said no) or ``stopped`` (the
    user stopped the turn while it ran; it was abandoned)."""

    name: str
    params: dict[str, Any]
    success: bool
    data: str = ""
    error: str = ""
    duration_ms: int = 0
    status: str = "ok"
    call_id: str = ""
    approval: str = ""  # "", "policy", "approved", "approved-session", "refused"
    traceback: str = ""  # the tool's traceback when it raised (for the log and --verbose; the model never sees it)
    caller: str = ""  # who asked for the call when it was not this Riverse's own agent: "mcp:<client>"

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("call_id")
        return out

    def for_model(self) -> str:
        """What the model is shown of this call."""
        if self.success:
            return self.data
        return f"ERROR: {self.error}"


@dataclass
class ApprovalRequest:
    name: str
    params: dict[str, Any]
    risk: str
    declared: bool  # False when the manifest does not declare a risk
    description: str


# An approver answers "yes", "no" or "always" (yes for the rest of this session).
Approver = Callable[[ApprovalRequest], str]


@dataclass
class ApprovalGate:
    """Decides whether a call may run: by the per-tool or per-risk policy, asking the user if needed."""

    risk_policy: dict[str, str] = field(default_factory=dict)
    tool_policy: dict[str, str] = field(default_factory=dict)
    approver: Approver | None = None
    session_allowed: set[str] = field(default_factory=set)

    @classmethod
    def from_settings(cls, approval: Any, approver: Approver | None = None) -> "ApprovalGate":
        return cls(dict(approval.risk), dict(approval.tools), approver)

    def policy(self, manifest: ToolManifest, params: dict[str, Any] | None = None) -> str:
        """The policy of a call: the tool's own (``approval.tools``), else that of the call's risk, which
        is the manifest's ``risk``, or what its ``risk_by_value`` gives the call's parameters."""
        return self.tool_policy.get(manifest.name) or self.risk_policy.get(manifest.risk_of(params), "never")

    def check(self, manifest: ToolManifest, params: dict[str, Any]) -> tuple[bool, str, str]:
        """Return (allowed, how, reason)."""
        policy = self.policy(manifest, params)
        if policy == "never":
            return True, "policy", ""
        if manifest.name in self.session_allowed:  # the user answered "always" (or "yes" under "once")
            return True, "approved-session", ""
        risk = manifest.risk_of(params)
        if self.approver is None:
            return False, "refused", (
                f"tool '{manifest.name}' ({risk}) needs the user's approval and nobody could be asked; "
                "run 'riverse ask' with --yes, or use 'riverse chat' to approve it"
            )
        declared = manifest.risk is not None or manifest.value_risk(params) is not None
        request = ApprovalRequest(manifest.name, params, risk, declared, manifest.description)
        answer = (self.approver(request) or "no").strip().lower()
        if answer in ("always", "a"):
            self.session_allowed.add(manifest.name)
            return True, "approved-session", ""
        if answer in ("yes", "y"):
            if policy == "once":
                self.session_allowed.add(manifest.name)
            return True, "approved", ""
        return False, "refused", f"the user did not approve running tool '{manifest.name}'"


class ToolRunner:
    """Runs tool calls for the agent loop (and for ``riverse tools run``)."""

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        timeout: float = 30.0,
        max_output_chars: int = 8000,
        tool_settings: dict[str, dict[str, Any]] | None = None,
        gate: ApprovalGate | None = None,
    ):
        self.registry = registry
        self.timeout = timeout
        self.max_output_chars = max_output_chars
        self.tool_settings = tool_settings or {}
        self.gate = gate or ApprovalGate()
        #: set it to abandon the calls still running (the user stopped the turn); they come back ``stopped``
        self.stop: threading.Event | None = None

    @classmethod
    def from_settings(cls, registry: ToolRegistry, settings: Settings, approver: Approver | None = None) -> "ToolRunner":
        return cls(
            registry,
            timeout=settings.runtime.tool_timeout,
            max_output_chars=settings.runtime.max_output_chars,
            tool_settings=settings.tools,
            gate=ApprovalGate.from_settings(settings.approval, approver),
        )

    def timeout_for(self, manifest: ToolManifest) -> float:
        own = (self.tool_settings.get(manifest.name) or {}).get("timeout")
        if isinstance(own, (int, float)) and not isinstance(own, bool) and own > 0:
            return float(own)
        return float(manifest.timeout or self.timeout)

    def run(self, name: str, params: Any, call_id: str = "") -> ToolOutcome:
        return self.run_many([(name, params, call_id)])[0]

    def run_many(self, calls: list[tuple[str, Any, str]], parallel: bool = True) -> list[ToolOutcome]:
        """Run calls, independent ones at the same time; results come back in the order given."""
        prepared = [self._prepare(name, params, call_id) for name, params, call_id in calls]
        if not parallel:
            return [p if isinstance(p, ToolOutcome) else self._finish(*self._start(*p)) for p in prepared]
        started = [p if isinstance(p, ToolOutcome) else self._start(*p) for p in prepared]
        return [s if isinstance(s, ToolOutcome) else self._finish(*s) for s in started]

    def _prepare(self, name: str, params: Any, call_id: str):
        shown = params if isinstance(params, dict) else {"_raw": params}
        entry = self.registry.entry(name)
        if entry is None:
            return ToolOutcome(name, shown, False, error=self.unknown_tool(name), status="unknown", call_id=call_id)
        if isinstance(params, str):
            return ToolOutcome(name, shown, False, status="invalid", call_id=call_id,
                               error=f"the arguments for '{name}' are not a JSON object: {params[:200]!r}")
        try:
            clean = coerce_params(entry.manifest, params)
        except ParameterError as exc:
            return ToolOutcome(name, shown, False, error=f"{name}: {exc}; fix it and call the tool again",
                               status="invalid", call_id=call_id)
        allowed, how, reason = self.gate.check(entry.manifest, clean)
        if not allowed:
            return ToolOutcome(name, clean, False, error=reason, status="refused", call_id=call_id, approval=how)
        return entry, clean, call_id, how

    def unknown_tool(self, name: str) -> str:
        """Why there is no tool ``name`` to call: a file that failed to load it, or that it does not exist."""
        known = ", ".join(self.registry.names()) or "(none)"
        why_missing = getattr(self.registry, "why_missing", None)  # registry-shaped objects may lack it
        reason = why_missing(name) if callable(why_missing) else None
        if reason:
            return f"{reason}; available tools: {known}"
        return f"unknown tool '{name}'; available tools: {known}"

    def _start(self, entry: Any, params: dict[str, Any], call_id: str, how: str):
        box: dict[str, Any] = {}
        done = threading.Event()
        timeout = self.timeout_for(entry.manifest)
        tool = entry.tool
        language = message_language()  # the message's language travels with a call to a worker

        def target() -> None:
            try:
                # A tool that settles its own outcome: one in a worker process, or one of an MCP server.
                settles = tool.run if isinstance(tool, RemoteTool) else getattr(tool, "run_settled", None)
                if callable(settles):
                    box["settled"] = settles(dict(params), timeout=timeout, max_chars=self.max_output_chars,
                                             language=language)
                else:
                    box["result"] = tool.execute(dict(params))
            except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are contained too
                box["exc"] = exc
            finally:
                done.set()

        started = time.perf_counter()
        context = contextvars.copy_context()  # the tool sees the turn's context (its message language)
        thread = threading.Thread(target=context.run, args=(target,), name=f"riverse-tool-{entry.name}", daemon=True)
        thread.start()
        return entry, params, call_id, how, box, done, started, timeout

    def _finish(self, entry, params, call_id, how, box, done, started, timeout) -> ToolOutcome:
        # A worker (or an MCP server's link) enforces the time limit itself; waiting longer only covers
        # starting and loading one.
        worst_case = getattr(entry.tool, "worst_case", None)
        limit = worst_case(timeout) if callable(worst_case) else timeout
        finished = self._wait(done, started + limit)
        elapsed = int((time.perf_counter() - started) * 1000)
        out = ToolOutcome(entry.name, params, False, duration_ms=elapsed, call_id=call_id, approval=how)
        if not finished and self.stop is not None and self.stop.is_set():
            out.status = "stopped"
            out.error = f"tool '{entry.name}' was stopped by the user before it finished and was abandoned"
            return out
        if not finished:
            out.status = "timeout"
            out.error = f"tool '{entry.name}' did not finish within {timeout:g} s and was abandoned"
            return out
        settled = box.get("settled") or settle(entry.name, box.get("result"), box.get("exc"), self.max_output_chars,
                                               path=entry.path)
        out.status, out.success = settled["status"], settled["success"]
        out.data, out.error = settled["data"], settled["error"]
        out.traceback = settled.get("traceback") or ""
        return out

    def _wait(self, done: threading.Event, until: float) -> bool:
        """Wait for a call to finish until ``until`` (a ``perf_counter`` time) or until :attr:`stop` is set."""
        while True:
            left = until - time.perf_counter()
            if self.stop is None:
                return done.wait(max(0.0, left))
            if done.wait(max(0.0, min(left, 0.05))):
                return True
            if left <= 0.05 or self.stop.is_set():
                return done.is_set()
