"""Writing one section of bench/RESULTS.md, leaving the other benchmarks' sections as they are."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str) -> None:
    """Replace the text between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` (append it when absent)."""
    start, end = _markers(name)
    section = f"{start}\n{text}{end}"
    current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    if start in current and end in current:
        head, _, tail = _split(current, name)
        updated = head + section + tail
    else:
        updated = current.rstrip("\n") + "\n\n" + section + "\n"
    RESULTS.write_text(updated, encoding="utf-8")


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def _split(text: str, name: str) -> tuple[str, str, str]:
    """``text`` around section ``name``: before its start marker, between the markers, after its end marker."""
    start, end = _markers(name)
    head, rest = text.split(start, 1)
    section, tail = rest.split(end, 1)
    return head, section, tail


def replace_line(name: str, prefix: str, line: str) -> None:
    """Replace the line that starts with ``prefix`` inside section ``name`` (an error when there is none)."""
    start, end = _markers(name)
    head, section, tail = _split(RESULTS.read_text(encoding="utf-8"), name)
    lines = section.split("\n")
    found = [i for i, text in enumerate(lines) if text.startswith(prefix)]
    if not found:
        raise SystemExit(f"bench/RESULTS.md: no line starting with {prefix!r} in the {name} section; run the whole benchmark")
    lines[found[0]] = line
    RESULTS.write_text(head + start + "\n".join(lines) + end + tail, encoding="utf-8")
