"""Embedding blocks off the request path: by id after a write, and a backfill for the rest."""

from __future__ import annotations

import logging
import time

from django.db import transaction

from ctx.models import Block
from retrieval.embeddings import get_embedder, passage_text

log = logging.getLogger("ctx.indexing")

BATCH = 128


def _embed_rows(blocks: list[Block]) -> int:
    provider = get_embedder()
    vectors = provider.embed([passage_text(b.title, b.content) for b in blocks], kind="passage")
    for block, vector in zip(blocks, vectors, strict=True):
        block.embedding = vector
        block.embed_model = provider.name
    Block.objects.bulk_update(blocks, ["embedding", "embed_model"])
    return len(blocks)


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
