"""web_search: off by default; when enabled, a local fake SearXNG (JSON API) or a fake ddgs module."""

from __future__ import annotations

import json
import sys
import types
from urllib.parse import parse_qs

import pytest

from agent.tools import ToolRegistry
from agent.tools.web_search import WebSearchTool
from tests.helpers.http_server import LocalServer, Reply

RESULTS = [
    {"title": "Python 3.13 released", "url": "https://python.example/313", "content": "The   new release brings\na JIT."},
    {"title": "What's new", "url": "https://docs.example/whatsnew", "content": "x" * 400},
    {"title": "", "url": "https://untitled.example/", "content": ""},
    {"title": "no url, skipped", "content": "dropped"},
]


def searcher(language: str = "en", **section) -> WebSearchTool:
    return WebSearchTool({"language": language, "tools": {"web_search": {"enabled": True, **section}}})


@pytest.fixture
def searxng():
    def search(query: str) -> Reply:
        args = parse_qs(query)
        if args.get("format") != ["json"]:
            return Reply(403, "json format not enabled", content_type="text/plain")
        return Reply(body=json.dumps({"query": args["q"][0], "results": RESULTS}), content_type="application/json")

    with LocalServer({"/search": search}) as server:
        yield server


@pytest.mark.parametrize(
    "language,expected",
    [
        ("en", "search queries leave this computer; to enable it set tools.web_search.enabled: true"),
        ("zh", "默认关闭，因为搜索内容会发送到这台电脑之外"),
        ("ja", "検索語がこのコンピューターの外に送られるため既定ではオフです"),
    ],
)
def test_off_by_default_and_the_registry_says_why(language, expected):
    registry = ToolRegistry({"language": language, "tools": {}}, packages=False)
    assert "web_search" not in registry
    entry = next(e for e in registry.entries(include_unavailable=True) if e.name == "web_search")
    assert not entry.available and expected in entry.reason
    assert "riverse[search]" in entry.reason and "searxng_url" in entry.reason


def test_enabled_in_settings_it_is_registered():
    registry = ToolRegistry({"language": "en", "tools": {"web_search": {"enabled": True}}}, packages=False)
    assert "web_search" in registry and registry.entry("web_search").manifest.risk == "network"


def test_searxng_results_are_formatted_and_capped(searxng):
    result = searcher(searxng_url=searxng.url("/"), max_results=3).execute({"query": "python  release"})
    assert result.success, result.error
    assert result.data == "\n".join([
        "Web results for 'python release':",
        "1. Python 3.13 released",
        "   https://python.example/313",
        "   The new release brings a JIT.",
        "2. What's new",
        "   https://docs.example/whatsnew",
        "   " + "x" * 300 + "…",
        "3. https://untitled.example/",
        "   https://untitled.example/",
    ])
    assert parse_qs(searxng.requests[0].split("?", 1)[1]) == {"q": ["python release"], "format": ["json"]}


def test_searxng_under_a_path_and_no_results(searxng):
    searxng.routes["/searx/search"] = Reply(body='{"results": []}', content_type="application/json")
    result = searcher("zh", searxng_url=searxng.url("/searx")).execute({"query": "没有结果"})
    assert result.success and result.data == "没有找到“没有结果”的结果。"


def test_searxng_errors_are_explained(searxng):
    searxng.routes["/forbidden/search"] = Reply(403, "forbidden", content_type="text/plain")
    forbidden = searcher(searxng_url=searxng.url("/forbidden")).execute({"query": "q"})
    assert not forbidden.success and "HTTP 403. If it is 403, enable the JSON format" in forbidden.error
    searxng.routes["/html/search"] = Reply(body="<html>results</html>")
    html = searcher(searxng_url=searxng.url("/html")).execute({"query": "q"})
    assert not html.success and "did not answer with search results in JSON" in html.error


def test_an_unreachable_searxng_is_reported():
    with LocalServer() as server:
        url = server.url("/")
    result = searcher("ja", searxng_url=url, request_timeout=2).execute({"query": "q"})
    assert not result.success and result.error.startswith(f"検索サービス（{url}）に接続できませんでした: ConnectionError")


def test_without_searxng_and_without_ddgs_it_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ddgs", None)  # makes "import ddgs" raise ImportError
    result = searcher().execute({"query": "q"})
    assert not result.success
    assert "pip install 'riverse[search]'" in result.error and "tools.web_search.searxng_url" in result.error


def test_ddgs_is_used_when_installed(monkeypatch):
    calls = []

    class FakeDDGS:
        def __init__(self, timeout=None):
            calls.append(("init", timeout))

        def text(self, query, max_results=None):
            calls.append(("text", query, max_results))
            return [{"title": "Tokyo Marathon", "href": "https://marathon.example/", "body": "Results and news"}]

    monkeypatch.setitem(sys.modules, "ddgs", types.SimpleNamespace(DDGS=FakeDDGS))
    result = searcher(max_results=2, request_timeout=7).execute({"query": "tokyo marathon"})
    assert result.data.splitlines()[1:] == ["1. Tokyo Marathon", "   https://marathon.example/", "   Results and news"]
    assert calls == [("init", 7), ("text", "tokyo marathon", 2)]


def test_ddgs_failures_become_a_clear_error(monkeypatch):
    class Broken:
        def __init__(self, timeout=None):
            pass

        def text(self, query, max_results=None):
            raise RuntimeError("rate limited")

    monkeypatch.setitem(sys.modules, "ddgs", types.SimpleNamespace(DDGS=Broken))
    result = searcher().execute({"query": "q"})
    assert not result.success and result.error == "The search service (ddgs) could not be reached: RuntimeError: rate limited."


def test_empty_query_and_manifests():
    assert "No search query was given" in searcher().execute({"query": "  "}).error
    manifests = [searcher(lang).manifest() for lang in ("en", "zh", "ja")]
    assert len({m.description for m in manifests}) == 3
    assert all(m.risk == "network" and m.required == ["query"] and m.timeout == 15 for m in manifests)
