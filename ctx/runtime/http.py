"""uvicorn's HTTP protocol with Nagle's algorithm off on every connection.

With `--workers` uvicorn binds the listening socket itself as `socket.socket(family)`, whose
`proto` is 0; asyncio turns TCP_NODELAY on only for sockets whose `proto` is IPPROTO_TCP, so
every accepted connection kept Nagle on. A response goes out as two writes (headers, then the
body): Nagle held the body until the client acknowledged the headers, and a client delays that
acknowledgement by ~40 ms. Measured on a keep-alive connection: `/api/whoami` took 64 ms p50,
of which 41 ms was the wait between the headers and the body (docs/benchmarks.md).
Served with `uvicorn --http ctx.runtime.http:NoDelayH11Protocol` (ctx/runtime/launcher.py,
the Dockerfile, compose).
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on a TCP connection (a no-op for Unix sockets)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayH11Protocol(H11Protocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        super().connection_made(transport)
