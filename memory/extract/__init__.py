"""Deterministic extraction of facts, preferences, decisions, tasks, entities and relations
from messages and stored blocks, each with the exact span of text it rests on.

No Django and no database: `RuleExtractor().extract(units)` is a pure function.
"""

from __future__ import annotations

from memory.extract.base import (
    ENTITY_TYPES,
    KINDS,
    RELATION_CLASSES,
    TEAM,
    USER,
    Entity,
    EntityType,
    Evidence,
    Extraction,
    Extractor,
    ExtractResult,
    Kind,
    Relation,
    RelationClass,
    Role,
    Unit,
)
from memory.extract.rules import RuleExtractor

__all__ = [
    "ENTITY_TYPES",
    "KINDS",
    "RELATION_CLASSES",
    "TEAM",
    "USER",
    "Entity",
    "EntityType",
    "Evidence",
    "ExtractResult",
    "Extraction",
    "Extractor",
    "Kind",
    "Relation",
    "RelationClass",
    "Role",
    "RuleExtractor",
    "Unit",
]
