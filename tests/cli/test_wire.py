"""The CLI's HTTP client (ctx_cli.wire) against a scripted server: chunked answers, a kept-alive
connection reused for a command's second request, and a stale one replaced."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.cli.rawhttp import SocketServer, read_head

ANSWERS = {
    "/api/manage": {"success": True, "stats": {"blocks": 1234}},
    "/api/whoami": {"success": True, "home_scope": "acme:main"},
}


def _chunked(body: bytes) -> bytes:
    """The body in three chunks, with a chunk extension and a trailer field."""
    third = max(1, len(body) // 3)
    parts = [body[:third], body[third : 2 * third], body[2 * third :]]
    out = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts if p)
    return out + b"0\r\nX-Trailer: yes\r\n\r\n"


class ScriptedServer(SocketServer):
    """Answers every request with chunked JSON on a kept-alive connection; closes each
    connection after `per_connection` answers."""

    def __init__(self, per_connection: int = 100) -> None:
        self.per_connection = per_connection
        self.connections = 0
        self.paths: list[str] = []
        super().__init__(self._answer_all)

    def _answer_all(self, conn: socket.socket) -> None:
        self.connections += 1
        data = b""
        for _ in range(self.per_connection):
            data = read_head(conn, data)
            if b"\r\n\r\n" not in data:
                return
            head, _, data = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            while len(data) < length:
                data += conn.recv(65536)
            data = data[length:]
            path = head.split(b" ")[1].decode()
            self.paths.append(path)
            body = json.dumps(ANSWERS.get(path, {"status": "ok"})).encode()
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + _chunked(body)
            )


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


def test_it_reads_chunked_answers_and_reuses_the_connection(
    tmp_path: Path, scripted: ScriptedServer
) -> None:
    run = Cli(home=tmp_path, url=scripted.url, key="k")("statusline")
    assert run.stdout.strip() == "ctx ● 1,234 blocks · acme:main", run.stderr
    assert scripted.paths == ["/api/manage", "/api/whoami"]
    assert scripted.connections == 1  # the second request went over the kept-alive one


def test_it_replaces_a_connection_the_server_closed(tmp_path: Path) -> None:
    server = ScriptedServer(per_connection=1)  # answers once, then closes
    try:
        run = Cli(home=tmp_path, url=server.url, key="k")("statusline")
        assert run.stdout.strip() == "ctx ● 1,234 blocks · acme:main", run.stderr
        assert server.paths == ["/api/manage", "/api/whoami"]  # each sent once
        assert server.connections == 2
    finally:
        server.sock.close()
