"""The guarded fetch: resolve once, connect only to a checked address, one deadline for all of it."""

from __future__ import annotations

import http.client
import io
import ipaddress
import socket
import ssl
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Self
from urllib.parse import urljoin

import certifi

from agent.toolkit.net.addresses import classify
from agent.toolkit.net.urls import Refused, Target, check_characters, host_key, parse_url

Resolver = Callable[[str, int], list[str]]

REDIRECTS = {301, 302, 303, 307, 308}


class FetchTimeout(Exception):
    """The deadline passed: ``stage`` is ``answer`` (connecting, TLS, headers) or ``body``."""

    def __init__(self, stage: str, url: str):
        super().__init__(f"{stage} of {url} timed out")
        self.stage = stage
        self.url = url


class FetchFailed(Exception):
    """The server could not be reached or broke the protocol; ``reason`` says how."""

    def __init__(self, reason: str, url: str):
        super().__init__(reason)
        self.reason = reason
        self.url = url


def resolve_addresses(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, asked once per fetch."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class Deadline:
    """The time one fetch may take, whole."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; TimeoutError when there are none."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the fetch's time ran out")
        return left


class _DeadlineSocket:
    """The socket as ``http.client`` uses it: every send and every read ends by the deadline.

    Closing it does nothing: ``http.client`` closes its connection as soon as the headers say the
    server will close, with the body still to be read; the fetch closes the real socket itself."""

    def __init__(self, sock: socket.socket, deadline: Deadline):
        self.sock = sock
        self.deadline = deadline

    def sendall(self, data: bytes) -> None:
        self.sock.settimeout(self.deadline.left())
        self.sock.sendall(data)

    def makefile(self, mode: str = "rb", *args: object, **kwargs: object) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self))

    def close(self) -> None:
        pass


class _DeadlineReader(io.RawIOBase):
    def __init__(self, stream: _DeadlineSocket):
        super().__init__()
        self.stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        sock = self.stream.sock
        sock.settimeout(self.stream.deadline.left())
        return sock.recv_into(buffer)


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


def _connect(target: Target, addresses: list[str], deadline: Deadline, *, checked: bool,
             tls: ssl.SSLContext | None) -> socket.socket:
    """A socket connected to one of ``addresses`` (and, for https, through TLS for the host name)."""
    error: OSError = OSError("no address to connect to")
    for text in addresses:
        family = socket.AF_INET6 if ":" in text else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(deadline.left())
            sock.connect((text, target.port))
            peer = str(sock.getpeername()[0])
            kind = classify(peer) if checked else None
            if kind:
                raise Refused("peer", host=target.written_host, address=peer, kind=kind)
            if target.scheme == "https":
                return _wrap_tls(sock, target, deadline, tls)
            return sock
        except TimeoutError:
            sock.close()
            raise
        except OSError as exc:
            sock.close()
            error = exc
        except BaseException:
            sock.close()
            raise
    raise error


def _wrap_tls(sock: socket.socket, target: Target, deadline: Deadline, tls: ssl.SSLContext | None) -> socket.socket:
    """TLS on ``sock`` for the URL's host name: its SNI, its certificate, whatever address was used."""
    context = tls or _tls_context()
    wrapped = context.wrap_socket(sock, server_hostname=target.host, do_handshake_on_connect=False)
    try:
        wrapped.settimeout(deadline.left())  # the whole handshake must end by then
        wrapped.do_handshake()
    except BaseException:
        wrapped.close()
        raise
    return wrapped


class Response:
    """An answer whose status and headers are read; its body is read with :meth:`read`."""

    def __init__(self, target: Target, sock: socket.socket, answer: http.client.HTTPResponse, deadline: Deadline):
        self.target = target
        self.url = target.url
        self.status = answer.status
        self.reason = answer.reason
        self.headers = answer.headers
        self.sock = sock
        self._answer = answer
        self._deadline = deadline

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def read(self, max_bytes: int) -> tuple[bytes, bool]:
        """(the body, at most ``max_bytes`` of it decoded; whether it was cut there). FetchTimeout
        when it is not all there by the deadline, however slowly it keeps coming."""
        decoder = _Decoder(self.headers.get("Content-Encoding", ""), self.url)
        body = bytearray()
        try:
            while len(body) < max_bytes:
                self._deadline.left()
                chunk = self._answer.read1(65536)
                if not chunk:
                    return bytes(body), False
                body += decoder.feed(chunk, max_bytes - len(body))
        except TimeoutError:
            raise FetchTimeout("body", self.url) from None
        except (OSError, http.client.HTTPException) as exc:
            raise FetchFailed(_reason(exc), self.url) from None
        return bytes(body[:max_bytes]), True

    def close(self) -> None:
        """Close the answer and its socket (at once: nothing else holds it)."""
        self._answer.close()
        self.sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Decoder:
    """Undoes gzip or deflate, never producing more than asked for (a small body can inflate a lot)."""

    def __init__(self, encoding: str, url: str):
        encoding = encoding.strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise FetchFailed(f"ProtocolError: unsupported Content-Encoding {encoding}", url)
        self.inflate = zlib.decompressobj(47) if encoding not in ("", "identity") else None
        self.url = url

    def feed(self, chunk: bytes, room: int) -> bytes:
        if self.inflate is None:
            return chunk
        try:
            return self.inflate.decompress(chunk, room + 1)
        except zlib.error:
            raise FetchFailed("ProtocolError: the compressed body is damaged", self.url) from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"SSLError: {exc.verify_message or exc.reason}"
    if isinstance(exc, ssl.SSLError):
        return f"SSLError: {exc.reason or exc}"
    if isinstance(exc, http.client.HTTPException) and not isinstance(exc, ConnectionError):
        return f"ProtocolError: {type(exc).__name__}"
    if isinstance(exc, OSError):
        return f"ConnectionError: {exc.strerror or type(exc).__name__}"
    return type(exc).__name__


def _request(target: Target, addresses: list[str], deadline: Deadline, headers: Mapping[str, str], *,
             checked: bool, tls: ssl.SSLContext | None) -> Response:
    """Connect, send a GET for ``target`` and read the answer's status and headers."""
    sent = {"Accept-Encoding": "gzip, deflate", "Connection": "close"}
    sent.update((name, value) for name, value in headers.items() if name.lower() != "host")
    sent["Host"] = target.authority
    try:
        sock = _connect(target, addresses, deadline, checked=checked, tls=tls)
        try:
            connection = http.client.HTTPConnection(target.host, target.port)
            connection.sock = _DeadlineSocket(sock, deadline)  # type: ignore[assignment]
            connection.request("GET", target.path, headers=sent)
            return Response(target, sock, connection.getresponse(), deadline)
        except BaseException:
            sock.close()
            raise
    except BaseException as exc:
        if isinstance(exc, TimeoutError):
            raise FetchTimeout("answer", target.url) from None
        if isinstance(exc, (OSError, http.client.HTTPException)):
            raise FetchFailed(_reason(exc), target.url) from None
        raise


def _addresses(target: Target, url: str, resolver: Resolver, checked: bool) -> list[str]:
    """The addresses to connect to, each one checked unless the host is trusted."""
    if target.address is not None:
        addresses = [str(target.address)]
    else:
        try:
            addresses = [str(address) for address in resolver(target.host, target.port)]
            for address in addresses:  # addresses only: a name here would be looked up again when connecting
                ipaddress.ip_address(address.split("%", 1)[0])
        except (OSError, UnicodeError, ValueError):
            addresses = []
        if not addresses:
            raise Refused("unresolvable", host=target.written_host, url=url)
    for address in addresses if checked else ():
        kind = classify(address)
        if kind:
            raise Refused("private", host=target.written_host, address=address, kind=kind, url=url)
    return addresses


def open_guarded(url: str, *, timeout: float, allow_private: bool = False, allow_hosts: Iterable[str] = (),
                 max_redirects: int = 5, headers: Mapping[str, str] | None = None,
                 resolver: Resolver | None = None, tls_context: ssl.SSLContext | None = None) -> Response:
    """GET ``url`` and return the answer with its body unread (close it; ``with`` does).

    Unless ``allow_private`` is true or a hop's host is in ``allow_hosts``, every address the host
    resolves to, and the address the connection reaches, must be public. ``timeout`` covers the whole
    fetch including reading the body. ``resolver(host, port)`` replaces :func:`resolve_addresses`."""
    deadline = Deadline(timeout)
    trusted = {host_key(host) for host in allow_hosts}
    resolve = resolver or resolve_addresses
    current = url
    for hop in range(max_redirects + 1):
        try:
            target = parse_url(current)
            checked = not allow_private and target.host not in trusted
            addresses = _addresses(target, current, resolve, checked)
            response = _request(target, addresses, deadline, headers or {}, checked=checked, tls=tls_context)
        except Refused as exc:
            exc.hop = hop
            exc.values.setdefault("url", current)
            raise
        location = response.headers.get("Location")
        if response.status not in REDIRECTS or not location:
            return response
        response.close()
        try:
            check_characters(location)  # before joining: the joining drops tabs and newlines
        except Refused as exc:
            exc.hop = hop + 1
            raise
        current = urljoin(target.url, location)
    raise Refused("too_many_redirects", url=url, limit=max_redirects)


@dataclass
class Page:
    url: str  # the URL fetched last, after redirects
    status: int
    reason: str
    headers: http.client.HTTPMessage
    body: bytes
    cut: bool  # the body was longer than max_bytes


def guarded_get(url: str, *, timeout: float, max_bytes: int, **options: object) -> Page:
    """GET ``url`` like :func:`open_guarded` and read its body (at most ``max_bytes``) in the same time."""
    with open_guarded(url, timeout=timeout, **options) as response:  # type: ignore[arg-type]
        body, cut = response.read(max_bytes)
        return Page(response.url, response.status, response.reason, response.headers, body, cut)
