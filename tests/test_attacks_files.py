"""Attacks on the file roots that change the file system while the file tools use it.

- A name inside a root is swapped for a symbolic link out of the roots between the check and the
  open, both at a chosen moment (right after the check) and by a thread racing the tools.
- Named pipes, devices and sockets inside a root: reading them must neither hang nor run forever.
- Paths no file system call should see: 100,000 characters, names over 255 bytes, NUL bytes, text
  that is not text (lone surrogates), and file names that try to forge lines of a listing.

The attacks on the path as written (``..``, absolute paths, look-alike characters) are in
tests/test_robustness.py.
"""

from __future__ import annotations

import ast
import itertools
import os
import socket
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

import agent.toolkit.descriptors as descriptors
from agent.toolkit.paths import Roots
from agent.tools import file_list, file_read, grep
from agent.tools.file_list import FileListTool
from agent.tools.file_read import FileReadTool
from agent.tools.grep import GrepTool

SECRET = "SECRET-OUTSIDE-7f3a"
INSIDE = "inside words"
OUTSIDE_ONLY = "only-in-the-outside-folder.txt"
ATTEMPTS = {"file_read": 4000, "grep": 3000, "file_list": 3500}  # 10,500 racing attempts in all
RACE_SECONDS = 15.0  # each tool's share of the race (about 3 s here) stops here on a very slow machine


def config(root: Path, language: str = "en", **sections: dict) -> dict:
    return {"language": language, "file_roots": [str(root)], "tools": dict(sections)}


def leaked(result) -> bool:
    text = (result.data or "") + (result.error or "")
    return SECRET in text or OUTSIDE_ONLY in text


class Scene:
    """A root with ``target`` (a file) and ``folder`` (a folder holding ``secret.txt``), and an
    outside folder with a secret file of the same name. ``flip`` turns both names into links to the
    outside (``inside=False``) or back into the real file and folder, each change one atomic rename
    (the folder's change takes two: the real folder is moved aside first)."""

    def __init__(self, base: Path):
        self.root = base / "root"
        self.outside = base / "outside"
        self.staging = base / "staging"
        self.aside = base / "aside"
        for folder in (self.root / "folder", self.outside, self.staging):
            folder.mkdir(parents=True)
        (self.root / "target").write_text(INSIDE + "\n", encoding="utf-8")
        (self.root / "folder" / "secret.txt").write_text(INSIDE + "\n", encoding="utf-8")
        (self.outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
        (self.outside / OUTSIDE_ONLY).write_text(SECRET + "\n", encoding="utf-8")
        self.names = itertools.count()
        self.inside = True

    def _staged(self) -> Path:
        return self.staging / f"s{next(self.names)}"

    def flip(self, inside: bool) -> None:
        if inside == self.inside:
            return
        target, folder = self.root / "target", self.root / "folder"
        staged = self._staged()
        if inside:
            staged.write_text(INSIDE + "\n", encoding="utf-8")
            os.replace(staged, target)
            os.rename(folder, self._staged())  # the link out of the way
            os.rename(self.aside, folder)
        else:
            staged.symlink_to(self.outside / "secret.txt")
            os.replace(staged, target)
            os.rename(folder, self.aside)
            link = self._staged()
            link.symlink_to(self.outside)
            os.replace(link, folder)
        self.inside = inside


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return Scene(tmp_path)


# ======================================================= row 1: a swap right after the check
def swap_after_check(monkeypatch, scene: Scene) -> None:
    """Make every path check pass with the inside file and folder, then swap them for links out."""
    original = Roots.resolve

    def resolve_then_swap(self, given):
        real = original(self, given)
        scene.flip(inside=False)
        return real

    monkeypatch.setattr(Roots, "resolve", resolve_then_swap)


@pytest.mark.parametrize(
    "tool_class,params",
    [
        (FileReadTool, {"path": "target"}),
        (FileReadTool, {"path": "folder/secret.txt"}),
        (GrepTool, {"pattern": "words|secret", "path": "target"}),
        (GrepTool, {"pattern": "words|secret", "path": "folder"}),
        (FileListTool, {"path": "folder"}),
    ],
)
def test_a_name_swapped_for_a_link_right_after_the_check_is_refused(scene, monkeypatch, tool_class, params, attack_report):
    swap_after_check(monkeypatch, scene)
    result = tool_class(config(scene.root)).execute(params)
    escaped = leaked(result)
    attack_report.record(f"file roots: symlink swap ({tool_class(config(scene.root)).manifest().name})", 1, int(escaped))
    assert not escaped
    assert not result.success
    assert "changed while it was being opened" in result.error and "replaced by a symbolic link" in result.error


def test_a_walk_never_follows_names_swapped_after_they_were_listed(scene, monkeypatch, attack_report):
    original = descriptors._entries

    def list_then_swap(dir_fd, hidden):
        entries = original(dir_fd, hidden)
        scene.flip(inside=False)
        return entries

    monkeypatch.setattr(descriptors, "_entries", list_then_swap)
    result = GrepTool(config(scene.root)).execute({"pattern": "words|secret"})
    attack_report.record("file roots: symlink swap (grep)", 1, int(leaked(result)))
    assert result.success and not leaked(result)
    assert result.data.startswith(f"No lines match 'words|secret' in {scene.root}")


@pytest.mark.parametrize("language,expected", [("zh", "在打开过程中发生了变化"), ("ja", "開いている途中で変わりました")])
def test_the_swap_refusal_is_translated(scene, monkeypatch, language, expected):
    swap_after_check(monkeypatch, scene)
    result = FileReadTool(config(scene.root, language)).execute({"path": "target"})
    assert not result.success and expected in result.error and str(scene.root) in result.error


# ============================================================ row 1: a thread racing the tools
class Racer(threading.Thread):
    """Flips the scene between inside and outside as fast as it can until stopped."""

    def __init__(self, scene: Scene):
        super().__init__(daemon=True)
        self.scene = scene
        self.stop = threading.Event()
        self.flips = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.scene.flip(inside=self.flips % 2 == 1)
                self.flips += 1
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.error = exc

    def __enter__(self) -> Racer:
        # Threads take turns far more often than by default, so swaps land inside the tools' calls.
        self.interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-5)
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join(timeout=30)
        sys.setswitchinterval(self.interval)
        assert not self.is_alive(), "the racing thread did not stop"


