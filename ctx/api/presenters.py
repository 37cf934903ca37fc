"""Wire shapes of blocks: one place decides what a response shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from django.utils import timezone

from ctx.models import Block
from retrieval.search import preview


class BlockSummary(TypedDict):
    id: str
    scope: str
    category: str
    title: str
    preview: str
    tags: list[str]
    type: str
    updated_at: str


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def age_days(block: Block, now: datetime | None = None) -> float:
    reference = block.source_time or block.created_at
    return round(((now or timezone.now()) - reference).total_seconds() / 86400, 2)


def summary(block: Block) -> BlockSummary:
    return {
        "id": str(block.pk),
        "scope": block.scope.name,
        "category": block.category,
        "title": block.title,
        "preview": preview(block.content),
        "tags": list(block.tags),
        "type": block.type,
        "updated_at": block.updated_at.isoformat(),
    }


def full(block: Block) -> dict[str, Any]:
    return {
        "id": str(block.pk),
        "scope": block.scope.name,
        "category": block.category,
        "title": block.title,
        "content": block.content,
        "tags": list(block.tags),
        "metadata": block.metadata,
        "type": block.type,
        "lifecycle": block.lifecycle,
        "content_hash": block.content_hash,
        "superseded_by": str(block.superseded_by_id) if block.superseded_by_id else None,
        "valid_from": _iso(block.valid_from),
        "valid_to": _iso(block.valid_to),
        "source_time": _iso(block.source_time),
        "embedded": block.embedding is not None,
        "quality": block.quality,
        "sensitivity": block.sensitivity,
        "created_at": block.created_at.isoformat(),
        "updated_at": block.updated_at.isoformat(),
    }
