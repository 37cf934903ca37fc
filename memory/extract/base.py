"""Typed results of extraction: what was said, by whom, where in the text, and how sure we are.

Everything here is plain data (frozen dataclasses), so results compare by value, hash, and
sort deterministically. No Django: the library runs without a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal, Protocol

Kind = Literal["fact", "preference", "decision", "task", "entity", "relation"]
Role = Literal["user", "assistant", "system", "document"]
EntityType = Literal["person", "project", "organisation", "place", "document", "event"]
RelationClass = Literal[
    "works_on",
    "decided",
    "prefers",
    "blocked_by",
    "located_in",
    "related_to",
    "uses",
    "owns",
    "part_of",
]

KINDS: tuple[Kind, ...] = ("fact", "preference", "decision", "task", "entity", "relation")
ENTITY_TYPES: tuple[EntityType, ...] = (
    "person",
    "project",
    "organisation",
    "place",
    "document",
    "event",
)
RELATION_CLASSES: tuple[RelationClass, ...] = (
    "works_on",
    "decided",
    "prefers",
    "blocked_by",
    "located_in",
    "related_to",
    "uses",
    "owns",
    "part_of",
)

# The subject of everything the person at the keyboard says about themselves ("I", "my").
USER = "user"
# The subject of "we decided ...", "our deploy day is ...": the group the user speaks for.
TEAM = "team"


@dataclass(frozen=True, slots=True)
class Unit:
    """One message (or one stored block, role "document") as the extractor sees it.

    `timestamp` is when it was said; every extraction from it carries that time. The role
    decides whose "I" it is: a user's "I prefer" is the user's preference, an assistant's
    "you prefer" is only a restatement of it.
    """

    role: Role
    text: str
    timestamp: datetime | None = None
    source_id: str = ""


@dataclass(frozen=True, slots=True, order=True)
class Evidence:
    """The exact quoted span: `unit.text[start:end] == quote` for the unit at `unit_index`."""

    unit_index: int
    start: int
    end: int
    quote: str
    source_id: str = ""


@dataclass(frozen=True, slots=True)
class Extraction:
    """A fact, preference, decision or task, with its evidence.

    `subject` + `attribute` is what two extractions must share to contradict each other
    (see the attribute vocabulary in README.md; "note" and other many-valued attributes never
    contradict). `statement` is a short self-contained sentence in the third person, usable as
    a block's content. `negated` is True for "I don't like X" / "never use tabs";
    `corrects` for "no, it's Thursday", "actually ...", "I meant ...".
    """

    kind: Kind
    subject: str
    attribute: str
    value: str
    statement: str
    confidence: float
    evidence: Evidence
    time: datetime | None = None
    speaker: Role = "user"
    negated: bool = False
    corrects: bool = False
    rule: str = ""
    dates: tuple[date, ...] = ()
    # Further spans the statement rests on, e.g. the error message a fix belongs to.
    support: tuple[Evidence, ...] = ()

    @property
    def polarity(self) -> Literal["positive", "negative"]:
        return "negative" if self.negated else "positive"


@dataclass(frozen=True, slots=True)
class Entity:
    """A named thing; `aliases` are other names the evidence says it goes by."""

    name: str
    type: EntityType
    aliases: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    confidence: float = 0.7

    @property
    def key(self) -> str:
        return entity_key(self.name)


@dataclass(frozen=True, slots=True)
class Relation:
    """`source` --relation--> `target`. Both are entity names (or "user"/"team") when
    `target_is_entity`; otherwise `target` is a value such as a tool name ("Vim").
    `label` refines related_to ("wife", "manager")."""

    source: str
    relation: RelationClass
    target: str
    evidence: Evidence
    confidence: float = 0.7
    label: str = ""
    target_is_entity: bool = True


@dataclass(frozen=True, slots=True)
class ExtractResult:
    extractions: tuple[Extraction, ...] = ()
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = field(default_factory=tuple)

    def of_kind(self, *kinds: Kind) -> list[Extraction]:
        return [e for e in self.extractions if e.kind in kinds]


class Extractor(Protocol):
    """Anything that turns messages into extractions: the deterministic rules here, an LLM
    extractor elsewhere. The same input must give the same output."""

    def extract(self, text_units: Sequence[Unit]) -> ExtractResult: ...


def entity_key(name: str) -> str:
    """The comparison key of an entity name: case and inner spacing ignored, "@" dropped."""
    return " ".join(name.lstrip("@").casefold().split())