RACES = {
    "file_read": (FileReadTool, [{"path": "target"}, {"path": "folder/secret.txt"}]),
    "grep": (GrepTool, [{"pattern": "words|secret"}, {"pattern": "words|secret", "path": "folder"}]),
    "file_list": (FileListTool, [{"path": "folder"}]),
}


@pytest.mark.parametrize("name", list(RACES))
def test_racing_symlink_swaps_never_lead_out_of_the_roots(scene, name, attack_report):
    tool_class, variants = RACES[name]
    tool = tool_class(config(scene.root))
    attempts = escapes = inside_seen = 0
    deadline = time.monotonic() + RACE_SECONDS
    with Racer(scene) as racer:
        for params in itertools.islice(itertools.cycle(variants), ATTEMPTS[name]):
            if time.monotonic() > deadline:
                break
            result = tool.execute(params)
            attempts += 1
            escapes += leaked(result)
            inside_seen += INSIDE in (result.data or "") or "secret.txt (" in (result.data or "")
    attack_report.record(f"file roots: symlink swap ({name})", attempts, escapes)
    print(f"{name}: {attempts} attempts, {racer.flips} flips, {inside_seen} inside reads, {escapes} escapes")
    assert racer.error is None
    assert escapes == 0
    assert racer.flips > 100 and inside_seen > 0  # the race was live and the tool still worked
    assert attempts >= min(ATTEMPTS[name], 500)


