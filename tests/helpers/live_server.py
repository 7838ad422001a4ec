"""Run ``riverse serve``'s uvicorn server in a thread on 127.0.0.1, on a free port, for a test."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from agent.app import App
from agent.server import build_server


@contextmanager
def serving(app: App, deadline_s: float = 30.0) -> Iterator[str]:
    """Start the server for ``app``; yield its base URL (``http://127.0.0.1:PORT``); stop it afterwards."""
    server = build_server(app, host="127.0.0.1", port=0, log_level="warning")
    thread = threading.Thread(target=server.run, name="riverse-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + deadline_s
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server thread exited before it started")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server did not start within {deadline_s} s")
        thread.join(0.01)  # waits on the server thread, returns early if it dies
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(deadline_s)
