"""Shared helpers for the extraction tests: run the rules over literal messages."""

from __future__ import annotations

from datetime import datetime

from memory.extract import Extraction, ExtractResult, Role, RuleExtractor, Unit

WHEN = datetime(2024, 5, 14, 10, 30)  # a Tuesday


def run(*messages: str | tuple[Role, str]) -> ExtractResult:
    """Extract from messages; a bare string is the user's, a (role, text) pair anyone's."""
    units = [
        Unit(*(m if isinstance(m, tuple) else ("user", m)), timestamp=WHEN, source_id=f"m{i}")
        for i, m in enumerate(messages)
    ]
    return RuleExtractor().extract(units)


def by_attribute(result: ExtractResult, attribute: str) -> list[Extraction]:
    return [e for e in result.extractions if e.attribute == attribute]


def one(result: ExtractResult, attribute: str) -> Extraction:
    found = by_attribute(result, attribute)
    assert len(found) == 1, [(e.attribute, e.value) for e in result.extractions]
    return found[0]


def attributes(result: ExtractResult) -> set[str]:
    return {e.attribute for e in result.extractions}
