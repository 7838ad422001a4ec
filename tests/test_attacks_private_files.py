"""Another user of this machine reads Riverse's files: the home is private, and so is what is in it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import agent.home
from agent.app import App
from agent.cli import cli
from agent.home import make_home_private
from agent.providers.fake import ScriptedProvider
from agent.storage import SQLiteStore

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")

DATA_FILES = ("riverse.db", "riverse.db-wal", "riverse.db-shm")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def readable_by_others(paths: list[Path]) -> list[Path]:
    return [p for p in paths if mode(p) & (stat.S_IRWXG | stat.S_IRWXO)]


def open_home(home: Path) -> list[Path]:
    """A home as an earlier Riverse left it: the folder 0755, the database and settings 0644."""
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    paths = [home]
    for name in (*DATA_FILES, "settings.yaml"):
        (home / name).write_bytes(b"")
        (home / name).chmod(0o644)
        paths.append(home / name)
    return paths


def test_a_new_home_and_its_database_are_private(tmp_path, attack_report):
    old = os.umask(0o022)  # the usual umask: what Riverse made was 0755 and 0644
    try:
        home = tmp_path / "new" / "riverse"
        app = App(home=str(home), provider=ScriptedProvider(default="hello"))
        assert app.privacy.notices() == []  # nothing was open: nothing to report
        app.agent().ask("my secret plans")  # the database is created, written, and its WAL files too
        paths = [home, *(home / name for name in DATA_FILES)]
        assert all(p.exists() for p in paths)
        elsewhere = SQLiteStore(tmp_path / "other" / "x.db")  # a store opened on its own
        elsewhere.new_conversation()
        paths += [tmp_path / "other", tmp_path / "other" / "x.db", tmp_path / "other" / "x.db-wal"]
    finally:
        os.umask(old)
    escaped = readable_by_others(paths)
    attack_report.record("files: another user reads a new Riverse home", len(paths), len(escaped))
    assert escaped == []
    assert mode(home) == 0o700 and {mode(home / n) for n in DATA_FILES} == {0o600}


@pytest.mark.parametrize("language, words", [
    ("en", "Made Riverse's files private (other users of this machine could read them): "),
    ("zh", "已将 Riverse 的文件设为私有（此前本机其他用户可以读取）："),
    ("ja", "Riverse のファイルを非公開にしました（このマシンの他のユーザーが読める状態でした）："),
])
def test_an_open_home_is_tightened_at_start_with_a_notice(tmp_path, attack_report, language, words):
    home = tmp_path / "riverse"
    paths = open_home(home)
    (home / "settings.yaml").write_text(f"language: {language}\nllm:\n  provider: fake\n", encoding="utf-8")
    runner = CliRunner()
    first = runner.invoke(cli, ["--home", str(home), "tools", "list"])
    assert first.exit_code == 0, first.output
    [notice] = [line for line in first.output.splitlines() if line.startswith(words)]
    assert f"{home} 0755 → 0700" in notice
    for name in (*DATA_FILES, "settings.yaml"):
        assert f"{home / name} 0644 → 0600" in notice
    escaped = readable_by_others(paths)
    attack_report.record("files: another user reads an existing Riverse home", len(paths), len(escaped))
    assert escaped == []
    assert mode(home) == 0o700 and {mode(p) for p in paths[1:]} == {0o600}
    again = runner.invoke(cli, ["--home", str(home), "tools", "list"])
    assert again.exit_code == 0 and words not in again.output  # once private, nothing more to say


def test_inside_a_private_home_files_are_tightened_without_a_word(tmp_path):
    home = tmp_path / "riverse"
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text("language: en\n", encoding="utf-8")
    (home / "settings.yaml").chmod(0o640)
    report = make_home_private(home)
    assert report.notices() == [] and mode(home / "settings.yaml") == 0o600
    assert mode(home) == 0o700


def test_what_cannot_be_made_private_is_said_with_the_fix(tmp_path, monkeypatch):
    home = tmp_path / "riverse"
    open_home(home)

    def refuse(path, wanted):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(agent.home.os, "chmod", refuse)
    lines = make_home_private(home).notices("en")
    assert lines[0] == (f"Warning: {home} may be readable by other users and could not be made private "
                        f"(Operation not permitted); run: chmod 700 {home}")
    assert f"run: chmod 600 {home / 'riverse.db'}" in lines[1]
    assert len(lines) == 1 + len(DATA_FILES) + 1
