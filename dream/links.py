"""Writing links: a cycle's replace-semantics write, supersession and its undoing, quality.

Replace semantics: a cycle that proposes at least one link replaces the unpinned dream links
it re-judged: those it proposed before (found_by) and those between its block and the
candidates it evaluated now. A link it judged valid but left out only because of the per-cycle
cap survives. Pinned links, and links of other origins, are never overwritten or removed by a
cycle. Removing a supersedes link restores its target.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from dream.typing import Proposal

LINK_MIN_SUPPORT = 0.75  # links this confident count as support for quality and promotion


@dataclass(frozen=True)
class Written:
    created: int
    updated: int
    removed: int
    superseded: list[str]
    restored: list[str]


def lock_blocks(ids: Iterable[str]) -> None:
    """Lock the blocks a write touches, in id order: concurrent cycles on neighbouring blocks
    then queue instead of deadlocking. NO KEY UPDATE leaves foreign-key checks unblocked."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM ctx_block WHERE id = ANY(%s::uuid[]) ORDER BY id FOR NO KEY UPDATE",
            [sorted(set(ids))],
        )


def rejudged_links(block_id: str, evaluated: list[str]) -> list[tuple[str, str, str]]:
    """(source, target, class) of the unpinned dream links this cycle re-judged: proposed by
    this block's earlier cycles, or between this block and a candidate it just evaluated."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT source_id::text, target_id::text, link_class FROM dream_link
               WHERE origin = 'dream' AND NOT pinned AND (
                   found_by_id = %(id)s
                   OR (source_id = %(id)s AND target_id = ANY(%(ev)s::uuid[]))
                   OR (target_id = %(id)s AND source_id = ANY(%(ev)s::uuid[])))""",
            {"id": block_id, "ev": evaluated},
        )
        return [(r[0], r[1], r[2]) for r in cur.fetchall()]


# Both ends must be live blocks of one scope at write time (a block archived or moved since
# the candidates were read is skipped). Rows arrive sorted, so row locks are taken in order.
_UPSERT = """
INSERT INTO dream_link (source_id, target_id, link_class, scope_id, confidence, raw_confidence,
                        origin, evidence, pinned, found_by_id, created_at, updated_at)
SELECT v.source_id, v.target_id, v.link_class, a.scope_id, v.confidence, v.raw,
       'dream', v.evidence, false, %(found_by)s, %(now)s, %(now)s
FROM jsonb_to_recordset(%(rows)s::jsonb) AS v(source_id uuid, target_id uuid, link_class text,
                                              confidence float8, raw float8, evidence jsonb)
JOIN ctx_block a ON a.id = v.source_id AND NOT a.archived
JOIN ctx_block b ON b.id = v.target_id AND NOT b.archived AND b.scope_id = a.scope_id
ORDER BY v.source_id, v.target_id, v.link_class
ON CONFLICT ON CONSTRAINT link_source_target_class_uniq DO UPDATE
SET confidence = EXCLUDED.confidence, raw_confidence = EXCLUDED.raw_confidence,
    evidence = EXCLUDED.evidence, found_by_id = EXCLUDED.found_by_id,
    updated_at = EXCLUDED.updated_at
WHERE dream_link.origin = 'dream' AND NOT dream_link.pinned
RETURNING (xmax = 0)
"""


def upsert(proposals: list[Proposal], *, found_by: str, now: datetime) -> tuple[int, int]:
    """Insert or refresh the links; returns (created, updated)."""
    if not proposals:
        return 0, 0
    rows = [
        {
            "source_id": p.source_id,
            "target_id": p.target_id,
            "link_class": p.link_class,
            "confidence": p.confidence,
            "raw": p.raw,
            "evidence": p.evidence,
        }
        for p in proposals
    ]
    with connection.cursor() as cur:
        cur.execute(_UPSERT, {"rows": json.dumps(rows), "found_by": found_by, "now": now})
        flags = [bool(r[0]) for r in cur.fetchall()]
    return sum(flags), len(flags) - sum(flags)


