"""Finding tools: importing tool files and packages, checking each class, and what it found.

:class:`ToolLoader` imports one file (or the ``riverse.tools`` entry points), constructs every concrete
``BaseTool`` subclass with the config dict, checks its manifest and ``execute`` signature, asks
``is_available()``, and returns :class:`ToolEntry` and :class:`LoadProblem` objects. Anything a tool
author's code raises, even ``SystemExit`` or ``KeyboardInterrupt``, becomes a problem that names the
file, line and class. Each tool gets its own deep copy of the config, scoped to its own settings section.
:class:`~agent.toolkit.registry.ToolRegistry` decides which files to load and which entry wins; with
process isolation the loader runs inside a worker process (see :mod:`agent.toolkit.remote_tools`).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import linecache
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.toolkit.install_hint import install_hint
from agent.toolkit.tool_settings import tool_sections
from agent.toolkit.base import BaseTool, ToolManifest
from agent.toolkit.validate import execute_problem, manifest_problems

ENTRY_POINT_GROUP = "riverse.tools"
_FAILED = object()  # what a guarded call of a tool author's method returns when it raised
BUILTIN_DIR = Path(__file__).resolve().parent.parent / "tools"  # agent/tools: the built-in tools

# Precedence of sources (higher wins).
BUILTIN, PACKAGE, SETTINGS, USER = 0, 1, 2, 3
ORIGIN_NAMES = {BUILTIN: "built-in", PACKAGE: "package", SETTINGS: "settings folder", USER: "user"}


@dataclass
class LoadProblem:
    """Something wrong with a tool file or class, found at discovery."""

    path: str
    message: str
    line: int | None = None
    class_name: str | None = None
    level: str = "error"  # error | warning | info

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "class": self.class_name, "level": self.level, "message": self.message}

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        who = f" {self.class_name}:" if self.class_name else ""
        return f"{where}:{who} {self.message}"


@dataclass
class ToolEntry:
    """One discovered tool, available or not."""

    name: str
    tool: BaseTool
    manifest: ToolManifest
    path: str
    class_name: str
    line: int | None
    origin: str  # "built-in", "user", "settings folder", "package:<dist>"
    rank: int
    available: bool = True
    reason: str = ""  # why it is unavailable
    localized: dict[str, ToolManifest] = field(default_factory=dict, repr=False)  # by language, see manifests()

    def manifest_in(self, language: str) -> ToolManifest:
        """The manifest as the tool writes it for another ``language``: a copy of the tool whose
        config says that language is asked (tools that read ``config["language"]``, as the built-in
        ones do, answer in it). The usual manifest when the tool has no
        such config, or its answer is not a valid manifest of the same tool."""
        if language in self.localized:
            return self.localized[language]
        manifest = self.manifest
        config = getattr(self.tool, "config", None)
        remote = getattr(self.tool, "manifest_for", None)  # a tool in a worker process asks it there
        if callable(remote):
            manifest = remote(language) or manifest
        elif isinstance(config, dict) and config.get("language") not in (None, language):
            try:
                twin = copy.copy(self.tool)
                twin.config = {**config, "language": language}
                other = twin.manifest()
                if (
                    isinstance(other, ToolManifest)
                    and other.name == manifest.name
                    and not any(p.level == "error" for p in manifest_problems(other, language))
                ):
                    manifest = other
            except Exception:  # a tool that cannot do this keeps its usual manifest
                pass
        self.localized[language] = manifest
        return manifest


@dataclass
class RefreshReport:
    """What a :meth:`ToolRegistry.refresh` changed."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)

    @property
    def changed_anything(self) -> bool:
        return bool(self.added or self.changed or self.removed or self.problems)


@dataclass
class FileState:
    signature: tuple[int, int]
    entries: list[ToolEntry]
    problems: list[LoadProblem]


