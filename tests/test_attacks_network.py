"""Attacks on the network guard (agent/toolkit/net) through web_fetch.

- URL parsing: backslashes, user names and stray ``@``, control characters, odd ports, also in a
  redirect's Location; the loopback page must never come back and nothing may be connected to.
- IPv4 encodings and IPv6 forms that carry an IPv4 address: read as the real address, and refused
  before any look-up or connection when it is not public.
- DNS rebinding: the name is resolved once and the connection goes to the checked address; a
  connection that lands somewhere else is refused by the peer check.
- Slow servers: a body or headers sent a byte at a time end at the time limit, with the socket closed.

Nothing here sends a packet beyond loopback: ``FakeNetwork`` answers look-ups and refuses every
connection to another address before it is made.
"""

from __future__ import annotations

import gzip
import ipaddress
import json
import time

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.toolkit import net
from agent.tools.web_fetch import WebFetchTool
from tests.helpers.http_server import LocalServer, Reply
from tests.helpers.network import FakeNetwork, RawServer
from tests.helpers.waiting import wait_until

SECRET = "loopback-secret-7731"
PUBLIC = "93.184.216.34"
TEREDO_SERVER = "65.54.227.120"
ADDRESSES = {"127.0.0.1": "loopback", "10.0.0.1": "private", "169.254.169.254": "link-local", PUBLIC: None}
KIND_TEXT = {"loopback": "a loopback address", "private": "a private-network address", "link-local": "a link-local address"}


def tool(**section) -> WebFetchTool:
    return WebFetchTool({"language": "en", "tools": {"web_fetch": section}})


@pytest.fixture
def site():
    page = Reply(body=f"<p>{SECRET}</p>")
    with LocalServer({"/": page, "/x": page, "/secret": page}) as server:
        yield server


def leaked(result) -> bool:
    return SECRET in result.data or SECRET in result.error


# ============================================================ row 3: URLs parsers read differently
AMBIGUOUS = [
    ("http://127.0.0.1:{port}\\@public.example/../x", "it contains a backslash"),
    ("http://public.example\\@127.0.0.1:{port}/x", "it contains a backslash"),
    ("http://127.0.0.1:{port}\\\\@public.example/", "it contains a backslash"),
    ("http:\\\\127.0.0.1:{port}/x", "it contains a backslash"),
    ("http:/\\127.0.0.1:{port}/x", "it contains a backslash"),
    ("http://127.0.0.1:{port}@public.example/x", "a user name or an @ before the host"),
    ("http://public.example@127.0.0.1:{port}/x", "a user name or an @ before the host"),
    ("http://public.example:80@127.0.0.1:{port}/x", "a user name or an @ before the host"),
    ("http://user:pass@127.0.0.1:{port}/x", "a user name or an @ before the host"),
    ("http://@127.0.0.1:{port}/x", "a user name or an @ before the host"),
    ("http://127.0.0.1:{port}%5C@public.example/x", "a user name or an @ before the host"),
    ("http://127.0.0.1:{port}\t@public.example/x", "spaces, control characters or invisible characters"),
    ("http://127.0.0.1:{port}\n@public.example/x", "spaces, control characters or invisible characters"),
    ("http://127.0.0.1:{port}\r\n@public.example/x", "spaces, control characters or invisible characters"),
    ("http://127.0.0.1:{port} @public.example/x", "spaces, control characters or invisible characters"),
    ("http://127.0.0.1:{port}\x00@public.example/x", "spaces, control characters or invisible characters"),
    ("http://127.0.0.1:{port}\u200b@public.example/x", "spaces, control characters or invisible characters"),
    ("http://public.example\u3000/x", "spaces, control characters or invisible characters"),
    ("http:127.0.0.1:{port}/x", "its scheme is not followed by //"),
    ("http:/127.0.0.1:{port}/x", "its scheme is not followed by //"),
    ("http://127.0.0.1:{port}:80/x", "its port is not a plain number"),
    ("http://127.0.0.1:/x", "its port is not a plain number"),
    ("http://127.0.0.1:0/x", "its port is not a plain number"),
    ("http://127.0.0.1:65536/x", "its port is not a plain number"),
    ("http://127.0.0.1:0{port}/x", "its port is not a plain number"),
    ("http://127.0.0.1:+{port}/x", "its port is not a plain number"),
    ("http://127.0.0.1:{port}x/x", "its port is not a plain number"),
    ("http://[127.0.0.1]:{port}/x", "neither a valid host name nor an IP address"),
    ("http://[::1%25lo]:{port}/x", "neither a valid host name nor an IP address"),
    ("http://[::1]junk:{port}/x", "neither a valid host name nor an IP address"),
    ("http://127.0.0.1%2e:{port}/x", "neither a valid host name nor an IP address"),
    ("http://127.0.0.08:{port}/x", "neither a valid host name nor an IP address"),
    ("http://1.2.3.4.5:{port}/x", "neither a valid host name nor an IP address"),
    ("http://public.example..:{port}/x", "neither a valid host name nor an IP address"),
    ("http://-public.example:{port}/x", "neither a valid host name nor an IP address"),
    ("gopher://127.0.0.1:{port}/x", "is not an http or https address"),
    ("//127.0.0.1:{port}/x", "is not an http or https address"),
    ("http:///127.0.0.1:{port}/x", "has no host name"),
]


