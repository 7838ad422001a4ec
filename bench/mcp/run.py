"""Cost of a tool called through MCP against the same tool called natively, in the same run.

Native: ``ToolRunner.run`` of a built-in tool in a registry built from default settings (worker
processes, the default isolation). MCP: the same tool served by ``riverse mcp serve`` (stdio, a Riverse
home of its own with default settings) and consumed back as an MCP server (``mcp.servers.riverse`` in a
second home), called as ``riverse_<tool>`` through ``ToolRunner.run``: the runner, the SDK's client, the
stdio pipe, the serving Riverse's runner and its worker process, and back. Each tool is called
``--calls`` times after a warm-up call; every result is checked. With ``--write`` the table replaces
the "MCP" section of bench/RESULTS.md.

    /work/main/.venv/bin/python -m bench.mcp.run --write
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from agent.config import load_settings
from agent.toolkit.runtime import ToolRunner
from agent.tools import ToolRegistry
from bench.results import write_section

COMMAND = "/work/main/.venv/bin/python -m bench.mcp.run --write"
ROOT = Path(__file__).resolve().parent.parent.parent
CASES = [
    ("calculator", {"expression": "17*23"}, "17*23 = 391"),
    ("unit_convert", {"value": 10, "from_unit": "km", "to_unit": "m"}, "10000"),
]


def registry_for(home: Path) -> ToolRegistry:
    return ToolRegistry.from_settings(load_settings(home=home, env={}))


def per_call_ms(runner: ToolRunner, name: str, params: dict[str, Any], expected: str, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        outcome = runner.run(name, params)
        times.append((time.perf_counter() - started) * 1000)
        if not outcome.success or expected not in outcome.data:
            raise SystemExit(f"{name} answered {outcome.data or outcome.error!r}, not {expected!r}")
    return times


def measure(calls: int) -> tuple[list[tuple[str, list[float], list[float]]], float]:
    with tempfile.TemporaryDirectory(prefix="riverse-bench-mcp-") as folder:
        served, consumer = Path(folder, "served"), Path(folder, "consumer")
        served.mkdir(mode=0o700)
        consumer.mkdir(mode=0o700)
        server = {"command": sys.executable, "args": ["-c", "from agent.cli import main; main()", "mcp", "serve"],
                  "cwd": str(ROOT), "env": {"RIVERSE_HOME": str(served)}, "timeout": 60}
        (consumer / "settings.yaml").write_text(yaml.safe_dump({"mcp": {"servers": {"riverse": server}}}), "utf-8")
        native = registry_for(served)
        started = time.perf_counter()
        through = registry_for(consumer)  # starts the MCP server and lists its tools
        start_ms = (time.perf_counter() - started) * 1000
        try:
            rows = []
            for name, params, expected in CASES:
                runners = ToolRunner(native), ToolRunner(through)
                per_call_ms(runners[0], name, params, expected, 1)  # warm-up: a worker loads the tool
                per_call_ms(runners[1], f"riverse_{name}", params, expected, 1)
                rows.append((name, per_call_ms(runners[0], name, params, expected, calls),
                             per_call_ms(runners[1], f"riverse_{name}", params, expected, calls)))
        finally:
            through.close()
            native.close()
    return rows, start_ms


def report(rows: list[tuple[str, list[float], list[float]]], start_ms: float, calls: int) -> str:
    lines = [
        "## MCP",
        "",
        "Time per call of a built-in tool called natively (`ToolRunner.run`, worker processes) against the same",
        "tool served by `riverse mcp serve` over stdio and consumed back as an MCP server (`mcp.servers.riverse`,",
        "called as `riverse_<tool>` through `ToolRunner.run`, so the served Riverse's runner and worker run it too,",
        "and it records the call in its store, as it does for every MCP client).",
        f"{calls} calls each after a warm-up call; 2 shared cores, so times are noisy. Command: `{COMMAND}`",
        "",
        "| tool | native median ms | MCP median ms | MCP / native | native p90 ms | MCP p90 ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, native, mcp in rows:
        n, m = statistics.median(native), statistics.median(mcp)
        lines.append(f"| {name} | {n:.2f} | {m:.2f} | {m / n:.1f}× | {_p90(native):.2f} | {_p90(mcp):.2f} |")
    lines += ["", f"Starting the MCP server and listing its tools (once, when the consumer's registry is built): "
              f"{start_ms:.0f} ms.", ""]
    return "\n".join(lines)


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--write", action="store_true", help="replace the MCP section of bench/RESULTS.md")
    args = parser.parse_args()
    rows, start_ms = measure(args.calls)
    text = report(rows, start_ms, args.calls)
    print(text)
    if args.write:
        write_section("mcp", text)


if __name__ == "__main__":
    main()
