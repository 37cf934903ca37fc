"""Celery tasks: thin shells over retrieval.indexing (conventions §9)."""

from __future__ import annotations

from celery import shared_task

from retrieval import indexing


@shared_task(
    name="retrieval.embed_blocks", autoretry_for=(Exception,), retry_backoff=5, max_retries=3
)
def embed_blocks(block_ids: list[str]) -> int:
    return indexing.embed_blocks(block_ids)


@shared_task(name="retrieval.backfill")
def backfill() -> int:
    return indexing.backfill()


def enqueue_embedding(block_ids: list[str]) -> None:
    """The after-write hook: runs after the transaction committed (ctx.services)."""
    from django.conf import settings

    if not settings.CELERY_BROKER_URL:
        return  # no broker (a management command): the periodic backfill catches up
    embed_blocks.apply_async(args=[block_ids], retry=False)
