"""Real Celery workers: two processes racing on one corpus, and a worker killed mid-cycle.

The workers are subprocesses of this test run, on the test database (pytest-django's
`test_<name>`) and the Redis the test plugin started, consuming a queue of their own.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from dream import claims, services
from dream.cycle import run_cycles
from dream.models import DreamState, Link
from dream.tasks import run
from tests.conftest import Cast
from tests.dream.conftest import put, unit

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
TTL = 3  # seconds: the workers' claim TTL
TRACE = re.compile(r"ctx\.dream\.claims (claim|release) (\S+) (\S+) ([\d.]+)")


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def _test_database_url() -> str:
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


def _start(name: str, queue: str, tmp: Path) -> Worker:
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CTX_LOG_LEVEL": "debug",
        "CTX_DREAM_CLAIM_TTL": str(TTL),
        "CTX_DREAM_BACKOFF_MIN_HOURS": "0",  # every block is due again at once: a real race
        "CTX_DREAM_TASK_SECONDS": "6",
        "CTX_DREAM_THROTTLE_SECONDS": "60",
    }
    log = tmp / f"{name}.log"
    cmd = [sys.executable, "-m", "celery", "-A", "ctx", "worker", "--pool", "solo"]
    cmd += ["-Q", queue, "--hostname", f"{name}@%h", "--loglevel", "info"]
    cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Worker(name, proc, log)


def _wait(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Worker]]]:
    queue = f"dream-test-{uuid.uuid4().hex[:8]}"
    tmp = tmp_path_factory.mktemp("workers")
    started = [_start(name, queue, tmp) for name in ("w1", "w2")]
    try:
        for w in started:
            _wait(lambda w=w: " ready." in w.text() or w.proc.poll() is not None, 90, w.name)
            assert w.proc.poll() is None, w.text()[-3000:]
        yield queue, started
    finally:
        for w in started:
            if w.proc.poll() is None:
                w.proc.send_signal(signal.SIGTERM)
        for w in started:
            try:
                w.proc.wait(30)
            except subprocess.TimeoutExpired:
                w.proc.kill()


def _intervals(texts: list[str]) -> dict[str, list[tuple[float, float, str]]]:
    """Per block: (claimed, released, worker) from the workers' claim traces. A worker holds
    a whole claimed batch at once, so open claims are kept per (worker, block)."""
    per_block: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for text in texts:
        open_claims: dict[tuple[str, str], float] = {}
        for event, block, worker, at in TRACE.findall(text):
            if event == "claim":
                assert (worker, block) not in open_claims, "claimed twice without a release"
                open_claims[(worker, block)] = float(at)
            else:
                start = open_claims.pop((worker, block), None)
                assert start is not None, "a release without its claim"
                per_block[block].append((start, float(at), worker))
        assert not open_claims, "every claim of a finished run is released"
    return per_block


def test_it_never_lets_two_workers_hold_one_block(
    transactional_db: None, cast: Cast, workers: tuple[str, list[Worker]]
) -> None:
    queue, procs = workers
    for tenant in ("acme:main", "globex:main"):
        for i in range(30):
            vec = unit(**{f"a{i % 6}": 1.0, f"a{10 + i}": 0.45})  # six clusters of five
            put(tenant, f"Note {i}", f"note {i} about topic {i % 6}", vec)
    for _ in range(4):
        run.apply_async(queue=queue)
    _wait(lambda: sum(w.text().count(" claim ") for w in procs) > 120, 60, "many claims")
    # All four tasks must have ended: a worker between two tasks holds no claim for a moment,
    # which would pass the idle check while it is about to claim again.
    _wait(lambda: sum(w.text().count("succeeded in") for w in procs) >= 4, 90, "task ends")
    _wait(lambda: not DreamState.objects.filter(claim_token__isnull=False).exists(), 20, "idle")
    texts = [w.text() for w in procs]
    per_block = _intervals(texts)
    assert all(t.count(" claim ") > 10 for t in texts), "both workers took part"
    reclaimed = 0
    for spans in per_block.values():
        spans.sort()
        reclaimed += len(spans) - 1
        for (_, end, _), (start, _, _) in itertools.pairwise(spans):
            assert start >= end, "a block was held by two claims at once"
    assert reclaimed > 30  # blocks went round several times, between both workers
    assert "Traceback" not in "".join(texts) and "failed" not in "".join(texts).lower()
    with connection.cursor() as cur:
        cur.execute(
            """SELECT count(*) FROM dream_link a JOIN dream_link b
               ON a.source_id = b.target_id AND a.target_id = b.source_id
               AND a.link_class = b.link_class AND a.link_class IN ('topical', 'factual')"""
        )
        assert cur.fetchone()[0] == 0  # no pair twice in opposite directions
    assert Link.objects.count() > 0
    assert not Link.objects.exclude(source__scope=F("target__scope")).exists()


def test_it_claims_the_block_of_a_killed_worker_again_after_the_ttl(
    transactional_db: None, cast: Cast, workers: tuple[str, list[Worker]]
) -> None:
    queue, procs = workers
    first = put("acme:main", "Alpha", "alpha", unit(a0=1.0))
    second = put("acme:main", "Bravo", "bravo", unit(a0=0.9, a1=0.43))
    DreamState.objects.filter(block=second).update(next_at=None)  # one claimable block
    services.mode_set(mode="throttled", by="test")  # the workers pause 60 s mid-cycle
    run.apply_async(queue=queue)
    _wait(lambda: DreamState.objects.get(block=first).claim_token is not None, 30, "a claim")
    state = DreamState.objects.get(block=first)
    claimed_at, claim_until = state.claimed_at, state.claim_until
    assert claimed_at is not None and claim_until is not None
    pid = int(state.claimed_by.rsplit(":", 1)[1])
    victim = next(w for w in procs if w.proc.pid == pid)
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(10)
    services.mode_set(mode="on", by="test")
    _, early = claims.claim_next(
        worker="rescuer",
        now=timezone.now(),
        ttl=claim_until - claimed_at,
        default_mode="on",
    )
    assert early is None, "a live claim is never taken over"
    _wait(lambda: timezone.now() > claim_until, TTL + 5, "the TTL")
    summary = run_cycles(worker="rescuer")
    assert summary.cycles == 1 and summary.outcomes == {"changed": 1}
    state.refresh_from_db()
    assert (state.claimed_by, state.claim_token, state.cycles) == ("", None, 1)
    assert Link.objects.count() == 1
