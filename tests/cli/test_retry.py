"""One retry when the server drops a connection: for reads and upserts, never for raw POSTs."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.rawhttp import OK, SocketServer, read_head


class FlakyServer(SocketServer):
    """Resets the first `drops` connections after reading the request, then answers 200."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.requests = 0
        super().__init__(self._answer)

    def _answer(self, conn: socket.socket) -> None:
        if b"\r\n\r\n" not in read_head(conn):
            return
        self.requests += 1
        if self.drops > 0:
            self.drops -= 1
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return  # closing with linger 0 sends a RST
        conn.sendall(OK)


@pytest.fixture
def flaky() -> Iterator[FlakyServer]:
    server = FlakyServer(drops=1)
    yield server
    server.close()


def test_it_retries_a_dropped_connection_once(tmp_path: Path, flaky: FlakyServer) -> None:
    run = Cli(home=tmp_path, url=flaky.url, key="k")("health")
    assert run.returncode == 0, run.stderr
    assert flaky.requests == 2


def test_it_gives_up_after_the_second_drop(tmp_path: Path, flaky: FlakyServer) -> None:
    flaky.drops = 2
    run = Cli(home=tmp_path, url=flaky.url, key="k")("health")
    assert run.returncode == 1 and "cannot reach ctx" in run.stderr
    assert flaky.requests == 2


def test_it_never_repeats_a_raw_post(tmp_path: Path, flaky: FlakyServer) -> None:
    run = Cli(home=tmp_path, url=flaky.url, key="k")("api", "POST", "/api/admin/scopes", "{}")
    assert run.returncode == 1 and flaky.requests == 1
