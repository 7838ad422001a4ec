"""What reading a text costs, for attack tests that compare a long input with a short one (ratios, never absolute times)."""

from __future__ import annotations

import time
from typing import Any, Callable


def cpu_seconds(read: Callable[[str], Any], text: str) -> float:
    """The median processor time of three reads of ``text``."""
    runs = []
    for _ in range(3):
        started = time.process_time()
        read(text)
        runs.append(time.process_time() - started)
    return sorted(runs)[1]