# ================================================================ row 2: special files in a root
def run_bounded(call, unblock, seconds: float = 15.0):
    """``call()`` in a thread; fails (after ``unblock()`` frees it) when it takes over ``seconds``."""
    outcome: dict = {}
    done = threading.Event()

    def target():
        try:
            outcome["result"] = call()
        finally:
            done.set()

    started = time.monotonic()
    threading.Thread(target=target, daemon=True).start()
    if not done.wait(seconds):
        unblock()
        done.wait(seconds)
        pytest.fail(f"the tool was still busy after {seconds} s")
    return outcome["result"], time.monotonic() - started


@pytest.fixture
def specials(tmp_path: Path) -> tuple[Path, list[str]]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "notes.txt").write_text("needle inside\n", encoding="utf-8")
    os.mkfifo(root / "pipe")
    made = ["pipe"]
    try:
        os.mknod(root / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        made.append("zero")
    except (PermissionError, OSError):
        pass
    (root / "pipe-link").symlink_to(root / "pipe")
    made.append("pipe-link")
    return root, made


def unblock_fifo(path: Path):
    def unblock():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    return unblock


def test_file_read_refuses_a_named_pipe_at_once_in_each_language(specials, attack_report):
    root, _ = specials
    escapes = 0
    for language, expected in (("en", "is a named pipe (FIFO), not a regular file"), ("zh", "是命名管道（FIFO）"), ("ja", "名前付きパイプ（FIFO）")):
        for name in ("pipe", "pipe-link"):
            result, took = run_bounded(lambda: FileReadTool(config(root, language)).execute({"path": name}), unblock_fifo(root / "pipe"))
            escapes += result.success
            assert not result.success and expected in result.error and took < 5
    attack_report.record("file roots: special files", 6, escapes)


def test_file_read_refuses_a_character_device(specials, attack_report):
    root, made = specials
    if "zero" not in made:
        pytest.skip("this system does not allow creating a character device (mknod needs CAP_MKNOD)")
    result, took = run_bounded(lambda: FileReadTool(config(root)).execute({"path": "zero"}), lambda: None)
    attack_report.record("file roots: special files", 1, int(result.success))
    assert not result.success and "is a character device, not a regular file or folder" in result.error


def test_grep_over_a_root_with_special_files_finishes_and_says_what_it_skipped(specials, attack_report):
    root, made = specials
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(root / "sock"))
            made.append("sock")
            result, took = run_bounded(lambda: GrepTool(config(root)).execute({"pattern": "needle"}), unblock_fifo(root / "pipe"))
    except OSError:  # the path is too long for a socket address on this machine
        result, took = run_bounded(lambda: GrepTool(config(root)).execute({"pattern": "needle"}), unblock_fifo(root / "pipe"))
    attack_report.record("file roots: special files", len(made), int(not result.success))
    assert result.success and took < 10
    assert result.data.splitlines() == [
        f"1 matching lines for 'needle' in {root} (1 files searched):",
        "notes.txt:1: needle inside",
        f"[{len(made)} special files (named pipes, devices or sockets) were skipped]",
    ]


def test_grep_of_a_special_file_and_file_list_of_a_folder_with_them(specials, attack_report):
    root, made = specials
    direct, _ = run_bounded(lambda: GrepTool(config(root)).execute({"pattern": "x", "path": "pipe"}), unblock_fifo(root / "pipe"))
    assert not direct.success and "is a named pipe (FIFO)" in direct.error
    listed, _ = run_bounded(lambda: FileListTool(config(root, "ja")).execute({}), unblock_fifo(root / "pipe"))
    attack_report.record("file roots: special files", 2, int(direct.success) + int(not listed.success))
    assert "pipe (名前付きパイプ（FIFO）)" in listed.data and "pipe-link (名前付きパイプ（FIFO）)" in listed.data
    if "zero" in made:
        assert "zero (キャラクターデバイス)" in listed.data


def test_reads_are_bounded_in_the_file_tools():
    """No read without a size in the file tools: a file that grows, or a device, cannot make one
    run on. (Bounded: ``read(n)``, ``readline(n)``, ``read_at_most(fd, n)``.)"""
    unbounded = []
    for module in (file_read, grep, file_list, descriptors):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                if name in ("read_bytes", "read_text", "readlines") or (name in ("read", "readline") and not node.args):
                    unbounded.append(f"{module.__name__}:{node.lineno} {name}()")
    assert unbounded == []
    with open("/dev/zero", "rb", buffering=0) as zero:
        assert len(descriptors.read_at_most(zero.fileno(), 100_000)) == 100_000


