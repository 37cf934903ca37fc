"""After an outage the publisher sends one backfill: a restarted Redis lost what it held.

A real redis-server of this test's own, killed and started again on the same socket, and the
process's publisher (ctx.broker) pointed at it; no worker takes the messages, so the queue
shows what was published.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis as redis_py

from ctx import broker
from ctx.celery import app
from ctx.runtime.embedded import start_redis
from tests.support.processes import wait_until


def _queued(sock: Path) -> list[tuple[str, Any]]:
    """(task, args) of each message in the default queue, oldest first."""
    raw = redis_py.Redis(unix_socket_path=str(sock)).lrange("celery", 0, -1)
    messages = [json.loads(m) for m in reversed(raw)]
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages]


def test_a_redis_that_was_restarted_gets_a_backfill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, url = start_redis(tmp_path / "redis")
    sock = tmp_path / "redis" / "redis.sock"
    monkeypatch.setitem(app.conf, "broker_url", url)
    publisher = broker.Publisher()
    try:
        publisher.send(broker.Message("retrieval.embed_blocks", (["before"],)))
        assert wait_until(lambda: _queued(sock) == [("retrieval.embed_blocks", "[['before']]")], 20)
        os.kill(proc.pid, signal.SIGKILL)  # the message nobody took dies with it
        proc.wait(10)
        publisher.send(broker.Message("retrieval.embed_blocks", (["during"],)))
        time.sleep(1)  # the publisher finds the broker gone and waits to try again
        proc, _ = start_redis(tmp_path / "redis")
        wanted = [("retrieval.embed_blocks", "[['during']]"), ("retrieval.backfill", "()")]
        assert wait_until(lambda: _queued(sock) == wanted, 20), _queued(sock)
    finally:
        proc.kill()
        proc.wait(10)
