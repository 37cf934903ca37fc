"""Celery tasks: thin shells over retrieval.indexing (conventions §9)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from retrieval import indexing, termstats


@shared_task(
    name="retrieval.embed_blocks", autoretry_for=(Exception,), retry_backoff=5, max_retries=3
)
def embed_blocks(block_ids: list[str]) -> int:
    return indexing.embed_blocks(block_ids)


@shared_task(name="retrieval.backfill")
def backfill() -> int:
    return indexing.backfill()


@shared_task(name="retrieval.term_stats")
def term_stats() -> list[int]:
    return termstats.refresh_due()


def enqueue_embedding(block_ids: list[str]) -> None:
    """The after-write hook: runs after the transaction committed (ctx.services)."""

    if not settings.CELERY_BROKER_URL:
        return  # no broker (a management command): the periodic backfill catches up
    # One task per embedding batch, not per write: a 500-block batch store as one task kept
    # one worker process busy while the other idled (each runs the model on its share of the
    # cores, ctx.runtime.launcher).
    for batch in task_batches(block_ids):
        embed_blocks.apply_async(args=[batch], retry=False)


def task_batches(block_ids: list[str]) -> list[list[str]]:
    """The ids split into embedding batches (retrieval.indexing.BATCH each)."""
    size = indexing.BATCH
    return [block_ids[start : start + size] for start in range(0, len(block_ids), size)]
