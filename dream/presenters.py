"""Wire shapes of links and guard flags (ids and titles, never content)."""

from __future__ import annotations

from typing import Any

from dream.models import GuardFlag, Link


def _end(block: Any) -> dict[str, Any]:
    return {"id": str(block.pk), "title": block.title, "category": block.category}


def link(x: Link) -> dict[str, Any]:
    return {
        "id": x.pk,
        "scope": x.scope.name,
        "source": _end(x.source),
        "target": _end(x.target),
        "link_class": x.link_class,
        "confidence": round(x.confidence, 4),
        "raw_confidence": round(x.raw_confidence, 4),
        "origin": x.origin,
        "pinned": x.pinned,
        "evidence": x.evidence,
        "updated_at": x.updated_at.isoformat(),
    }


def flag(f: GuardFlag) -> dict[str, Any]:
    return {
        "id": f.pk,
        "scope": f.scope.name,
        "block": {**_end(f.block), "archived": f.block.archived},
        "twin": _end(f.twin),
        "similarity": round(f.similarity, 4),
        "kind": f.kind,
        "status": f.status,
        "auto": f.auto,
        "created_at": f.created_at.isoformat(),
        "resolved_at": f.resolved_at.isoformat() if f.resolved_at else None,
        # who decided: a reviewer's key name, or the guard's rule (an automatic archive, a series)
        "resolved_by": f.resolved_by or None,
    }
