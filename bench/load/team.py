"""Load benchmark for a team's Riverse: two ``riverse serve`` replicas on one PostgreSQL against one
replica on SQLite (the default), under the same clients.

Each turn is one calculator call and an answer from the scripted fake provider
(``tests/helpers/replica.py``), so the figures measure the server and its store, not a model. Each
replica is a process of its own on 127.0.0.1; with two, the clients alternate between them as a
round-robin load balancer would. Every response is checked (status 200, the scripted answer, one
successful tool call), and afterwards the store must hold every message and tool call the turns made
("lost rows" counts any missing). PostgreSQL is a throwaway cluster of the distribution's server
(``tests/helpers/postgres.py``), or ``--database-url`` for one of your own (it must be empty).

    .venv/bin/python -m bench.load.team --write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from agent.storage import open_store
from bench.load.run import Connection, Run
from bench.results import write_section

ROOT = Path(__file__).resolve().parent.parent.parent
COMMAND = ".venv/bin/python -m bench.load.team --write"
QUESTION = "calc"
WARM_UP = 16


def start_replica(home: Path, stack: ExitStack) -> int:
    from tests.helpers.replica import replica

    base, _ = stack.enter_context(replica(home, ROOT))
    return int(base.rsplit(":", 1)[1])


def make_home(folder: Path, name: str, url: str) -> Path:
    home = folder / name
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text(f"storage:\n  url: {url}\n")
    return home


async def drive(ports: list[int], clients: int, requests: int, run: Run) -> None:
    body = json.dumps({"model": "riverse", "messages": [{"role": "user", "content": QUESTION}]}).encode()
    async def warm(port: int) -> None:
        connection = Connection(port)
        await asyncio.wait_for(connection.post("/v1/chat/completions", body), 60)
        connection.close()

    # Warm-up, WARM_UP requests at once per replica: imports, the store's connections, and every tool
    # worker process started, so that neither run counts starting them.
    await asyncio.gather(*(warm(port) for port in ports for _ in range(WARM_UP)))

    async def client(port: int) -> None:
        connection = Connection(port)
        for _ in range(requests):
            started = time.perf_counter()
            try:
                status, _, data = await asyncio.wait_for(connection.post("/v1/chat/completions", body), 60)
                message = json.loads(data)["choices"][0]["message"] if status == 200 else {}
                ok = str(message.get("content", "")).startswith("Done: ") and \
                    [c["success"] for c in message["riverse_tool_calls"]] == [True]
                problem = "" if ok else f"HTTP {status}: {data[:200]!r}"
            except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, KeyError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
                connection.close()
                connection = Connection(port)
            elapsed = (time.perf_counter() - started) * 1000
            if problem:
                run.errors.append(problem)
            else:
                run.latencies_ms.append(elapsed)
        connection.close()

    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(client(ports[i % len(ports)]) for i in range(clients))), timeout=600)
    run.seconds = time.perf_counter() - started


def lost_rows(url: str, turns: int) -> int:
    """Messages and tool calls the turns made that the store does not hold (each turn: 2 and 1)."""
    store = open_store(url)
    try:
        messages = int(store.query("SELECT count(*) AS n FROM messages")[0]["n"])
        calls = int(store.query("SELECT count(*) AS n FROM tool_calls")[0]["n"])
    finally:
        store.close()
    return max(0, 2 * turns - messages) + max(0, turns - calls)


def measure(name: str, url: str, replicas: int, clients: int, requests: int, folder: Path) -> tuple[Run, int]:
    run = Run(name)
    with ExitStack() as stack:
        ports = [start_replica(make_home(folder, f"{name[:3]}-{i}", url), stack) for i in range(replicas)]
        asyncio.run(drive(ports, clients, requests, run))
    return run, lost_rows(url, clients * requests + replicas * WARM_UP)


def report(rows: list[tuple[Run, int]], clients: int, requests: int) -> str:
    base = rows[0][0]
    lines = [
        "### Load: two replicas on PostgreSQL",
        "",
        f"{clients} concurrent clients × {requests} requests (non-streaming chat completions, each turn one "
        "calculator call and an answer from the scripted fake provider); with two replicas the clients alternate "
        "between them. Each replica: its own process, 16 turn workers, tool calls in worker processes. "
        f"PostgreSQL on the same machine, {os.cpu_count()} CPU cores shared by the clients, the replicas, their tool "
        "workers and the database: a second replica adds capacity only where there are cores to run it. "
        "Ratios are against one replica on SQLite in the same run. "
        f"Each replica is warmed up with {WARM_UP} requests at once first (its tool workers started). "
        f"Lost rows: messages and tool calls the turns made that the store does not hold. Command: `{COMMAND}`",
        "",
        "| run | requests | errors | lost rows | req/s | p50 ms | p99 ms | req/s vs 1 × SQLite | p99 vs 1 × SQLite |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run, lost in rows:
        lines.append(
            f"| {run.name} | {run.count} | {len(run.errors)} | {lost} | {run.rps:.0f} | {run.percentile(0.5):.1f} "
            f"| {run.percentile(0.99):.1f} | {run.rps / base.rps:.2f}× | {run.percentile(0.99) / base.percentile(0.99):.2f}× |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=20, help="requests per client")
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: a throwaway cluster)")
    parser.add_argument("--write", action="store_true", help="replace this section of bench/RESULTS.md")
    args = parser.parse_args()
    if not (1 <= args.clients <= 200 and 1 <= args.requests <= 200):
        parser.error("--clients and --requests must be between 1 and 200")
    with ExitStack() as stack:
        url = args.database_url
        if url is None:
            from tests.helpers.postgres import Cluster, server_binaries, skip_reason

            if skip_reason():
                raise SystemExit(f"cannot start PostgreSQL: {skip_reason()}")
            cluster = Cluster(server_binaries())  # type: ignore[arg-type]
            stack.callback(cluster.stop)
            cluster.start()
            url = cluster.url
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="riverse-team-load-")))
        plans = [("1 replica, SQLite", f"sqlite://{folder}/one.db", 1), ("2 replicas, PostgreSQL", url, 2)]
        rows = []
        for name, store_url, replicas in plans:
            rows.append(measure(name, store_url, replicas, args.clients, args.requests, folder))
            run, lost = rows[-1]
            print(f"{name}: {run.count} requests, {len(run.errors)} errors, {lost} lost rows, {run.rps:.0f} req/s, "
                  f"p50 {run.percentile(0.5):.1f} ms, p99 {run.percentile(0.99):.1f} ms", file=sys.stderr)
            for problem in run.errors[:5]:
                print(f"  error: {problem}", file=sys.stderr)
    text = report(rows, args.clients, args.requests)
    print(text)
    if args.write:
        write_section("load-team", text)
    if any(run.errors or lost for run, lost in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
