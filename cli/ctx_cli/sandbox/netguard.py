"""The CLI's own outbound-URL check for `fetch_and_index`.

The server keeps its outbound HTTP behind one module of its own; the CLI is a separate
distribution that imports nothing of the server (an import-linter contract), so this is a
small check of its own with the same rule: resolve the host and refuse private, loopback,
link-local, reserved, multicast and unspecified addresses unless private ones are allowed.

The host is resolved once per hop, and the fetch connects to the addresses checked here, never
to a second answer (ctx_cli.sandbox.fetch pins them): a name that answers a public address to
the check and a private one to the connection (DNS rebinding) cannot reach the private one.
Every redirect hop is resolved, checked and pinned again.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


class BlockedURL(ValueError):
    pass


def _refused(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    for attribute in (
        "is_loopback", "is_private", "is_link_local", "is_reserved", "is_multicast",
        "is_unspecified",
    ):  # fmt: skip
        if getattr(address, attribute):
            return attribute[3:].replace("_", "-")
    return None


def check_url(url: str, *, allow_private: bool = False) -> list[str]:
    """The addresses `url`'s host resolves to, every one checked, in the resolver's order:
    the only ones the fetch may connect to. BlockedURL saying why not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BlockedURL(f"only http:// and https:// URLs can be fetched, got {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return resolve(parts.hostname, port, allow_private=allow_private)


def resolve(host: str, port: int, *, allow_private: bool = False) -> list[str]:
    """One resolution of `host`, each address checked (none when private ones are allowed)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise BlockedURL(f"cannot resolve {host}: {exc}") from None
    addresses: list[str] = []
    for info in infos:
        found = str(info[4][0])  # an IPv6 scope (fe80::1%eth0) is kept for the connection
        why = None if allow_private else _refused(ipaddress.ip_address(found.split("%", 1)[0]))
        if why:
            raise BlockedURL(
                f"{host} resolves to {found}, a {why} address: refused "
                "(allow_private / --allow-private to fetch from private networks)"
            )
        if found not in addresses:
            addresses.append(found)
    return addresses
