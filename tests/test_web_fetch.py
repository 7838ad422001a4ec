"""web_fetch against a local HTTP server: readable text, encodings, caps, redirects, errors.

The server runs on 127.0.0.1, so these tests allow that host explicitly (``allow_hosts``); the
refusals of loopback and private addresses are in tests/test_robustness.py.
"""

from __future__ import annotations

import socket

import pytest

from agent.tools import web_fetch
from agent.tools.web_fetch import WebFetchTool, html_to_text
from tests.helpers.http_server import LocalServer, Reply

ARTICLE = """<!doctype html>
<html><head><title>Riverse  notes</title><style>body { color: red }</style>
<script>var tracking = "do not show";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Passports</h1>
<p>Renew your passport <a href="/renew">six months</a> before it <b>expires</b>.</p>
<h2>Forms</h2>
<ul><li>Form A</li><li>Form B</li></ul>
<p>Line one<br>Line two</p>
<noscript>enable javascript</noscript>
</body></html>"""


def tool(language: str = "en", **section) -> WebFetchTool:
    return WebFetchTool({"language": language, "tools": {"web_fetch": {"allow_hosts": ["127.0.0.1"], **section}}})


@pytest.fixture
def server():
    with LocalServer({"/article": Reply(body=ARTICLE)}) as running:
        yield running


def test_html_becomes_readable_text_with_title_and_headings(server):
    result = tool().execute({"url": server.url("/article")})
    assert result.success, result.error
    assert result.data == "\n".join([
        f"URL: {server.url('/article')}",
        "Title: Riverse notes",
        "",
        "# Passports",
        "Renew your passport six months before it expires.",
        "## Forms",
        "Form A",
        "Form B",
        "Line one",
        "Line two",
    ])
    for hidden in ("tracking", "color: red", "Home", "About", "enable javascript"):
        assert hidden not in result.data


def test_html_to_text_uses_the_declared_charset():
    page = '<html><head><meta charset="shift_jis"><title>旅券</title></head><body><p>パスポートの期限は五月</p></body></html>'
    title, text = html_to_text(page.encode("shift_jis"))
    assert (title, text) == ("旅券", "パスポートの期限は五月")


def test_charset_from_the_content_type_header(server):
    server.routes["/gbk"] = Reply(body="<p>我的护照五月到期</p>".encode("gbk"), content_type="text/html; charset=gbk")
    result = tool("zh").execute({"url": server.url("/gbk")})
    assert result.data.endswith("我的护照五月到期")


def test_plain_text_and_json_are_returned_as_they_are(server):
    server.routes["/notes.txt"] = Reply(body="line 1\nline 2\n", content_type="text/plain; charset=utf-8")
    server.routes["/data.json"] = Reply(body='{"ok": true}', content_type="application/json")
    assert tool().execute({"url": server.url("/notes.txt")}).data.endswith("\n\nline 1\nline 2")
    assert tool().execute({"url": server.url("/data.json")}).data.endswith('\n\n{"ok": true}')


def test_non_text_content_is_refused(server):
    server.routes["/photo"] = Reply(body=b"\x89PNG" + bytes(100), content_type="image/png")
    result = tool("ja").execute({"url": server.url("/photo")})
    assert not result.success
    assert result.error == f"「{server.url('/photo')}」はテキストのページではありません（種類: image/png）。web_fetch が読めるのは HTML とテキストだけです。"


def test_http_errors_are_reported_with_the_status(server):
    result = tool().execute({"url": server.url("/missing")})
    assert not result.success and result.error == f"'{server.url('/missing')}' answered HTTP 404 Not Found."


def test_size_caps_cut_the_page_and_say_so(server):
    server.routes["/big"] = Reply(body="<p>" + "word " * 400_000 + "</p>")
    by_bytes = tool(max_bytes=2000).execute({"url": server.url("/big")})
    assert by_bytes.success
    body = by_bytes.data.split("\n\n", 1)[1]
    assert body.startswith("word word") and len(body) < 2100
    assert body.endswith("characters are shown]")
    by_chars = tool(max_chars=100).execute({"url": server.url("/big")})
    assert by_chars.data.endswith("word\n[the page is longer; only the first 100 characters are shown]")


def test_a_slow_server_times_out(server):
    def slow(query: str) -> Reply:
        server.release.wait(10)
        return Reply(body="late")

    server.routes["/slow"] = slow
    result = tool(request_timeout=0.3).execute({"url": server.url("/slow")})
    assert not result.success and result.error == f"'{server.url('/slow')}' did not answer within 0.3 seconds. Try again later."


def test_redirects_are_followed_and_the_final_url_is_shown(server):
    server.routes["/old"] = Reply(301, headers={"Location": "/article"})
    result = tool().execute({"url": server.url("/old")})
    assert result.success and result.data.startswith(f"URL: {server.url('/article')}\nTitle: Riverse notes")
    assert server.requests == ["/old", "/article"]


def test_redirect_loops_stop(server):
    server.routes["/loop"] = Reply(302, headers={"Location": "/loop"})
    result = tool(max_redirects=3).execute({"url": server.url("/loop")})
    assert not result.success and "redirected more than 3 times; giving up" in result.error
    assert server.requests == ["/loop"] * 4


@pytest.mark.parametrize(
    "url,message",
    [
        ("file:///etc/passwd", "is not an http or https address"),
        ("ftp://example.com/file", "is not an http or https address"),
        ("javascript:alert(1)", "is not an http or https address"),
        ("example.com/page", "is not an http or https address"),
        ("http:///path-only", "has no host name"),
        ("", "No URL was given"),
    ],
)
def test_other_schemes_and_bad_urls_are_refused(url, message):
    result = tool().execute({"url": url})
    assert not result.success and message in result.error


def test_unknown_hosts_are_reported(monkeypatch):
    def no_such_host(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(web_fetch, "resolve_addresses", no_such_host)
    result = WebFetchTool({"language": "en", "tools": {}}).execute({"url": "https://no-such-host.invalid/"})
    assert not result.success and result.error == "The host no-such-host.invalid could not be found. Check the address."


def test_allow_private_lets_every_local_address_through(server):
    open_tool = WebFetchTool({"language": "en", "tools": {"web_fetch": {"allow_private": True}}})
    assert open_tool.execute({"url": server.url("/article", host="localhost")}).success


def test_manifest_is_network_risk_typed_and_translated():
    manifests = [WebFetchTool({"language": lang, "tools": {"web_fetch": {"request_timeout": 4}}}).manifest() for lang in ("en", "zh", "ja")]
    assert {m.risk for m in manifests} == {"network"}
    assert {m.timeout for m in manifests} == {9}
    assert len({m.description for m in manifests}) == 3
    assert all(m.required == ["url"] and 2 <= len(m.examples) <= 3 for m in manifests)
