"""Named entities with evidence: people, projects, organisations, places, documents, events.

A name counts only after a cue that says what it is ("my sister Anna", "I work at Acme",
"the Atlas project", "@bob", "docs/setup.md", "PyCon Summit"): capitalised words alone are
too often sentence starts, products or titles. Aliases merge only when the text says so
("Bob (Robert Smith)", "Robert, Bob to his friends", "Robert, aka Bob").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from memory.extract.base import Entity, EntityType, Evidence, Extraction, Unit, entity_key
from memory.extract.lexicon import PETS, words
from memory.extract.rules_facts import NAME, PROPER
from memory.extract.text import MAX_UNIT_CHARS, Regions

MAX_EVIDENCE_PER_ENTITY: Final = 5

_TITLE_NAME: Final = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){0,2}"
_PERSON_CUES: Final = re.compile(
    r"\b(?:told|asked|met|called|texted|emailed|messaged|pinged|thanked|married|dating|"
    r"talked to|talking to|spoke (?:to|with)|speaking (?:to|with)|chatted with|"
    r"(?:conversation|meeting|lunch|dinner|call|chat|date) with|hanging out with|"
    rf"hung out with|introduced me to|thanks to)\s+(?P<name>{NAME})\b"
    rf"|\b(?P<name2>{NAME})\s+(?:said|says|told me|mentioned|suggested|recommended|asked me|"
    r"thinks|wants me|reminded me|invited me)\b"
)
_HANDLE: Final = re.compile(r"(?<![\w@.])@(?P<name>[A-Za-z][\w.-]{1,38}[A-Za-z0-9])")
_ORG_SUFFIX: Final = re.compile(
    rf"\b(?P<name>{PROPER}\s+(?:Inc|Ltd|GmbH|LLC|Corp|Corporation|Company|Foundation|"
    r"University|College|Institute|Bank|Labs|AG|SE|plc|Group|Hospital|School))\b\.?"
)
_PLACE_CUES: Final = re.compile(
    r"\b(?:visit|visited|visiting|trip to|trips to|flew to|fly to|flying to|moved to|move to|"
    r"moving to|live in|lived in|living in|based in|travel to|traveled to|travelled to|"
    r"vacation in|holiday in|went to|stayed in|born in|grew up in|honeymoon in|weekend in)"
    rf"\s+(?P<name>{PROPER})"
)
_PROJECT: Final = re.compile(
    r"\b(?:project|repo|repository|codebase|library|package|service)\s+(?P<name>[A-Z][\w.-]+)"
    r"|\b[Tt]he\s+(?P<name2>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})\s+"
    r"(?:project|repo|repository|codebase|service|app|initiative|migration)\b"
    r"|\bworking on\s+(?P<name3>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})\b"
)
_PATH: Final = re.compile(
    r"(?<![\w/@.:])(?P<name>(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z]{1,6}"
    r"|[\w-]+\.(?:py|md|rst|txt|json|ya?ml|toml|ini|cfg|js|ts|tsx|jsx|go|rs|java|kt|rb|php|"
    r"c|h|cpp|hpp|cs|pdf|docx?|xlsx?|pptx?|csv|sql|sh|html|css|ipynb|lock))\b"
)
_DOCUMENT: Final = re.compile(
    rf"\b[Tt]he\s+(?P<name>{PROPER})\s+(?:doc|document|spec|specification|RFC|README|report|"
    r"paper|proposal|design doc|handbook|runbook|playbook|whitepaper)\b"
)
_EVENT: Final = re.compile(
    rf"\b(?P<name>{PROPER}\s+(?:Conference|Summit|Festival|Meetup|Workshop|Hackathon|Expo|"
    r"Fest|Marathon|Gala|Con|Fair|Week|Awards|Cup|Championship|Olympics))\b"
)
_ALIAS: Final = re.compile(
    rf"(?P<a>{_TITLE_NAME})\s*\((?:aka\s+|a\.k\.a\.?\s+|called\s+|or\s+|née\s+)?"
    rf"(?P<b>{_TITLE_NAME})\)"
    rf"|(?P<c>{_TITLE_NAME}),?\s+(?:or\s+)?(?P<d>{_TITLE_NAME})\s+to\s+(?:his|her|their|my)\s+"
    r"friends"
    rf"|(?P<e>{_TITLE_NAME}),?\s+(?:aka|a\.k\.a\.|also known as|who goes by|known as|"
    rf"nicknamed|better known as)\s+(?P<f>{_TITLE_NAME})"
)
_NOT_NAME: Final = words(
    "I The A An And But So Then My We It This That On In At For Our Your He She They "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April "
    "May June July August September October November December Christmas Easter Yes No Hi "
    "Hey Thanks Also Just Anyway Well Which Who What When Where Why How Do Does Did Is Are "
    "Was Were Can Could Would Should Will Here There"
)
_ENTITY_OF_ATTRIBUTE: Final[dict[str, EntityType]] = {
    "employer": "organisation",
    "former_employer": "organisation",
    "lives_in": "place",
    "moving_to": "place",
    "origin": "place",
    "birthplace": "place",
    "grew_up_in": "place",
}


@dataclass(frozen=True, slots=True)
class Mention:
    name: str
    type: EntityType
    evidence: Evidence
    confidence: float


def find_entities(units: Sequence[Unit], extractions: Sequence[Extraction]) -> list[Entity]:
    """The entities of the units, aliases merged, in order of first mention."""
    mentions = list(_from_extractions(extractions))
    aliases: list[tuple[str, str, Evidence]] = []
    for index, unit in enumerate(units):
        if unit.role not in {"user", "document"}:
            continue  # what an assistant names (its examples, its suggestions) is not the user's
        regions = Regions(unit.text)
        mentions.extend(_mentions(index, unit, regions))
        aliases.extend(_aliases(index, unit, regions))
    for a, b, evidence in aliases:
        mentions.append(Mention(a, _type_of(a, mentions), evidence, 0.8))
        mentions.append(Mention(b, _type_of(b, mentions), evidence, 0.8))
    return _merge(mentions, [(a, b) for a, b, _ in aliases])


def _evidence(index: int, unit: Unit, start: int, end: int) -> Evidence:
    return Evidence(index, start, end, unit.text[start:end], unit.source_id)


def _mentions(index: int, unit: Unit, regions: Regions) -> Iterator[Mention]:
    text = unit.text
    limit = min(len(text), MAX_UNIT_CHARS)
    table: tuple[tuple[re.Pattern[str], EntityType, float], ...] = (
        (_PERSON_CUES, "person", 0.7),
        (_HANDLE, "person", 0.9),
        (_ORG_SUFFIX, "organisation", 0.8),
        (_PLACE_CUES, "place", 0.75),
        (_PROJECT, "project", 0.75),
        (_PATH, "document", 0.9),
        (_DOCUMENT, "document", 0.75),
        (_EVENT, "event", 0.75),
    )
    for pattern, kind, confidence in table:
        for m in pattern.finditer(text, 0, limit):
            name, start, end = _named_group(m)
            if regions.contains(start) or name.lstrip("@").split()[0] in _NOT_NAME:
                continue
            if kind == "person" and m.group().startswith("@"):
                name = "@" + name
                start -= 1
            yield Mention(name, kind, _evidence(index, unit, start, end), confidence)


def _named_group(m: re.Match[str]) -> tuple[str, int, int]:
    """The name and its evidence span; "working on X" keeps its cue in the evidence, which
    is what makes it a works_on relation later."""
    for group in ("name", "name2", "name3"):
        if group in m.re.groupindex and m[group]:
            start = m.start() if group == "name3" else m.start(group)
            return m[group], start, m.end(group)
    return m.group(), m.start(), m.end()


def _from_extractions(extractions: Sequence[Extraction]) -> Iterator[Mention]:
    """People named as the user's relatives, employers and places from the fact rules."""
    for e in extractions:
        relative = e.attribute.removesuffix("_name")
        if relative != e.attribute and relative not in PETS and e.value[:1].isupper():
            yield Mention(e.value, "person", e.evidence, e.confidence)
        entity_type = _ENTITY_OF_ATTRIBUTE.get(e.attribute)
        if entity_type and e.value[:1].isupper():
            yield Mention(e.value, entity_type, e.evidence, e.confidence)


