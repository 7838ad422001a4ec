"""A local OpenAI-compatible chat server for tests: scripted replies, every request recorded."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAIServer:
    """Answers ``POST /v1/chat/completions`` with the next scripted reply (JSON or SSE stream).

    A reply is ``{"content": "text"}``, ``{"tool_calls": [{"name": ..., "arguments": {...} or "raw"}]}``
    or ``{"status": 400, "error": "message"}``.
    """

    def __init__(self, replies: list[dict[str, Any]] | None = None):
        self.replies = list(replies or [])
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                reply = server.replies.pop(0) if server.replies else {"content": "(no scripted reply left)"}
                if "status" in reply:
                    self._json(reply["status"], {"error": {"message": reply.get("error", "error"), "type": "invalid_request_error"}})
                    return
                if body.get("stream"):
                    self._stream(reply, body)
                else:
                    self._json(200, server.completion(reply))

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: dict, body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                chunks = server.chunks(reply)
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunks.append({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                                   "model": "test-model", "choices": [],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def _tool_calls(reply: dict) -> list[dict]:
        return [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    "name": c["name"],
                    "arguments": c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"]),
                },
            }
            for i, c in enumerate(reply.get("tool_calls", []))
        ]

    def completion(self, reply: dict) -> dict:
        calls = self._tool_calls(reply)
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "test-model",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def chunks(self, reply: dict) -> list[dict]:
        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {
                "id": "chatcmpl-test",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "test-model",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        out = [chunk({"role": "assistant", "content": ""})]
        content = reply.get("content") or ""
        for i in range(0, len(content), 5):
            out.append(chunk({"content": content[i : i + 5]}))
        for i, call in enumerate(self._tool_calls(reply)):
            args = call["function"]["arguments"]
            out.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                              "function": {"name": call["function"]["name"], "arguments": ""}}]}))
            half = len(args) // 2
            for part in (args[:half], args[half:]):
                out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}))
        out.append(chunk({}, "tool_calls" if reply.get("tool_calls") else "stop"))
        return out
