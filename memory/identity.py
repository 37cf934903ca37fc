"""What makes two extractions the same fact, and which attributes hold one value (pure).

The cardinality follows the extractor's attribute vocabulary (memory/extract/README.md):
many-valued attributes accumulate; every other attribute holds one value per subject, and a
newer value supersedes the older one.
"""

from __future__ import annotations

import hashlib

from memory.extract import Extraction

MANY = frozenset(
    {"prefers", "likes", "uses", "habit", "identity", "note", "former_employer"}
    | {"former_occupation"}
)
CATEGORY = "memory/{kind}"
ENTITY_CATEGORY = "memory/entity"
TITLE_MAX = 480


def single_valued(attribute: str) -> bool:
    """True when a newer value of the attribute replaces the older one."""
    return attribute not in MANY


def normal(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .!?")


def fact_key(e: Extraction) -> str:
    """The identity of a fact: kind, subject, attribute, value and polarity."""
    parts = (e.kind, normal(e.subject), e.attribute, normal(e.value), e.polarity)
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def fact_title(e: Extraction) -> str:
    """The block's title: the statement, searched with weight A (memory.materialize numbers
    it when another block holds the sentence)."""
    return e.statement[:TITLE_MAX]


def source_hash(parts: list[str], extractor: str) -> str:
    """The content hash of a source as one extraction sees it."""
    digest = hashlib.sha256(extractor.encode())
    for part in parts:
        digest.update(b"\x1e" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
