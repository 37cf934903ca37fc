"""Writes of memory formation: extract one source (idempotent per content hash), forget
what was extracted from removed sources.

Extraction of a source replaces what that source contributed: a fact it no longer states
loses this source, and a fact or entity left with no source goes. Another source's
contribution is never touched, so the same fact from two sources survives either's removal.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from ctx import knobs
from ctx import services as blocks
from ctx.models import Block, Scope
from dream.digest import system_principal
from memory import entities, slots, sources
from memory.extract import Extractor, ExtractResult, RuleExtractor
from memory.extract.llm import LLMExtractor
from memory.materialize import refresh_standing, write_facts
from memory.models import Extraction, Fact, Provenance
from memory.sources import Source

log = logging.getLogger("ctx.memory")


PIPELINE = "memory.extract"


def extractor_for(tenant_id: int) -> Extractor | None:
    """The tenant's extractor, or None when extraction is off for it. `llm` uses the
    configured LLM (JSON-schema constrained, the rules standing in for what it cannot read);
    without one it is the rules."""
    mode = knobs.value("CTX_EXTRACTION", tenant_id)
    if mode == "off":
        return None
    if mode == "llm":
        from retrieval.llm import get_llm  # here: the LLM stack loads only where it is used

        llm = get_llm()
        if llm is not None:

            def complete(messages: list[Any], schema: dict[str, Any]) -> Any:
                return llm.complete(messages, schema=schema, max_tokens=700, pipeline=PIPELINE).json

            return LLMExtractor(complete)
    return RuleExtractor()


def _lock(source: str) -> None:
    """One extraction of a source at a time (two workers may get the same source)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"memory:{source}"])


def never_read(keys: list[str]) -> set[str]:
    """The block keys among these that extraction does not read and never read: nothing to
    extract and nothing to forget (transcript windows, digests, extracted facts), told with
    three queries for all of them. An import's windows each cost a transaction, a lock and
    five queries in `extract_source` to learn that, a second core's work during the import."""
    ids = {key: str(pk) for key in keys if (pk := sources.block_id(key)) is not None}
    read = set(sources.eligible_blocks(list(ids.values())))
    candidates = [key for key, pk in ids.items() if pk not in read]
    if not candidates:
        return set()
    seen = set(Extraction.objects.filter(source__in=candidates).values_list("source", flat=True))
    seen |= set(Provenance.objects.filter(source__in=candidates).values_list("source", flat=True))
    return set(candidates) - seen


def extract_source(source: str) -> dict[str, Any]:
    """Extract one source; a no-op when its content was extracted before. Returns counts."""
    with transaction.atomic():
        _lock(source)
        src = sources.load(source)
        if src is None:
            return {"source": source, "status": "gone", **forget_sources([source])}
        extractor = extractor_for(src.scope.tenant_id)
        if extractor is None:
            return {"source": source, "status": "off"}
        run = Extraction.objects.filter(source=source).first()
        if run is not None and run.content_hash == src.digest:
            return {"source": source, "status": "unchanged"}
        src.first = run is None
        counts = _materialize(src, extractor.extract(src.units))
        run = run or Extraction(source=source, scope=src.scope)
        name = getattr(extractor, "name", sources.EXTRACTOR)
        run.content_hash, run.extractor, run.counts = src.digest, name, counts
        run.save()
    return {"source": source, "status": "extracted", **counts}


def _materialize(src: Source, result: ExtractResult) -> dict[str, int]:
    principal = system_principal(src.scope)
    minimum = float(knobs.value("CTX_EXTRACTION_MIN_CONFIDENCE", src.scope.tenant_id))
    before = set() if src.first else _derived_of([src.key])
    written = write_facts(principal, src, result, minimum)
    found = entities.write_entities(principal, src, result, minimum)
    links = entities.write_links(src, result, found, written)
    orphans = _orphans(before)
    purged = _purge(src.scope, orphans)
    slots.resolve(written.slots | purged)
    return {
        "units": len(src.units),
        "facts": len(written.facts),
        "new_facts": written.created,
        "entities": len(set(found.values())),
        "links": links,
        "removed": len(orphans),
    }


def _uuids(ids: Iterable[str]) -> list[uuid.UUID]:
    return [uuid.UUID(i) for i in ids]


def _derived_of(keys: list[str]) -> set[str]:
    rows = Provenance.objects.filter(source__in=keys).values_list("block_id", flat=True)
    return {str(b) for b in rows}


def _orphans(candidates: Iterable[str]) -> list[str]:
    """Those of the derived blocks that have no source left."""
    ids = sorted(set(candidates))
    if not ids:
        return []
    rows = Provenance.objects.filter(block_id__in=ids).values_list("block_id", flat=True)
    alive = {str(b) for b in rows}
    return [b for b in ids if b not in alive]


def _purge(scope: Scope, block_ids: list[str]) -> set[tuple[int, str, str]]:
    """Delete derived blocks with no source left; returns the slots they stood in (their
    neighbours' chain must be computed again)."""
    if not block_ids:
        return set()
    touched = set(
        Fact.objects.filter(pk__in=_uuids(block_ids), single=True).values_list(
            "scope_id", "subject", "attribute"
        )
    )
    blocks.block_purge(principal=system_principal(scope), block_ids=block_ids)
    return touched


# --- forgetting ----------------------------------------------------------------------------------


def forget_sources(keys: list[str]) -> dict[str, int]:
    """Everything extracted only from these sources goes (call inside the removal's
    transaction, before the source rows change)."""
    if not keys:
        return {"removed": 0, "links": 0}
    if not Extraction.objects.filter(source__in=keys).exists() and not _derived_of(keys):
        return {"removed": 0, "links": 0}
    return _forget(keys)


def _forget(keys: list[str]) -> dict[str, int]:
    derived = _derived_of(keys)
    Provenance.objects.filter(source__in=keys).delete()
    links = sum(entities.drop_source(k) for k in keys)
    orphans = _orphans(derived)
    touched: set[tuple[int, str, str]] = set()
    by_scope: dict[int, list[str]] = {}
    for block_id, scope_id in Block.objects.filter(pk__in=orphans).values_list("pk", "scope_id"):
        by_scope.setdefault(scope_id, []).append(str(block_id))
    for scope in Scope.objects.filter(pk__in=list(by_scope)).select_related("tenant"):
        touched |= _purge(scope, by_scope[scope.pk])
    kept = sorted(derived - set(orphans))
    refresh_standing(kept)
    rest = Fact.objects.filter(pk__in=_uuids(kept), single=True)
    touched |= set(rest.values_list("scope_id", "subject", "attribute"))
    slots.resolve(touched)
    Extraction.objects.filter(source__in=keys).delete()
    return {"removed": len(orphans), "links": links}
