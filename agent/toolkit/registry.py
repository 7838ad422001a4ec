"""``ToolRegistry``: discovers tools in folders and installed packages, with no registration code.

Each ``*.py`` file in a folder (files starting with ``_`` are skipped) is imported; a source may also be
a single file (``riverse tools check FILE`` loads one that way). Every concrete
``BaseTool`` subclass defined in it is constructed with the config dict, checked, asked
``is_available()`` and registered under ``manifest().name``. Anything wrong with one file or class is
recorded as a :class:`LoadProblem` naming the file, line and class; every other tool still loads.

With ``isolation="process"`` (the default) no tool code runs in the agent's process: files are loaded,
and every call runs, in worker processes (:mod:`agent.toolkit.remote_tools`), and each entry's ``tool``
is a :class:`~agent.toolkit.remote_tools.RemoteTool` standing in for it. ``isolation="thread"`` imports
and runs tools in this process, as a plain ``BaseTool``.

Sources, from lowest to highest precedence: the built-in folder ``agent/tools/``, installed packages
(entry-point group ``riverse.tools``), folders named in settings, and the user's folder
``$RIVERSE_HOME/tools``. A tool of a higher source overrides one of the same name from a lower source
(and says so); two tools of the same name in the same source are an error, the first file (by name)
wins.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from agent.toolkit.base import BaseTool, ToolManifest
from agent.toolkit.remote_tools import RemoteHost, RemoteLoader, RemoteTool
from agent.toolkit.worker_pool import WorkerPool
from agent.toolkit.discovery import (
    BUILTIN,
    BUILTIN_DIR,
    SETTINGS,
    USER,
    FileState,
    LoadProblem,
    RefreshReport,
    ToolEntry,
    ToolLoader,
    signature,
)

if TYPE_CHECKING:  # tool files import this module in worker processes, which need no settings
    from agent.config import Settings

__all__ = ["ToolRegistry", "ToolEntry", "LoadProblem", "RefreshReport"]


class ToolRegistry:
    """The set of tools the model may use, built from folders and installed packages.

    ``ToolRegistry(config)`` scans the built-in folder and installed packages; ``folders`` adds more
    (later folders win over earlier ones; a folder may also be a single ``.py`` file). Tests point it at a temporary folder with
    ``ToolRegistry(config, folders=[tmp], builtin=False, packages=False)``.

    ``isolation``: ``process`` (tool code runs in up to ``workers`` worker processes; loading one file
    may take ``load_timeout`` seconds) or ``thread`` (in this process). ``tool_env`` names environment
    variables that workers get although they look like secrets; ``secret_env`` names more that they never get.
    """

    def __init__(
        self,
        config: dict | None = None,
        folders: Iterable[str | Path] | None = None,
        *,
        builtin: bool = True,
        packages: bool = True,
        user_folder: str | Path | None = None,
        isolation: str = "process",
        load_timeout: float = 10.0,
        workers: int = 4,
        tool_env: Iterable[str] = (),
        secret_env: Iterable[str] = (),
    ):
        self.config: dict = dict(config or {})
        self.isolation = isolation
        self._host: RemoteHost | None = None
        self._loader: ToolLoader | RemoteLoader
        if isolation == "process":
            pool = WorkerPool(size=workers, allow_env=tool_env, deny_env=secret_env)
            self._host = RemoteHost(pool, load_timeout)
            self._loader = RemoteLoader(self.config, self._host)
        elif isolation == "thread":
            self._loader = ToolLoader(self.config)
        else:
            raise ValueError(f"isolation must be 'process' or 'thread', got {isolation!r}")
        self._sources: list[tuple[int, Path]] = []
        if builtin:
            self._sources.append((BUILTIN, BUILTIN_DIR))
        for folder in folders or []:
            self._sources.append((SETTINGS, Path(folder).expanduser()))
        if user_folder is not None:
            self._sources.append((USER, Path(user_folder).expanduser()))
        self._packages = packages
        self._lock = threading.RLock()
        self._files: dict[Path, FileState] = {}
        self._package_state: FileState | None = None
        self._tools: dict[str, ToolEntry] = {}
        self._all: list[ToolEntry] = []
        self._resolution: list[LoadProblem] = []
        self.refresh()

    @classmethod
    def from_settings(cls, settings: Settings) -> "ToolRegistry":
        """The registry that the CLI and the server use: built-ins, packages, settings folders, user folder."""
        return cls(
            settings.config_for_tools(),
            folders=settings.tool_folders,
            user_folder=settings.user_tools_dir,
            **isolation_options(settings),
        )

    def close(self) -> None:
        """End this registry's worker processes (they also end with it, and when the agent exits)."""
        if self._host is not None:
            self._host.close()

    # ----------------------------------------------------------------- queries
    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[BaseTool]:
        return iter([e.tool for e in self._tools.values()])

    def get(self, name: str) -> BaseTool | None:
        entry = self._tools.get(name)
        return entry.tool if entry else None

    def entry(self, name: str) -> ToolEntry | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def manifests(self, language: str | None = None) -> list[ToolManifest]:
        """Manifests of every available tool, by name; with ``language``, as each tool writes them
        for that language (see :meth:`ToolEntry.manifest_in`), e.g. for a message written in it."""
        entries = [self._tools[n] for n in self.names()]
        if language is None or language == self.config.get("language"):
            return [e.manifest for e in entries]
        return [e.manifest_in(language) for e in entries]

    def entries(self, include_unavailable: bool = False) -> list[ToolEntry]:
        if include_unavailable:
            return sorted(self._all, key=lambda e: (e.name, -e.rank))
        return [self._tools[n] for n in self.names()]

    @property
    def files(self) -> list[str]:
        """Every tool file this registry has read, by path."""
        return sorted(str(p) for p in self._files)

    def describe(self) -> dict[str, Any]:
        """Every discovered tool (active, overridden or unavailable, and why) and every load problem,
        as plain data for ``riverse tools list --json`` and the server's ``/api/tools``."""
        tools = []
        for e in self.entries(include_unavailable=True):
            active = self._tools.get(e.name)
            reason = e.reason
            if e.available and active is not e and active is not None:
                reason = f"overridden by {active.path}"
            tools.append({
                **e.manifest.to_dict(),
                "risk_level": e.manifest.risk_level,
                "source": e.path,
                "origin": e.origin,
                "class": e.class_name,
                "available": e.available,
                "active": active is e,
                "reason": reason,
            })
        return {"tools": tools, "problems": [p.to_dict() for p in self.problems]}

    @property
    def problems(self) -> list[LoadProblem]:
        """Everything found wrong at discovery, errors and notes alike."""
        out: list[LoadProblem] = []
        for state in self._states():
            out.extend(state.problems)
        return out + list(self._resolution)

    @property
    def errors(self) -> list[LoadProblem]:
        return [p for p in self.problems if p.level == "error"]

    def _states(self) -> list[FileState]:
        states = [self._files[p] for p in sorted(self._files, key=str)]
        if self._package_state:
            states.insert(0, self._package_state)
        return states

    # ---------------------------------------------------------------- loading
    def refresh(self) -> RefreshReport:
        """Pick up added, changed and deleted tool files.

        Only files whose modification time or size changed are imported again. When a changed file
        fails to load, the last good version of its tools stays registered and the error is reported.
        """
        with self._lock:
            before = {name: id(entry.tool) for name, entry in self._tools.items()}
            report = RefreshReport()
            seen: set[Path] = set()
            for rank, folder in self._sources:
                if folder.is_file():
                    paths = [folder]
                elif folder.is_dir():
                    paths = [p for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]
                else:
                    continue
                for path in paths:
                    path = path.resolve()
                    seen.add(path)
                    try:
                        sig = signature(path)
                    except OSError:
                        continue
                    old = self._files.get(path)
                    if old is not None and old.signature == sig:
                        continue
                    state = self._loader.load_file(path, rank, changed=old is not None)
                    if old is not None and old.entries and not state.entries and any(
                        p.level == "error" for p in state.problems
                    ):
                        # A broken edit: keep the last good version of this file's tools running.
                        kept = [
                            LoadProblem(str(path), "kept the last good version of its tools until the file is fixed", level="warning")
                        ]
                        state = FileState(sig, old.entries, state.problems + kept)
                    report.problems.extend(p for p in state.problems if p.level == "error")
                    if old is not None and state.entries is not old.entries:
                        self._retire(old)
                    self._files[path] = state
            for path in list(self._files):
                if path not in seen:
                    self._retire(self._files.pop(path))
            if self._packages and self._package_state is None:
                self._package_state = self._loader.load_packages()
                report.problems.extend(p for p in self._package_state.problems if p.level == "error")
            self._resolve()
            after = {name: id(entry.tool) for name, entry in self._tools.items()}
            report.added = sorted(set(after) - set(before))
            report.removed = sorted(set(before) - set(after))
            report.changed = sorted(n for n in set(before) & set(after) if before[n] != after[n])
            return report

    def _retire(self, state: FileState) -> None:
        """A file's old version is no longer used: its workers may drop it."""
        if self._host is not None:
            self._host.forget({e.tool.unit["id"] for e in state.entries if isinstance(e.tool, RemoteTool)})

    def _resolve(self) -> None:
        """Build the name -> tool map from every file's entries, applying precedence."""
        entries: list[ToolEntry] = []
        for state in self._states():
            entries.extend(state.entries)
        entries.sort(key=lambda e: (e.rank, e.path, e.line or 0))
        chosen: dict[str, ToolEntry] = {}
        notes: list[LoadProblem] = []
        for entry in entries:
            if not entry.available:
                continue
            prior = chosen.get(entry.name)
            if prior is None:
                chosen[entry.name] = entry
            elif entry.rank > prior.rank:
                notes.append(
                    LoadProblem(
                        entry.path,
                        f"{entry.origin} tool '{entry.name}' overrides the {prior.origin} one from {prior.path}",
                        line=entry.line, class_name=entry.class_name, level="info",
                    )
                )
                chosen[entry.name] = entry
            else:
                notes.append(
                    LoadProblem(
                        entry.path,
                        f"duplicate tool name '{entry.name}': already defined in {prior.path}"
                        f"{':' + str(prior.line) if prior.line else ''} ({prior.class_name}); this one is ignored",
                        line=entry.line, class_name=entry.class_name,
                    )
                )
        self._all = entries
        self._tools = dict(sorted(chosen.items()))
        self._resolution = notes


def isolation_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of :class:`ToolRegistry` that ``runtime`` settings choose."""
    runtime = settings.runtime
    return {
        "isolation": runtime.isolation,
        "load_timeout": runtime.load_timeout,
        "workers": runtime.tool_workers,
        "tool_env": list(runtime.tool_env),
        "secret_env": [settings.llm.api_key_env] if settings.llm.api_key_env else [],
    }
