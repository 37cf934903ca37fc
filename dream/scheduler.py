"""What the periodic feed does: bookkeeping, then how many cycle tasks to fan out."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from dream import digest
from dream.services import mode_get, states_backfill, states_park


def pickable(*, now: Any) -> int:
    """Blocks due now and unclaimed, across tenants (bounded count)."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT count(*) FROM (SELECT 1 FROM dream_dreamstate
               WHERE next_at <= %s AND (claim_until IS NULL OR claim_until < %s)
               LIMIT 100000) s""",
            [now, now],
        )
        return int(cur.fetchone()[0])


def feed() -> dict[str, Any]:
    """Backfill and park dream state, find overdue digests, and size the fan-out."""
    cfg = settings.CTX
    mode = mode_get()
    added = states_backfill()
    parked = states_park()
    now = timezone.now()
    digests = digest.overdue(now=now)
    due = pickable(now=now) if mode != "off" else 0
    tasks = min(cfg["CTX_DREAM_FANOUT"], math.ceil(due / cfg["CTX_DREAM_BATCH"]))
    return {
        "mode": mode,
        "added": added,
        "parked": parked,
        "due": due,
        "tasks": tasks,
        "digests": digests,
    }
