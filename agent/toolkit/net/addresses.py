"""Which addresses are public: every form an IPv4 address can hide in is read first."""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "fec0::/10")]
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


def classify(address: str | IPAddress) -> str | None:
    """Why ``address`` is not public: ``unspecified``, ``loopback``, ``link-local``, ``multicast``,
    ``shared`` (100.64/10), ``private`` or ``reserved``; None when it is public. An IPv6 address
    that carries an IPv4 address is classified by that IPv4 address (the least public one when the
    form can be read more than one way)."""
    if not isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        address = ipaddress.ip_address(str(address).split("%", 1)[0])  # drop an IPv6 zone (%eth0)
    if isinstance(address, ipaddress.IPv6Address):
        embedded = embedded_ipv4(address)
        if embedded:
            return next((kind for kind in map(_kind, embedded) if kind), None)
    return _kind(address)


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries, by the standard forms; [] for a plain IPv6."""
    value = int(address)
    low = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address.ipv4_mapped:  # ::ffff:a.b.c.d
        return [address.ipv4_mapped]
    if address in _IPV4_TRANSLATED or address in _NAT64:  # ::ffff:0:a.b.c.d, 64:ff9b::a.b.c.d
        return [low]
    if address in _IPV4_COMPATIBLE and value > 1:  # ::a.b.c.d (:: and ::1 are themselves)
        return [low]
    if address.sixtofour:  # 2002:aabb:ccdd::
        return [address.sixtofour]
    if address.teredo:  # 2001:0:server:flags:port:client, the client inverted
        server, client = address.teredo
        return [client, server]
    if address in _NAT64_LOCAL:  # local-use NAT64: the prefix length is the operator's choice
        return _nat64_local(value)
    return []


def _nat64_local(value: int) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a 64:ff9b:1::/48 address can carry: after a /48, /56 or /64 prefix when the
    bits such a form keeps zero (bits 64-71 and the suffix after the IPv4 address) are zero, and in
    its last 32 bits (a /96 prefix, the usual one)."""
    found = []
    without_u = ((value >> 64) << 56) | (value & ((1 << 56) - 1))  # 120 bits: bits 64-71 taken out
    for prefix_length in (48, 56, 64):
        suffix_bits = 120 - prefix_length - 32
        if (value >> 56) & 0xFF == 0 and without_u & ((1 << suffix_bits) - 1) == 0:
            found.append(ipaddress.IPv4Address((without_u >> suffix_bits) & 0xFFFFFFFF))
    return found + [ipaddress.IPv4Address(value & 0xFFFFFFFF)]


def _kind(address: IPAddress) -> str | None:
    if address.is_unspecified or address in _THIS_NETWORK:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address in _SHARED:
        return "shared"
    if any(address in network for network in _PRIVATE):
        return "private"
    if address.is_reserved or address.is_private or not address.is_global:
        return "reserved"
    return None


