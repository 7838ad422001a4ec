"""A local stand-in for wttr.in's ``/{city}?format=j1`` JSON, for the weather tool's tests.

Every request is recorded: ``paths`` (path and query as sent) and ``cities`` (the decoded city). A few
city names answer like wttr.in's failure cases: ``Nowhere`` (404), ``Html`` (an HTML page), ``Empty``
(JSON without ``current_condition``) and ``Broken`` (503).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.helpers.http_server import LocalServer, Reply

FAILURES = {
    "Nowhere": Reply(404, b"Unknown location; please try ~Nowhere", content_type="text/plain"),
    "Html": Reply(200, b"<html><body>Weather report</body></html>", content_type="text/html"),
    "Empty": Reply(200, b'{"data": []}', content_type="application/json"),
    "Broken": Reply(503, b"Service Unavailable", content_type="text/plain"),
}


class WttrStandIn(LocalServer):
    """``with WttrStandIn(report) as wttr: ...`` answers every city with ``report`` (a j1 document)."""

    def __init__(self, report: dict[str, Any]):
        answer = Reply(200, json.dumps(report).encode(), content_type="application/json; charset=utf-8")
        super().__init__(fallback=lambda path, query: FAILURES.get(_city(path), answer))

    @property
    def base_url(self) -> str:
        return self.url("").rstrip("/")

    @property
    def paths(self) -> list[str]:
        return self.requests

    @property
    def cities(self) -> list[str]:
        return [_city(urlsplit(path).path) for path in self.requests]

    def clear(self) -> None:
        self.requests.clear()


def _city(path: str) -> str:
    return unquote(path.lstrip("/"))
