"""The network guard (agent/toolkit/net) on its own: URL parts, TLS to a checked address, the Host
header, and a property test that every URL it accepts means the same host to other parsers."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from urllib.parse import urlsplit

import pytest
import urllib3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.toolkit import net
from agent.tools.web_fetch import WebFetchTool
from tests.helpers.http_server import LocalServer, Reply
from tests.helpers.network import FakeNetwork, RawServer

PROPERTY_EXAMPLES = 1500


@pytest.mark.parametrize(
    "url,host,port,path,canonical",
    [
        ("HTTPS://Example.COM./a%20b?q=1#frag", "example.com", 443, "/a%20b?q=1", "https://example.com/a%20b?q=1"),
        ("http://example.com/a\"b<c>?d=e|f", "example.com", 80, "/a%22b%3Cc%3E?d=e%7Cf", "http://example.com/a%22b%3Cc%3E?d=e%7Cf"),
        ("http://example.com:80", "example.com", 80, "/", "http://example.com/"),
        ("http://example.com:8080?x=@y", "example.com", 8080, "/?x=@y", "http://example.com:8080/?x=@y"),
        ("https://medium.com/@someone/post", "medium.com", 443, "/@someone/post", "https://medium.com/@someone/post"),
        ("https://例え.jp/京都", "xn--r8jz45g.jp", 443, "/%E4%BA%AC%E9%83%BD", "https://xn--r8jz45g.jp/%E4%BA%AC%E9%83%BD"),
        ("http://[::FFFF:127.0.0.1]:81/", "::ffff:7f00:1", 81, "/", "http://[::ffff:7f00:1]:81/"),
        ("http://0x7f.1/", "127.0.0.1", 80, "/", "http://127.0.0.1/"),
        ("http://example.com/#@evil.example", "example.com", 80, "/", "http://example.com/"),
    ],
)
def test_a_url_is_read_into_the_parts_that_are_fetched(url, host, port, path, canonical):
    target = net.parse_url(url)
    assert (target.host, target.port, target.path, target.url) == (host, port, path, canonical)


def test_the_host_header_is_the_urls_host_and_caller_headers_cannot_replace_it(monkeypatch):
    FakeNetwork(monkeypatch, names={"site.example": [["127.0.0.1"]]})

    def answer(server: RawServer, connection) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    with RawServer(answer) as server:
        page = net.guarded_get(f"http://site.example:{server.port}/p?q=1", timeout=5, max_bytes=100,
                               allow_hosts=["site.example"], headers={"host": "evil.example", "User-Agent": "t"})
    head = server.heads[0].decode()
    assert page.body == b"ok" and head.startswith("GET /p?q=1 HTTP/1.1\r\n")
    assert f"\r\nHost: site.example:{server.port}\r\n" in head and "evil" not in head


# ---------------------------------------------------------------------------- TLS
@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("the openssl command is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=riverse.test",
         "-addext", "subjectAltName=DNS:riverse.test"],
        check=True, capture_output=True,
    )
    return cert, key


@pytest.fixture
def tls_site(certificate):
    cert, key = certificate
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    with LocalServer({"/page": Reply(body="<p>over TLS</p>")}) as server:
        server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
        server.sni = names
        yield server


def test_tls_goes_to_the_checked_address_with_the_host_name_for_sni_and_the_certificate(tls_site, certificate, monkeypatch):
    network = FakeNetwork(monkeypatch)
    trust = ssl.create_default_context(cafile=str(certificate[0]))
    page = net.guarded_get(f"https://riverse.test:{tls_site.port}/page", timeout=5, max_bytes=1000,
                           allow_hosts=["riverse.test"], resolver=lambda host, port: ["127.0.0.1"], tls_context=trust)
    assert page.status == 200 and b"over TLS" in page.body
    assert tls_site.sni == ["riverse.test"] and network.attempts == ["127.0.0.1"]
    with pytest.raises(net.FetchFailed, match="SSLError: .*(mismatch|match)"):
        net.guarded_get(f"https://other.test:{tls_site.port}/page", timeout=5, max_bytes=1000,
                        allow_hosts=["other.test"], resolver=lambda host, port: ["127.0.0.1"], tls_context=trust)
    assert network.all_closed()


def test_web_fetch_checks_certificates(tls_site, monkeypatch):
    FakeNetwork(monkeypatch, names={"riverse.test": [["127.0.0.1"]]})
    tool = WebFetchTool({"language": "en", "tools": {"web_fetch": {"allow_hosts": ["riverse.test"]}}})
    result = tool.execute({"url": f"https://riverse.test:{tls_site.port}/page"})
    assert not result.success and "could not be reached: SSLError: " in result.error
    assert tls_site.requests == []


# ---------------------------------------------------------------------------- one meaning
# Each part of a URL, plain (though maybe odd, like "#@evil.example") or flawed.
PLAIN = {
    "scheme": st.sampled_from(["http", "https", "HTTP", "hTTps"]),
    "separator": st.just("://"),
    "before": st.just(""),
    "host": st.sampled_from([
        "example.com", "EXAMPLE.com.", "127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "[::1]",
        "[::ffff:127.0.0.1]", "[64:ff9b::a9fe:a9fe]", "例え.jp", "ｅｘａｍｐｌｅ.com", "a.b-c.d", "exa_mple.org",
        "xn--r8jz45g.jp", "１２７。０。０。１",
    ]),
    "after": st.sampled_from(["", "#@evil.example", "?@evil.example", "/@evil.example", "?a=b@c"]),
    "port": st.sampled_from(["", ":80", ":8080", ":443", ":1", ":65535"]),
    "path": st.text(alphabet="/@#?:%.a1京~;=&", max_size=12).map(lambda text: "/" + text),
}
FLAWED = {
    "scheme": st.sampled_from(["ftp", "javascript", "", "ht tp", "http\\"]),
    "separator": st.sampled_from([":/", ":", ":\\\\", "://\\", ":///", "//", ": //"]),
    "before": st.sampled_from(["u@", "u:p@", "@", "evil.example\\@", "evil.example@", "%40", " ", "evil.example:80@"]),
    "host": st.sampled_from(["1.2.3.4.5", "08.1", "[::1", "", "a..b", "-a.b", "host%2ename", "[fe80::1%25eth0]",
                             "exa mple.com", "[127.0.0.1]", "a\u200bb.com"]),
    "after": st.sampled_from(["\\", "\\@evil.example", "@evil.example", ":80@evil.example", "%5C@evil.example", "\t", " ",
                              "\u200b", "\r\n"]),
    "port": st.sampled_from([":0", ":", ":65536", ":0080", ":8o", ":+1", ":80:81"]),
    "path": st.text(alphabet="/\\@#?: \t\u200b\x00a", min_size=1, max_size=8),
}
PARTS = list(PLAIN)


@st.composite
def urls(draw) -> str:
    flawed = draw(st.sets(st.sampled_from(PARTS), max_size=2))
    return "".join(draw(FLAWED[part] if part in flawed else PLAIN[part]) for part in PARTS)


def _other_parsers(raw: str) -> list[tuple[str, int | None]]:
    """(host, port) of ``raw`` as urllib.parse and urllib3 (which requests uses) read it, for each of
    them that reads it at all (urllib3 refuses some host names that IDNA's mapping accepts)."""
    readings = []
    split = urlsplit(raw)
    assert split.username is None
    readings.append((f"[{split.hostname}]" if ":" in (split.hostname or "") else split.hostname or "", split.port))
    try:
        pool = urllib3.util.parse_url(raw)
    except urllib3.exceptions.LocationParseError:
        return readings
    assert pool.auth is None
    return readings + [(pool.host or "", pool.port)]


def test_every_url_it_accepts_names_the_same_host_and_port_for_other_parsers(generated_cases):
    counted = {"accepted": 0, "refused": 0}

    @settings(max_examples=PROPERTY_EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(urls())
    def check(raw: str) -> None:
        try:
            target = net.parse_url(raw)
        except net.Refused:
            counted["refused"] += 1
            return
        counted["accepted"] += 1
        for other_host, other_port in _other_parsers(raw):
            assert net.parse_url(f"{target.scheme}://{other_host}/").host == target.host, raw
            assert (other_port or {"http": 80, "https": 443}[target.scheme]) == target.port, raw
        again = net.parse_url(target.url)
        assert (again.host, again.port, again.path) == (target.host, target.port, target.path), raw

    check()
    generated_cases["net.parse_url against urllib.parse and urllib3: generated URLs"] = sum(counted.values())
    assert sum(counted.values()) >= PROPERTY_EXAMPLES
    assert min(counted.values()) > 100, counted  # both outcomes are reached often


def test_a_resolver_answer_that_is_not_an_address_is_never_connected_to(monkeypatch):
    network = FakeNetwork(monkeypatch)
    for answer in (["localhost"], ["93.184.216.34", "intranet.local"], []):
        with pytest.raises(net.Refused, match="unresolvable"):
            net.guarded_get("http://site.example/", timeout=1, max_bytes=10, resolver=lambda host, port: answer)
    assert network.attempts == [] and network.lookups == []


def test_refusals_of_ambiguous_urls_come_in_every_language():
    assert all(set(texts) == {"en", "zh", "ja"} for texts in net.AMBIGUITIES.values())
    url = "http://a.example\\@127.0.0.1/"
    errors = {lang: WebFetchTool({"language": lang, "tools": {}}).execute({"url": url}).error for lang in ("zh", "ja")}
    assert errors["zh"] == (f"已拒绝：“{url}”有歧义：其中有反斜杠（\\），不同的网址解析器对它的理解不同。"
                            "请写成普通的网址，例如 https://example.com/page。")
    assert errors["ja"].startswith(f"拒否しました: 「{url}」は曖昧です: バックスラッシュ（\\）が含まれており")
