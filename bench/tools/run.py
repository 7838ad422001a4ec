"""Cost of running tools in worker processes (``runtime.isolation: process``) against in-process
threads (``isolation: thread``), side by side in the same run:

- per call: ``ToolRunner.run`` of a trivial tool (a user file returning ``ToolResult(True, "ok")``)
  and of the built-in calculator (``17*23``), after a warm-up call, ``--calls`` times each;
- four calls of the trivial tool at once (``run_many``, parallel), ``--calls`` / 4 times;
- discovery: building the registry (the built-ins, installed packages and the trivial tool's folder)
  in a fresh Python process, as ``riverse ask`` does, ``--starts`` times; and a second registry in the
  same process (warm: the agent's own imports done);
- the memory (RSS) of a worker process after discovery.

Ratios are process / thread. With ``--write`` the results replace the "Tools" section of
bench/RESULTS.md.

    .venv/bin/python -m bench.tools.run --write
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import agent
from agent.toolkit.runtime import ToolRunner
from agent.tools import ToolRegistry

from bench.results import write_section

COMMAND = ".venv/bin/python -m bench.tools.run --write"
MODES = ("thread", "process")
TRIVIAL = '''
import os
from agent.tools import BaseTool, ToolManifest, ToolResult

class Trivial(BaseTool):
    def manifest(self):
        return ToolManifest("trivial", "Does nothing", {"text": "anything"}, ["do nothing", "nothing at all"])

    def execute(self, params):
        if params.get("text") == "rss":
            status = open(f"/proc/{os.getpid()}/status").read()
            return ToolResult(True, next(l for l in status.splitlines() if l.startswith("VmRSS")).split()[1])
        return ToolResult(True, "ok")
'''


def registry(mode: str, folder: str) -> ToolRegistry:
    return ToolRegistry({"language": "en", "tools": {}}, folders=[folder], isolation=mode)


def per_call_us(runner: ToolRunner, name: str, params: dict[str, Any], calls: int, expected: str) -> list[float]:
    """Microseconds per call, one figure per call; every result is checked."""
    if runner.run(name, params).data != expected:  # warm-up: the tool's file is loaded in a worker
        raise SystemExit(f"{name} did not answer {expected!r}")
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        outcome = runner.run(name, params)
        times.append((time.perf_counter() - started) * 1e6)
        if outcome.data != expected:
            raise SystemExit(f"{name} answered {outcome.data!r}, not {expected!r}")
    return times


def parallel_us(runner: ToolRunner, batches: int) -> list[float]:
    calls = [("trivial", {"text": str(i)}, str(i)) for i in range(4)]
    runner.run_many(calls, parallel=True)
    times = []
    for _ in range(batches):
        started = time.perf_counter()
        outcomes = runner.run_many(calls, parallel=True)
        times.append((time.perf_counter() - started) * 1e6)
        if [o.data for o in outcomes] != ["ok"] * 4:
            raise SystemExit(f"parallel calls answered {[o.data for o in outcomes]}")
    return times


def start_child(mode: str, folder: str) -> None:
    """In a fresh process: build the registry twice and print both times (seconds) as JSON."""
    started = time.perf_counter()
    first = registry(mode, folder)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    second = registry(mode, folder)
    warm = time.perf_counter() - started
    tools = len(first), len(second)
    print(json.dumps({"cold": cold, "warm": warm, "tools": tools}))


def start_times(mode: str, folder: str, starts: int) -> tuple[list[float], list[float], int]:
    env_path = str(Path(agent.__file__).resolve().parent.parent)
    cold, warm, tools = [], [], 0
    for _ in range(starts):
        done = subprocess.run([sys.executable, "-m", "bench.tools.run", "--child", mode, folder], capture_output=True,
                              text=True, timeout=300, cwd=env_path)
        if done.returncode != 0:
            raise SystemExit(f"the {mode} start-up child failed: {done.stderr[-2000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        cold.append(figures["cold"] * 1000)
        warm.append(figures["warm"] * 1000)
        tools = figures["tools"][0]
    return cold, warm, tools


def measure(mode: str, folder: str, calls: int, starts: int) -> dict[str, Any]:
    reg = registry(mode, folder)
    runner = ToolRunner(reg)
    rss = [("trivial", {"text": "rss"}, str(i)) for i in range(4)]
    figures: dict[str, Any] = {}
    if mode == "process":  # the one worker so far is the one that loaded every file
        figures["rss_full_kb"] = int(runner.run("trivial", {"text": "rss"}).data)
    figures["trivial"] = per_call_us(runner, "trivial", {"text": "x"}, calls, "ok")
    figures["calculator"] = per_call_us(runner, "calculator", {"expression": "17*23"}, calls, "17*23 = 391")
    figures["parallel"] = parallel_us(runner, max(1, calls // 4))
    if mode == "process":  # workers started for parallel calls loaded the trivial tool's file only
        figures["rss_small_kb"] = min(int(o.data) for o in runner.run_many(rss, parallel=True))
    reg.close()
    figures["cold"], figures["warm"], figures["tools"] = start_times(mode, folder, starts)
    return figures


def row(what: str, unit: str, thread: list[float], process: list[float]) -> str:
    t, p = statistics.median(thread), statistics.median(process)
    tm, pm = statistics.mean(thread), statistics.mean(process)
    return f"| {what} | {t:.0f} | {p:.0f} | {p / t:.1f}× | {tm:.0f} | {pm:.0f} | {unit} |"


def report(results: dict[str, dict[str, Any]], calls: int, starts: int) -> str:
    thread, process = results["thread"], results["process"]
    lines = [
        "## Tools",
        "",
        "Tool calls and discovery in worker processes (`runtime.isolation: process`, the default) against",
        "in-process threads (`isolation: thread`), in the same run. Calls go through `ToolRunner.run`, the path",
        f"the agent uses ({calls} calls each after a warm-up; the parallel row is `run_many` of 4 calls at once).",
        f"Start-up is building the registry ({thread['tools']} tools: the built-ins, installed packages and one",
        f"user file) in a fresh Python process as `riverse ask` does, {starts} times; warm is a second registry",
        "in that process. 2 shared cores, so times are noisy. Command: `" + COMMAND + "`",
        "",
        "| measure | thread median | process median | process / thread | thread mean | process mean | unit |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
        row("call of a trivial tool", "µs", thread["trivial"], process["trivial"]),
        row("call of the calculator (17*23)", "µs", thread["calculator"], process["calculator"]),
        row("4 trivial calls at once (run_many)", "µs", thread["parallel"], process["parallel"]),
        row("registry start-up, fresh process", "ms", thread["cold"], process["cold"]),
        row("second registry, same process", "ms", thread["warm"], process["warm"]),
        "",
        f"Memory (RSS) of a worker process: {process['rss_full_kb'] / 1024:.0f} MB after discovery (every built-in "
        f"imported), {process['rss_small_kb'] / 1024:.0f} MB for one started for a parallel call (the trivial tool only).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="replace the Tools section of bench/RESULTS.md")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        start_child(*args.child)
        return
    if not (1 <= args.calls <= 100_000 and 1 <= args.starts <= 50):
        parser.error("--calls must be between 1 and 100000, --starts between 1 and 50")
    with tempfile.TemporaryDirectory(prefix="riverse-bench-tools-") as folder:
        Path(folder, "trivial.py").write_text(TRIVIAL, encoding="utf-8")
        results = {mode: measure(mode, folder, args.calls, args.starts) for mode in MODES}
    text = report(results, args.calls, args.starts)
    print(text)
    if args.write:
        write_section("tools", text)


if __name__ == "__main__":
    main()
