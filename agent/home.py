"""The Riverse home on disk, private to the user who runs Riverse.

The home holds the conversations, every tool call's output and the settings (which may hold a token or an
API key). :func:`make_home_private` runs when Riverse starts (:class:`agent.app.App`): it creates the home
``0700`` when it is missing, and tightens an existing home (``0700``), its database with the ``-wal`` and
``-shm`` files SQLite keeps next to it, and its ``settings.yaml`` (``0600``): the group's and others'
permissions are taken away, the owner's stay. When the home itself was open to others, what was changed
is reported, so the user learns that the files were readable before; inside a private home, the files
were out of others' reach, and they are tightened without a word.

Only POSIX systems have these modes; elsewhere nothing is done.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.i18n import t

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
#: files in the home that hold the user's data or secrets
PRIVATE_FILES = ("riverse.db", "riverse.db-wal", "riverse.db-shm", "riverse.db-journal", "settings.yaml")
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


@dataclass
class Tightened:
    """What :func:`make_home_private` did: each path whose mode it changed (before, after), and each
    path it could not change (with the reason)."""

    changed: list[tuple[Path, int, int]] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)

    def notices(self, language: str = "en") -> list[str]:
        """One line saying what was tightened, and one per path that could not be (with how to fix it)."""
        lines = []
        if self.changed:
            items = ", ".join(f"{path} {before:04o} → {after:04o}" for path, before, after in self.changed)
            lines.append(t("home.tightened", language, items=items))
        for path, reason in self.failed:
            mode = "700" if path.is_dir() else "600"
            lines.append(t("home.not_private", language, path=path, reason=reason, mode=mode))
        return lines


def _posix() -> bool:
    return os.name == "posix"


def private_folder(path: Path) -> bool:
    """Create ``path`` (and any missing parents) with ``path`` itself ``0700``; True when it was created."""
    if path.is_dir():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=PRIVATE_DIR)
    except FileExistsError:  # made by another process in the meantime
        return False
    if _posix():
        os.chmod(path, PRIVATE_DIR)  # whatever the umask
    return True


def private_file(path: Path) -> None:
    """Create ``path`` empty and ``0600`` when it does not exist, so what is written into it later is private."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
    except FileExistsError:
        return
    if _posix():
        os.chmod(path, PRIVATE_FILE)


def _tighten(path: Path, report: Tightened) -> None:
    """Take away the group's and others' permissions on ``path``; the owner's stay as they are."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    except OSError as exc:
        report.failed.append((path, exc.strerror or str(exc)))
        return
    if not mode & _OTHERS:
        return
    wanted = mode & ~_OTHERS
    try:
        os.chmod(path, wanted)
    except OSError as exc:
        report.failed.append((path, exc.strerror or str(exc)))
        return
    report.changed.append((path, mode, wanted))


def make_home_private(home: Path) -> Tightened:
    """Create ``home`` private, or tighten it and the files in it that others could read."""
    report = Tightened()
    created = private_folder(home)
    if created or not _posix():
        return report
    _tighten(home, report)
    exposed = bool(report.changed or report.failed)
    quiet = Tightened()
    for name in PRIVATE_FILES:
        _tighten(home / name, report if exposed else quiet)
    report.failed.extend(quiet.failed)
    return report