def remove_stale(
    keep: set[tuple[str, str, str]], old: list[tuple[str, str, str]]
) -> list[tuple[str, str, str]]:
    """Delete the re-judged unpinned dream links the cycle did not find valid again."""
    stale = [k for k in old if k not in keep]
    if not stale:
        return []
    with connection.cursor() as cur:
        cur.execute(
            """DELETE FROM dream_link l USING jsonb_to_recordset(%s::jsonb)
                   AS v(s uuid, t uuid, c text)
               WHERE l.source_id = v.s AND l.target_id = v.t AND l.link_class = v.c
                 AND l.origin = 'dream' AND NOT l.pinned
               RETURNING l.source_id::text, l.target_id::text, l.link_class""",
            [json.dumps([{"s": s, "t": t, "c": c} for s, t, c in stale])],
        )
        return [(r[0], r[1], r[2]) for r in cur.fetchall()]


def supersede(proposals: list[Proposal], *, minimum: float) -> list[str]:
    """Turn the targets of confident supersedes links into snapshots of their successor."""
    done: list[str] = []
    for p in proposals:
        if p.link_class != "supersedes" or p.confidence < minimum:
            continue
        with connection.cursor() as cur:
            cur.execute(
                """UPDATE ctx_block SET lifecycle = 'snapshot', superseded_by_id = %(new)s
                   WHERE id = %(old)s AND lifecycle IN ('knowledge', 'canonical', 'snapshot')
                     AND superseded_by_id IS DISTINCT FROM %(new)s
                     AND NOT EXISTS (SELECT 1 FROM ctx_block n
                                     WHERE n.id = %(new)s AND n.superseded_by_id = %(old)s)""",
                {"new": p.source_id, "old": p.target_id},
            )
            if cur.rowcount:
                done.append(p.target_id)
    return done


def restore(targets: Iterable[str], *, minimum: float) -> list[str]:
    """After supersedes links were removed: point each target at its most confident remaining
    successor, or make it plain knowledge again when none is left."""
    restored: list[str] = []
    for target in sorted(set(targets)):
        with connection.cursor() as cur:
            cur.execute(
                """WITH succ AS (
                       SELECT source_id FROM dream_link
                       WHERE target_id = %(t)s AND link_class = 'supersedes'
                         AND confidence >= %(min)s
                       ORDER BY confidence DESC, source_id LIMIT 1)
                   UPDATE ctx_block SET
                       superseded_by_id = (SELECT source_id FROM succ),
                       lifecycle = CASE WHEN EXISTS (SELECT 1 FROM succ) THEN 'snapshot'
                                        ELSE 'knowledge' END
                   WHERE id = %(t)s AND lifecycle = 'snapshot'
                     AND superseded_by_id IS DISTINCT FROM (SELECT source_id FROM succ)
                   RETURNING superseded_by_id""",
                {"t": target, "min": minimum},
            )
            row = cur.fetchone()
        if row is not None and row[0] is None:
            restored.append(target)
    return restored


_QUALITY = """
WITH support AS (
    SELECT n.id, (SELECT count(DISTINCT x) FROM (
        SELECT target_id AS x FROM dream_link
        WHERE source_id = n.id AND link_class <> 'supersedes' AND confidence >= %(min)s
        UNION ALL
        SELECT source_id FROM dream_link
        WHERE target_id = n.id AND link_class <> 'supersedes' AND confidence >= %(min)s
    ) u) AS k
    FROM unnest(%(ids)s::uuid[]) AS n(id)
), target AS (
    SELECT b.id,
        least(1.0, greatest(0.0, 0.5 + 0.08 * least(s.k, 5)
            - CASE WHEN b.superseded_by_id IS NOT NULL THEN 0.25 ELSE 0 END))::float8 AS quality,
        CASE WHEN b.lifecycle = 'knowledge' AND b.superseded_by_id IS NULL
             AND s.k >= %(canon)s THEN 'canonical' ELSE b.lifecycle END AS lifecycle
    FROM support s JOIN ctx_block b ON b.id = s.id
)
UPDATE ctx_block b SET quality = t.quality, lifecycle = t.lifecycle
FROM target t
WHERE b.id = t.id AND (b.quality <> t.quality OR b.lifecycle <> t.lifecycle)
"""


def update_quality(ids: Iterable[str], *, canonical_support: int) -> None:
    """quality = 0.5 + 0.08 per confident neighbour (at most 5) - 0.25 when superseded;
    a knowledge block with `canonical_support` confident neighbours becomes canonical.
    Rows are only rewritten when a value changes: a block row update also touches every
    index of ctx_block, the HNSW one included."""
    with connection.cursor() as cur:
        cur.execute(
            _QUALITY,
            {"ids": sorted(set(ids)), "min": LINK_MIN_SUPPORT, "canon": canonical_support},
        )
