"""Embedding blocks off the request path: by id after a write, and a backfill for the rest."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import transaction

from ctx.models import Block, BlockChunk
from retrieval.chunking import windows
from retrieval.embeddings import get_embedder

log = logging.getLogger("ctx.indexing")

BATCH = 128

# Called with the ids of blocks whose embedding was just written, inside that transaction
# (dream: guard check, neighbours due again). Apps register here, as with ctx.services hooks.
AFTER_EMBED: list[Callable[[list[str]], None]] = []


def _embed_rows(blocks: list[Block]) -> int:
    """Embed every window of the blocks in one batch; a block's own vector is the normalised
    mean of its windows (what dream and guard compare)."""
    provider = get_embedder()
    texts: list[str] = []
    owners: list[tuple[Block, int]] = []
    for block in blocks:
        for idx, text in enumerate(windows(block.title, block.content)):
            texts.append(text)
            owners.append((block, idx))
    vectors = provider.embed(texts, kind="passage")
    by_block: dict[str, list[list[float]]] = {}
    chunks = []
    for (block, idx), vector in zip(owners, vectors, strict=True):
        by_block.setdefault(str(block.pk), []).append(vector)
        chunks.append(BlockChunk(block=block, idx=idx, embedding=vector))
    for block in blocks:
        block.embedding = _mean(by_block[str(block.pk)])
        block.embed_model = provider.name
    BlockChunk.objects.filter(block__in=blocks).delete()
    BlockChunk.objects.bulk_create(chunks, batch_size=1000)
    Block.objects.bulk_update(blocks, ["embedding", "embed_model"])
    for hook in AFTER_EMBED:
        hook([str(b.pk) for b in blocks])
    return len(blocks)


def _mean(vectors: list[list[float]]) -> list[float]:
    if len(vectors) == 1:
        return vectors[0]
    summed = [sum(col) for col in zip(*vectors, strict=True)]
    norm = sum(x * x for x in summed) ** 0.5 or 1.0
    return [x / norm for x in summed]


def embed_blocks(block_ids: list[str]) -> int:
    """Embed the given blocks that still lack a vector; returns how many were embedded."""
    done = 0
    for start in range(0, len(block_ids), BATCH):
        done += embed_pending(limit=BATCH, ids=block_ids[start : start + BATCH])
    return done


def embed_pending(*, limit: int = BATCH, ids: list[str] | None = None) -> int:
    """Claim up to `limit` unembedded blocks (skipping rows another worker holds) and embed them.

    The claim and the write share one transaction: a crash rolls back, and the rows are picked
    up again by the next backfill.
    """
    with transaction.atomic():
        qs = Block.objects.filter(embedding__isnull=True, archived=False)
        if ids is not None:
            qs = qs.filter(pk__in=ids)
        blocks = list(qs.select_for_update(skip_locked=True).only("id", "title", "content")[:limit])
        if not blocks:
            return 0
        return _embed_rows(blocks)


def backfill(*, max_seconds: float = 50.0) -> int:
    """Embed pending blocks in batches until none are left or the time budget is spent."""
    deadline = time.monotonic() + max_seconds
    total = 0
    while time.monotonic() < deadline:
        n = embed_pending()
        total += n
        if n == 0:
            break
    if total:
        log.info("backfill embedded %d blocks", total)
    return total
