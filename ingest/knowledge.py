"""Decisions, error solutions and insights an agent saves, deduplicated against their kind.

A new text is compared by cosine with the live blocks of the same kind in the scope:
at or above CTX_KNOWLEDGE_REJECT_AT (0.95) it is a duplicate and nothing is written (the answer
names the existing block); from CTX_KNOWLEDGE_SUPERSEDE_AT (0.85) it is stored and supersedes
the closest one (a pinned `supersedes` link; the old block becomes a snapshot, never deleted);
below, it is created. Embedding runs off the request path in this codebase, so the new text
is embedded here with the query encoder, and so are up to CTX_KNOWLEDGE_EMBED_PENDING blocks
of the kind that have no vector yet. Text above the embedder's trust (credentials) is compared
by exact content only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection, transaction

from ctx import knobs, services
from ctx.errors import SensitivityBlocked
from ctx.models import Block, BlockType
from ctx.principal import Principal
from ctx.sensitivity import detect_block
from dream import links as dream_links
from dream import services as dream_services
from dream.link_typing import Proposal
from dream.models import LinkClass, LinkOrigin
from ingest import enrich
from ingest.models import Session
from ingest.selectors import get_session_for
from retrieval.chunking import windows
from retrieval.embeddings import embed_texts


@dataclass(frozen=True)
class Kind:
    name: str
    category: str
    type: str


KINDS = {
    "decision": Kind("decision", "decisions", BlockType.DECISION),
    "error-solution": Kind("error-solution", "error-solutions", BlockType.KNOWLEDGE),
    "insight": Kind("insight", "insights", BlockType.KNOWLEDGE),
}


@dataclass
class Entry:
    kind: Kind
    title: str
    content: str
    scope: str | None = None
    tags: list[str] = field(default_factory=list)
    session: Any = None  # a session id; None: no source session
    fields: dict[str, Any] = field(default_factory=dict)  # the kind's own fields, kept as metadata


@dataclass(frozen=True)
class Nearest:
    id: str
    similarity: float


# --- vectors -------------------------------------------------------------------------------------


def _mean(vectors: list[list[float]]) -> np.ndarray:
    total = np.asarray(vectors, dtype=np.float64).sum(axis=0)
    norm = float(np.linalg.norm(total))
    result: np.ndarray = total / (norm or 1.0)
    return result


def vector(title: str, content: str, level: str) -> np.ndarray | None:
    """The text's vector as the block's would be (mean of its windows); None when the text may
    not be sent to the embedder."""
    try:
        return _mean(embed_texts(windows(title, content), kind="query", level=level))
    except SensitivityBlocked:
        return None


_NEAREST = """SELECT id::text, 1 - (embedding <=> %s::vector) FROM ctx_block
WHERE scope_id = %s AND category = %s AND type = %s AND NOT archived
  AND superseded_by_id IS NULL AND embedding IS NOT NULL
ORDER BY embedding <=> %s::vector LIMIT 1"""


def _stored(scope_id: int, kind: Kind, vec: np.ndarray) -> Nearest | None:
    literal = "[" + ",".join(f"{x:.9g}" for x in vec.tolist()) + "]"
    with connection.cursor() as cur:
        cur.execute(_NEAREST, [literal, scope_id, kind.category, kind.type, literal])
        row = cur.fetchone()
    return Nearest(row[0], float(row[1])) if row else None


def _pending(scope_id: int, kind: Kind, vec: np.ndarray) -> Nearest | None:
    """The closest of the kind's blocks that wait for their vector, embedded now."""
    limit = int(knobs.value("CTX_KNOWLEDGE_EMBED_PENDING"))
    rows = list(
        Block.objects.filter(
            scope_id=scope_id,
            category=kind.category,
            type=kind.type,
            archived=False,
            superseded_by__isnull=True,
            embedding__isnull=True,
        )
        .order_by("-created_at")
        .only("id", "title", "content", "sensitivity")[:limit]
    )
    best: Nearest | None = None
    for block in rows:
        other = vector(block.title, block.content, block.sensitivity)
        if other is None:
            continue
        sim = float(np.dot(vec, other))
        if best is None or sim > best.similarity:
            best = Nearest(str(block.pk), sim)
    return best


