"""Embedding blocks off the request path: by id after a write, and a backfill for the rest."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import models, transaction

from ctx.models import Block, BlockChunk
from ctx.sensitivity import detect_block, highest, rank
from ctx.trust import allowed_levels, allows
from retrieval.chunking import windows
from retrieval.embeddings import embed_texts, get_embedder

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
    level = highest(*(b.sensitivity for b in blocks))
    vectors = embed_texts(texts, kind="passage", level=level)
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


def pending() -> models.QuerySet[Block]:
    """Blocks waiting for a vector. Blocks above the embedder's trust are not pending: they
    stay lexical-only (stats count them apart) until the trust is raised, never retried."""
    return Block.objects.filter(
        embedding__isnull=True, archived=False, sensitivity__in=allowed_levels("embed")
    )


def embed_pending(*, limit: int = BATCH, ids: list[str] | None = None) -> int:
    """Claim up to `limit` unembedded blocks (skipping rows another worker holds) and embed them.

    The claim and the write share one transaction: a crash rolls back, and the rows are picked
    up again by the next backfill.
    """
    with transaction.atomic():
        qs = pending()
        if ids is not None:
            qs = qs.filter(pk__in=ids)
        fields = ("id", "title", "content", "tags", "metadata", "sensitivity")
        blocks = list(qs.select_for_update(skip_locked=True).only(*fields)[:limit])
        if not blocks:
            return 0
        sendable = _recheck(blocks)
        return _embed_rows(sendable) if sendable else 0


def _recheck(blocks: list[Block]) -> list[Block]:
    """Run the detector again (blocks written before it existed, or by a path that skipped
    it): a block it raises is saved at its new level and, above the trust, left out, so the
    pending filter skips it from now on."""
    sendable = []
    for block in blocks:
        found = detect_block(block.title, block.content, block.tags, block.metadata).level
        if rank(found) > rank(block.sensitivity):
            block.sensitivity = found
            block.save(update_fields=["sensitivity"])
        if allows("embed", block.sensitivity):
            sendable.append(block)
    return sendable


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
