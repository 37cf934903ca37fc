"""Extractions as blocks: facts and entities in the source's scope, one provenance row per
source that states them, relations as links. Called by memory.services inside one
transaction per source; the source itself is never written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from ctx import services as blocks
from ctx.principal import Principal
from ctx.services import BlockInput
from memory.extract import Extraction, ExtractResult
from memory.identity import CATEGORY, fact_key, fact_title, single_valued
from memory.models import Entity, Fact, Provenance
from memory.sources import Source

Span = tuple[int, int, int]  # unit index, start, end: an evidence's place


@dataclass
class Written:
    """What one source yielded: the fact blocks by key and by evidence span, the slots the
    source touched (for memory.slots) and the counts."""

    facts: dict[str, str] = field(default_factory=dict)
    by_span: dict[Span, str] = field(default_factory=dict)
    slots: set[tuple[int, str, str]] = field(default_factory=set)
    created: int = 0


def span(e: Extraction) -> Span:
    return (e.evidence.unit_index, e.evidence.start, e.evidence.end)


def group(extractions: Iterable[Extraction], minimum: float) -> dict[str, list[Extraction]]:
    """The extractions by fact key, each group in order of time and position (pure)."""
    out: dict[str, list[Extraction]] = {}
    for e in extractions:
        if e.confidence >= minimum:
            out.setdefault(fact_key(e), []).append(e)
    return out


def write_facts(
    principal: Principal, src: Source, result: ExtractResult, minimum: float
) -> Written:
    groups = group(result.extractions, minimum)
    existing = {f.key: f for f in Fact.objects.filter(scope_id=src.scope.pk, key__in=list(groups))}
    fresh = [k for k in groups if k not in existing]
    done = Written(facts={k: str(f.pk) for k, f in existing.items()})
    done.facts.update(_create(principal, src, {k: groups[k] for k in fresh}))
    done.created = len(fresh)
    rows: list[Provenance] = []
    for key, items in groups.items():
        for e in items:
            done.by_span[span(e)] = done.facts[key]
        rows += provenance(src, done.facts[key], [(e.evidence, e.confidence) for e in items])
        if single_valued(items[0].attribute):
            done.slots.add((src.scope.pk, items[0].subject[:200], items[0].attribute[:200]))
    _corrections(existing, groups)
    replace_provenance(src, rows, kind="fact")
    refresh_standing([str(f.pk) for f in existing.values()])  # new ones were made with theirs
    return done


def _block_input(src: Source, e: Extraction, key: str) -> BlockInput:
    return BlockInput(
        category=CATEGORY.format(kind=e.kind),
        title=fact_title(e),
        content=e.statement,
        type=e.kind,
        metadata={
            "memory": {
                "kind": e.kind,
                "subject": e.subject,
                "attribute": e.attribute,
                "value": e.value,
                "negated": e.negated,
            }
        },
        valid_from=e.time,
        source=src.key,
        source_time=e.time,
        source_session=_session_label(src),
    )


def _session_label(src: Source) -> str:
    s = src.session
    return f"{s.tool}:{s.external_id}"[:200] if s is not None else ""


def _create(
    principal: Principal, src: Source, groups: dict[str, list[Extraction]]
) -> dict[str, str]:
    """New fact blocks (one upsert for all), their quotes and their Fact rows."""
    if not groups:
        return {}
    keys = list(groups)
    items = [_block_input(src, groups[k][0], k) for k in keys]
    _free(src.scope.pk, items, keys)
    results = blocks.block_upsert_many(principal=principal, scope=None, items=items)
    made = [r.block for r in results]
    for block, key in zip(made, keys, strict=True):
        block.source_quote = groups[key][0].evidence.quote
    type(made[0]).objects.bulk_update(made, ["source_quote"])
    Fact.objects.bulk_create(
        [_fact(block, src, key, groups[key]) for block, key in zip(made, keys, strict=True)],
        ignore_conflicts=True,
    )
    return {k: str(b.pk) for k, b in zip(keys, made, strict=True)}


def _free(scope_id: int, items: list[BlockInput], keys: list[str]) -> None:
    """Each fact titled by its statement, numbered when another block holds the sentence (a
    fact of another polarity or attribute, a note of the user's). A block that already is
    this fact (another worker's extraction of it, committed meanwhile) keeps its title, so
    the upsert lands on it instead of making a copy."""
    same = dict(
        Fact.objects.filter(scope_id=scope_id, key__in=keys).values_list("key", "block__title")
    )
    by_category: dict[str, list[int]] = {}
    for i, (item, key) in enumerate(zip(items, keys, strict=True)):
        if key in same:
            item.title = same[key]
        else:
            by_category.setdefault(item.category, []).append(i)
    for category, indexes in by_category.items():
        titles = blocks.free_titles(scope_id, category, [items[i].title for i in indexes])
        for i, title in zip(indexes, titles, strict=True):
            items[i].title = title


def _fact(block: Any, src: Source, key: str, items: list[Extraction]) -> Fact:
    e = items[0]
    confidence = max(x.confidence for x in items)
    return Fact(
        block=block,
        scope_id=src.scope.pk,
        key=key,
        kind=e.kind,
        subject=e.subject[:200],
        attribute=e.attribute[:200],
        value=e.value,
        negated=e.negated,
        single=single_valued(e.attribute),
        base_confidence=confidence,
        confidence=confidence,
        corrects=any(x.corrects for x in items),
        said_at=max((x.time for x in items if x.time), default=None),
    )


def _corrections(existing: dict[str, Fact], groups: dict[str, list[Extraction]]) -> None:
    """A fact said again as a correction is a correction from now on (memory.slots)."""
    ids = [
        f.pk for k, f in existing.items() if not f.corrects and any(e.corrects for e in groups[k])
    ]
    if ids:
        Fact.objects.filter(pk__in=ids).update(corrects=True)


def provenance(src: Source, block_id: str, spans: list[tuple[Any, float]]) -> list[Provenance]:
    """One row per place in the source (a message says a thing once; the first span counts)."""
    rows: dict[str, Provenance] = {}
    for ev, confidence in spans:
        ref = src.refs[ev.unit_index]
        if ref in rows:
            continue
        unit = src.units[ev.unit_index]
        rows[ref] = Provenance(
            block_id=block_id,
            scope_id=src.scope.pk,
            source=src.key,
            ref=ref,
            source_block_id=src.block_id,
            session_id=src.session.pk if src.session is not None else None,
            message_index=src.indexes[ev.unit_index],
            message_id=src.message_ids[ev.unit_index][:200],
            quote=ev.quote,
            start=ev.start,
            end=ev.end,
            said_at=unit.timestamp,
            confidence=confidence,
        )
    return list(rows.values())


def replace_provenance(src: Source, rows: list[Provenance], *, kind: str) -> list[str]:
    """This source's provenance of facts (or entities) becomes exactly `rows`; returns the
    blocks that lost this source (they may have no source left)."""
    wanted = {(str(r.block_id), r.ref) for r in rows}
    if src.first:  # nothing of this source to replace
        Provenance.objects.bulk_create(rows, ignore_conflicts=True)
        return []
    derived: type[Fact] | type[Entity] = Fact if kind == "fact" else Entity
    mine = derived.objects.filter(scope_id=src.scope.pk).values_list("pk", flat=True)
    old = Provenance.objects.filter(source=src.key, block_id__in=mine)
    lost: set[str] = set()
    stale: list[int] = []
    for pk, block_id, ref in old.values_list("pk", "block_id", "ref"):
        if (str(block_id), ref) not in wanted:
            stale.append(pk)
            lost.add(str(block_id))
    if stale:
        Provenance.objects.filter(pk__in=stale).delete()
    Provenance.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["block", "ref"],
        update_fields=["quote", "start", "end", "said_at", "confidence"],
    )
    return sorted(lost - {b for b, _ in wanted})


_STANDING = """
UPDATE memory_fact f SET base_confidence = p.c, said_at = p.t,
    confidence = CASE WHEN f.single THEN f.confidence ELSE p.c END
FROM (SELECT block_id, max(confidence) AS c, max(said_at) AS t FROM memory_provenance
      WHERE block_id = ANY(%s::uuid[]) GROUP BY block_id) p
WHERE f.block_id = p.block_id AND (f.base_confidence, f.said_at) IS DISTINCT FROM (p.c, p.t)
"""


def refresh_standing(block_ids: list[str]) -> None:
    """A fact's confidence and time follow its sources: the most confident, the latest."""
    if block_ids:
        with connection.cursor() as cur:
            cur.execute(_STANDING, [block_ids])
