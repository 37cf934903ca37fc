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
from datetime import datetime

from django.db import connection

from dream.link_typing import Proposal
from dream.replace import Existing, Key

LINK_MIN_SUPPORT = 0.75  # links this confident count as support for quality and promotion


def lock_blocks(ids: Iterable[str]) -> dict[str, int]:
    """Lock the blocks a write touches, in id order: concurrent cycles on neighbouring blocks
    then queue instead of deadlocking. NO KEY UPDATE leaves foreign-key checks unblocked.
    Returns the scope of each live (not archived) block among them."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT id::text, scope_id, archived FROM ctx_block WHERE id = ANY(%s::uuid[])
               ORDER BY id FOR NO KEY UPDATE""",
            [sorted(set(ids))],
        )
        return {r[0]: r[1] for r in cur.fetchall() if not r[2]}


def links_around(block_ids: Iterable[str]) -> list[Existing]:
    """Every link a batch's cycles could re-judge or overwrite: those touching its blocks or
    found by them (links of every origin, so pinned and manual ones are known as such)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT source_id::text, target_id::text, link_class,
                      origin = 'dream' AND NOT pinned, found_by_id::text
               FROM dream_link
               WHERE source_id = ANY(%(ids)s::uuid[]) OR target_id = ANY(%(ids)s::uuid[])
                  OR found_by_id = ANY(%(ids)s::uuid[])""",
            {"ids": sorted(set(block_ids))},
        )
        return [Existing((r[0], r[1], r[2]), bool(r[3]), r[4]) for r in cur.fetchall()]


# Both ends must be live blocks of one scope at write time (a block archived or moved since
# the candidates were read is skipped). Rows arrive sorted, so row locks are taken in order.
_UPSERT = """
INSERT INTO dream_link (source_id, target_id, link_class, scope_id, confidence, raw_confidence,
                        origin, evidence, pinned, found_by_id, created_at, updated_at)
SELECT v.source_id, v.target_id, v.link_class, a.scope_id, v.confidence, v.raw,
       'dream', v.evidence, false, v.found_by, %(now)s, %(now)s
FROM jsonb_to_recordset(%(rows)s::jsonb) AS v(source_id uuid, target_id uuid, link_class text,
                                              confidence float8, raw float8, evidence jsonb,
                                              found_by uuid)
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


def upsert(rows: dict[Key, tuple[Proposal, str]], *, now: datetime) -> tuple[int, int]:
    """Insert or refresh links (one row per key: the proposal and the block that found it);
    returns (created, updated)."""
    if not rows:
        return 0, 0
    data = [
        {
            "source_id": p.source_id,
            "target_id": p.target_id,
            "link_class": p.link_class,
            "confidence": p.confidence,
            "raw": p.raw,
            "evidence": p.evidence,
            "found_by": found_by,
        }
        for p, found_by in rows.values()
    ]
    with connection.cursor() as cur:
        cur.execute(_UPSERT, {"rows": json.dumps(data), "now": now})
        flags = [bool(r[0]) for r in cur.fetchall()]
    return sum(flags), len(flags) - sum(flags)


def delete(keys: Iterable[Key]) -> list[Key]:
    """Delete these links if they are still unpinned dream links; returns those deleted."""
    stale = sorted(set(keys))
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


_SUPERSEDE = """
UPDATE ctx_block o SET lifecycle = 'snapshot', superseded_by_id = v.new
FROM jsonb_to_recordset(%s::jsonb) AS v(new uuid, old uuid)
WHERE o.id = v.old AND o.lifecycle IN ('knowledge', 'canonical', 'snapshot')
  AND o.superseded_by_id IS DISTINCT FROM v.new
  AND NOT EXISTS (SELECT 1 FROM ctx_block n WHERE n.id = v.new AND n.superseded_by_id = v.old)
