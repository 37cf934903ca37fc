"""A broker that stops answering (its redis-server paused with SIGSTOP) holds no request: stores,
reads, conversation imports and thumbs-downs answer as usual, and once Redis continues the
worker embeds what was stored and updates the profile.

A real uvicorn (as `make run` serves the app, with a pool of 2) and a real Celery worker, on
the test database and on a redis-server of this test's own, so the suite's Redis is never
paused.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from ctx.models import Block
from ctx.runtime.embedded import start_redis
from profiles.models import Signal, SignalStatus
from tests.conftest import Cast
from tests.mcp.live import LiveServer, start
from tests.support.live import database_url
from tests.support.processes import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    proc, url = start_redis(tmp_path / "redis")
    try:
        yield proc, url
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def web(redis: tuple[Any, str], settings: Any, tmp_path: Path) -> Iterator[LiveServer]:
    settings.CELERY_BROKER_URL = ""  # this process's own writes (the cast) skip the enqueue
    env = {"REDIS_URL": redis[1], "CTX_DB_POOL": "2", "CTX_GUARD_HINTS": "false"}
    yield from start(
        connection.settings_dict["NAME"], settings.SECRET_KEY, tmp_path / "web.log", **env
    )


@pytest.fixture
def worker(redis: tuple[Any, str], tmp_path: Path) -> Iterator[Path]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict["NAME"]),
        "REDIS_URL": redis[1],
    }
    log = tmp_path / "worker.log"
    cmd = [sys.executable, "-m", "celery", "-A", "ctx", "worker", "--pool", "solo"]
    cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until(
            lambda: " ready." in log.read_text(errors="replace") or proc.poll() is not None, 90
        )
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        yield log
    finally:
        proc.terminate()
        proc.wait(30)


CONVERSATION = {
    "platform": "codex",
    "session_id": "paused-broker",
    "messages": [
        {"role": "user", "content": "Why did the nightly import stall?"},
        {"role": "assistant", "content": "The queue's Redis was paused, so nothing was taken."},
    ],
}


def _embedded(ids: list[str]) -> bool:
    return not Block.objects.filter(pk__in=ids, embedding__isnull=True).exists()


def test_it_answers_while_the_broker_is_paused_and_embeds_after(
    redis: tuple[subprocess.Popen[bytes], str], web: LiveServer, worker: Path, cast: Cast
) -> None:
    headers = {"X-Context-Key": cast.owner.key or ""}
    os.kill(redis[0].pid, signal.SIGSTOP)
    try:
        # More stores than the pool has connections: a store that waited for the broker held
        # its connection, and the next requests then found none.
        with httpx.Client(base_url=web.url, headers=headers, timeout=20) as c:
            stored = [
                c.post(
                    "/api/store",
                    json={
                        "category": "ops",
                        "title": f"Queue {i}",
                        "content": f"The broker queue note number {i}.",
                    },
                )
                for i in range(3)
            ]
            found = c.post("/api/search", json={"query": "broker queue note"})
            # A conversation import asks the broker for a worker; the broker does not answer,
            # so the web process imports it (it used to wait on the broker without a timeout).
            accepted = c.post("/api/sessions/import", json=CONVERSATION)
            assert accepted.status_code == 202, accepted.text
            job = c.get(f"/api/jobs/{accepted.json()['job']['id']}").json()["job"]
            # A thumbs-down asks a worker to update the profile: it too used to wait.
            thumbs = c.post("/api/signals", json={"type": "dislike", "note": "no emoji"})
        assert [r.status_code for r in stored] == [201, 201, 201]
        assert found.status_code == 200 and len(found.json()["results"]) == 3
        assert job["status"] == "done", job
        assert thumbs.status_code == 201, thumbs.text
        windows = list(Block.objects.filter(type="transcript").values_list("pk", flat=True))
        ids = [r.json()["id"] for r in stored] + [str(pk) for pk in windows]
        assert windows and not _embedded(ids)  # no message could reach the worker yet
    finally:
        os.kill(redis[0].pid, signal.SIGCONT)
    # The web process publishes what waited as soon as Redis answers (the periodic backfill,
    # which would also catch up, is not running here: no beat).
    assert wait_until(lambda: _embedded(ids), 90), worker.read_text(errors="replace")[-3000:]
    pending = Signal.objects.filter(status=SignalStatus.PENDING)
    assert wait_until(lambda: not pending.exists(), 60), worker.read_text(errors="replace")[-3000:]
