"""Hermetic test setup: every test gets its own Riverse home and HOME; no network is used."""

from __future__ import annotations

import os

import pytest

# PostgreSQL for the store suite: one throwaway cluster per test session (skipped, with the reason,
# where PostgreSQL is not installed).
from tests.helpers.postgres import pg_cluster, pg_url  # noqa: F401 - fixtures


@pytest.fixture(autouse=True)
def riverse_home(tmp_path, monkeypatch):
    home = tmp_path / "riverse-home"
    home.mkdir(mode=0o700)  # as Riverse creates it: an open home is reported (and tightened) at start
    for var in list(os.environ):
        if var.startswith("RIVERSE_") or var.endswith("_API_KEY"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RIVERSE_HOME", str(home))
    # retrieval's sentence encoder (riverse[retrieval]) only where a test turns it on (tests/test_encoder.py)
    monkeypatch.setenv("RIVERSE_ENCODER", "off")
    monkeypatch.setenv("RIVERSE_GLOSSARY", "off")
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    (tmp_path / "user-home").mkdir()
    return home


# Property-based tests add how many cases they generated; the totals end the test run's summary.
GENERATED_CASES: dict[str, int] = {}


@pytest.fixture(scope="session")
def generated_cases() -> dict[str, int]:
    return GENERATED_CASES


class AttackReport:
    """Attack tests record, per class of attack, how many attempts they made and how many escaped."""

    def __init__(self) -> None:
        self.rows: dict[str, list[int]] = {}

    def record(self, attack: str, attempts: int, escapes: int) -> None:
        row = self.rows.setdefault(attack, [0, 0])
        row[0] += attempts
        row[1] += escapes


ATTACKS = AttackReport()


@pytest.fixture(scope="session")
def attack_report() -> AttackReport:
    return ATTACKS


def pytest_terminal_summary(terminalreporter) -> None:
    if ATTACKS.rows:
        terminalreporter.section("attacks (attempts, escapes)")
        for name, (attempts, escapes) in sorted(ATTACKS.rows.items()):
            terminalreporter.write_line(f"{name}: {attempts} attempts, {escapes} escapes")
        total = [sum(row[i] for row in ATTACKS.rows.values()) for i in (0, 1)]
        terminalreporter.write_line(f"total: {total[0]} attempts, {total[1]} escapes")
    if GENERATED_CASES:
        terminalreporter.section("generated cases (hypothesis)")
        for name, count in sorted(GENERATED_CASES.items()):
            terminalreporter.write_line(f"{name}: {count}")
        terminalreporter.write_line(f"total: {sum(GENERATED_CASES.values())}")
