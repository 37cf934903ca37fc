"""With a pool, a web worker runs as many requests at once as it has connections and queues the
others (ctx/gate.py): more clients than connections wait their turn instead of answering 503
while the running requests are slow, and reads leave one connection to stores. A real uvicorn
with a pool of 2 on the test database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection, transaction

from tests.conftest import Cast
from tests.mcp.live import LiveServer, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_connections(settings: Any, tmp_path: Path) -> Iterator[LiveServer]:
    settings.CELERY_BROKER_URL = ""
    name = connection.settings_dict["NAME"]
    env = {"CTX_DB_POOL": "2", "CTX_GUARD_HINTS": "false"}
    yield from start(name, settings.SECRET_KEY, tmp_path / "uvicorn.log", **env)


def _lock_waiters() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        return int(cur.fetchone()[0])


def test_it_queues_requests_beyond_its_connections_while_they_are_slow(
    two_connections: LiveServer, cast: Cast
) -> None:
    headers = {"X-Context-Key": cast.owner.key or ""}

    def search(_: int) -> int:
        resp = httpx.post(
            two_connections.url + "/api/search", json={"query": "x"}, headers=headers, timeout=60
        )
        return resp.status_code

    def store() -> int:
        note = {"category": "notes", "title": "queued", "content": "Stored while reads queue."}
        resp = httpx.post(
            two_connections.url + "/api/store", json=note, headers=headers, timeout=60
        )
        return resp.status_code

    with ThreadPoolExecutor(13) as clients:
        with transaction.atomic():
            with connection.cursor() as cur:  # the key lookups wait: every request is slow
                cur.execute("LOCK TABLE ctx_apikey IN ACCESS EXCLUSIVE MODE")
            answers = clients.map(search, range(12))
            deadline = time.monotonic() + 30
            while _lock_waiters() < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            # reads hold every connection but one: the store behind twelve reads takes it
            stored = clients.submit(store)
            while _lock_waiters() < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _lock_waiters() == 2
            time.sleep(3)  # longer than the pool's wait for a connection (CTX_DB_POOL_TIMEOUT)
        assert list(answers) == [200] * 12
        assert stored.result() == 201