def _aliases(index: int, unit: Unit, regions: Regions) -> Iterator[tuple[str, str, Evidence]]:
    for m in _ALIAS.finditer(unit.text, 0, min(len(unit.text), MAX_UNIT_CHARS)):
        a = m["a"] or m["c"] or m["e"]
        b = m["b"] or m["d"] or m["f"]
        if regions.contains(m.start()) or {a.split()[0], b.split()[0]} & _NOT_NAME:
            continue
        yield a, b, _evidence(index, unit, m.start(), m.end())


def _type_of(name: str, mentions: Sequence[Mention]) -> EntityType:
    key = entity_key(name)
    return next((m.type for m in mentions if entity_key(m.name) == key), "person")


def _merge(mentions: Sequence[Mention], pairs: Sequence[tuple[str, str]]) -> list[Entity]:
    """One entity per alias group: named by its longest name, the others as aliases."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    for a, b in pairs:
        root_a, root_b = find(entity_key(a)), find(entity_key(b))
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)
    groups: dict[str, list[Mention]] = {}
    for mention in sorted(mentions, key=lambda m: (m.evidence.unit_index, m.evidence.start)):
        groups.setdefault(find(entity_key(mention.name)), []).append(mention)
    return [_entity(group) for group in groups.values()]


def _entity(group: Sequence[Mention]) -> Entity:
    names = list(dict.fromkeys(m.name for m in group))
    # Group order is the order of first mention, so the longest-first sort is stable.
    canonical = max(names, key=lambda n: len(n.lstrip("@").split()))
    seen = {entity_key(canonical)}
    aliases: list[str] = []
    for name in names:
        if entity_key(name) not in seen:
            seen.add(entity_key(name))
            aliases.append(name)
    evidence = tuple(dict.fromkeys(m.evidence for m in group))[:MAX_EVIDENCE_PER_ENTITY]
    typed = [m.type for m in group if m.type != "person"]
    return Entity(
        name=canonical,
        type=typed[0] if typed else "person",
        aliases=tuple(aliases),
        evidence=evidence,
        confidence=max(m.confidence for m in group),
    )
