"""Files and folders opened by descriptor, one name at a time, never through a symbolic link.

The file tools check a path by name (:mod:`agent.toolkit.paths`) and then open it here. From the
descriptor of a root folder, each folder of the path is opened relative to the one before with
``O_DIRECTORY | O_NOFOLLOW``, and the last name with ``O_NOFOLLOW | O_NONBLOCK``:

- a name swapped for a symbolic link after the check makes the open fail (:class:`LinkMet`) instead
  of leading wherever the link points;
- a named pipe cannot make the open wait for a writer (``O_NONBLOCK``), and what was opened is
  checked with ``fstat``: anything but a regular file or a folder (pipe, device, socket) is closed
  unread (:class:`NotRegular`); the name is checked with ``lstat`` first, so such a file is usually
  not opened at all;
- folders are listed and walked through their descriptors (``os.scandir(fd)``, ``dir_fd=``), so a
  folder swapped while it is walked is never entered.

Reads are bounded: :func:`read_at_most` never returns more than it is asked for.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
_DIR_FLAGS = _FLAGS | os.O_DIRECTORY
_PIECE = 1 << 16

_KINDS = (
    (stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISLNK, "link"), (stat.S_ISFIFO, "fifo"),
    (stat.S_ISCHR, "char"), (stat.S_ISBLK, "block"), (stat.S_ISSOCK, "socket"),
)


class LinkMet(OSError):
    """A symbolic link where the checked path had a file or folder: it was swapped after the check."""

    def __init__(self, path: Path | str):
        super().__init__(errno.ELOOP, "a symbolic link appeared in the path", str(path))


class NotRegular(Exception):
    """Not a regular file or a folder; ``kind`` is ``fifo``, ``char``, ``block``, ``socket`` or ``other``."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


def kind_of(mode: int) -> str:
    """``file``, ``dir``, ``link``, ``fifo``, ``char``, ``block``, ``socket`` or ``other``."""
    return next((name for test, name in _KINDS if test(mode)), "other")


@dataclass
class Opened:
    """An open regular file or folder, its ``fstat`` and the checked real path it was opened as."""

    fd: int
    info: os.stat_result
    path: Path

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.info.st_mode)

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_at(dir_fd: int, name: str, path: Path) -> Opened:
    """The entry ``name`` of the open folder ``dir_fd``, if it is a regular file or a folder.

    Raises :class:`LinkMet` for a symbolic link, :class:`NotRegular` for anything else that is not a
    file or a folder, ``OSError`` when it cannot be opened.
    """
    kind = kind_of(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    if kind == "link":
        raise LinkMet(path)
    if kind not in ("file", "dir"):
        raise NotRegular(kind)
    try:
        fd = os.open(name, _DIR_FLAGS if kind == "dir" else _FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        _raise_if_link(exc, dir_fd, name, path)
        raise
    try:
        info = os.fstat(fd)
        kind = kind_of(info.st_mode)
        if kind not in ("file", "dir"):  # swapped between the lstat and the open
            raise NotRegular(kind)
    except BaseException:
        os.close(fd)
        raise
    return Opened(fd, info, path)


def _raise_if_link(exc: OSError, dir_fd: int, name: str, path: Path) -> None:
    """Raise :class:`LinkMet` when ``exc`` came from opening ``name`` after it became a link."""
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return
    if is_link:
        raise LinkMet(path) from exc


def open_beneath(root: Path, parts: Sequence[str], path: Path) -> Opened:
    """``root/parts...`` opened one name at a time from the folder ``root``, never through a link.

    ``root`` itself is trusted (a configured folder); ``parts`` are plain names (no ``..``).
    """
    if any(part in ("", ".", "..") or "/" in part for part in parts):
        raise ValueError(f"not a plain relative path: {parts!r}")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in parts[:-1]:
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                _raise_if_link(exc, fd, name, path)
                raise
            os.close(fd)
            fd = inner
        if not parts:
            opened, fd = Opened(fd, os.fstat(fd), path), -1
            return opened
        return open_at(fd, parts[-1], path)
    finally:
        if fd >= 0:
            os.close(fd)


def _entries(dir_fd: int, hidden: bool) -> tuple[list[str], list[str]]:
    """The names in the open folder ``dir_fd``: (everything but folders, folders), each sorted.

    A link to a folder counts as "everything but folders": it is never descended into.
    """
    files: list[str] = []
    folders: list[str] = []
    try:
        with os.scandir(dir_fd) as scan:
            for entry in scan:
                if not hidden and entry.name.startswith("."):
                    continue
                try:
                    (folders if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
                except OSError:
                    continue
    except OSError:
        return [], []
    return sorted(files), sorted(folders)


def walk(top_fd: int, top: Path, *, hidden: bool = False) -> Iterator[tuple[Path, int, str]]:
    """The entries under the open folder ``top_fd`` that are not folders, as ``(path, descriptor of
    their folder, name)``: a folder's own entries (sorted) before its subfolders' (sorted).

    Subfolders are opened relative to their parent's descriptor, never through a link; one that was
    replaced or removed since it was listed is skipped. Hidden names are skipped unless ``hidden``.
    The descriptors handed out are valid until the next item; ``top_fd`` stays open.
    """
    files, folders = _entries(top_fd, hidden)
    yield from ((top / name, top_fd, name) for name in files)
    stack: list[tuple[int, Path, Iterator[str]]] = [(top_fd, top, iter(folders))]
    try:
        while stack:
            fd, path, pending = stack[-1]
            name = next(pending, None)
            if name is None:
                stack.pop()
                if fd != top_fd:
                    os.close(fd)
                continue
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue
            stack.append((inner, path / name, iter(())))  # closed by the finally whatever happens next
            files, folders = _entries(inner, hidden)
            stack[-1] = (inner, path / name, iter(folders))
            yield from ((path / name / entry, inner, entry) for entry in files)
    finally:
        for fd, _, _ in stack:
            if fd != top_fd:
                os.close(fd)


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd``, read in bounded pieces."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        piece = os.read(fd, min(left, _PIECE))
        if not piece:
            break
        chunks.append(piece)
        left -= len(piece)
    return b"".join(chunks)
