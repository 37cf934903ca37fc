"""Claiming blocks for dream cycles: ONE conditional UPDATE per claim, with a TTL.

    UPDATE dream_dreamstate … WHERE block_id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)
    RETURNING …

A claim takes up to n due blocks of one tenant at once (CTX_DREAM_CLAIM_SIZE; 1 with an LLM or
in throttled mode), so a worker pays the round trips of claiming, finding candidates and
writing once per batch rather than once per block. Any number of workers run this
concurrently: SKIP LOCKED makes them take different rows, and the claim (`claim_until` in the
future) keeps a row away from the others after the statement commits. A worker that dies
leaves its claims behind; they expire after CTX_DREAM_CLAIM_TTL and the blocks are picked
again. A batch's write first re-checks every block's `claim_token` under a row lock (fencing):
a worker that overran its TTL writes nothing for the blocks it lost.

Tenants are served round robin, one claim (batch) per turn: the tenant whose last cycle is
oldest goes first, and the same statement stamps the served tenant. A tenant counts only
when it has a block the claim itself would take (due, unclaimed, embedded, live): five
tenants whose due blocks lost their embedding must not fill the turn list and starve the
tenants behind them.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection

from dream.candidates import Source

CONTENT_CHARS = 1500  # what typing reads of a text; also bounds the rows a cycle loads

_TENANTS = """
SELECT m.mode, t.tenant_id
FROM (SELECT coalesce((SELECT mode FROM dream_dreammode WHERE id = 1), %(default)s) AS mode) m
LEFT JOIN LATERAL (
    SELECT dt.tenant_id FROM dream_dreamtenant dt
    WHERE m.mode <> 'off' AND EXISTS (
        SELECT 1 FROM dream_dreamstate s JOIN ctx_block c ON c.id = s.block_id
        WHERE s.tenant_id = dt.tenant_id AND s.next_at <= %(now)s
          AND (s.claim_until IS NULL OR s.claim_until < %(now)s)
          AND c.embedding IS NOT NULL AND NOT c.archived)
    ORDER BY dt.last_cycle_at NULLS FIRST, dt.tenant_id
    LIMIT 5) t ON true
"""

# The partial index dreamstate_pick serves (tenant, next_at); rows that cannot be dreamed
# (archived, awaiting embedding) have next_at NULL, so the scan rarely skips anything.
# The pick is a MATERIALIZED CTE, run once: as `UPDATE … WHERE id IN (SELECT … LIMIT n FOR
# UPDATE SKIP LOCKED)` the planner was free to run the subquery more than once, and in the
# full test suite (other statistics, another plan) a claim of one block took two or three:
# the extra ones stayed claimed until their lease ran out (tests/dream/test_cycle.py
# round robin and test_batch.py, failing in two clean-clone runs, passing alone).
_CLAIM = """
WITH picked AS MATERIALIZED (
    SELECT s.block_id FROM dream_dreamstate s JOIN ctx_block c ON c.id = s.block_id
    WHERE s.tenant_id = %(tenant)s AND s.next_at IS NOT NULL AND s.next_at <= %(now)s
      AND (s.claim_until IS NULL OR s.claim_until < %(now)s)
      AND c.embedding IS NOT NULL AND NOT c.archived
    ORDER BY s.next_at
    LIMIT %(limit)s
    FOR UPDATE OF s SKIP LOCKED
), claimed AS (
    UPDATE dream_dreamstate d
    SET claimed_by = %(worker)s, claim_token = %(token)s, claimed_at = %(now)s,
        claim_until = %(until)s
    FROM ctx_block b, picked p
    WHERE b.id = d.block_id AND d.block_id = p.block_id
    RETURNING b.id, b.scope_id, d.tenant_id, b.category, b.title, b.tags,
        coalesce(b.source_time, b.created_at), left(b.content, %(chars)s), b.lifecycle,
        d.level, d.next_at
), served AS (
    UPDATE dream_dreamtenant SET last_cycle_at = %(now)s
    WHERE tenant_id = %(tenant)s AND EXISTS (SELECT 1 FROM claimed)
)
SELECT * FROM claimed
"""


@dataclass(frozen=True)
class Claim:
    source: Source
    token: uuid.UUID
    worker: str
    level: int


def claim_next(
    *, worker: str, now: datetime, ttl: timedelta, default_mode: str
) -> tuple[str, Claim | None]:
    """The current mode and one claimed block (None when the mode is off or nothing is due)."""
    mode, batch = claim_batch(worker=worker, now=now, ttl=ttl, default_mode=default_mode)
    return mode, (batch[0] if batch else None)


def claim_batch(
    *, worker: str, now: datetime, ttl: timedelta, default_mode: str, limit: int = 1
) -> tuple[str, list[Claim]]:
    """The current mode and up to `limit` claimed blocks of the tenant whose turn it is,
    earliest due first (none when the mode is off or nothing is due)."""
    with connection.cursor() as cur:
        cur.execute(_TENANTS, {"default": default_mode, "now": now})
        rows = cur.fetchall()
    mode = str(rows[0][0]) if rows else default_mode
    if mode != "on":
        limit = 1  # throttled: one block at a time, each cycle paced on its own
    for _, tenant in rows:
        if tenant is None:
            break
        batch = _claim_in(tenant, worker=worker, now=now, ttl=ttl, limit=limit)
        if batch:
            return mode, batch
    return mode, []


def _claim_in(
    tenant: int, *, worker: str, now: datetime, ttl: timedelta, limit: int
) -> list[Claim]:
    token = uuid.uuid4()  # one per claim statement; (block, token) identifies each claim
    params: dict[str, Any] = {
        "worker": worker[:200],
        "token": token,
        "now": now,
        "until": now + ttl,
        "tenant": tenant,
        "chars": CONTENT_CHARS,
        "limit": max(1, limit),
    }
    with connection.cursor() as cur:
        cur.execute(_CLAIM, params)
        rows = cur.fetchall()
    return [_claim(row, token, worker) for row in sorted(rows, key=lambda r: (r[10], r[0]))]


def _claim(row: tuple[Any, ...], token: uuid.UUID, worker: str) -> Claim:
    source = Source(
        id=str(row[0]),
        scope_id=row[1],
        tenant_id=row[2],
        category=row[3],
        title=row[4],
        tags=tuple(row[5] or ()),
        when=row[6],
        text=row[7],
        lifecycle=row[8],
    )
    return Claim(source=source, token=token, worker=worker, level=int(row[9]))


_OWNED = """
WITH owned AS (
    SELECT d.block_id FROM dream_dreamstate d
    JOIN jsonb_to_recordset(%(pairs)s::jsonb) AS v(b uuid, t uuid)
      ON d.block_id = v.b AND d.claim_token = v.t
    ORDER BY d.block_id
    FOR UPDATE OF d
)
SELECT coalesce((SELECT mode FROM dream_dreammode WHERE id = 1), %(default)s),
       ARRAY(SELECT block_id::text FROM owned)
