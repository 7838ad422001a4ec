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
wins. That rule is :func:`precedence`; :meth:`ToolRegistry.would_win` applies it to a file not yet loaded.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from agent.i18n import origin_label, t
from agent.toolkit.base import BaseTool, ToolManifest
from agent.toolkit.remote_tools import RemoteHost, RemoteLoader, RemoteTool
from agent.toolkit.worker_pool import WorkerPool
from agent.toolkit.discovery import (
    BUILTIN,
    BUILTIN_DIR,
    ORIGIN_NAMES,
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
        sources: Iterable[Any] = (),
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
        # More sources of tools (MCP servers): objects with states() -> [FileState] and close()
        self._extra = list(sources)
        self._extra_states: list[FileState] = []
        self._tools: dict[str, ToolEntry] = {}
        self._all: list[ToolEntry] = []
        self._resolution: list[LoadProblem] = []
        self.refresh()

    @classmethod
    def from_settings(cls, settings: Settings) -> "ToolRegistry":
        """The registry that the CLI and the server use: built-ins, packages, settings folders, user
        folder, and the MCP servers that settings name (``mcp.servers``)."""
        config = settings.config_for_tools()
        sources = []
        servers = settings.mcp_servers()
        if servers:
            from agent.mcp.source import McpSource  # the MCP SDK loads only when a server is configured

            sources.append(McpSource(servers, config, settings.home))
        return cls(
            config,
            folders=settings.tool_folders,
            user_folder=settings.user_tools_dir,
            sources=sources,
            **isolation_options(settings),
        )

    def close(self) -> None:
        """End this registry's worker processes (they also end with it, and when the agent exits)."""
        if self._host is not None:
            self._host.close()
        for source in self._extra:
            source.close()

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
        return states + self._extra_states

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
            if self._extra:
                before_states = {id(state) for state in self._extra_states}
                self._extra_states = [state for source in self._extra for state in source.states()]
                report.problems.extend(p for state in self._extra_states if id(state) not in before_states
                                       for p in state.problems if p.level == "error")
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
        groups: dict[str, list[ToolEntry]] = {}
        for entry in entries:
            if entry.available:
                groups.setdefault(entry.name, []).append(entry)
        chosen: dict[str, ToolEntry] = {}
        notes: list[LoadProblem] = []
        for name, group in groups.items():
            ranked = sorted(group, key=entry_order)
            chosen[name] = winner = ranked[0]
            for loser in ranked[1:]:
                first_of_its_source = next(e for e in ranked if e.rank == loser.rank)
                if first_of_its_source is not loser:
                    notes.append(LoadProblem(loser.path, duplicate_text(first_of_its_source, "en"),
                                             line=loser.line, class_name=loser.class_name))
                else:
                    notes.append(LoadProblem(winner.path, overrides_text(winner.origin, loser, "en"),
                                             line=winner.line, class_name=winner.class_name, level="info"))
        self._all = entries
        self._tools = dict(sorted(chosen.items()))
        self._resolution = notes

    # ------------------------------------------------------------- precedence
    def source_rank(self, path: str | Path) -> int | None:
        """The precedence of the source that scans the tool file ``path``; None when no source does."""
        file = Path(path).expanduser().resolve()
        if file.suffix != ".py" or file.name.startswith("_"):
            return None
        for rank, folder in self._sources:
            if folder.resolve() in (file, file.parent):
                return rank
        return None

    def would_win(self, path: str | Path, name: str, language: str | None = None) -> tuple[bool, str]:
        """Whether a tool named ``name`` in the file ``path`` would be the one used, by the rule this
        registry applies (:func:`precedence`), and what to tell its author: which tool it replaces or
        which one keeps it out (empty when no other tool has the name). ``language``: of the text
        (default: the registry's)."""
        lang = language or self.config.get("language") or "en"
        file = Path(path).expanduser().resolve()
        rank = self.source_rank(file)
        if rank is None:
            return False, t("precedence.not_scanned", lang, folder=str(file.parent))
        with self._lock:
            rivals = sorted((e for e in self._all if e.available and e.name == name and Path(e.path) != file),
                            key=entry_order)
        if not rivals:
            return True, ""
        best = rivals[0]
        if precedence(rank, str(file), None) < entry_order(best):
            if best.rank == rank:
                return True, t("precedence.displaces", lang, name=name, where=_where(best), cls=best.class_name)
            return True, overrides_text(ORIGIN_NAMES[rank], best, lang)
        if best.rank == rank:
            return False, duplicate_text(best, lang)
        return False, t("precedence.overridden", lang, name=name, other=origin_label(best.origin, lang), path=best.path)

    def why_missing(self, name: str, language: str = "en") -> str | None:
        """Why no tool ``name`` is registered, when a file can say: the tool is unavailable (and why), or
        a file that failed to load matches it (its name is the tool's, its problem or its text names it)."""
        with self._lock:
            if name in self._tools:
                return None
            for entry in self._all:
                if entry.name == name and not entry.available:
                    return t("missing.unavailable", language, name=name, reason=entry.reason)
            failed = [[p for p in state.problems if p.level == "error"] for state in self._states()
                      if not any(e.name == name for e in state.entries)]
        failed = [errors for errors in failed if errors]
        # A file named after the tool first; then one whose problems or text name it.
        failed.sort(key=lambda errors: Path(errors[0].path).stem.lower() != name.lower())
        for errors in failed:
            if _names_tool(errors, name):
                return t("missing.not_loaded", language, name=name, problem=str(errors[0]), path=errors[0].path)
        return None


def precedence(rank: int, path: str, line: int | None) -> tuple[int, str, int]:
    """The one rule for tools of the same name, as a sort key (the smallest is used): the source of
    higher precedence wins; within one source, the first file by path, then the first class in it."""
    return (-rank, path, line or 0)


def entry_order(entry: ToolEntry) -> tuple[int, str, int]:
    return precedence(entry.rank, entry.path, entry.line)


def _where(entry: ToolEntry) -> str:
    return f"{entry.path}:{entry.line}" if entry.line else entry.path


def overrides_text(origin: str, loser: ToolEntry, language: str) -> str:
    """What a tool of source ``origin`` says about the lower-precedence ``loser`` it replaces."""
    return t("precedence.overrides", language, origin=origin_label(origin, language), name=loser.name,
             other=origin_label(loser.origin, language), path=loser.path)


def duplicate_text(first: ToolEntry, language: str) -> str:
    """What a tool says that loses to ``first``, a tool of the same name from the same source."""
    return t("precedence.duplicate", language, name=first.name, where=_where(first), cls=first.class_name)


def _names_tool(problems: list[LoadProblem], name: str) -> bool:
    """Whether a file whose loading failed with ``problems`` is likely where tool ``name`` lives: the
    file is named after it, a problem names it, or the file's text has it as a quoted string; or, for an
    MCP server that could not be listed (``mcp:NAME``), the tool's name starts with the server's."""
    server = problems[0].path.partition("mcp:")[2] if problems[0].path.startswith("mcp:") else ""
    if server:
        return name.lower().startswith(f"{server.lower()}_")
    path = Path(problems[0].path)
    if path.stem.lower() == name.lower() or any(f"'{name}'" in p.message for p in problems):
        return True
    try:
        with path.open("rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return False
    return f'"{name}"' in text or f"'{name}'" in text


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
