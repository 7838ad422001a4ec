"""A local HTTP proxy in front of an OpenAI-compatible server that can misbehave on purpose.

``mode`` chooses what the next chat requests get:

- ``"pass"``: forwarded as they are;
- ``"empty"``: an answer with no text and no tool call (``finish_reason: stop``), JSON or streamed;
- ``"cut"``: forwarded, but a stream is closed after its first piece of text (no ``finish_reason``,
  no ``[DONE]``), as a dropped connection leaves it;
- ``"delay"``: held ``delay_s`` seconds (longer than the client's timeout), then answered 504 without
  being forwarded.

Every request body is kept in ``requests``.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


class FaultProxy:
    def __init__(self, upstream: str, mode: str = "pass", delay_s: float = 0.0):
        target = urlsplit(upstream)
        self.upstream_host, self.upstream_port = target.hostname or "127.0.0.1", target.port or 80
        self.mode = mode
        self.delay_s = delay_s
        self.requests: list[dict[str, Any]] = []
        self.released = threading.Event()  # set when the proxy stops: a held request lets go at once
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # a response ends when the connection closes

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                status, headers, data = proxy.forward("GET", self.path, b"")
                self._reply(status, headers, data.read())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw or b"{}")
                proxy.requests.append(body)
                mode = proxy.mode
                if mode == "empty":
                    self._empty(bool(body.get("stream")))
                    return
                if mode == "delay":  # the client times out first; the model server is spared the request
                    proxy.released.wait(proxy.delay_s)
                    self._reply(504, {}, b'{"error": {"message": "held by the test proxy"}}')
                    return
                status, headers, upstream = proxy.forward("POST", self.path, raw)
                if mode == "cut" and body.get("stream") and status == 200:
                    self._cut(upstream)
                    return
                self._reply(status, headers, upstream.read())

            def _reply(self, status: int, headers: dict[str, str], data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", headers.get("content-type", "application/json"))
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    pass

            def _empty(self, stream: bool) -> None:
                base = {"id": "chatcmpl-empty", "created": 0, "model": "m"}
                if not stream:
                    message = {"role": "assistant", "content": ""}
                    body = {**base, "object": "chat.completion", "choices": [
                        {"index": 0, "message": message, "finish_reason": "stop"}]}
                    self._reply(200, {}, json.dumps(body).encode())
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for delta, finish in (({"role": "assistant", "content": ""}, None), ({}, "stop")):
                    chunk = {**base, "object": "chat.completion.chunk",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def _cut(self, upstream: http.client.HTTPResponse) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for line in upstream:
                    self.wfile.write(line)
                    if line.startswith(b"data:") and b'"content": "' in line.replace(b'":"', b'": "') \
                            and b'"content": ""' not in line.replace(b'":"', b'": "'):
                        break  # the first piece of text went out: drop the rest
                self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def forward(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], http.client.HTTPResponse]:
        connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=600)
        connection.request(method, path, body=body or None, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FaultProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
