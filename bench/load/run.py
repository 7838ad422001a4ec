"""Load benchmark of ``riverse serve``: many concurrent clients against the OpenAI-compatible API.

Each turn is the same two-step exchange with the scripted fake provider (the model calls the
calculator, then answers from its result), so the figures measure the server, not a model:

- baseline: the turns run in-process with ``Agent.ask``, ``--clients`` threads at once, no HTTP;
- serve: ``riverse serve``'s server in a subprocess on 127.0.0.1, ``--clients`` concurrent HTTP clients
  each sending ``--requests`` non-streaming chat completions one after another;
- serve, FIFO gate: the same, with the provider declaring ``concurrency = 1`` like the embedded
  llama.cpp model, so every model call passes the server's first-come, first-served gate.

Every response is checked (status 200, the scripted answer, one successful tool call); any other is
an error. Loopback only, bounded in count and time. Results are reported as ratios to the baseline
run in the same invocation, and with ``--write`` replace the "Load" section of bench/RESULTS.md.

    .venv/bin/python -m bench.load.run --write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from agent.app import App
from agent.providers.base import Capabilities
from agent.providers.fake import ScriptedProvider, ToolCall

from bench.results import write_section

QUESTION = "what is 6*7?"
ANSWER = "The answer is 6*7 = 42."
COMMAND = ".venv/bin/python -m bench.load.run --write"


def route(messages: list[dict[str, Any]], tools: Any) -> Any:
    """The scripted model: call the calculator, then answer from its result."""
    last = messages[-1]
    if last["role"] == "tool":
        return f"The answer is {last['content']}."
    return ToolCall("calculator", {"expression": "6*7"})


def make_app(home: str, turns: int, single_generation: bool = False) -> App:
    provider = ScriptedProvider([route] * (2 * turns))
    if single_generation:
        provider.capabilities = Capabilities(native_tools=True, concurrency=1)  # as the embedded model declares
    return App(home=home, provider=provider)


@dataclass
class Run:
    name: str
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    queue_wait_ms: list[float] = field(default_factory=list)
    workers: int = 0  # the server's turn workers (settings), for the report

    @property
    def count(self) -> int:
        return len(self.latencies_ms) + len(self.errors)

    @property
    def rps(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        data = sorted(self.latencies_ms)
        return data[min(len(data) - 1, int(q * len(data)))] if data else float("nan")


# ------------------------------------------------------------------- baseline
def run_baseline(clients: int, requests: int, home: str) -> Run:
    app = make_app(home, clients * requests + clients)
    run = Run("baseline: Agent.ask in-process, no HTTP")
    run.workers = app.settings.server.workers
    app.agent().ask(QUESTION)  # warm-up: imports, database, registry
    lock = threading.Lock()

    def client() -> None:
        for _ in range(requests):
            started = time.perf_counter()
            try:
                result = app.agent().ask(QUESTION)
                ok = result.answer == ANSWER and [o.success for o in result.tool_calls] == [True]
                problem = "" if ok else f"unexpected turn: {result.answer!r}"
            except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                problem = f"{type(exc).__name__}: {exc}"
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if problem:
                    run.errors.append(problem)
                else:
                    run.latencies_ms.append(elapsed)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(client) for _ in range(clients)]:
            future.result(timeout=600)
    run.seconds = time.perf_counter() - started
    return run


# ---------------------------------------------------------------------- serve
def serve_child(home: str, turns: int, single_generation: bool) -> None:
    """In the subprocess: serve on a free loopback port, print it, stop when stdin closes."""
    from agent.server import build_server

    server = build_server(make_app(home, turns, single_generation), host="127.0.0.1", port=0, log_level="warning")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        thread.join(0.01)
    print(server.servers[0].sockets[0].getsockname()[1], flush=True)
    sys.stdin.read()  # the parent closes our stdin to stop us
    server.should_exit = True
    thread.join(30)


class Connection:
    """A minimal HTTP/1.1 keep-alive client for the server's JSON answers.

    httpx spends about as much CPU per request as the server does (measured here: ~4 ms), so with
    it the benchmark measured the client: half the throughput and a tail four times longer.
    """

    def __init__(self, port: int):
        self.port = port
        self.stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.stream is None:
            self.stream = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.stream
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        writer.write(head + body)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        return int(lines[0].split()[1]), headers, await reader.readexactly(int(headers["content-length"]))

    def close(self) -> None:
        if self.stream is not None:
            self.stream[1].close()


async def drive(port: int, clients: int, requests: int, run: Run) -> None:
    body = json.dumps({"model": "riverse", "messages": [{"role": "user", "content": QUESTION}]}).encode()
    warm = Connection(port)
    await asyncio.wait_for(warm.post("/v1/chat/completions", body), 60)
    warm.close()

    async def client() -> None:
        connection = Connection(port)
        for _ in range(requests):
            started = time.perf_counter()
            try:
                status, headers, data = await asyncio.wait_for(connection.post("/v1/chat/completions", body), 60)
                message = json.loads(data)["choices"][0]["message"] if status == 200 else {}
                ok = message.get("content") == ANSWER and [c["success"] for c in message["riverse_tool_calls"]] == [True]
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
                run.queue_wait_ms.append(float(headers["x-riverse-queue-wait-ms"]))
        connection.close()

    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(client() for _ in range(clients))), timeout=600)
    run.seconds = time.perf_counter() - started


def run_serve(clients: int, requests: int, home: str, single_generation: bool) -> Run:
    name = "serve, FIFO gate (provider concurrency = 1)" if single_generation else "serve: HTTP, 127.0.0.1"
    run = Run(name)
    args = [sys.executable, __file__, "--child", home, str(clients * requests + 1)]
    child = subprocess.Popen(args + (["--single-generation"] if single_generation else []),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = int(child.stdout.readline())  # type: ignore[union-attr]
        asyncio.run(drive(port, clients, requests, run))
    finally:
        child.stdin.close()  # type: ignore[union-attr]
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)
    return run


# -------------------------------------------------------------------- report
def report(runs: list[Run], clients: int, requests: int, workers: int) -> str:
    base = runs[0]
    lines = [
        "## Load",
        "",
        f"`riverse serve` under {clients} concurrent clients × {requests} requests (non-streaming chat completions,",
        "each turn one calculator call and an answer from the scripted fake provider), beside the same turns",
        f"run in-process with `Agent.ask` from {clients} threads. Server: {workers} turn workers, uvicorn, one process.",
        f"Ratios are against the baseline of the same run. Command: `{COMMAND}`",
        "",
        "| run | requests | errors | req/s | p50 ms | p99 ms | req/s vs baseline | p50 vs baseline | p99 vs baseline |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in runs:
        lines.append(
            f"| {r.name} | {r.count} | {len(r.errors)} | {r.rps:.0f} | {r.percentile(0.5):.1f} | {r.percentile(0.99):.1f} "
            f"| {r.rps / base.rps:.2f}× | {r.percentile(0.5) / base.percentile(0.5):.2f}× "
            f"| {r.percentile(0.99) / base.percentile(0.99):.2f}× |"
        )
    gated = [r for r in runs if r.queue_wait_ms and "FIFO" in r.name]
    for r in gated:
        waited = [w for w in r.queue_wait_ms if w > 0]
        summary = (f"FIFO gate: {len(waited)} of {len(r.queue_wait_ms)} requests queued for the model; reported "
                   f"wait (X-Riverse-Queue-Wait-Ms) median {statistics.median(waited or [0]):.0f} ms, "
                   f"max {max(waited or [0]):.0f} ms.")
        lines += ["", summary]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=20, help="requests per client")
    parser.add_argument("--write", action="store_true", help="replace the Load section of bench/RESULTS.md")
    parser.add_argument("--child", nargs=2, metavar=("HOME", "TURNS"), help=argparse.SUPPRESS)
    parser.add_argument("--single-generation", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        serve_child(args.child[0], int(args.child[1]), args.single_generation)
        return
    if not (1 <= args.clients <= 200 and 1 <= args.requests <= 200):
        parser.error("--clients and --requests must be between 1 and 200")
    runs = []
    for step in ("baseline", "serve", "gated"):
        with tempfile.TemporaryDirectory(prefix="riverse-load-") as home:
            if step == "baseline":
                runs.append(run_baseline(args.clients, args.requests, home))
            else:
                runs.append(run_serve(args.clients, args.requests, home, single_generation=step == "gated"))
        last = runs[-1]
        print(f"{last.name}: {last.count} requests, {len(last.errors)} errors, {last.rps:.0f} req/s, "
              f"p50 {last.percentile(0.5):.1f} ms, p99 {last.percentile(0.99):.1f} ms", file=sys.stderr)
        for problem in last.errors[:5]:
            print(f"  error: {problem}", file=sys.stderr)
    text = report(runs, args.clients, args.requests, runs[0].workers)
    print(text)
    if args.write:
        write_section("load", text)
    if any(r.errors for r in runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
