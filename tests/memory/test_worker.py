"""The extraction task in a real Celery worker: a subprocess of this test run on the test
database and the test Redis, consuming a queue of its own. The same message delivered twice
extracts once (idempotent per content hash)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from ctx.models import Block
from memory.models import Fact, Provenance
from memory.tasks import extract_sources
from tests.conftest import Cast

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_broker() -> None:
    """The broker stays configured here (overrides tests/memory/conftest.py)."""


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    queue = f"memory-test-{uuid.uuid4().hex[:8]}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    env = {
        **os.environ,
        "DATABASE_URL": urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"])),
    }
    log = tmp_path / "worker.log"
    cmd = [sys.executable, "-m", "celery", "-A", "ctx", "worker", "--pool", "solo", "-Q", queue]
    cmd += ["--loglevel", "info", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait(lambda: " ready." in log.read_text() or proc.poll() is not None, 90, "worker")
        assert proc.poll() is None, log.read_text()[-3000:]
        yield queue, log
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_it_extracts_in_a_worker_once_per_content(
    cast: Cast, worker: tuple[str, Path], settings: Any
) -> None:
    queue, log = worker
    status, stored = cast.owner.post(
        "/api/store", {"category": "notes", "title": "job", "content": "I work at Acme Corp."}
    )
    assert status in (200, 201), stored
    key = f"block:{stored['id']}"
    for _ in range(2):  # a redelivery, or the same source written twice
        extract_sources.apply_async(args=[[key]], queue=queue)
    _wait(lambda: log.read_text().count("succeeded in") >= 2, 60, "both deliveries")
    fact = Fact.objects.get()
    assert (fact.attribute, fact.value) == ("employer", "Acme Corp")
    assert Provenance.objects.filter(block_id=fact.pk).count() == 1
    assert Block.objects.filter(category="memory/fact").count() == 1
    assert "'status': 'unchanged'" in log.read_text()
