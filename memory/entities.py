"""Entities as blocks (type `entity`, one per name per scope, aliases merged when the
extractor says so) and relations as links (origin `extraction`, evidence in the link)."""

from __future__ import annotations

import uuid

from django.db.models import Q

from ctx import services as blocks
from ctx.principal import Principal
from ctx.services import BlockInput
from dream.models import Link, LinkClass, LinkOrigin
from dream.services import LinkInput, link_upsert
from memory.extract import TEAM, USER, Entity, ExtractResult, Relation
from memory.extract.base import entity_key
from memory.identity import ENTITY_CATEGORY, TITLE_MAX
from memory.materialize import Span, Written, provenance, replace_provenance
from memory.models import Entity as EntityRow
from memory.sources import Source

MAX_LINK_NOTES = 20  # relation notes kept on one link (several sources may state it)


def _keys(e: Entity) -> list[str]:
    return sorted({entity_key(e.name), *(entity_key(a) for a in e.aliases)} - {""})


def _text(row: EntityRow) -> str:
    aka = f" Also known as: {', '.join(row.aliases)}." if row.aliases else ""
    return f"{row.name} ({row.type}).{aka}"


def _block_input(src: Source, row: EntityRow) -> BlockInput:
    return BlockInput(
        category=ENTITY_CATEGORY,
        title=row.name[:TITLE_MAX],
        content=_text(row),
        type="entity",
        metadata={"memory": {"entity_type": row.type, "aliases": list(row.aliases)}},
        source=src.key,
    )


def write_entities(
    principal: Principal, src: Source, result: ExtractResult, minimum: float
) -> dict[str, str]:
    """Entity blocks for the result; returns the block id of every name and alias key."""
    wanted = [e for e in result.entities if e.confidence >= minimum]
    if not wanted and src.first:
        return {}
    keys = sorted({k for e in wanted for k in _keys(e)})
    known = list(EntityRow.objects.filter(scope_id=src.scope.pk, keys__overlap=keys))
    by_key = {k: row for row in known for k in row.keys}
    rows = []
    for e in wanted:
        row = _merge(principal, src, e, by_key)
        rows += provenance(src, str(row.pk), [(ev, e.confidence) for ev in e.evidence])
    replace_provenance(src, rows, kind="entity")
    return {k: str(row.pk) for k, row in by_key.items()}


def _merge(principal: Principal, src: Source, e: Entity, by_key: dict[str, EntityRow]) -> EntityRow:
    keys = _keys(e)
    row = next((by_key[k] for k in keys if k in by_key), None)
    if row is None:
        row = EntityRow(scope_id=src.scope.pk, name=e.name[:200], type=e.type, keys=keys)
        row.aliases = [a[:200] for a in e.aliases]
        row.confidence = e.confidence
        block = blocks.block_upsert(principal=principal, scope=None, data=_block_input(src, row))
        row.block = block.block
        row.save(force_insert=True)
    else:
        _widen(principal, src, row, e, keys)
    for k in row.keys:
        by_key[k] = row
    return row


def _widen(principal: Principal, src: Source, row: EntityRow, e: Entity, keys: list[str]) -> None:
    """An entity seen again: new aliases join it (its block's text names them)."""
    names = [n[:200] for n in (e.name, *e.aliases) if n != row.name and n not in row.aliases]
    new_keys = [k for k in keys if k not in row.keys]
    if not new_keys:
        return
    row.keys = sorted({*row.keys, *new_keys})
    row.aliases = [*row.aliases, *[n for n in names if entity_key(n) in new_keys]]
    row.confidence = max(row.confidence, e.confidence)
    row.save(update_fields=["keys", "aliases", "confidence"])
    data = _block_input(src, row)
    data.source = ""  # the block keeps naming the source it was first extracted from
    blocks.block_upsert(principal=principal, scope=None, data=data)


def _end(name: str, entities: dict[str, str], facts: dict[Span, str], at: Span) -> str | None:
    if name in (USER, TEAM):
        return facts.get(at)
    return entities.get(entity_key(name))


def write_links(src: Source, result: ExtractResult, entities: dict[str, str], w: Written) -> int:
    """A `factual` link per relation between the blocks it joins: two entities, or the fact
    a relation of the user rests on and the entity it names."""
    if not src.first:
        drop_source(src.key)
    notes: dict[tuple[str, str], list[dict[str, str]]] = {}
    for rel in result.relations:
        at = (rel.evidence.unit_index, rel.evidence.start, rel.evidence.end)
        a = _end(rel.source, entities, w.by_span, at)
        b = entities.get(entity_key(rel.target)) if rel.target_is_entity else w.by_span.get(at)
        if a is None or b is None or a == b:
            continue
        pair = (min(a, b), max(a, b))
        notes.setdefault(pair, []).append(_note(src, rel))
    for (a, b), found in sorted(notes.items()):
        _link(src, a, b, found)
    return len(notes)


def _note(src: Source, rel: Relation) -> dict[str, str]:
    return {
        "relation": rel.relation,
        "label": rel.label,
        "from": rel.source,
        "to": rel.target,
        "quote": rel.evidence.quote[:500],
        "source": src.key,
        "confidence": str(rel.confidence),
    }


def _link(src: Source, a: str, b: str, found: list[dict[str, str]]) -> None:
    ends = {"source_id": uuid.UUID(a), "target_id": uuid.UUID(b)}
    old = Link.objects.filter(**ends, link_class=LinkClass.FACTUAL).first()
    kept = list(old.evidence.get("relations", [])) if old is not None else []
    if old is not None and old.origin != LinkOrigin.EXTRACTION:
        return  # a dream or manual link already joins them; it stays as it is
    relations = (kept + found)[-MAX_LINK_NOTES:]
    sources = sorted({n["source"] for n in relations})
    confidence = max(float(n["confidence"]) for n in relations)
    reason = "; ".join(sorted({_reason(n) for n in relations}))[:1000]
    evidence = {"relations": relations, "sources": sources, "reason": reason}
    origin = LinkOrigin.EXTRACTION
    link_upsert(LinkInput(a, b, LinkClass.FACTUAL, confidence, origin=origin, evidence=evidence))


def _reason(note: dict[str, str]) -> str:
    label = f" ({note['label']})" if note.get("label") else ""
    return f'{note["from"]} {note["relation"]}{label} {note["to"]}: "{note["quote"]}"'


def drop_source(source: str) -> int:
    """Remove one source's relation notes from the extraction links; a link left with none
    goes. Returns how many links were deleted."""
    links = Link.objects.filter(
        Q(origin=LinkOrigin.EXTRACTION) & ~Q(link_class=LinkClass.SUPERSEDES),
        evidence__sources__contains=[source],
    )
    gone = 0
    for link in links:
        rest = [n for n in link.evidence.get("relations", []) if n.get("source") != source]
        if not rest:
            link.delete()
            gone += 1
            continue
        link.evidence = {
            **link.evidence,
            "relations": rest,
            "sources": sorted({n["source"] for n in rest}),
        }
        link.save(update_fields=["evidence", "updated_at"])
    return gone
