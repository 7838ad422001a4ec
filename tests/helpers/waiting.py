"""Waiting for another thread to reach a state, without sleeping a fixed time."""

from __future__ import annotations

import threading
import time


def wait_until(condition, what: str, deadline_s: float = 10.0) -> None:
    """Return as soon as ``condition()`` is true; fail with ``what`` after ``deadline_s`` seconds."""
    deadline = time.monotonic() + deadline_s
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        pause.wait(0.005)
