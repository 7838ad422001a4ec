"""A local stand-in for wttr.in's ``/{city}?format=j1`` JSON, for the weather tool's tests.

Every request is recorded: ``paths`` (path and query as sent) and ``cities`` (the decoded city). A few
city names answer like wttr.in's failure cases: ``Nowhere`` (404), ``Html`` (an HTML page), ``Empty``
(JSON without ``current_condition``) and ``Broken`` (503).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

FAILURES = {
    "Nowhere": (404, "text/plain", b"Unknown location; please try ~Nowhere"),
    "Html": (200, "text/html", b"<html><body>Weather report</body></html>"),
    "Empty": (200, "application/json", b'{"data": []}'),
    "Broken": (503, "text/plain", b"Service Unavailable"),
}


class WttrStandIn:
    """``with WttrStandIn(report) as wttr: ...`` answers every city with ``report`` (a j1 document)."""

    def __init__(self, report: dict[str, Any]):
        self.paths: list[str] = []
        self.cities: list[str] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                stand_in.paths.append(self.path)
                city = unquote(urlsplit(self.path).path.lstrip("/"))
                stand_in.cities.append(city)
                status, content_type, body = FAILURES.get(
                    city, (200, "application/json; charset=utf-8", json.dumps(report).encode())
                )
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def clear(self) -> None:
        self.paths.clear()
        self.cities.clear()

    def __enter__(self) -> "WttrStandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
