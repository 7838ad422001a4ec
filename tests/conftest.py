"""Hermetic test setup: every test gets its own Riverse home and HOME; no network is used."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def riverse_home(tmp_path, monkeypatch):
    home = tmp_path / "riverse-home"
    home.mkdir()
    for var in list(os.environ):
        if var.startswith("RIVERSE_") or var.endswith("_API_KEY"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RIVERSE_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    (tmp_path / "user-home").mkdir()
    return home


# Property-based tests add how many cases they generated; the totals end the test run's summary.
GENERATED_CASES: dict[str, int] = {}


@pytest.fixture(scope="session")
def generated_cases() -> dict[str, int]:
    return GENERATED_CASES


def pytest_terminal_summary(terminalreporter) -> None:
    if GENERATED_CASES:
        terminalreporter.section("generated cases (hypothesis)")
        for name, count in sorted(GENERATED_CASES.items()):
            terminalreporter.write_line(f"{name}: {count}")
        terminalreporter.write_line(f"total: {sum(GENERATED_CASES.values())}")