def _exact(scope_id: int, kind: Kind, content: str) -> Nearest | None:
    digest = services.content_hash(content)
    found = (
        Block.objects.filter(
            scope_id=scope_id,
            category=kind.category,
            type=kind.type,
            archived=False,
            superseded_by__isnull=True,
            content_hash=digest,
        )
        .values_list("id", flat=True)
        .first()
    )
    return Nearest(str(found), 1.0) if found else None


def nearest(scope_id: int, entry: Entry, level: str) -> Nearest | None:
    exact = _exact(scope_id, entry.kind, entry.content)
    if exact is not None:
        return exact
    vec = vector(entry.title, entry.content, level)
    if vec is None:
        return None
    found = [n for n in (_stored(scope_id, entry.kind, vec), _pending(scope_id, entry.kind, vec))]
    ranked = sorted((n for n in found if n is not None), key=lambda n: -n.similarity)
    return ranked[0] if ranked else None


# --- writing -------------------------------------------------------------------------------------


def _source(principal: Principal, raw: Any) -> Session | None:
    return None if raw in (None, "") else get_session_for(principal, raw)


def _metadata(entry: Entry, session: Session | None) -> dict[str, Any]:
    text = f"{entry.title}\n{entry.content}"
    meta: dict[str, Any] = {
        "kind": entry.kind.name,
        "files": enrich.files(text),
        "tools": enrich.tools(text),
        **entry.fields,
    }
    if session is not None:
        meta["session"] = {
            "id": session.pk,
            "tool": session.tool,
            "external_id": session.external_id,
            "title": session.title[:200],
        }
    return meta


def _supersede(new_id: str, old_id: str, similarity: float) -> None:
    conf = max(0.0, min(1.0, similarity))
    dream_services.link_upsert(
        dream_services.LinkInput(
            source_id=new_id,
            target_id=old_id,
            link_class=LinkClass.SUPERSEDES,
            confidence=conf,
            origin=LinkOrigin.EXTRACTION,
            evidence={"rule": "knowledge-dedupe", "similarity": round(similarity, 4)},
            pinned=True,  # dream cycles never remove it
        )
    )
    proposal = Proposal(new_id, old_id, LinkClass.SUPERSEDES, raw=conf, confidence=conf)
    dream_links.supersede([proposal], minimum=0.0)


def save(principal: Principal, entry: Entry) -> dict[str, Any]:
    """Reject, supersede or create; the answer says which (and against what)."""
    scope_id = services.writable_scope(principal, entry.scope)
    session = _source(principal, entry.session)
    meta = _metadata(entry, session)
    level = detect_block(entry.title, entry.content, entry.tags, meta).level
    match = nearest(scope_id, entry, level)
    base = {"kind": entry.kind.name, "files": meta["files"], "tools": meta["tools"]}
    base["source_session"] = meta.get("session")
    if match is not None and match.similarity >= knobs.value(
        "CTX_KNOWLEDGE_REJECT_AT", principal.tenant_id
    ):
        return {**base, "action": "rejected", "id": match.id, "similarity": _round(match)}
    with transaction.atomic():
        data = services.BlockInput(
            category=entry.kind.category,
            title=services.free_titles(scope_id, entry.kind.category, [entry.title])[0],
            content=entry.content,
            tags=entry.tags,
            metadata=meta,
            type=entry.kind.type,
            source_session=(f"{session.tool}:{session.external_id}"[:200] if session else ""),
        )
        scope = next(n for n, sid in principal.scope_names.items() if sid == scope_id)
        block = services.block_upsert(principal=principal, scope=scope, data=data).block
        supersedes = match is not None and match.similarity >= knobs.value(
            "CTX_KNOWLEDGE_SUPERSEDE_AT", principal.tenant_id
        )
        if supersedes and match is not None:
            _supersede(str(block.pk), match.id, match.similarity)
    return {
        **base,
        "action": "superseded" if supersedes else "created",
        "id": str(block.pk),
        "title": block.title,
        "scope": scope,
        "similarity": _round(match),
        "supersedes": match.id if supersedes and match else None,
    }


def _round(match: Nearest | None) -> float | None:
    return round(match.similarity, 4) if match is not None else None