@pytest.mark.parametrize("template,reason", AMBIGUOUS)
def test_ambiguous_urls_are_refused_before_any_look_up_or_connection(site, monkeypatch, attack_report, template, reason):
    url = template.format(port=site.port)
    escapes = 0
    for config in ({}, {"allow_hosts": ["public.example"]}):  # also when the name a parser may see is trusted
        network = FakeNetwork(monkeypatch, names={"public.example": [[PUBLIC]]})
        result = tool(**config).execute({"url": url})
        refused = not result.success and reason in result.error
        escapes += int(leaked(result) or not refused or bool(network.attempts) or bool(network.lookups))
        assert not result.success and reason in result.error, result.error
        assert network.attempts == [] and network.lookups == []
    attack_report.record("network: URL parsing", 2, escapes)
    assert site.requests == [] and escapes == 0


def test_the_refusal_shows_control_characters_as_escapes():
    result = tool().execute({"url": "http://a.example\r\nX-Injected: 1@127.0.0.1/"})
    assert result.error == ("Refused: 'http://a.example\\r\\nX-Injected: 1@127.0.0.1/' is ambiguous: it contains spaces, "
                            "control characters or invisible characters. Write it as a plain address such as https://example.com/page.")


@pytest.mark.parametrize(
    "location",
    [
        "http://127.0.0.1:{port}\\@public.example/secret",
        "http://public.example\\@127.0.0.1:{port}/secret",
        "/\\127.0.0.1:{port}/secret",
        "\\\\127.0.0.1:{port}/secret",
        "http://127.0.0.1:{port}@public.example/secret",
        "//user@127.0.0.1:{port}/secret",
        "http://127.0.0.1:{port}\t@public.example/secret",
    ],
)
def test_a_redirect_to_an_ambiguous_url_is_refused_and_never_followed(site, monkeypatch, attack_report, location):
    # The first hop's host is trusted and answers with the loopback server; its Location is the attack.
    network = FakeNetwork(monkeypatch, names={"public.example": [["127.0.0.1"]]})
    site.routes["/jump"] = Reply(302, headers={"Location": location.format(port=site.port)})
    first = f"http://public.example:{site.port}/jump"
    result = tool(allow_hosts=["public.example"]).execute({"url": first})
    escapes = int(leaked(result) or site.requests != ["/jump"])
    attack_report.record("network: URL parsing", 1, escapes)
    assert not result.success and result.error.startswith(f"(after a redirect from {first}) Refused: ")
    assert "is ambiguous" in result.error
    assert site.requests == ["/jump"] and network.attempts == ["127.0.0.1"] and escapes == 0


