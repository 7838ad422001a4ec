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
