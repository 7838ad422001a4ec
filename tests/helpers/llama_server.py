"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``) with the embedded
model, on a free loopback port, for tests that talk to a real model server."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_DEADLINE_S = 240.0  # loading a 0.5B model takes seconds; a busy 2-core machine may take much longer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def llama_server(model: Path, log: Path, *, n_ctx: int = 4096) -> Iterator[str]:
    """Start the server (through :mod:`tests.helpers.llama_server_main`), wait until ``/v1/models`` answers, yield its base URL (``.../v1``), stop it."""
    port = free_port()
    command = [sys.executable, "-m", "tests.helpers.llama_server_main", "--model", str(model), "--chat_format",
               "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
    base = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_until_ready(process, base, log)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(30)


def _wait_until_ready(process: subprocess.Popen, base: str, log: Path) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    pause = threading.Event()
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}:\n{_tail(log)}")
        try:
            if httpx.get(f"{base}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        pause.wait(0.25)
    raise TimeoutError(f"llama_cpp.server did not answer within {START_DEADLINE_S:g} s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-20:])
