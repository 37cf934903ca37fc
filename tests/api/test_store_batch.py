"""POST /api/store/batch writes through ctx.bulk: every block still gets what a single store
gives it (sensitivity, temporal anchors, full-text vectors, an embedding task after the
commit, and chunk rows once embedded)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.conf import settings

from ctx import broker as publisher
from ctx.models import Block
from retrieval import indexing
from retrieval.models import BlockChunk, TemporalAnchor
from tests.conftest import Cast, snapshot

pytestmark = pytest.mark.django_db

BLOCKS = [
    {"category": "ops", "title": "Deploy", "content": "We moved the cluster on 2024-03-05."},
    {"category": "ops", "title": "Database", "content": "db.password = hunter2hunter2"},
    {"category": "ops", "title": "Queue", "content": "The workers read a Redis stream."},
]


def _queued_embeddings() -> list[list[str]]:
    """The block ids of every embedding task waiting on the broker (the suite's Redis)."""
    assert publisher.flush(), "the messages this process queued reach Redis (ctx.broker)"
    url = str(settings.CELERY_BROKER_URL)
    if url.startswith("redis+socket://"):  # kombu's name for the embedded unix socket
        broker = redis.Redis(unix_socket_path=url.removeprefix("redis+socket://"))
    else:
        broker = redis.Redis.from_url(url)
    found = []
    for raw in broker.lrange("celery", 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == "retrieval.embed_blocks":
            args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
            found.append(args[0])
    return found


def _store(cast: Cast, capture: Callable[..., Any]) -> list[dict[str, Any]]:
    with capture(execute=True):
        status, body = cast.owner.post("/api/store/batch", {"blocks": BLOCKS})
    assert status == 200, body
    return list(body["results"])


def test_it_detects_sensitive_blocks_in_a_batch(
    cast: Cast, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    results = _store(cast, django_capture_on_commit_callbacks)
    assert [r["action"] for r in results] == ["created"] * 3
    assert results[1]["sensitivity"] == "credentials"
    assert results[1]["sensitivity_reasons"] == ["password_assignment"]
    assert Block.objects.get(pk=results[1]["id"]).sensitivity == "credentials"
    assert results[2]["sensitivity"] == "internal"


def test_it_anchors_every_block_of_a_batch(
    cast: Cast, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    deploy, _, queue = _store(cast, django_capture_on_commit_callbacks)
    content = TemporalAnchor.objects.filter(block_id=deploy["id"], kind="content")
    assert {(a.dimension, a.value) for a in content} >= {("year", 2024.0), ("month", 3.0)}
    assert {a.source_date.isoformat() for a in content} == {"2024-03-05"}
    meta = TemporalAnchor.objects.filter(block_id=queue["id"], kind="meta")
    assert meta.count() == 8  # one row per dimension of the time it was stored
    assert Block.objects.get(pk=deploy["id"]).content_times[0].date().isoformat() == "2024-03-05"


def test_it_finds_batch_blocks_by_full_text_at_once(
    cast: Cast, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    results = _store(cast, django_capture_on_commit_callbacks)
    status, found = cast.owner.post("/api/search", {"query": "redis stream workers"})
    assert status == 200 and found["results"][0]["id"] == results[2]["id"]


def test_it_enqueues_the_embedding_after_the_commit_and_chunks_follow(
    cast: Cast, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    before = len(_queued_embeddings())
    results = _store(cast, django_capture_on_commit_callbacks)
    ids = [r["id"] for r in results]
    queued = _queued_embeddings()
    assert len(queued) == before + 1 and sorted(ids) in [sorted(q) for q in queued]
    assert indexing.embed_blocks(ids) == 3  # what the worker runs (the local embedder)
    for block_id in ids:
        assert BlockChunk.objects.filter(block_id=block_id).count() >= 1


def test_it_writes_nothing_of_a_batch_with_a_bad_item(cast: Cast) -> None:
    before = snapshot()
    anchors = TemporalAnchor.objects.count()
    bad = [*BLOCKS[:2], {"category": "ops", "title": "x" * 501, "content": "too long a title"}]
    status, body = cast.owner.post("/api/store/batch", {"blocks": bad})
    assert status == 400 and body["error"]["message"].startswith("blocks[2]:")
    assert body["error"]["details"]["index"] == 2
    assert snapshot() == before and TemporalAnchor.objects.count() == anchors


def test_it_answers_413_for_a_body_over_the_upload_limit(cast: Cast) -> None:
    before = snapshot()
    block = {"category": "ops", "title": "Big", "content": "x" * 50_000}
    status, body = cast.owner.post("/api/store/batch", {"blocks": [block] * 170})  # ~8.5 MB
    assert (status, body["error"]) == (
        413,
        {"code": "payload_too_large", "message": "The request body is larger than 8388608 bytes."},
    )
    assert snapshot() == before


def test_an_item_goes_to_the_scope_it_names(cast: Cast) -> None:
    team = {**BLOCKS[2], "scope": "acme:team"}
    status, body = cast.owner.post("/api/store/batch", {"blocks": [BLOCKS[0], team, BLOCKS[1]]})
    assert status == 200, body
    ids = [r["id"] for r in body["results"]]
    scopes = [
        cast.owner.post("/api/manage", {"action": "get", "id": i})[1]["block"]["scope"] for i in ids
    ]
    assert scopes == ["acme:main", "acme:team", "acme:main"]  # in the items' order


def test_it_writes_nothing_when_one_item_names_a_scope_the_key_cannot_write(cast: Cast) -> None:
    before = snapshot()
    items = [BLOCKS[0], {**BLOCKS[2], "scope": "acme:main"}]  # the writer writes acme:team only
    status, body = cast.writer.post("/api/store/batch", {"blocks": items})
    assert (status, body["error"]["code"]) == (403, "forbidden"), body
    assert snapshot() == before
