"""Dream reads. `get_link_for` is the one way to reach a link by id: a link in a scope the
principal cannot read is a 404 identical to a missing one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Case, Count, Q, Value, When

from ctx.principal import Principal
from ctx.selectors import get_scoped_for
from ctx.trust import allowed_levels
from dream.models import Link, LinkClass, LinkOrigin

LINK_NOT_FOUND = "Link not found."


def get_link_for(principal: Principal, link_id: Any, *, write: bool = False) -> Link:
    return get_scoped_for(Link, principal, link_id, missing=LINK_NOT_FOUND, write=write)


def review_links(
    principal: Principal,
    scope_ids: list[int],
    *,
    below: float,
    link_class: str | None,
    limit: int,
) -> list[Link]:
    """Unpinned dream links that want a human look: every supersedes link (it hides its
    target) and the less confident ones; supersedes first, then the least confident."""
    qs = (
        Link.objects.readable_by(principal, scope_ids)
        .filter(origin=LinkOrigin.DREAM, pinned=False)
        .filter(Q(link_class=LinkClass.SUPERSEDES) | Q(confidence__lt=below))
    )
    if link_class:
        qs = qs.filter(link_class=link_class)
    first = Case(When(link_class=LinkClass.SUPERSEDES, then=Value(0)), default=Value(1))
    return list(
        qs.select_related("source", "target", "scope")
        .annotate(first=first)
        .order_by("first", "confidence", "id")[:limit]
    )


_STATS = """
SELECT
  count(*) FILTER (WHERE d.next_at <= %(now)s AND (d.claim_until IS NULL OR d.claim_until < %(now)s)
                   AND b.embedding IS NOT NULL) AS pickable,
  count(*) FILTER (WHERE d.next_at > %(now)s) AS cooldown,
  count(*) FILTER (WHERE d.next_at > %(now)s AND d.next_at <= %(now)s + interval '1 hour'
                   AND b.embedding IS NOT NULL) AS next_hour,
  count(*) FILTER (WHERE d.claim_until >= %(now)s) AS claimed,
  count(*) FILTER (WHERE d.last_cycle_at IS NULL AND b.embedding IS NOT NULL) AS never_dreamed,
  count(*) FILTER (WHERE d.failures > 0) AS failing,
  coalesce(sum(d.cycles), 0) AS cycles
FROM dream_dreamstate d JOIN ctx_block b ON b.id = d.block_id AND NOT b.archived
WHERE d.scope_id = ANY(%(scopes)s)
"""

_LEVELS = """
SELECT d.level, count(*) FROM dream_dreamstate d JOIN ctx_block b ON b.id = d.block_id
WHERE d.scope_id = ANY(%(scopes)s) AND NOT b.archived GROUP BY d.level ORDER BY d.level
"""

# Two statements, each answered by one partial index alone (block_unembedded, block_embedded:
# the embedding is tested only as their predicate): one statement over the rows with
# `embedding IS [NOT] NULL` in a FILTER read every block's row (~280 ms at 100k blocks).
_AWAITING = """
SELECT count(*) FROM ctx_block b
WHERE b.scope_id = ANY(%(scopes)s) AND NOT b.archived AND b.type <> 'digest'
  AND b.embedding IS NULL AND b.sensitivity = ANY(%(sendable)s)
"""
_UNSCHEDULED = """
SELECT count(*) FROM ctx_block b
WHERE b.scope_id = ANY(%(scopes)s) AND NOT b.archived AND b.type <> 'digest'
  AND b.embedding IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM dream_dreamstate d WHERE d.block_id = b.id)
"""


def backlog(scope_ids: list[int], *, now: datetime) -> dict[str, int]:
    """The queue in one statement (what `stats` shows): due now, cooling down, due within the
    hour, never dreamed."""
    with connection.cursor() as cur:
        cur.execute(_STATS, {"scopes": scope_ids, "now": now})
        pickable, cooldown, next_hour, _claimed, never, _failing, _cycles = cur.fetchone()
    return {
        "pickable_now": pickable,
        "in_cooldown": cooldown,
        "due_next_hour": next_hour,
        "never_dreamed": never,
    }


def queue_stats(scope_ids: list[int], *, now: datetime) -> dict[str, Any]:
    """The dream queue of the given scopes: due now, cooling down, claimed, never dreamed
    (including embedded blocks not yet scheduled), awaiting embedding, back-off levels."""
    # Blocks above the embedder's trust never get a vector (docs/security.md): not awaiting.
    params: dict[str, Any] = {"scopes": scope_ids, "now": now, "sendable": allowed_levels("embed")}
    with connection.cursor() as cur:
        cur.execute(_STATS, params)
        pickable, cooldown, next_hour, claimed, never, failing, cycles = cur.fetchone()
        cur.execute(_AWAITING, params)
        (awaiting,) = cur.fetchone()
        cur.execute(_UNSCHEDULED, params)
        (unscheduled,) = cur.fetchone()
        cur.execute(_LEVELS, params)
        levels = {str(level): n for level, n in cur.fetchall()}
    return {
        "pickable_now": pickable,
        "in_cooldown": cooldown,
        # The forecast: blocks whose cooldown ends within the hour (pickable by then).
        "due_next_hour": next_hour,
        "claimed": claimed,
        "never_dreamed": never + unscheduled,
        "awaiting_embedding": awaiting,
        "failing": failing,
        "cycles": int(cycles),
        "levels": levels,
    }


def link_counts(scope_ids: list[int]) -> dict[str, Any]:
    rows = (
        Link.objects.in_scopes(scope_ids)
        .values("link_class")
        .annotate(n=Count("id"), pinned=Count("id", filter=Q(pinned=True)))
        .order_by("link_class")
    )
    per_class = {r["link_class"]: r["n"] for r in rows}
    pinned = sum(r["pinned"] for r in rows)
    return {"total": sum(per_class.values()), "pinned": pinned, "classes": per_class}
