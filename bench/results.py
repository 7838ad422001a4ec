"""Writing one section of bench/RESULTS.md, leaving the other benchmarks' sections as they are."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str) -> None:
    """Replace the text between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` (append it when absent)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    section = f"{start}\n{text}{end}"
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    if start in current and end in current:
        head, rest = current.split(start, 1)
        updated = head + section + rest.split(end, 1)[1]
    else:
        updated = current.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(updated, encoding="utf-8")