def test_grep_reads_no_more_than_the_size_limit_of_a_file_that_grew(tmp_path, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    (root / "growing.log").write_text("needle\n" * 1000, encoding="utf-8")  # 7000 bytes
    real_fstat = os.fstat
    monkeypatch.setattr(descriptors.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    result = GrepTool(config(root, grep={"max_file_bytes": 1000})).execute({"pattern": "needle"})
    assert result.data.splitlines() == [
        f"No lines match 'needle' in {root} (1 files searched).",
        "[1 files larger than 1000 bytes were skipped]",
    ]


# ========================================================= row 14: paths no system call should see
ODD_PATHS = [
    ("x" * 100_000, "is 100000 bytes long; the limit is 4095"),
    ("a/" * 3000, "is 6000 bytes long; the limit is 4095"),
    ("notes/" + "n" * 300 + ".txt", "is 304 bytes long; a file or folder name can have at most 255"),
    ("notes.txt\x00../../outside/secret.txt", "invisible control or text-direction characters"),
    ("\x00", "invisible control or text-direction characters"),
    ("notes\ud800.txt", "not valid text (lone surrogates)"),
    ("notes\udcff.txt", "not valid text (lone surrogates)"),
]


@pytest.mark.parametrize("tool_class", [FileReadTool, FileListTool, GrepTool])
@pytest.mark.parametrize("path,message", ODD_PATHS, ids=lambda v: repr(v)[:24] if isinstance(v, str) else None)
def test_overlong_and_non_text_paths_are_refused_clearly(tmp_path, tool_class, path, message, attack_report):
    root = tmp_path / "root"
    root.mkdir()
    result = tool_class(config(root)).execute({"path": path, "pattern": "x"})
    attack_report.record("file roots: overlong, NUL and non-text paths", 1, int(result.success))
    assert not result.success and result.error.startswith("Refused:")
    assert message in result.error and str(root) in result.error
    assert len(result.error) < 600  # the path is cut in the message
    assert "\x00" not in result.error and "\ud800" not in result.error
    result.error.encode("utf-8")  # valid text, whatever the path held


@pytest.mark.parametrize(
    "language,expected",
    [("zh", "超过了 4095 字节的上限"), ("ja", "上限の 4095 バイトを超えています")],
)
def test_the_long_path_refusal_is_translated(tmp_path, language, expected):
    result = FileReadTool(config(tmp_path, language)).execute({"path": "x" * 100_000})
    assert not result.success and expected in result.error


def test_file_names_cannot_forge_lines_and_bytes_that_are_not_utf8_are_shown(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "evil\nsecret.txt (3 B)").write_text("needle\n", encoding="utf-8")
    (root / os.fsdecode(b"caf\xe9.txt")).write_text("needle\n", encoding="utf-8")  # Latin-1, not UTF-8
    listed = FileListTool(config(root)).execute({})
    assert listed.data.splitlines() == [f"{root} (2 entries):", "caf\ufffd.txt (7 B)", "evil\\nsecret.txt (3 B) (7 B)"]
    found = GrepTool(config(root)).execute({"pattern": "needle"})
    assert found.data.splitlines()[1:] == ["caf\ufffd.txt:1: needle", "evil\\nsecret.txt (3 B):1: needle"]
    for text in (listed.data, found.data):
        text.encode("utf-8")


# ================================================================ documented limitation: hard links
def test_a_hard_link_inside_a_root_is_a_file_inside_it(tmp_path):
    """Documented in docs/security.md: a root sees names, and a hard link is a name inside it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "shared.txt").write_text("one file, two names\n", encoding="utf-8")
    os.link(outside / "shared.txt", root / "shared.txt")
    result = FileReadTool(config(root)).execute({"path": "shared.txt"})
    assert result.success and "one file, two names" in result.data
