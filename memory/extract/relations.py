"""Relations between the user (or team) and what the extractions name.

Each relation reuses the evidence of the extraction it comes from; its target is an entity
name when an entity of that name was found (`target_is_entity`), else a plain value.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from memory.extract.base import Entity, Extraction, Relation, RelationClass, entity_key
from memory.extract.lexicon import CATEGORIES, PETS

_BY_ATTRIBUTE: Final[dict[str, tuple[RelationClass, str]]] = {
    "employer": ("part_of", ""),
    "former_employer": ("related_to", "former_employer"),
    "lives_in": ("located_in", ""),
    "moving_to": ("related_to", "moving_to"),
    "origin": ("related_to", "origin"),
    "birthplace": ("related_to", "birthplace"),
    "grew_up_in": ("related_to", "grew_up_in"),
    "blocked_by": ("blocked_by", ""),
    "uses": ("uses", ""),
}
_CATEGORY_ATTRIBUTES: Final = frozenset(CATEGORIES.values())


def relations_from(extractions: Sequence[Extraction], entities: Sequence[Entity]) -> list[Relation]:
    """Relations implied by the extractions, one per (source, class, target), first kept."""
    names = _entity_names(entities)
    seen: set[tuple[str, str, str]] = set()
    out: list[Relation] = []
    for extraction in extractions:
        for relation in _relations(extraction, names):
            key = (relation.source, relation.relation, entity_key(relation.target))
            if key not in seen:
                seen.add(key)
                out.append(relation)
    return out


def _entity_names(entities: Sequence[Entity]) -> dict[str, str]:
    """Every name and alias (as a key) -> the entity's canonical name."""
    names: dict[str, str] = {}
    for entity in entities:
        for name in (entity.name, *entity.aliases):
            names.setdefault(entity_key(name), entity.name)
    return names


def _relations(e: Extraction, names: dict[str, str]) -> Iterator[Relation]:
    if e.negated or e.attribute == "note":
        return
    found = _classify(e)
    if found is None:
        return
    relation, label = found
    canonical = names.get(entity_key(e.value))
    yield Relation(
        source=e.subject,
        relation=relation,
        target=canonical or e.value,
        evidence=e.evidence,
        confidence=e.confidence,
        label=label,
        target_is_entity=canonical is not None,
    )


def _classify(e: Extraction) -> tuple[RelationClass, str] | None:
    attribute = e.attribute
    if attribute in _BY_ATTRIBUTE:
        return _BY_ATTRIBUTE[attribute]
    if attribute.endswith("_name") and attribute != "name":
        relative = attribute[: -len("_name")]
        return ("owns", relative) if relative in PETS else ("related_to", relative)
    if e.kind == "preference" and (attribute.startswith("preferred_") or attribute == "likes"):
        return "prefers", ""
    if e.kind == "decision":
        return "decided", ""
    if e.kind == "fact" and attribute in _CATEGORY_ATTRIBUTES:
        return "uses", attribute
    return None


def works_on(entities: Sequence[Entity]) -> list[Relation]:
    """The user works on every project whose evidence says "working on <project>"."""
    out: list[Relation] = []
    for entity in entities:
        if entity.type != "project":
            continue
        quoted = next((ev for ev in entity.evidence if "working on" in ev.quote), None)
        if quoted is not None:
            out.append(Relation("user", "works_on", entity.name, quoted, 0.75))
    return out