# ============================================================ row 5: IPv4 encodings and IPv6 forms
def ipv4_encodings(text: str) -> list[str]:
    """The ways browsers and inet_aton accept of writing the IPv4 address ``text``."""
    a, b, c, d = octets = [int(part) for part in text.split(".")]
    value = int(ipaddress.IPv4Address(text))
    fullwidth = str.maketrans("0123456789", "０１２３４５６７８９")
    return [
        text, f"{text}.", str(value), hex(value), "0X" + format(value, "X"), "0" + format(value, "o"),
        ".".join(f"0{x:o}" for x in octets), ".".join(f"0{x:03o}" for x in octets), ".".join(hex(x) for x in octets),
        f"{a}.{b}.{c * 256 + d}", f"{a}.{(b << 16) | (c << 8) | d}", f"{hex(a)}.{(b << 16) | (c << 8) | d}",
        f"0{a:o}.{hex(b)}.{c}.{d}", text.translate(fullwidth), text.replace(".", "\u3002"),
        f"[::ffff:{text}]", f"[::ffff:{(value >> 16):x}:{(value & 0xFFFF):x}]", f"[::FFFF:{text}]",
    ]


def ipv6_embeddings(text: str) -> list[str]:
    """IPv6 addresses that carry the IPv4 address ``text``: mapped, compatible, translated, NAT64 (both
    prefixes), 6to4 and Teredo (client address inverted, behind a public Teredo server)."""
    value = int(ipaddress.IPv4Address(text))
    high, low = f"{value >> 16:x}", f"{value & 0xFFFF:x}"
    server = int(ipaddress.IPv4Address(TEREDO_SERVER))
    inverted = value ^ 0xFFFFFFFF
    return [
        f"::ffff:{text}", f"::{text}", f"::ffff:0:{text}", f"64:ff9b::{text}", f"64:ff9b:1::{text}",
        f"2002:{high}:{low}::1", f"2002:{high}:{low}:5::7",
        f"2001:0:{server >> 16:x}:{server & 0xFFFF:x}:8000:63bf:{inverted >> 16:x}:{inverted & 0xFFFF:x}",
    ]


@pytest.mark.parametrize("address,kind", ADDRESSES.items())
def test_every_ipv4_encoding_is_read_as_the_real_address(site, monkeypatch, attack_report, address, kind):
    escapes = attempts = 0
    for host in ipv4_encodings(address):
        target = net.parse_url(f"http://{host}:{site.port}/x")
        assert net.classify(target.address) == kind, host
        if ":" not in target.host:
            assert target.host == address, host
        network = FakeNetwork(monkeypatch)
        result = tool().execute({"url": f"http://{host}:{site.port}/x"})
        attempts += 1
        if kind:
            refused = not result.success and f"{KIND_TEXT[kind]}, which web_fetch does not visit" in result.error
            escapes += int(leaked(result) or not refused or bool(network.attempts) or bool(network.lookups))
        else:  # public: connected to exactly the address meant, with no look-up (the test network refuses it)
            assert network.attempts == [target.host] and network.lookups == [], host
            assert "could not be reached: ConnectionError" in result.error
    attack_report.record("network: IPv4 encodings", attempts if kind else 0, escapes)
    assert site.requests == [] and escapes == 0


@pytest.mark.parametrize("address,kind", ADDRESSES.items())
def test_ipv6_forms_are_judged_by_the_ipv4_address_they_carry(site, monkeypatch, attack_report, address, kind):
    escapes = attempts = 0
    for form in ipv6_embeddings(address):
        assert net.classify(form) == kind, form
        assert ipaddress.IPv4Address(address) in net.embedded_ipv4(ipaddress.IPv6Address(form)), form
        network = FakeNetwork(monkeypatch)
        result = tool().execute({"url": f"http://[{form}]:{site.port}/x"})
        attempts += 1
        if kind:
            refused = not result.success and f"{KIND_TEXT[kind]}, which web_fetch does not visit" in result.error
            escapes += int(leaked(result) or not refused or bool(network.attempts))
        else:
            assert network.attempts == [str(ipaddress.IPv6Address(form))], form
            assert "could not be reached" in result.error
    attack_report.record("network: IPv6 embeddings", attempts if kind else 0, escapes)
    assert site.requests == [] and escapes == 0


