"""Fetching a URL that a model chose, without letting it reach the user's own network.

Any tool can use it: ``guarded_get(url, timeout=10, max_bytes=2_000_000)`` returns a :class:`Page`;
``open_guarded(url, timeout=10)`` returns a :class:`Response` whose body is read with
``response.read(max_bytes)``. Both raise :class:`Refused` (the URL is not fetched; ``key`` says why),
:class:`FetchTimeout` or :class:`FetchFailed`.

- **One parser** (:func:`parse_url`, in ``urls.py``): the parts it gives are the parts the request is
  built from, so the host that is checked is the host that is connected to. URLs that parsers read
  differently are refused outright: backslashes, a user name or stray ``@`` before the host, control
  characters and white space, a scheme without ``//``, odd ports. A host written as numbers in any
  IPv4 notation (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``, a trailing dot) is read as
  the address it means.
- **Public addresses only** (:func:`classify`, in ``addresses.py``): loopback, private, link-local,
  multicast, shared, reserved and unspecified addresses are refused, and an IPv6 address that carries
  an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) is judged by that address.
- **Resolve once, connect to what was checked** (``fetch.py``): the host name is resolved once, every
  address must pass, the connection goes to one of them (TLS still checks the certificate for the
  host name), and the peer address is checked again once connected. Redirects are followed by hand
  through the same steps.
- **One deadline**: connecting, the TLS handshake, the headers and every read of the body end by
  ``timeout`` seconds after the call, however slowly a server sends; the socket is closed with the
  response.
"""

from agent.toolkit.net.addresses import classify, embedded_ipv4
from agent.toolkit.net.fetch import (
    REDIRECTS, Deadline, FetchFailed, FetchTimeout, Page, Response, guarded_get, open_guarded, resolve_addresses,
)
from agent.toolkit.net.urls import AMBIGUITIES, Refused, Target, host_key, ipv4_from_host, parse_url

__all__ = [
    "AMBIGUITIES", "REDIRECTS", "Deadline", "FetchFailed", "FetchTimeout", "Page", "Refused", "Response", "Target",
    "classify", "embedded_ipv4", "guarded_get", "host_key", "ipv4_from_host", "open_guarded", "parse_url",
    "resolve_addresses",
]