RETURNING o.id::text
"""


def supersede(proposals: Iterable[Proposal], *, minimum: float) -> list[str]:
    """Turn the targets of confident supersedes links into snapshots of their successor
    (for a target named twice, the last proposal wins)."""
    pairs = {
        p.target_id: p.source_id
        for p in proposals
        if p.link_class == "supersedes" and p.confidence >= minimum
    }
    if not pairs:
        return []
    rows = [{"new": new, "old": old} for old, new in sorted(pairs.items())]
    with connection.cursor() as cur:
        cur.execute(_SUPERSEDE, [json.dumps(rows)])
        return [r[0] for r in cur.fetchall()]


_RESTORE = """
WITH t AS (
    SELECT t.id, (SELECT l.source_id FROM dream_link l
                  WHERE l.target_id = t.id AND l.link_class = 'supersedes'
                    AND l.confidence >= %(min)s
                  ORDER BY l.confidence DESC, l.source_id LIMIT 1) AS succ
    FROM unnest(%(ids)s::uuid[]) AS t(id)
)
UPDATE ctx_block b SET superseded_by_id = t.succ,
    lifecycle = CASE WHEN t.succ IS NOT NULL THEN 'snapshot' ELSE 'knowledge' END
FROM t
WHERE b.id = t.id AND b.lifecycle = 'snapshot' AND b.superseded_by_id IS DISTINCT FROM t.succ
RETURNING b.id::text, b.superseded_by_id
"""


def restore(targets: Iterable[str], *, minimum: float) -> list[str]:
    """After supersedes links were removed: point each target at its most confident remaining
    successor, or make it plain knowledge again when none is left; returns the latter."""
    ids = sorted(set(targets))
    if not ids:
        return []
    with connection.cursor() as cur:
        cur.execute(_RESTORE, {"ids": ids, "min": minimum})
        return sorted(r[0] for r in cur.fetchall() if r[1] is None)


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


# --- kept link sets (revert) ---------------------------------------------------------------------

KEEP_SETS = 5  # replaced link sets kept per block: the newest few are what anyone reverts

_REPLACEABLE = """
SELECT b.id::text, b.scope_id, coalesce(jsonb_agg(jsonb_build_object(
    'source', l.source_id::text, 'target', l.target_id::text, 'link_class', l.link_class,
    'confidence', l.confidence, 'raw', l.raw_confidence, 'evidence', l.evidence,
    'found_by', l.found_by_id::text)) FILTER (WHERE l.id IS NOT NULL), '[]'::jsonb)
FROM ctx_block b
LEFT JOIN dream_link l ON (l.source_id = b.id OR l.target_id = b.id)
    AND l.origin = 'dream' AND NOT l.pinned
WHERE b.id = ANY(%(ids)s::uuid[])
GROUP BY b.id, b.scope_id
"""
_PRUNE = """
DELETE FROM dream_linkset s WHERE s.block_id = ANY(%(ids)s::uuid[]) AND s.id NOT IN (
    SELECT k.id FROM dream_linkset k WHERE k.block_id = s.block_id
    ORDER BY k.replaced_at DESC, k.id DESC LIMIT %(keep)s)
"""


def keep_sets(block_ids: Iterable[str], *, now: datetime) -> int:
    """Before a write replaces these blocks' links: keep each one's replaceable links as they
    are now (inside the write's transaction, after the blocks were locked)."""
    ids = sorted(set(block_ids))
    if not ids:
        return 0
    with connection.cursor() as cur:
        cur.execute(_REPLACEABLE, {"ids": ids})
        rows = cur.fetchall()
        cur.executemany(
            """INSERT INTO dream_linkset (block_id, scope_id, links, replaced_at, reverted_by)
               VALUES (%s::uuid, %s, %s::jsonb, %s, '')""",
            # Django's psycopg setup reads jsonb as its text: passed on as it came.
            [(block, scope, _json_text(kept), now) for block, scope, kept in rows],
        )
        cur.execute(_PRUNE, {"ids": ids, "keep": KEEP_SETS})
    return len(rows)


def replaceable_keys(block_id: str) -> list[Key]:
    """The keys of the block's dream links a cycle may replace (unpinned, origin dream)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT source_id::text, target_id::text, link_class FROM dream_link
               WHERE (source_id = %(b)s OR target_id = %(b)s) AND origin = 'dream'
                 AND NOT pinned""",
            {"b": block_id},
        )
        return [(r[0], r[1], r[2]) for r in cur.fetchall()]


def _json_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)
