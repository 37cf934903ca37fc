"""The CLI's own outbound-URL check for `fetch_and_index`.

The server keeps its outbound HTTP behind one module of its own; the CLI is a separate
distribution that imports nothing of the server (an import-linter contract), so this is a
small check of its own with the same rule: resolve the host and refuse private, loopback,
link-local, reserved, multicast and unspecified addresses unless private ones are allowed.
Every redirect hop is checked again. (A DNS answer that changes between this check and the
connection is not caught: the fetch is for public documentation, not a hostile network.)
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


def check_url(url: str, *, allow_private: bool = False) -> None:
    """Nothing if `url` may be fetched; BlockedURL saying why not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BlockedURL(f"only http:// and https:// URLs can be fetched, got {url!r}")
    if allow_private:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise BlockedURL(f"cannot resolve {parts.hostname}: {exc}") from None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        why = _refused(address)
        if why:
            raise BlockedURL(
                f"{parts.hostname} resolves to {address}, a {why} address: refused "
                "(allow_private / --allow-private to fetch from private networks)"
            )
