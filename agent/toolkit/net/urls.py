"""Reading a URL once, strictly: the parts it gives are the parts the request is built from."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote

import idna

from agent.toolkit.net.addresses import IPAddress

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")
_PORT = re.compile(r"[1-9][0-9]{0,4}")
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"}

# Why a URL is ambiguous, for messages: "'{url}' is ambiguous: {reason}".
AMBIGUITIES: dict[str, dict[str, str]] = {
    "backslash": {
        "en": "it contains a backslash (\\), which URL parsers read in different ways",
        "zh": "其中有反斜杠（\\），不同的网址解析器对它的理解不同",
        "ja": "バックスラッシュ（\\）が含まれており、URL の解析方法によって意味が変わります",
    },
    "userinfo": {
        "en": "it has a user name or an @ before the host",
        "zh": "主机名前面有用户名或 @",
        "ja": "ホスト名の前にユーザー名か @ があります",
    },
    "control": {
        "en": "it contains spaces, control characters or invisible characters",
        "zh": "其中有空格、控制字符或不可见字符",
        "ja": "空白・制御文字・見えない文字が含まれています",
    },
    "slashes": {
        "en": "its scheme is not followed by //",
        "zh": "协议名后面没有 //",
        "ja": "スキームの後に // がありません",
    },
    "host": {
        "en": "its host is neither a valid host name nor an IP address",
        "zh": "主机既不是有效的主机名，也不是 IP 地址",
        "ja": "ホストが有効なホスト名でも IP アドレスでもありません",
    },
    "port": {
        "en": "its port is not a plain number from 1 to 65535",
        "zh": "端口不是 1 到 65535 之间的普通数字",
        "ja": "ポートが 1〜65535 の普通の数字ではありません",
    },
}


class Refused(Exception):
    """A URL that is not fetched. ``key`` names the reason (``scheme``, ``no_host``, ``ambiguous``,
    ``private``, ``peer``, ``unresolvable``, ``too_many_redirects``); ``values`` fill its message;
    ``hop`` is 0 for the URL asked for, n for the n-th redirect."""

    def __init__(self, key: str, hop: int = 0, **values: object):
        super().__init__(key)
        self.key = key
        self.hop = hop
        self.values = values


@dataclass(frozen=True)
class Target:
    """A checked URL, in the parts the request is built from."""

    scheme: str  # http or https
    host: str  # ASCII, lower case, no trailing dot; an IP address in its usual form, without brackets
    port: int
    path: str  # the request target: path and query, percent-encoded
    written_host: str  # the host as the URL wrote it (IPv6 without brackets), for messages
    address: IPAddress | None  # when the host is an IP address

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"


def parse_url(url: str) -> Target:
    """``url``'s parts, or :class:`Refused` when it is not a plain http(s) URL."""
    check_characters(url)
    scheme, colon, rest = url.partition(":")
    if not colon or scheme.lower() not in _DEFAULT_PORTS:
        raise Refused("scheme", url=url)
    scheme = scheme.lower()
    if not rest.startswith("//"):
        raise _ambiguous(url, "slashes")
    rest = rest[2:]
    end = min([i for i in map(rest.find, "/?#") if i >= 0] + [len(rest)])
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        raise _ambiguous(url, "userinfo")
    written, port_text = _split_authority(authority, url)
    if not written:
        raise Refused("no_host", url=url)
    host, address = _canonical_host(written, url)
    if port_text is None:
        port = _DEFAULT_PORTS[scheme]
    elif _PORT.fullmatch(port_text) and int(port_text) <= 65535:
        port = int(port_text)
    else:
        raise _ambiguous(url, "port")
    return Target(scheme, host, port, _request_target(tail), written.lower().strip("[]"), address)


def _ambiguous(url: str, reason: str) -> Refused:
    return Refused("ambiguous", url=url, reason=reason)


def check_characters(text: str) -> None:
    """Refuse a URL (or a redirect's Location) with a backslash, white space or invisible characters."""
    if "\\" in text:
        raise _ambiguous(text, "backslash")
    if any(ch.isspace() or unicodedata.category(ch) in _INVISIBLE for ch in text):
        raise _ambiguous(text, "control")


def _split_authority(authority: str, url: str) -> tuple[str, str | None]:
    """(host as written, port text or None)."""
    if authority.startswith("["):
        close = authority.find("]")
        after = authority[close + 1:] if close >= 0 else ""
        if close < 0 or (after and not after.startswith(":")):
            raise _ambiguous(url, "host")
        return authority[:close + 1], (after[1:] if after else None)
    host, colon, port = authority.partition(":")
    return host, (port if colon else None)


def _canonical_host(written: str, url: str) -> tuple[str, IPAddress | None]:
    """(host to connect to and send, its IP address when it is one)."""
    if written.startswith("["):
        inner = written[1:-1]
        try:
            if "%" in inner or not written.endswith("]"):
                raise ValueError(inner)
            address = ipaddress.IPv6Address(inner)
        except ValueError:
            raise _ambiguous(url, "host") from None
        return str(address), address
    name = written.lower()
    if not name.isascii():
        try:
            name = idna.encode(name, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise _ambiguous(url, "host") from None
    name = name[:-1] if name.endswith(".") else name
    try:
        number = ipv4_from_host(name)
    except ValueError:
        raise _ambiguous(url, "host") from None
    if number is not None:
        return str(number), number
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise _ambiguous(url, "host")
    return name, None


def ipv4_from_host(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host written as numbers means, in every notation that browsers and
    ``inet_aton`` accept (decimal, octal ``0177``, hex ``0x7f``, one to four parts, a trailing dot);
    None when the host is a name. ValueError when it looks like a number but is not an address."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not re.fullmatch(r"[0-9]+|0[xX][0-9a-fA-F]*", parts[-1]):
        return None
    numbers = [_ipv4_part(part) for part in parts]
    if len(numbers) > 4 or any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{host} is not an IPv4 address")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _ipv4_part(part: str) -> int:
    for pattern, base in ((r"0[xX]([0-9a-fA-F]*)", 16), (r"0([0-7]+)", 8), (r"(0|[1-9][0-9]*)", 10)):
        match = re.fullmatch(pattern, part)
        if match:
            return int(match.group(1) or "0", base)
    raise ValueError(f"{part} is not a number")


def _request_target(tail: str) -> str:
    path, question, query = tail.split("#", 1)[0].partition("?")
    path = quote(path or "/", safe=_PATH_SAFE)
    return path + ("?" + quote(query, safe=_QUERY_SAFE) if question else "")


def host_key(host: str) -> str:
    """A host from the settings, in the form :attr:`Target.host` has (for allow lists)."""
    try:
        return parse_url(f"http://{host.strip()}/").host
    except Refused:
        return host.strip().rstrip(".").lower()


