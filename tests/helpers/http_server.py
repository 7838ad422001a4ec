"""A local HTTP server for tests of the network tools: canned responses by path, every request recorded."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"


# A route answers with a Reply, or is a function of the request's query string that returns one.
Route = Reply | Callable[[str], Reply]


class LocalServer:
    """``with LocalServer({"/": Reply(body="<p>hi</p>")}) as server: server.url("/")``.

    Unknown paths answer 404, or what ``fallback(path, query)`` returns. ``requests`` holds the path
    (with query) of every request received.
    """

    def __init__(
        self,
        routes: dict[str, Route] | None = None,
        host: str = "127.0.0.1",
        fallback: Callable[[str, str], Reply] | None = None,
    ):
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[str] = []
        self.release = threading.Event()  # a handler may wait on it (released when the server stops)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append(self.path)
                parts = urlsplit(self.path)
                route = server.routes.get(parts.path)
                reply = route(parts.query) if callable(route) else route
                if reply is None and fallback is not None:
                    reply = fallback(parts.path, parts.query)
                if reply is None:
                    reply = Reply(404, "not found", content_type="text/plain")
                body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: fine
                    pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
