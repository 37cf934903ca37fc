"""The blocks a context draws on, read with one SQL statement.

Three parts, each answered by an index, then joined to the rows once:
- the newest `PER_TYPE` blocks of every (scope, memory type): a LATERAL index scan on
  block_scope_type_updated per pair, so a key with several scopes costs a few short scans, not
  a sort of every fact it can read;
- blocks that name the project: its tag (`project:<p>` or `<p>`, the tags' GIN index) or its
  word in the English full text (the tsvector's GIN index), newest `PER_PROJECT`;
- corrections of the last 7 days (the partial index block_corrections).
A Django UNION of the same parts cost more to compile than to run (about 3 ms a request).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection

from ctx import masking
from ctx.sensitivity import PERSONAL, rank

PER_TYPE = 40
PER_PROJECT = 60
PER_CORRECTIONS = 40
TYPES = ["preference", "fact", "decision", "task", "entity"]

# Live, current, never credentials in a prompt.
_LIVE = """NOT b.archived AND b.superseded_by_id IS NULL
    AND (b.valid_to IS NULL OR b.valid_to > %(now)s) AND b.sensitivity <> 'credentials'"""

_SQL = f"""
WITH recent AS (
    SELECT r.id FROM unnest(%(scopes)s::bigint[]) AS s(id)
    CROSS JOIN unnest(%(types)s::text[]) AS t(type)
    CROSS JOIN LATERAL (
        SELECT b.id FROM ctx_block b
        WHERE b.scope_id = s.id AND b.type = t.type AND {_LIVE}
        ORDER BY b.updated_at DESC LIMIT %(per_type)s
    ) AS r
), named AS (
    SELECT b.id FROM ctx_block b
    WHERE %(project)s <> '' AND b.scope_id = ANY(%(scopes)s) AND b.type = ANY(%(types)s)
      AND (b.tags && %(project_tags)s::varchar[]
           OR b.tsv_en @@ plainto_tsquery('english', %(project)s))
      AND {_LIVE}
    -- Not the updated_at index's order: with it the planner walked every block newest first
    -- looking for a rare project (0.6-1.5 s at 100k blocks); the GIN matches are few, sort them.
    ORDER BY b.updated_at + interval '0 s' DESC LIMIT %(per_project)s
), corrections AS (
    SELECT b.id FROM ctx_block b
    WHERE b.scope_id = ANY(%(scopes)s) AND (b.metadata -> 'corrects') = 'true'::jsonb
      AND b.updated_at >= %(since)s AND b.type = ANY(%(types)s) AND {_LIVE}
    ORDER BY b.updated_at DESC LIMIT %(per_corrections)s
)
SELECT b.id, b.title, b.content, b.tags, b.metadata, b.type, b.quality, b.updated_at,
       b.sensitivity
FROM ctx_block b
WHERE b.id IN (SELECT id FROM recent UNION SELECT id FROM named UNION SELECT id FROM corrections)
"""  # noqa: S608 - composed from constants; every value is a bound parameter


@dataclass
class Candidate:
    id: str
    title: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    type: str
    quality: float
    updated_at: datetime


def fetch(
    scope_ids: list[int],
    project: str | None,
    now: datetime,
    days: int,
    ceiling: str = PERSONAL,
) -> list[Candidate]:
    """The candidates; a block above `ceiling` (the caller's read ceiling) comes with its
    content as the redaction marker (ctx/masking.py), so no line can quote it."""
    params: dict[str, Any] = {
        "scopes": scope_ids,
        "types": TYPES,
        "now": now,
        "since": now - timedelta(days=days),
        "project": project or "",
        "project_tags": [f"project:{project}".lower(), (project or "").lower()],
        "per_type": PER_TYPE,
        "per_project": PER_PROJECT,
        "per_corrections": PER_CORRECTIONS,
    }
    with connection.cursor() as cur:
        cur.execute(_SQL, params)
        rows = cur.fetchall()
    return [_row(r, ceiling) for r in rows]


def _row(r: tuple[Any, ...], ceiling: str) -> Candidate:
    metadata = r[4] if isinstance(r[4], dict) else json.loads(r[4] or "{}")
    content = r[2]
    if rank(r[8]) > rank(ceiling):
        content, metadata = masking.marker(r[8]), {}
    return Candidate(str(r[0]), r[1], content, list(r[3] or []), metadata, r[5], r[6], r[7])
