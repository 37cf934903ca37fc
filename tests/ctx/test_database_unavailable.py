"""A database that is down, or a connection pool that is used up, answers 503
`service_unavailable` (with Retry-After) on every interface instead of a 500 after the pool's
wait, and the server recovers by itself when the database is back. Real uvicorn processes;
the stopped PostgreSQL is a throwaway one started here, never the suite's."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pgserver
import pytest
from django.db import connection, transaction

from ctx.runtime.embedded import postgres_ctl, socket_dir_of
from tests.conftest import Cast
from tests.mcp.live import LiveServer, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def throwaway(tmp_path: Path, settings: Any) -> Iterator[tuple[LiveServer, Path]]:
    """uvicorn (a pool of 2, as `make run` pools) on a PostgreSQL of its own, not migrated:
    every request that needs the database fails there, so only availability is observed."""
    pg = pgserver.get_server(tmp_path / "pg", cleanup_mode="delete")
    env = {"DATABASE_URL": pg.get_uri(), "CTX_DB_POOL": "2"}
    try:
        for server in start("unused", settings.SECRET_KEY, tmp_path / "uvicorn.log", **env):
            yield server, Path(pg.pgdata)
    finally:
        pg.cleanup()


def _assert_unavailable(resp: httpx.Response) -> None:
    assert resp.status_code == 503, resp.text
    assert resp.json()["error"]["code"] == "service_unavailable"
    assert resp.headers["retry-after"] == "2"


def test_it_answers_503_everywhere_while_the_database_is_down(
    throwaway: tuple[LiveServer, Path],
) -> None:
    server, pgdata = throwaway
    sockets = socket_dir_of(pgdata)
    postgres_ctl(pgdata, "stop")
    try:
        key = {"X-Context-Key": "ctx_abcdefgh_" + "x" * 40}
        bearer = {"Authorization": "Bearer ctx_abcdefgh_" + "x" * 40}
        with httpx.Client(base_url=server.url, timeout=30) as c:
            _assert_unavailable(c.post("/api/store", json={"title": "t"}, headers=key))
            _assert_unavailable(c.post("/api/query", json={"query": "q"}, headers=key))
            _assert_unavailable(c.post("/mcp", json={"jsonrpc": "2.0"}, headers=bearer))
            token = {"grant_type": "refresh_token", "refresh_token": "r", "client_id": "c"}
            _assert_unavailable(c.post("/token", data=token))
            health = c.get("/health")
            assert health.status_code == 503
            assert health.json() == {
                "status": "unavailable",
                "checks": {"database": "down"},
                "degraded": ["database"],
            }
    finally:
        postgres_ctl(pgdata, "start", socket_dir=sockets)
    # Back without restarting ctx: the pool drops its dead connections at checkout.
    assert httpx.get(server.url + "/health", timeout=30).status_code == 200


@pytest.fixture
def one_connection(settings: Any, tmp_path: Path) -> Iterator[LiveServer]:
    settings.CELERY_BROKER_URL = ""
    name = connection.settings_dict["NAME"]
    # One connection, so one request at a time (ctx.gate): the next one queues, and answers
    # 503 when the running one does not finish within the queue's bound.
    env = {"CTX_DB_POOL": "1", "CTX_GUARD_HINTS": "false", "CTX_REQUEST_QUEUE_SECONDS": "2"}
    yield from start(name, settings.SECRET_KEY, tmp_path / "uvicorn.log", **env)


def _wait_for_lock_waiter() -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cur.fetchone()[0]:
                return
        time.sleep(0.05)
    raise AssertionError("the first request never waited for the lock")


def test_it_answers_503_when_no_pooled_connection_frees_up(
    one_connection: LiveServer, cast: Cast
) -> None:
    headers = {"X-Context-Key": cast.owner.key or ""}
    first: list[httpx.Response] = []

    def hold() -> None:  # its key lookup waits for the lock, holding the only connection
        first.append(
            httpx.post(
                one_connection.url + "/api/search", json={"query": "x"}, headers=headers, timeout=60
            )
        )

    holder = threading.Thread(target=hold)
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("LOCK TABLE ctx_apikey IN ACCESS EXCLUSIVE MODE")
        holder.start()
        _wait_for_lock_waiter()
        second = httpx.post(
            one_connection.url + "/api/search", json={"query": "x"}, headers=headers, timeout=60
        )
        _assert_unavailable(second)
    holder.join(60)
    assert first[0].status_code == 200  # the request that had the connection finished
