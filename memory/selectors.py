"""Reads of memory formation. `get_fact_for` is the only way to one fact by id: a fact
outside the caller's readable scopes, archived, missing or malformed is the same NotFound."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Q, QuerySet

from ctx.errors import NotFound
from ctx.principal import Principal
from ctx.selectors import block_pk
from memory.models import Fact, Provenance

FACT_NOT_FOUND = "Fact not found."


def get_fact_for(principal: Principal, raw_id: object) -> Fact:
    pk = block_pk(principal, str(raw_id))  # a fact's id is its block's: its start will do
    if pk is None:
        raise NotFound(FACT_NOT_FOUND)
    qs = _live(Fact.objects.filter(pk=pk).readable_by(principal))
    fact = qs.first()
    if fact is None:
        raise NotFound(FACT_NOT_FOUND)
    return fact


def _live(qs: QuerySet[Fact]) -> QuerySet[Fact]:
    return qs.filter(block__archived=False).select_related("block", "block__scope")


@dataclass(frozen=True)
class FactFilter:
    scope_ids: list[int]
    subject: str | None = None
    kind: str | None = None
    attribute: str | None = None
    as_of: datetime | None = None  # facts valid at that moment (else the current ones)
    history: bool = False  # every version, superseded ones too


def facts(principal: Principal, f: FactFilter) -> QuerySet[Fact]:
    """Facts in the given readable scopes, most recently said first."""
    qs = _live(Fact.objects.readable_by(principal, f.scope_ids))
    if f.subject:
        qs = qs.filter(subject__iexact=f.subject)
    if f.kind:
        qs = qs.filter(kind=f.kind)
    if f.attribute:
        qs = qs.filter(attribute=f.attribute)
    if f.as_of is not None:
        qs = qs.filter(
            Q(block__valid_from__isnull=True) | Q(block__valid_from__lte=f.as_of),
            Q(block__valid_to__isnull=True) | Q(block__valid_to__gte=f.as_of),
        )
    elif not f.history:
        qs = qs.filter(block__superseded_by__isnull=True)
    return qs.order_by(F("said_at").desc(nulls_last=True), "-block_id")


def sources_of(block_ids: list[uuid.UUID]) -> dict[str, list[Provenance]]:
    """Every provenance row of these facts, oldest statement first (one query)."""
    out: dict[str, list[Provenance]] = {}
    rows = Provenance.objects.filter(block_id__in=block_ids).order_by("said_at", "pk")
    for row in rows:
        out.setdefault(str(row.block_id), []).append(row)
    return out
