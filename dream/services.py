"""Dream writes outside a cycle: the central mode, single links, review resolutions, and the
bookkeeping that makes blocks eligible (after embedding, on the feed's backfill)."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ctx import knobs
from ctx.errors import NotFound, ValidationFailed
from ctx.models import Block
from ctx.principal import Principal
from ctx.selectors import get_block_for
from dream import links
from dream.link_typing import Proposal
from dream.models import SYMMETRIC, DreamMode, DreamState, Link, LinkClass, LinkOrigin, LinkSet
from dream.selectors import get_link_for

log = logging.getLogger("ctx.dream")

MODES = tuple(DreamMode.Mode.values)
NEIGHBOURS_WOKEN = 5  # a new or changed block makes this many nearest neighbours due again


# --- mode ----------------------------------------------------------------------------------------


def mode_get() -> str:
    """The central mode; the CTX_DREAM_INITIAL_MODE setting until an admin sets one."""
    row = DreamMode.objects.filter(pk=1).values_list("mode", flat=True).first()
    return str(row) if row is not None else str(knobs.value("CTX_DREAM_INITIAL_MODE"))


def mode_set(*, mode: str, by: str) -> DreamMode:
    """Change the mode for every worker at once; running cycles see it at their next step."""
    if mode not in MODES:
        raise ValidationFailed(
            f"'mode' must be one of {', '.join(MODES)}.", details={"field": "mode"}
        )
    row, _ = DreamMode.objects.update_or_create(pk=1, defaults={"mode": mode, "updated_by": by})
    log.info("dream mode set to %s by %s", mode, by)
    return row


# --- single links --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkInput:
    source_id: str
    target_id: str
    link_class: str
    confidence: float
    origin: str = LinkOrigin.MANUAL
    evidence: dict[str, Any] | None = None
    pinned: bool = False


def link_upsert(data: LinkInput) -> Link:
    """Create or update one link. Both ends must be live blocks of one scope (the database
    cannot express that rule, so this service, the only single-link writer, enforces it)."""
    _validate_link(data)
    src, dst = uuid.UUID(str(data.source_id)), uuid.UUID(str(data.target_id))
    if data.link_class in SYMMETRIC and str(src) > str(dst):
        src, dst = dst, src
    ends = {str(b.pk): b for b in Block.objects.filter(pk__in=[src, dst], archived=False)}
    if len(ends) != 2:
        raise ValidationFailed("Both ends of a link must be live blocks.")
    if ends[str(src)].scope_id != ends[str(dst)].scope_id:
        raise ValidationFailed("Both ends of a link must be in the same scope.")
    link, _ = Link.objects.update_or_create(
        source_id=src,
        target_id=dst,
        link_class=data.link_class,
        defaults={
            "scope_id": ends[str(src)].scope_id,
            "confidence": data.confidence,
            "raw_confidence": data.confidence,
            "origin": data.origin,
            "evidence": data.evidence or {},
            "pinned": data.pinned,
        },
    )
    return link


def _validate_link(data: LinkInput) -> None:
    if data.source_id == data.target_id:
        raise ValidationFailed("A link needs two different blocks.")
    if data.link_class not in LinkClass.values:
        raise ValidationFailed(f"'link_class' must be one of {', '.join(LinkClass.values)}.")
    if data.origin not in LinkOrigin.values:
        raise ValidationFailed(f"'origin' must be one of {', '.join(LinkOrigin.values)}.")
    if not 0.0 <= data.confidence <= 1.0:
        raise ValidationFailed("'confidence' must be between 0 and 1.")


@transaction.atomic
def link_add(
    *, principal: Principal, source_id: str, target_id: str, link_class: str, confidence: float
) -> Link:
    """An operator's link between two blocks it can write, in one scope: pinned, so cycles
    never change or remove it. A supersedes link makes its target a snapshot of the source
    (deleting the link restores it). Either end out of reach is the same 404 as a missing one."""
    ends = [get_block_for(principal, b, write=True) for b in (source_id, target_id)]
    if ends[0].scope_id != ends[1].scope_id:
        raise ValidationFailed("Both ends of a link must be in the same scope.")
    data = LinkInput(str(ends[0].pk), str(ends[1].pk), link_class, confidence, pinned=True)
    link = link_upsert(data)
    if link_class == LinkClass.SUPERSEDES:
        proposal = Proposal(data.source_id, data.target_id, link_class, confidence, confidence)
        links.supersede([proposal], minimum=0.0)
    return link


# --- review --------------------------------------------------------------------------------------


@transaction.atomic
def link_resolve(*, principal: Principal, link_id: Any, action: str) -> dict[str, Any]:
    """confirm: pin the link (cycles never remove or change it); delete: remove it and, for a
    supersedes link, restore its target. The same 404 for foreign and missing links."""
    if action not in ("confirm", "delete"):
        raise ValidationFailed("'action' must be confirm or delete.", details={"field": "action"})
    link = get_link_for(principal, link_id, write=True)
    links.lock_blocks([str(link.source_id), str(link.target_id)])
    if action == "confirm":
        link.pinned = True
        link.save(update_fields=["pinned", "updated_at"])
        return {"action": "confirmed", "id": link.pk, "pinned": True}
    target, was_supersedes = str(link.target_id), link.link_class == LinkClass.SUPERSEDES
    link.delete()
    restored: list[str] = []
    if was_supersedes:
        restored = links.restore([target], minimum=knobs.value("CTX_DREAM_SUPERSEDE_MIN"))
    links.update_quality(
        [str(link.source_id), target],
        canonical_support=knobs.value("CTX_DREAM_CANONICAL_SUPPORT"),
    )
    return {"action": "deleted", "id": link_id, "restored": restored}


@transaction.atomic
def links_revert(*, principal: Principal, block_id: Any, now: datetime) -> dict[str, Any]:
    """Put back the block's dream links as they were before the last cycle that changed them.

    Only replaceable links change (dream's, unpinned): links a person made or pinned stay.
    A kept link whose other end was archived or moved since is left out. The block then rests
    for Dream's longest cooldown, so the next cycle does not redo at once what was undone.
    The kept set records who reverted it and when (the audit)."""
    block = get_block_for(principal, block_id, write=True)
    kept = (
        LinkSet.objects.select_for_update()
        .filter(block=block, reverted_at__isnull=True)
        .order_by("-replaced_at", "-id")
        .first()
    )
    if kept is None:
        raise NotFound("No link set of this block was replaced by Dream since its last revert.")
    wanted = {(r["source"], r["target"], r["link_class"]): r for r in kept.links}
    current = links.replaceable_keys(str(block.pk))
    live = links.lock_blocks([str(block.pk), *(e for k in [*wanted, *current] for e in k[:2])])
    wanted = {k: r for k, r in wanted.items() if live.get(k[0]) == live.get(k[1]) == block.scope_id}
    removed = links.delete(set(current) - set(wanted))
    minimum = knobs.value("CTX_DREAM_SUPERSEDE_MIN")
    restored = links.restore(
        [t for _, t, c in removed if c == LinkClass.SUPERSEDES], minimum=minimum
    )
    rows = {k: (_proposal(r), r.get("found_by") or str(block.pk)) for k, r in wanted.items()}
    links.upsert(rows, now=now)
    links.supersede([p for p, _ in rows.values()], minimum=minimum)
    touched = {str(block.pk), *(e for k in [*removed, *wanted] for e in k[:2])}
    links.update_quality(touched, canonical_support=knobs.value("CTX_DREAM_CANONICAL_SUPPORT"))
    rest = now + timedelta(days=float(knobs.value("CTX_DREAM_BACKOFF_CAP_DAYS")))
    DreamState.objects.filter(block=block).update(next_at=rest)
    kept.reverted_at, kept.reverted_by = now, principal.key.prefix
    kept.save(update_fields=["reverted_at", "reverted_by"])
    log.info(
        "dream: links of %s reverted to the set before %s by %s (%d back, %d removed)",
        block.pk,
        kept.replaced_at.isoformat(),
        principal.key.prefix,
        len(wanted),
        len(removed),
    )
    return {
        "action": "reverted",
        "block": str(block.pk),
        "replaced_at": kept.replaced_at.isoformat(),
        "links": len(wanted),
        "removed": len(removed),
        "restored": restored,
        "rests_until": rest.isoformat(),
    }


def _proposal(row: dict[str, Any]) -> Proposal:
    return Proposal(
        row["source"],
        row["target"],
        row["link_class"],
        float(row["raw"]),
        float(row["confidence"]),
        row.get("evidence") or {},
    )


# --- eligibility ---------------------------------------------------------------------------------

_ENSURE = """
INSERT INTO dream_dreamstate (block_id, tenant_id, scope_id, next_at, claimed_by, level,
                              failures, cycles, last_outcome)
SELECT b.id, s.tenant_id, b.scope_id, %(now)s, '', 0, 0, 0, ''
FROM ctx_block b JOIN ctx_scope s ON s.id = b.scope_id
WHERE b.id = ANY(%(ids)s::uuid[]) AND NOT b.archived AND b.type <> 'digest'
  AND b.embedding IS NOT NULL
ON CONFLICT (block_id) DO UPDATE SET next_at = EXCLUDED.next_at, level = 0,
    scope_id = EXCLUDED.scope_id, tenant_id = EXCLUDED.tenant_id,
    claimed_by = '', claim_token = NULL, claim_until = NULL
"""

_TENANTS = """
INSERT INTO dream_dreamtenant (tenant_id, last_cycle_at)
SELECT DISTINCT tenant_id, NULL::timestamptz FROM dream_dreamstate
WHERE block_id = ANY(%(ids)s::uuid[])
ON CONFLICT (tenant_id) DO NOTHING
"""

# Neighbours already due or claimed are left alone; SKIP LOCKED keeps two embedding batches
# (or a cycle holding a neighbour's state) from waiting on each other.
_WAKE = """
UPDATE dream_dreamstate d SET next_at = %(now)s
WHERE d.block_id IN (
    SELECT s.block_id FROM dream_dreamstate s
    WHERE s.block_id = ANY(%(ids)s::uuid[]) AND (s.next_at IS NULL OR s.next_at > %(now)s)
    ORDER BY s.block_id
    FOR UPDATE SKIP LOCKED)
"""


def states_ensure(block_ids: list[str], *, now: datetime) -> None:
    """Make freshly embedded blocks due now with their back-off reset (their text changed).
    A cycle still running on the old text loses its claim here and writes nothing."""
    if not block_ids:
        return
    with connection.cursor() as cur:
        cur.execute(_ENSURE, {"ids": block_ids, "now": now})
        cur.execute(_TENANTS, {"ids": block_ids})


def neighbours_wake(neighbour_ids: list[str], *, now: datetime) -> int:
    """Event-driven re-evaluation: the given blocks are due again at once."""
    if not neighbour_ids:
        return 0
    with connection.cursor() as cur:
        cur.execute(_WAKE, {"ids": sorted(set(neighbour_ids)), "now": now})
        return int(cur.rowcount)


def states_backfill(*, limit: int = 5000) -> int:
    """Dream state for embedded blocks that have none (embedded before dream ran, or a hook
    that failed); returns how many were added."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT b.id::text FROM ctx_block b
               WHERE b.embedding IS NOT NULL AND NOT b.archived AND b.type <> 'digest'
                 AND NOT EXISTS (SELECT 1 FROM dream_dreamstate d WHERE d.block_id = b.id)
               LIMIT %s""",
            [limit],
        )
        ids = [r[0] for r in cur.fetchall()]
    states_ensure(ids, now=timezone.now())
    return len(ids)


def states_park(*, limit: int = 5000) -> int:
    """Unschedule rows that cannot be dreamed (archived, awaiting embedding, digests) so the
    claim's index scan never walks over them; the embedding hook schedules them again."""
    with connection.cursor() as cur:
        cur.execute(
            """UPDATE dream_dreamstate d SET next_at = NULL
               WHERE d.block_id IN (
                   SELECT s.block_id FROM dream_dreamstate s JOIN ctx_block b ON b.id = s.block_id
                   WHERE s.next_at IS NOT NULL AND s.claim_token IS NULL
                     AND (b.archived OR b.embedding IS NULL OR b.type = 'digest')
                   LIMIT %s FOR UPDATE OF s SKIP LOCKED)""",
            [limit],
        )
        return int(cur.rowcount)


def states_park_changed(blocks: list[Block]) -> None:
    """ON_SAVED hook: a block whose text changed waits for its new embedding."""
    ids = [str(b.pk) for b in blocks if b.embedding is None]
    if ids:
        with connection.cursor() as cur:
            cur.execute(
                "UPDATE dream_dreamstate SET next_at = NULL WHERE block_id = ANY(%s::uuid[])",
                [ids],
            )