class _FreshSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the file's current text on every load, never a cached ``.pyc``; or, when given,
    ``source``: the text the registry read (a worker process loads exactly the version it was sent).

    Bytecode caches are validated by the source's mtime in whole seconds and its size, so an edit
    saved within the same second as the previous one, at the same size, would reload the old code.
    """

    def __init__(self, fullname: str, path: str, source: bytes | None = None):
        super().__init__(fullname, path)
        self.source = source

    def get_code(self, fullname: str) -> Any:
        text = self.source if self.source is not None else self.get_data(self.path)
        return self.source_to_code(text, self.path)


def signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size)


def _class_line(obj: Any) -> int | None:
    """The line where a class (or function) is defined, when its source can be found. Read from the
    code object or the cached file lines: ``inspect.getsourcelines`` tokenizes the whole class, which
    costs about a millisecond per tool (a second for a thousand tools in ``riverse tools list``)."""
    code = getattr(obj, "__code__", None)
    if code is not None:
        return code.co_firstlineno
    try:
        filename = inspect.getsourcefile(obj)
    except TypeError:
        return None
    if not filename or not isinstance(obj, type):
        return None
    pattern = re.compile(rf"\s*class\s+{re.escape(obj.__name__)}\b")
    linecache.checkcache(filename)  # a file edited since (hot reload) is read again
    for number, text in enumerate(linecache.getlines(filename), start=1):
        if pattern.match(text):
            return number
    return None


def _error_line(exc: BaseException, path: Path) -> int | None:
    if isinstance(exc, SyntaxError) and exc.lineno:
        return exc.lineno
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno
    return line


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _hint(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return f" ({install_hint(exc.name)})"
    return ""


def expanded_config(config: dict) -> dict:
    """A deep copy of the config dict with the short forms of its tool sections written out."""
    return copy.deepcopy({**config, "tools": tool_sections(config.get("tools") or {})})


def scope_config(config: dict, name: str) -> None:
    """Narrow ``config["tools"]`` (in place) to tool ``name``'s own section, plus the sections it asks
    for in settings (``tools.<name>.share: [other, ...]``)."""
    sections = config.get("tools") or {}
    own = sections.get(name)
    config["tools"] = {name: own} if own is not None else {}
    for extra in (own.get("share") or []) if isinstance(own, dict) else []:
        if extra in sections:
            config["tools"][extra] = sections[extra]


def _no_tool_problems(module: Any, path: Path) -> list[LoadProblem]:
    """Why a file that defines no ``BaseTool`` subclass adds no tool: a look-alike class, or nothing."""
    lookalikes = [
        obj for obj in vars(module).values()
        if inspect.isclass(obj) and obj.__module__ == module.__name__
        and callable(getattr(obj, "manifest", None)) and callable(getattr(obj, "execute", None))
    ]
    if not lookalikes:
        return [LoadProblem(str(path), "defines no BaseTool subclass, so it adds no tool; if it is a helper "
                                       "module, start its file name with '_'", level="warning")]
    return [
        LoadProblem(str(path), f"has manifest() and execute() but does not subclass BaseTool; write "
                               f"'class {cls.__name__}(BaseTool):' with 'from agent.tools import BaseTool'",
                    line=_class_line(cls), class_name=cls.__name__)
        for cls in lookalikes
    ]



class ToolLoader:
    """Imports tool files and packages and turns each ``BaseTool`` subclass into a :class:`ToolEntry`,
    recording what is wrong as :class:`LoadProblem` objects that name the file, line and class."""

    def __init__(self, config: dict):
        self.config = config

    def module_name(self, path: Path, rank: int) -> str:
        if rank == BUILTIN and path.parent == BUILTIN_DIR:
            return f"agent.tools.{path.stem}"
        digest = hashlib.sha1(str(path.parent).encode()).hexdigest()[:10]
        return f"riverse_tools_{digest}.{path.stem}"

    def load_file(self, path: Path, rank: int, changed: bool = False, source: bytes | None = None) -> FileState:
        sig = signature(path) if source is None else (0, 0)
        name = self.module_name(path, rank)
        problems: list[LoadProblem] = []
        if source is not None:  # lines named in problems and tracebacks are those of the text given
            text = source.decode("utf-8", errors="replace")
            linecache.cache[str(path)] = (len(text), None, text.splitlines(keepends=True), str(path))
        try:
            if name.startswith("agent.tools.") and not changed:
                # Built-ins are ordinary modules: import once, so their classes stay the importable ones.
                module = importlib.import_module(name)
            else:  # a user file, or a built-in edited since it was loaded: a fresh module object
                loader = _FreshSourceLoader(name, str(path), source)
                spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                if spec is None or spec.loader is None:
                    raise ImportError(f"cannot import {path}")
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(name, None)
                    raise
        except BaseException as exc:  # noqa: BLE001 - a tool file may raise anything, even SystemExit
            problems.append(
                LoadProblem(str(path), f"cannot import: {_describe(exc)}{_hint(exc)}", line=_error_line(exc, path))
            )
            return FileState(sig, [], problems)
        classes = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj)
            and issubclass(obj, BaseTool)
            and obj is not BaseTool
            and obj.__module__ == module.__name__
        ]
        if not classes:
            problems.extend(_no_tool_problems(module, path))
        entries = []
        origin = ORIGIN_NAMES[rank]
        for cls in sorted(classes, key=lambda c: _class_line(c) or 0):
            entry = self.instantiate(cls, path, rank, origin, problems)
            if entry is not None:
                entries.append(entry)
        return FileState(sig, entries, problems)

    def load_packages(self) -> FileState:
        problems: list[LoadProblem] = []
        entries: list[ToolEntry] = []
        try:
            from importlib import metadata  # here: a worker process that loads one file does without it

            eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
        except Exception as exc:  # noqa: BLE001 - broken metadata must not stop start-up
            problems.append(LoadProblem("<entry points>", f"cannot list entry points: {_describe(exc)}"))
            return FileState((0, 0), [], problems)
        for ep in sorted(eps, key=lambda e: e.name):
            dist = getattr(ep.dist, "name", None) or ep.value.split(":")[0]
            where = f"{ep.value} (package {dist})"
            try:
                obj = ep.load()
            except BaseException as exc:  # noqa: BLE001 - even KeyboardInterrupt: it is the package's code
                problems.append(LoadProblem(where, f"cannot load entry point {ep.name!r}: {_describe(exc)}{_hint(exc)}"))
                continue
            if inspect.ismodule(obj):
                classes = [
                    o for o in vars(obj).values()
                    if inspect.isclass(o) and issubclass(o, BaseTool) and o is not BaseTool and o.__module__ == obj.__name__
                ]
            elif inspect.isclass(obj) and issubclass(obj, BaseTool):
                classes = [obj]
            else:
                problems.append(LoadProblem(where, f"entry point {ep.name!r} must name a BaseTool subclass or a module"))
                continue
            for cls in classes:
                entry = self.instantiate(cls, Path(inspect.getfile(cls)), PACKAGE, f"package:{dist}", problems)
                if entry is not None:
                    entries.append(entry)
        return FileState((0, 0), entries, problems)

    def instantiate(
        self, cls: type, path: Path, rank: int, origin: str, problems: list[LoadProblem]
    ) -> ToolEntry | None:
        line = _class_line(cls)
        where = dict(line=line, class_name=cls.__name__)
        if inspect.isabstract(cls):
            missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
            if not (cls.__name__.startswith(("_", "Base", "Abstract"))):
                problems.append(LoadProblem(str(path), f"does not implement {missing}(); a tool needs manifest() and execute()", **where))
            return None
        config = expanded_config(self.config)  # this tool's own copy: what it changes, no other tool sees

        def guarded(what: str, fn: Any) -> Any:
            """Call a tool author's method; anything it raises (even SystemExit) becomes a problem."""
            try:
                return fn()
            except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt too: it is the tool's code
                problems.append(LoadProblem(str(path), f"{what} raised {_describe(exc)}",
                                            line=_error_line(exc, path) or line, class_name=cls.__name__))
                return _FAILED

        tool = guarded("__init__(config)", lambda: cls(config))
        if tool is _FAILED:
            return None
        manifest = guarded("manifest()", tool.manifest)
        if manifest is _FAILED:
            return None
        found = manifest_problems(manifest, self.config.get("language"))
        manifest_line = _class_line(cls.manifest) or line
        for p in found:
            problems.append(LoadProblem(str(path), p.message, line=manifest_line, class_name=cls.__name__, level=p.level))
        if any(p.level == "error" for p in found):
            return None
        call_problem = execute_problem(tool)
        if call_problem:
            problems.append(LoadProblem(str(path), call_problem, line=_class_line(cls.execute) or line, class_name=cls.__name__))
            return None
        # Scope the configuration: the tool keeps the shared keys and its own section only.
        own = (config.get("tools") or {}).get(manifest.name)
        scope_config(config, manifest.name)
        entry = ToolEntry(
            name=manifest.name, tool=tool, manifest=manifest, path=str(path), class_name=cls.__name__,
            line=line, origin=origin, rank=rank,
        )
        if isinstance(own, dict) and own.get("enabled") is False:
            entry.available = False
            entry.reason = f"disabled in settings (tools.{manifest.name}.enabled: false)"
            return entry
        available = guarded("is_available()", tool.is_available)
        if available is _FAILED:
            entry.available = False
            entry.reason = problems[-1].message
        elif not available:
            entry.available = False
            explain = getattr(tool, "unavailable_reason", None)
            reason = guarded("unavailable_reason()", explain) if callable(explain) else explain
            entry.reason = str(reason) if reason and reason is not _FAILED else "is_available() returned False"
        return entry

