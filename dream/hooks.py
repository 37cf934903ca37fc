"""Dream's hooks into the write and embedding paths (registered in DreamConfig.ready)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, transaction
from django.utils import timezone

from ctx.models import Block
from ctx.principal import Principal
from dream import digest, guard, services
from dream import selectors as dream_selectors
from dream.tasks import enqueue_digest, enqueue_run

log = logging.getLogger("ctx.dream")


def on_embedded(block_ids: list[str]) -> None:
    """retrieval.indexing.AFTER_EMBED, inside the embedding's transaction: guard check, the
    blocks due now, their nearest neighbours due again; cycles start after the commit."""
    now = timezone.now()
    near = guard.nearest(block_ids, k=services.NEIGHBOURS_WOKEN)
    try:
        with transaction.atomic():  # a guard failure must not undo the embedding
            guard.check(near)
    except Exception:
        log.warning("guard check failed for %d blocks", len(block_ids), exc_info=True)
    services.states_ensure(block_ids, now=now)
    services.neighbours_wake([n.neighbour_id for n in near], now=now)

    transaction.on_commit(enqueue_run)


def on_saved(blocks: list[Block]) -> None:
    """ctx.services.ON_SAVED: a changed text waits for its new embedding before dreaming."""
    services.states_park_changed(blocks)


def on_written(block_ids: list[str]) -> None:
    """ctx.services.AFTER_WRITE (after commit): debounce the scopes' topic maps."""

    now = timezone.now()
    for scope_id in digest.scopes_of(block_ids):
        if digest.mark_due(scope_id, now=now):
            enqueue_digest(scope_id)


def store_hints(principal: Principal, block: Block) -> dict[str, Any]:
    """ctx.api.views.STORE_HINTS: near-duplicate hints in the store response."""
    return guard.store_hints(principal, block)


def stats_section(scope_ids: list[int]) -> dict[str, Any]:
    """STATS_SECTIONS: the Dream backlog of these scopes beside the block counts."""
    try:
        with transaction.atomic():  # a savepoint: a failure here leaves the request usable
            queue = dream_selectors.backlog(scope_ids, now=timezone.now())
            return {"dream": {"mode": services.mode_get(), **queue}}
    except DatabaseError:
        log.warning("dream backlog left out of stats", exc_info=True)
        return {}
