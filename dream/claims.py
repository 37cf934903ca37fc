"""Claiming a block for one dream cycle: ONE conditional UPDATE per claim, with a TTL.

    UPDATE dream_dreamstate … WHERE block_id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)
    RETURNING …

Any number of workers run this concurrently: SKIP LOCKED makes them take different rows, and
the claim (`claim_until` in the future) keeps a row away from the others after the statement
commits. A worker that dies leaves its claim behind; it expires after CTX_DREAM_CLAIM_TTL and
the block is picked again. Every write a cycle makes first re-checks its `claim_token`
(fencing): a worker that overran its TTL cannot write over a newer claim.

Tenants are served round robin: the tenant whose last cycle is oldest goes first, and the same
statement stamps the served tenant.
"""

from __future__ import annotations

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
        SELECT 1 FROM dream_dreamstate s
        WHERE s.tenant_id = dt.tenant_id AND s.next_at <= %(now)s
          AND (s.claim_until IS NULL OR s.claim_until < %(now)s))
    ORDER BY dt.last_cycle_at NULLS FIRST, dt.tenant_id
    LIMIT 5) t ON true
"""

# The partial index dreamstate_pick serves (tenant, next_at); rows that cannot be dreamed
# (archived, awaiting embedding) have next_at NULL, so the scan rarely skips anything.
_CLAIM = """
WITH claimed AS (
    UPDATE dream_dreamstate d
    SET claimed_by = %(worker)s, claim_token = %(token)s, claimed_at = %(now)s,
        claim_until = %(until)s
    FROM ctx_block b
    WHERE b.id = d.block_id AND d.block_id = (
        SELECT s.block_id FROM dream_dreamstate s JOIN ctx_block c ON c.id = s.block_id
        WHERE s.tenant_id = %(tenant)s AND s.next_at IS NOT NULL AND s.next_at <= %(now)s
          AND (s.claim_until IS NULL OR s.claim_until < %(now)s)
          AND c.embedding IS NOT NULL AND NOT c.archived
        ORDER BY s.next_at
        LIMIT 1
        FOR UPDATE OF s SKIP LOCKED)
    RETURNING b.id, b.scope_id, d.tenant_id, b.category, b.title, b.tags,
        coalesce(b.source_time, b.created_at), left(b.content, %(chars)s), b.lifecycle,
        d.level
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
    """The current mode and a claimed block (None when the mode is off or nothing is due)."""
    with connection.cursor() as cur:
        cur.execute(_TENANTS, {"default": default_mode, "now": now})
        rows = cur.fetchall()
    mode = str(rows[0][0]) if rows else default_mode
    for _, tenant in rows:
        if tenant is None:
            break
        claim = _claim_in(tenant, worker=worker, now=now, ttl=ttl)
        if claim is not None:
            return mode, claim
    return mode, None


def _claim_in(tenant: int, *, worker: str, now: datetime, ttl: timedelta) -> Claim | None:
    token = uuid.uuid4()
    params: dict[str, Any] = {
        "worker": worker[:200],
        "token": token,
        "now": now,
        "until": now + ttl,
        "tenant": tenant,
        "chars": CONTENT_CHARS,
    }
    with connection.cursor() as cur:
        cur.execute(_CLAIM, params)
        row = cur.fetchone()
    if row is None:
        return None
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


def lock_owned(claim: Claim, default_mode: str) -> str | None:
    """Inside the write's transaction: lock the state row if this claim still owns it and
    return the current mode; None when the claim was lost (TTL passed, another worker)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT coalesce((SELECT mode FROM dream_dreammode WHERE id = 1), %s)
               FROM dream_dreamstate WHERE block_id = %s AND claim_token = %s FOR UPDATE""",
            [default_mode, claim.source.id, claim.token],
        )
        row = cur.fetchone()
    return None if row is None else str(row[0])


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
    """End the claim and schedule the next cycle; False when the claim was already lost."""
    with connection.cursor() as cur:
        cur.execute(
            """UPDATE dream_dreamstate SET claimed_by = '', claim_token = NULL,
                   claim_until = NULL, next_at = %(next_at)s, level = %(level)s,
                   failures = CASE WHEN %(failed)s THEN failures + 1 ELSE 0 END,
                   cycles = cycles + CASE WHEN %(counted)s THEN 1 ELSE 0 END,
                   last_cycle_at = CASE WHEN %(counted)s THEN %(now)s ELSE last_cycle_at END,
                   last_outcome = %(outcome)s
               WHERE block_id = %(id)s AND claim_token = %(token)s""",
            {
                "next_at": next_at,
                "level": level,
                "failed": failed,
                "counted": counted,
                "now": now,
                "outcome": outcome[:16],
                "id": claim.source.id,
                "token": claim.token,
            },
        )
        return cur.rowcount == 1


def abandon(claim: Claim) -> None:
    """Give the block back untouched (mode switched off mid-cycle): due again at once."""
    with connection.cursor() as cur:
        cur.execute(
            """UPDATE dream_dreamstate SET claimed_by = '', claim_token = NULL,
                   claim_until = NULL WHERE block_id = %s AND claim_token = %s""",
            [claim.source.id, claim.token],
        )
