"""A proxy in the environment: requests go through it (httpx honours HTTP_PROXY)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, free_port
from tests.cli.rawhttp import OK, SocketServer, read_head


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[str]]]:
    """A forward proxy that answers every request itself; its URL and the request lines."""
    lines: list[str] = []

    def answer(conn: socket.socket) -> None:
        lines.append(read_head(conn).split(b"\r\n", 1)[0].decode())
        conn.sendall(OK)

    server = SocketServer(answer)
    yield server.url, lines
    server.close()


def test_it_sends_requests_through_the_configured_proxy(
    tmp_path: Path, proxy: tuple[str, list[str]]
) -> None:
    url, lines = proxy
    target = f"http://127.0.0.1:{free_port()}"  # nothing listens there: only the proxy answers
    run = Cli(home=tmp_path, url=target, key="k")("health", HTTP_PROXY=url)
    assert run.returncode == 0, run.stderr
    assert lines == [f"GET {target}/health HTTP/1.1"]
