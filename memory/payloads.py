"""Wire shapes of the memory operations (HTTP envelope and MCP structured content)."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired  # pydantic needs it below 3.12

from typing_extensions import TypedDict

from ctx import masking
from ctx.principal import Principal
from memory.models import Fact, Provenance


class SourceRow(TypedDict):
    source: str  # block:<id> or session:<id>
    block_id: str | None
    session_id: int | None
    message_index: int | None
    message_id: str
    quote: str  # the evidence span, exactly as the source says it
    said_at: str | None
    confidence: float


class FactRow(TypedDict):
    id: str
    scope: str
    kind: str
    subject: str
    attribute: str
    value: str
    statement: str
    negated: bool
    confidence: float
    said_at: str | None
    valid_from: str | None
    valid_to: str | None
    superseded_by: str | None
    evidence: str
    sources: list[SourceRow]
    redacted: NotRequired[bool]  # true: value, statement, evidence and quotes are masked


class FactPayload(TypedDict):
    fact: FactRow


class FactListPayload(TypedDict):
    count: int
    total: int
    offset: int
    facts: list[FactRow]


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def source(row: Provenance) -> SourceRow:
    return {
        "source": row.source,
        "block_id": str(row.source_block_id) if row.source_block_id else None,
        "session_id": row.session_id,
        "message_index": row.message_index,
        "message_id": row.message_id,
        "quote": row.quote,
        "said_at": _iso(row.said_at),
        "confidence": round(row.confidence, 4),
    }


def fact(principal: Principal, f: Fact, rows: list[Provenance]) -> FactRow:
    """A fact; above the principal's read ceiling (its block's level) the value and every text
    that states it are masked (ctx/masking.py), its subject and attribute stay."""
    block = f.block
    row: FactRow = {
        "id": str(f.pk),
        "scope": block.scope.name,
        "kind": f.kind,
        "subject": f.subject,
        "attribute": f.attribute,
        "value": f.value,
        "statement": block.content,
        "negated": f.negated,
        "confidence": round(f.confidence, 4),
        "said_at": _iso(f.said_at),
        "valid_from": _iso(block.valid_from),
        "valid_to": _iso(block.valid_to),
        "superseded_by": str(block.superseded_by_id) if block.superseded_by_id else None,
        "evidence": block.source_quote,
        "sources": [source(r) for r in rows],
    }
    if not masking.masked(principal, block.sensitivity):
        return row
    mark = masking.marker(block.sensitivity)
    row["value"] = row["statement"] = row["evidence"] = mark
    row["redacted"] = True
    for src in row["sources"]:
        src["quote"] = mark
    return row
