"""Embedding blocks: window rows and block vectors as the indexing path writes them, the task
batches a large store becomes, and the bf16 option's agreement with fp32."""

from __future__ import annotations

import math

import numpy as np
import pytest
from celery.exceptions import SoftTimeLimitExceeded

from ctx import hooks
from ctx.models import Block
from retrieval import indexing
from retrieval.chunking import windows
from retrieval.embeddings import LocalSentenceTransformer, get_embedder
from retrieval.models import BlockChunk
from retrieval.tasks import task_batches
from tests.conftest import Cast

SENTENCE = "The backup job copies the billing database to the cold storage bucket at night. "


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.django_db
def test_every_window_is_written_and_the_block_vector_is_their_mean(cast: Cast) -> None:
    topics = ["billing", "garden", "kernel", "flight", "recipe", "museum", "invoice", "school"]
    text = " ".join(SENTENCE.replace("billing", t) * 5 for t in topics)  # ~560 words
    long_id = cast.owner.store(title="Backups", content=text)["id"]
    short_id = cast.owner.store(title="Coffee", content="The office coffee machine is broken.")[
        "id"
    ]
    assert indexing.embed_pending(limit=10) == 2
    chunks = list(BlockChunk.objects.filter(block_id=long_id).order_by("idx"))
    assert [c.idx for c in chunks] == list(range(len(chunks))) and len(chunks) >= 7
    summed = [sum(col) for col in zip(*(list(c.embedding) for c in chunks), strict=True)]
    norm = math.sqrt(sum(x * x for x in summed))
    block = Block.objects.get(pk=long_id)
    assert block.embedding is not None and block.embed_model == "local:all-MiniLM-L6-v2"
    assert _cos(list(block.embedding), [x / norm for x in summed]) > 0.99999
    short = Block.objects.get(pk=short_id)
    assert short.embedding is not None
    (only,) = BlockChunk.objects.filter(block_id=short_id)
    assert only.idx == 0 and _cos(list(short.embedding), list(only.embedding)) > 0.99999
    status, body = cast.owner.post("/api/query", {"query": "when is the database backed up?"})
    assert status == 200 and body["sources"][0]["id"] == long_id


@pytest.mark.django_db
def test_the_stored_vectors_are_the_models_float32_output_bit_for_bit(cast: Cast) -> None:
    # A vector written with too few digits, as float16, or from the wrong row still has a
    # cosine of ~1 to the right one (the test above): only exact equality notices it.
    text = " ".join(SENTENCE.replace("billing", t) * 5 for t in ["garden", "kernel", "museum"])
    block_id = cast.owner.store(title="Backups", content=text)["id"]
    assert indexing.embed_pending(limit=1, ids=[block_id]) == 1
    texts = windows("Backups", text)  # embedded alone, as in the step: the same runs
    model = np.asarray(get_embedder().embed(texts, kind="passage"), dtype=np.float32)
    rows = BlockChunk.objects.filter(block_id=block_id).order_by("idx")
    stored = np.array([c.embedding for c in rows], dtype=np.float32)
    assert len(texts) >= 3 and stored.shape == model.shape
    assert np.array_equal(stored, model)
    mean = model.astype(np.float64).sum(axis=0)
    mean /= np.linalg.norm(mean)
    # The block vector has always been the float64 mean written as nine-digit text and read
    # by PostgreSQL as float32: it must stay those very values (dream compares them).
    expected = np.array([float(f"{x:.9g}") for x in mean], dtype=np.float32)
    block = Block.objects.get(pk=block_id)
    assert np.array_equal(np.asarray(block.embedding, dtype=np.float32), expected)


def test_a_large_store_becomes_one_task_per_embedding_batch() -> None:
    ids = [f"id{i}" for i in range(300)]
    batches = task_batches(ids)
    assert [len(b) for b in batches] == [indexing.BATCH, indexing.BATCH, 300 - 2 * indexing.BATCH]
    assert [i for b in batches for i in b] == ids


def test_bf16_vectors_agree_with_fp32() -> None:
    texts = [
        "Dr. Patel, my ENT specialist, diagnosed chronic sinusitis and prescribed a spray.",
        "Production deploys happen on Tuesdays after the standup.",
        "Ich habe gestern im Garten Tomaten und Basilikum gepflanzt.",
        SENTENCE * 6,
    ]
    fp32 = LocalSentenceTransformer().embed(texts, kind="passage")
    bf16 = LocalSentenceTransformer(precision="bf16").embed(texts, kind="passage")
    assert min(_cos(a, b) for a, b in zip(fp32, bf16, strict=True)) > 0.999


def test_auto_precision_is_bf16_only_where_the_cpu_has_it() -> None:
    import torch

    native = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    assert LocalSentenceTransformer(precision="auto").precision == ("bf16" if native else "fp32")
    assert LocalSentenceTransformer(precision="fp32").precision == "fp32"


@pytest.mark.django_db
def test_a_time_limit_keeps_the_vectors_already_written_and_the_retry_finishes(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four blocks of two windows each, two windows per transaction: four transactions.
    monkeypatch.setattr(indexing, "MAX_TEXTS", 2)
    text = " ".join(SENTENCE.replace("billing", t) * 5 for t in ["garden", "kernel"])
    ids = [cast.owner.store(title=f"Log {i}", content=text)["id"] for i in range(4)]
    assert all(len(indexing.windows(f"Log {i}", text)) == 2 for i in range(4))
    calls: list[list[str]] = []

    def soft_limit_on_the_third(embedded: list[str]) -> None:
        calls.append(embedded)
        if len(calls) == 3:  # Celery raises this inside the task when its time is up
            raise SoftTimeLimitExceeded()

    hooks.BLOCKS_EMBEDDED.register(soft_limit_on_the_third, order=99)
    try:
        with pytest.raises(SoftTimeLimitExceeded):
            indexing.embed_blocks(ids)
        kept = Block.objects.filter(pk__in=ids, embedding__isnull=False).count()
        assert kept == 2  # the first two transactions committed; the third rolled back
        assert indexing.embed_blocks(ids) == 2  # what the task's retry runs
    finally:
        hooks.BLOCKS_EMBEDDED.unregister(soft_limit_on_the_third)
    assert Block.objects.filter(pk__in=ids, embedding__isnull=True).count() == 0
