"""Searching conversations: the whole retrieval pipeline (every arm, the temporal stages) over
transcript windows, grouped by session, at most a few windows per session."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from ctx import masking
from ctx.models import BlockType
from ctx.principal import Principal
from ingest import payloads as p
from ingest import selectors
from ingest.models import Session
from retrieval import lexical
from retrieval.confidence import coverage
from retrieval.query import QueryParams, run_query
from retrieval.search import preview_at

POOL = 50  # windows asked of the pipeline (its most); grouped into sessions afterwards
# A session is ranked by its best window (reciprocal rank, k = 60), plus its title's share of
# the query's topic words (retrieval.confidence.coverage) times this: a title holding them all
# is worth about five places at the top. Titles are the tools' own summaries ("Fix flaky login
# test"), but they are short, so they reorder sessions the windows found, never add one.
TITLE_WEIGHT = 1 / 61 - 1 / 66


def search_sessions(
    principal: Principal,
    *,
    query: str,
    limit: int,
    per_session: int,
    tool: str | None = None,
    project: str | None = None,
    scopes: list[str] | None = None,
    now: datetime | None = None,
) -> p.SearchPayload:
    params = lexical.SearchParams(
        query=query,
        limit=POOL,
        category=f"sessions/{tool}" if tool else None,
        types=[BlockType.TRANSCRIPT],
        scopes=list(scopes or []),
    )
    result = run_query(principal, QueryParams(search=params, now=now))
    grouped: dict[int, list[Any]] = defaultdict(list)
    order: list[int] = []
    for hit in result.hits:
        sid = (hit.block.metadata or {}).get("session_id") if hit.block is not None else None
        if not isinstance(sid, int):
            continue
        if sid not in grouped:
            order.append(sid)
        if len(grouped[sid]) < per_session:
            grouped[sid].append(hit)
    sessions = selectors.sessions_by_id(principal, order)
    found = [sid for sid in order if sid in sessions and _in_project(sessions[sid], project)]
    # The verdict's own measure (a 5-letter stem, stop words dropped): no database round trip.
    share = {sid: coverage(query, [sessions[sid].title]) for sid in found}
    found = _by_title(found, share)
    rows = [_row(principal, sessions[sid], grouped[sid], share[sid], query) for sid in found]
    rows = rows[:limit]
    return {"query": query, "count": len(rows), "sessions": rows, "confidence": result.confidence}


def _by_title(order: list[int], share: dict[int, float]) -> list[int]:
    score = {sid: 1 / (61 + rank) + TITLE_WEIGHT * share[sid] for rank, sid in enumerate(order)}
    return sorted(order, key=lambda sid: -score[sid])


def _in_project(session: Session, project: str | None) -> bool:
    if not project:
        return True
    root = session.project_root.rstrip("/\\")
    name = project.rstrip("/\\")
    return root == name or root.replace("\\", "/").rsplit("/", 1)[-1] == name


def _row(
    principal: Principal, session: Session, hits: list[Any], share: float, query: str
) -> p.SessionHit:
    windows: list[p.WindowHit] = [
        {
            "id": h.id,
            "score": round(h.score, 6),
            "first_index": int(h.block.metadata.get("first_index", 0)),
            "last_index": int(h.block.metadata.get("last_index", 0)),
            # Import redacts credentials already; a window raised by hand is masked too.
            "preview": masking.text(
                principal, h.block.sensitivity, preview_at(h.block.content, query)
            ),
        }
        for h in hits
    ]
    return {
        "session": p.summary(session),
        "score": windows[0]["score"],
        "title_match": round(share, 3),
        "windows": windows,
    }