"""


def lock_owned(batch: list[Claim], default_mode: str) -> tuple[str, set[str]]:
    """Inside the write's transaction: lock the state rows these claims still own; returns
    the current mode and the ids still owned (the others were lost: TTL passed and another
    worker claimed them, or their text changed)."""
    pairs = json.dumps([{"b": c.source.id, "t": str(c.token)} for c in batch])
    with connection.cursor() as cur:
        cur.execute(_OWNED, {"pairs": pairs, "default": default_mode})
        mode, owned = cur.fetchone()
    return str(mode), set(owned or ())


@dataclass(frozen=True)
class Release:
    """How one claim ends: its next cycle, back-off level and outcome."""

    claim: Claim
    next_at: datetime | None
    level: int
    outcome: str
    failed: bool = False
    counted: bool = True


_RELEASE = """
UPDATE dream_dreamstate d SET claimed_by = '', claim_token = NULL, claim_until = NULL,
    next_at = v.next_at, level = v.level,
    failures = CASE WHEN v.failed THEN d.failures + 1 ELSE 0 END,
    cycles = d.cycles + CASE WHEN v.counted THEN 1 ELSE 0 END,
    last_cycle_at = CASE WHEN v.counted THEN %(now)s ELSE d.last_cycle_at END,
    last_outcome = v.outcome
FROM jsonb_to_recordset(%(rows)s::jsonb) AS v(id uuid, token uuid, next_at timestamptz,
                                              level int, outcome text, failed bool, counted bool)
WHERE d.block_id = v.id AND d.claim_token = v.token
RETURNING d.block_id::text
"""


def release_many(releases: list[Release], *, now: datetime) -> set[str]:
    """End the claims and schedule the next cycles in one statement; returns the ids whose
    claim was still held (the others were lost and are left alone)."""
    if not releases:
        return set()
    rows = [
        {
            "id": r.claim.source.id,
            "token": str(r.claim.token),
            "next_at": r.next_at.isoformat() if r.next_at else None,
            "level": r.level,
            "outcome": r.outcome[:16],
            "failed": r.failed,
            "counted": r.counted,
        }
        for r in sorted(releases, key=lambda r: r.claim.source.id)
    ]
    with connection.cursor() as cur:
        cur.execute(_RELEASE, {"rows": json.dumps(rows), "now": now})
        return {r[0] for r in cur.fetchall()}


def release(
    claim: Claim,
    *,
    next_at: datetime | None,
    level: int,
    outcome: str,
    now: datetime,
    failed: bool = False,
    counted: bool = True,
) -> bool:
    """End one claim and schedule its next cycle; False when the claim was already lost."""
    done = release_many([Release(claim, next_at, level, outcome, failed, counted)], now=now)
    return claim.source.id in done


def abandon(batch: list[Claim]) -> None:
    """Give the blocks back untouched (mode switched off mid-cycle): due again at once."""
    if not batch:
        return
    pairs = json.dumps([{"b": c.source.id, "t": str(c.token)} for c in batch])
    with connection.cursor() as cur:
        cur.execute(
            """UPDATE dream_dreamstate d SET claimed_by = '', claim_token = NULL,
                   claim_until = NULL
               FROM jsonb_to_recordset(%s::jsonb) AS v(b uuid, t uuid)
               WHERE d.block_id = v.b AND d.claim_token = v.t""",
            [pairs],
        )
