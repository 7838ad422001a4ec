"""One ``riverse serve`` replica in a process of its own, for tests and the load benchmark.

    python -m tests.helpers.replica HOME

serves the Riverse home ``HOME`` (its settings.yaml names the store) on a free loopback port with
:func:`route` as the model, prints the port, and stops when its stdin closes.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.providers.fake import ToolCall


def route(messages: list[dict[str, Any]], tools: Any) -> Any:
    """The scripted model: ``note X`` adds a note (a write: it asks for approval), ``find X`` searches
    the notes, ``calc`` uses the calculator; anything else is answered with the user messages seen."""
    last = messages[-1]
    if last["role"] == "tool":
        return f"Done: {last['content']}"
    text = str(last["content"])
    if text.startswith("note "):
        return ToolCall("notes", {"action": "add", "text": text[5:]})
    if text.startswith("find "):
        return ToolCall("notes", {"action": "search", "text": text[5:]})
    if text == "calc":
        return ToolCall("calculator", {"expression": "6*7"})
    seen = [str(m["content"]) for m in messages if m["role"] == "user"]
    return f"I have seen {len(seen)} messages: " + " | ".join(seen)


def main(home: str) -> None:
    from agent.app import App
    from agent.providers.fake import ScriptedProvider
    from agent.server import build_server

    app = App(home=home, provider=ScriptedProvider([], default=route))  # type: ignore[arg-type]
    server = build_server(app, host="127.0.0.1", port=0, log_level="warning")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        thread.join(0.01)
    print(server.servers[0].sockets[0].getsockname()[1], flush=True)
    sys.stdin.read()  # the parent closes our stdin to stop us
    server.should_exit = True
    thread.join(30)


@contextmanager
def replica(home: Path, root: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """Start a replica serving ``home`` (run from ``root``, the checkout); yield its base URL and process."""
    child = subprocess.Popen([sys.executable, "-m", "tests.helpers.replica", str(home)], cwd=root,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = child.stdout.readline().strip()  # type: ignore[union-attr]
        if not port.isdigit():
            raise RuntimeError(f"the replica did not start (exit status {child.wait(30)})")
        yield f"http://127.0.0.1:{port}", child
    finally:
        if child.poll() is None:
            child.stdin.close()  # type: ignore[union-attr]
            try:
                child.wait(30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)


if __name__ == "__main__":
    main(sys.argv[1])
