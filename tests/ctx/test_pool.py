"""The web server's connection pool (`CTX_DB_POOL`, set by `make run`): requests on a real
uvicorn, as the runtime role, share a few PostgreSQL sessions and never each other's scopes."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from django.db import connection

from retrieval import indexing
from retrieval.embeddings import cache_key, get_embedder
from retrieval.models import EmbedCache
from rls.role import ROLE
from tests.conftest import Cast
from tests.support.live import LiveServer, database_url, start

pytestmark = pytest.mark.django_db(transaction=True)
POOL = 2
APP = "ctx-test-pool"


@pytest.fixture
def pooled(transactional_db: Any, tmp_path: Any, settings: Any) -> Iterator[LiveServer]:
    settings.CELERY_BROKER_URL = ""  # this process's own writes skip the enqueue
    name = connection.settings_dict["NAME"]
    parts = urlsplit(database_url(name))
    # Named, so that the session's shared live server (also ctx_app) is not counted.
    query = "&".join(q for q in (parts.query, f"application_name={APP}") if q)
    as_runtime_role = parts._replace(netloc=f"{ROLE}@{parts.hostname or ''}", query=query).geturl()
    env = {"DATABASE_URL": as_runtime_role, "CTX_DB_POOL": str(POOL), "CTX_GUARD_HINTS": "false"}
    yield from start(name, settings.SECRET_KEY, tmp_path / "uvicorn.log", **env)


def _runtime_sessions() -> list[dt.datetime]:
    """When each of the runtime role's open sessions on the test database began."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT backend_start FROM pg_stat_activity"
            " WHERE usename = %s AND datname = %s AND application_name = %s",
            [ROLE, connection.settings_dict["NAME"], APP],
        )
        return [row[0] for row in cur.fetchall()]


def test_it_serves_interleaved_tenants_from_a_few_pooled_sessions(
    pooled: LiveServer, cast: Cast
) -> None:
    mine = {
        cast.owner.key: cast.owner.store(title="pool note", content="pooled acme fact")["id"],
        cast.outsider.key: cast.outsider.store(title="pool note", content="pooled globex fact")[
            "id"
        ],
    }
    theirs = {cast.owner.key: mine[cast.outsider.key], cast.outsider.key: mine[cast.owner.key]}

    def ask(key: str) -> tuple[list[str], int]:
        headers = {"X-Context-Key": key}
        with httpx.Client(base_url=pooled.url, headers=headers, timeout=30) as client:
            found = client.post("/api/search", json={"query": "pooled fact"}).json()
            foreign = client.post("/api/manage", json={"action": "get", "id": theirs[key]})
        return [r["id"] for r in found["results"]], foreign.status_code

    assert ask(cast.owner.key or "")[0] == [mine[cast.owner.key]]
    before = min(_runtime_sessions())
    keys = [cast.owner.key or "", cast.outsider.key or ""] * 12
    with ThreadPoolExecutor(max_workers=4) as workers:
        answers = list(workers.map(ask, keys))
    for key, (found, foreign_status) in zip(keys, answers, strict=True):
        assert found == [mine[key]]  # each request sees its own tenant's note only
        assert foreign_status == 404
    sessions = _runtime_sessions()
    assert 1 <= len(sessions) <= POOL
    assert before in sessions  # the session of the first request served the later ones too


def test_a_comparison_searches_its_parts_on_pooled_helpers_in_the_callers_scopes(
    pooled: LiveServer, cast: Cast
) -> None:
    # The parts run on helper threads (retrieval/parallel.py) with connections of their own:
    # they must search as the caller, who sees its notes and never the outsider's. A helper
    # without the caller's row-level security context finds nothing at all.
    coffee = cast.owner.store(title="Coffee", content="Bought the coffee maker on Monday.")["id"]
    mixer = cast.owner.store(title="Mixer", content="The stand mixer broke mid-cake.")["id"]
    cast.outsider.store(title="Mixer", content="Our stand mixer broke as well, at globex.")
    indexing.embed_pending(limit=100)
    question = "Which came first, the coffee maker purchase or the stand mixer breaking?"
    body = {"query": question, "limit": 5, "explain": True}
    with httpx.Client(base_url=pooled.url, headers={"X-Context-Key": cast.owner.key or ""}) as c:
        found = c.post("/api/query", json=body, timeout=60).json()
    assert found["explain"]["decomposed"] == ["coffee maker purchase", "stand mixer breaking"]
    assert found["explain"]["parts_found"] == [2, 2]  # each part sees both notes, only ours
    assert {s["id"] for s in found["sources"]} == {coffee, mixer}
    # the question's and parts' vectors are cached by a helper after the answer went out
    asked = [question, *found["explain"]["decomposed"]]
    keys = [cache_key(t, get_embedder().name, cast.acme.id) for t in asked]
    deadline = time.monotonic() + 10
    while EmbedCache.objects.filter(key__in=keys).count() < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert EmbedCache.objects.filter(key__in=keys).count() == 3
