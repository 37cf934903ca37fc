"""Dream Mode end to end, as `make run` runs it: a real uvicorn server, a real Celery worker and
a real Celery beat on the test database, the packaged MiniLM model. Notes stored through the
HTTP API get linked without anyone calling dream (the worker embeds them, beat feeds, the
worker claims); an update stored later supersedes the note it updates, and /api/query answers
with the update instead of the outdated note.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connection

from ctx.models import Block
from dream.models import DreamState, Link
from tests.conftest import make_cast
from tests.dream import notes
from tests.support.live import LiveServer, database_url, start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
FEED_SECONDS = 2


@dataclass
class Stack:
    server: LiveServer
    logs: dict[str, Path]

    def log(self, name: str) -> str:
        return self.logs[name].read_text(errors="replace")


def _celery(role: str, tmp: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], Path]:
    cmd = [sys.executable, "-m", "celery", "-A", "ctx", role, "--loglevel", "info"]
    if role == "worker":  # as the launcher runs it: prefork, one child
        cmd += ["--concurrency", "1", "--hostname", f"e2e-{os.getpid()}@%h"]
        cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    else:
        cmd += ["--schedule", str(tmp / "celerybeat-schedule")]
    log = tmp / f"{role}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return proc, log


@pytest.fixture
def stack(transactional_db: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Function-scoped on purpose: its teardown (stop the worker and beat) must run before the
    test database is flushed. Beat feeds every FEED_SECONDS, so a worker left running writes
    to the tables the flush truncates (a CI run's flush failed so; its database error was not
    printed, a deadlock between the two is the likely one)."""
    from ctx.celery import app

    tmp = tmp_path_factory.mktemp("dream-e2e")
    name = connection.settings_dict["NAME"]
    env = {
        **os.environ,
        "DATABASE_URL": database_url(name),
        "CTX_SECRET_KEY": settings.SECRET_KEY,
        "CTX_LOG_LEVEL": "info",
        "CTX_DREAM_FEED_SECONDS": str(FEED_SECONDS),
        "OMP_NUM_THREADS": "1",
    }
    app.control.purge()  # tasks other tests enqueued for blocks long gone
    procs = [_celery(role, tmp, env) for role in ("worker", "beat")]
    logs = {role: log for role, (_, log) in zip(("worker", "beat"), procs, strict=True)}
    try:
        for server in start(name, settings.SECRET_KEY, tmp / "uvicorn.log"):
            logs["server"] = server.log
            yield Stack(server, logs)
    finally:
        for proc, _ in procs:
            proc.send_signal(signal.SIGTERM)
        for proc, _ in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the prefork child too, not only its parent
                proc.wait(10)


def _wait(stack: Stack, predicate: Callable[[], bool], what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(1)
    tail = "\n".join(f"--- {n}\n{stack.log(n)[-3000:]}" for n in stack.logs)
    raise AssertionError(f"timed out waiting for {what}\n{tail}")


def _links() -> set[tuple[str, str, str]]:
    """Dream's links between the stored notes (the facts memory extracts from them and their
    extraction links are another layer)."""
    notes_only = Link.objects.exclude(source__category__startswith="memory/").exclude(
        target__category__startswith="memory/"
    )
    rows = notes_only.values_list("source__title", "target__title", "link_class")
    return {(a, b, c) for a, b, c in rows}


def _store(http: httpx.Client, category: str, title: str, content: str, **extra: Any) -> None:
    resp = http.post(
        "/api/store", json={"category": category, "title": title, "content": content, **extra}
    )
    assert resp.status_code in (200, 201), resp.text


def _ask(http: httpx.Client, question: str) -> list[str]:
    resp = http.post("/api/query", json={"query": question, "limit": 5})
    assert resp.status_code == 200, resp.text
    return [s["title"] for s in resp.json()["sources"]]


def test_it_links_stored_notes_and_answers_with_the_update(stack: Stack) -> None:
    cast = make_cast()
    assert cast.owner.key is not None
    http = httpx.Client(
        base_url=stack.server.url, headers={"X-Context-Key": cast.owner.key}, timeout=120
    )
    title = {key: t for key, _, t, _, _ in notes.NOTES}
    for key, category, t, content, when in notes.NOTES:
        if key == "deploy2":
            continue  # stored later, as an update
        extra = {} if key == "deploy" else {"source_time": when.isoformat()}
        _store(http, category, t, content, **extra)
    expected = {(title[a], title[b], c) for a, b, c in notes.EXPECTED if "deploy2" not in (a, b)}
    _wait(stack, lambda: expected <= _links(), "the corpus to be linked")
    _wait(stack, lambda: not DreamState.objects.filter(cycles=0).exists(), "every note dreamt")
    group = {t: notes.group_of(key, notes.GROUPS) for key, t in title.items()}
    assert [x for x in _links() if group[x[0]] != group[x[1]]] == []  # nothing unrelated
    assert "Deploy day" in _ask(http, "When do we deploy to production?")

    _store(
        http,
        "ops",
        "Deploy day (updated)",
        "We now deploy on Thursdays instead of Tuesdays, so QA gets two more days.",
    )
    update = ("Deploy day (updated)", "Deploy day", "supersedes")
    _wait(stack, lambda: update in _links(), "the update to supersede the old note")
    old = Block.objects.get(title="Deploy day")
    assert old.lifecycle == "snapshot" and old.superseded_by.title == update[0]  # type: ignore[union-attr]
    answer = _ask(http, "When do we deploy to production?")
    assert "Deploy day (updated)" in answer and "Deploy day" not in answer
    worker = stack.log("worker")
    assert "dream.feed" in worker and "dream.run" in worker  # beat fed, the worker claimed
    assert "Traceback" not in worker
