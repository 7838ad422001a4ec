"""A pretend network for tests of fetching (look-ups and connections recorded, nothing leaves loopback)
and a raw loopback server for servers that misbehave.

``FakeNetwork(monkeypatch, names={"site.example": [["93.184.216.34"], ["127.0.0.1"]]})`` answers each
look-up of a name with the next answer in its list (the last one repeats) and records it in
``lookups``; every connection attempt is recorded in ``attempts`` (the address) and ``sockets``.
Connections to loopback go through; ``divert`` sends a non-loopback address to a loopback one (a
network that lands somewhere else than the address asked for); every other connection is refused
before a packet is sent.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from typing import Any

import pytest


def is_loopback(address: str) -> bool:
    return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback


class FakeNetwork:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, names: dict[str, list[list[str]]] | None = None,
                 divert: dict[str, str] | None = None):
        self.names = {name: list(answers) for name, answers in (names or {}).items()}
        self.divert = dict(divert or {})
        self.lookups: list[str] = []
        self.attempts: list[str] = []
        self.sockets: list[socket.socket] = []
        real_connect = socket.socket.connect

        def connect(sock: socket.socket, address: Any) -> None:
            host, port = str(address[0]), int(address[1])
            self.attempts.append(host)
            self.sockets.append(sock)
            if host in self.divert:
                return real_connect(sock, (self.divert[host], port))
            if not is_loopback(host):
                raise ConnectionRefusedError(111, "Connection refused (the test network only reaches loopback)")
            return real_connect(sock, address)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket, "getaddrinfo", self.getaddrinfo)

    def getaddrinfo(self, host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0) -> list:
        name = str(host)
        self.lookups.append(name)
        answers = self.names.get(name)
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        addresses = answers.pop(0) if len(answers) > 1 else answers[0]
        infos = []
        for address in addresses:
            if ":" in address:
                infos.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, int(port or 0), 0, 0)))
            else:
                infos.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0))))
        return infos

    def all_closed(self) -> bool:
        return all(sock.fileno() == -1 for sock in self.sockets)


class RawServer:
    """A loopback TCP server that answers each connection with ``answer(server, connection)``, for
    servers that misbehave (send slowly, never finish). ``heads`` holds every request head received;
    ``client_gone`` is set once the client has closed its socket (a read ends or a send fails)."""

    def __init__(self, answer: Any):
        self.answer = answer
        self.heads: list[bytes] = []
        self.stop = threading.Event()
        self.client_gone = threading.Event()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.listener.settimeout(0.05)
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def url(self, path: str = "/", scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                head = b""
                while b"\r\n\r\n" not in head:
                    data = connection.recv(4096)
                    if not data:  # the client closed its socket before the head was complete
                        self.client_gone.set()
                        return
                    head += data
                self.heads.append(head)
                self.answer(self, connection)
            except TimeoutError:
                return
            except OSError:  # a broken pipe or a reset: the client closed its socket
                self.client_gone.set()

    def __enter__(self) -> "RawServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        self.listener.close()