@pytest.mark.parametrize("address,kind", list(ADDRESSES.items())[:3])
def test_local_nat64_with_a_short_prefix_is_read_too(address, kind, attack_report):
    value = int(ipaddress.IPv4Address(address))
    base = int(ipaddress.IPv6Address("64:ff9b:1::"))
    forms = [
        ipaddress.IPv6Address(base | ((value >> 16) << 64) | ((value & 0xFFFF) << 40)),  # a /48 prefix
        ipaddress.IPv6Address(base | ((value >> 24) << 64) | ((value & 0xFFFFFF) << 32)),  # a /56 prefix
        ipaddress.IPv6Address(base | (value << 24)),  # a /64 prefix
    ]
    kinds = [net.classify(form) for form in forms]
    attack_report.record("network: IPv6 embeddings", len(forms), sum(found is None for found in kinds))
    assert kinds == [kind] * 3


@pytest.mark.parametrize(
    "address,kind",
    [("0.0.0.0", "unspecified"), ("0.1.2.3", "unspecified"), ("100.64.0.1", "shared"), ("100.127.255.254", "shared"),
     ("172.31.0.1", "private"), ("192.168.0.1", "private"), ("224.0.0.251", "multicast"), ("240.0.0.1", "reserved"),
     ("255.255.255.255", "reserved"), ("192.0.2.1", "reserved"), ("::", "unspecified"), ("::1", "loopback"),
     ("fe80::1%eth0", "link-local"), ("fc00::1", "private"), ("fd12::1", "private"), ("fec0::1", "private"),
     ("ff02::1", "multicast"), ("2001:db8::1", "reserved"), ("8.8.8.8", None), ("2606:4700::1111", None),
     ("::ffff:100.64.0.1", "shared"), ("64:ff9b::224.0.0.1", "multicast")],
)
def test_address_classes(address, kind):
    assert net.classify(address) == kind


# ============================================================ row 4: DNS rebinding
def test_dns_rebinding_is_resolved_once_and_connected_to_the_checked_address(site, monkeypatch, attack_report):
    escapes = 0
    for _ in range(6):
        network = FakeNetwork(monkeypatch, names={"rebind.example": [[PUBLIC], ["127.0.0.1"]]})
        result = tool().execute({"url": f"http://rebind.example:{site.port}/secret"})
        escapes += int(leaked(result) or network.attempts != [PUBLIC])
        assert network.lookups == ["rebind.example"]  # one look-up, not one to check and one to connect
        assert network.attempts == [PUBLIC] and "could not be reached" in result.error
    attack_report.record("network: DNS rebinding", 6, escapes)
    assert site.requests == [] and escapes == 0


def test_a_connection_that_lands_on_loopback_is_refused_by_the_peer_check(site, monkeypatch, attack_report):
    network = FakeNetwork(monkeypatch, names={"rebind.example": [[PUBLIC]]}, divert={PUBLIC: "127.0.0.1"})
    result = tool().execute({"url": f"http://rebind.example:{site.port}/secret"})
    escapes = int(leaked(result) or bool(site.requests))
    attack_report.record("network: DNS rebinding", 1, escapes)
    assert result.error == ("Refused: the connection to rebind.example reached 127.0.0.1, a loopback address, which "
                            "web_fetch does not visit. To allow it, add the host to tools.web_fetch.allow_hosts "
                            "(or set tools.web_fetch.allow_private: true) in settings.yaml.")
    assert network.attempts == [PUBLIC] and network.all_closed()
    assert site.requests == [] and escapes == 0


def test_dns_rebinding_through_riverse_ask(site, monkeypatch, riverse_home, attack_report):
    # The fake network is this process's resolver and sockets: the tool runs here too, so that no
    # name is ever looked up for real.
    monkeypatch.setenv("RIVERSE_TOOL_ISOLATION", "thread")
    url = f"http://rebind.example:{site.port}/secret"
    (riverse_home / "script.yaml").write_text(f"- {{tool: web_fetch, params: {{url: '{url}'}}}}\n- done\n", encoding="utf-8")
    (riverse_home / "settings.yaml").write_text(
        f"llm:\n  provider: fake\n  script: {riverse_home / 'script.yaml'}\napproval:\n  risk:\n    network: never\n",
        encoding="utf-8",
    )
    network = FakeNetwork(monkeypatch, names={"rebind.example": [[PUBLIC], ["127.0.0.1"]]})
    output = CliRunner().invoke(cli, ["ask", "--json", "read that page"]).output
    [call] = json.loads(output)["tool_calls"]
    escapes = int(SECRET in output or bool(site.requests))
    attack_report.record("network: DNS rebinding", 1, escapes)
    assert call["name"] == "web_fetch" and not call["success"] and "could not be reached" in call["error"]
    assert network.lookups == ["rebind.example"] and network.attempts == [PUBLIC]
    assert site.requests == [] and escapes == 0


# ============================================================ row 6: slow servers
def trickle_body(server: RawServer, connection) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
    while not server.stop.wait(0.02):  # one byte every 20 ms, for as long as the client keeps reading
        connection.sendall(b"x")


def trickle_head(server: RawServer, connection) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 100000:
        if server.stop.wait(0.02):
            return
        connection.sendall(bytes([byte]))


def silent(server: RawServer, connection) -> None:
    """Never answers. Over https it is not even reached: the TLS handshake never ends."""
    server.stop.wait(30)


@pytest.mark.parametrize(
    "answer,scheme,message",
    [
        (trickle_body, "http", "'{url}' was still sending its page when the 0.5-second limit ran out, so the page was not read."),
        (trickle_head, "http", "'{url}' did not answer within 0.5 seconds."),
        (silent, "https", "'{url}' did not answer within 0.5 seconds."),  # a TLS handshake that never ends
    ],
)
def test_a_server_sending_a_byte_at_a_time_is_cut_at_the_time_limit(monkeypatch, attack_report, answer, scheme, message):
    network = FakeNetwork(monkeypatch)
    with RawServer(answer) as server:
        url = server.url("/page", scheme)
        started = time.monotonic()
        result = tool(allow_hosts=["127.0.0.1"], request_timeout=0.5).execute({"url": url})
        elapsed = time.monotonic() - started
        closed = network.all_closed() and len(network.sockets) == 1
        wait_until(server.client_gone.is_set, "the server to see the client's socket closed")
    escapes = int(elapsed >= 2.0 or not closed)  # 4 times the limit: a generous margin for a busy machine
    attack_report.record("network: slow body", 1, escapes)
    assert not result.success and result.error.startswith(message.format(url=url))
    assert elapsed < 2.0 and closed and escapes == 0


def test_a_compressed_body_is_inflated_only_up_to_the_size_cap(site, attack_report):
    bomb = gzip.compress(b"<p>" + b"A" * 50_000_000 + b"</p>", compresslevel=9)  # 50 MB from about 50 kB
    site.routes["/bomb"] = Reply(body=bomb, headers={"Content-Encoding": "gzip"})
    result = tool(allow_hosts=["127.0.0.1"], max_bytes=5000, max_chars=100_000).execute({"url": site.url("/bomb")})
    text = result.data.split("\n\n", 1)[1]
    escapes = int(len(text) > 6000)
    attack_report.record("network: compressed body", 1, escapes)
    assert result.success and text.startswith("AAAA") and text.endswith("characters are shown]")
    assert len(bomb) < 100_000 and escapes == 0
