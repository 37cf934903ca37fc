"""Entities, aliases (memory/extract/entities.py) and relations (relations.py)."""

from __future__ import annotations

from memory.extract import ExtractResult
from tests.memory.helpers import run


def entities(result: ExtractResult) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {e.name: (e.type, e.aliases) for e in result.entities}


def relations(result: ExtractResult) -> set[tuple[str, str, str, str]]:
    return {(r.source, r.relation, r.target, r.label) for r in result.relations}


def test_it_types_entities_by_their_cues() -> None:
    result = run(
        "My sister Lena lives nearby. I work at Acme Corp.",
        "I live in Lisbon and I'm working on Atlas.",
        "See docs/setup.md and ping @bob_k. We met at the PyData Summit.",
        "I talked to Priya about the Q3 Roadmap doc.",
    )
    assert entities(result) == {
        "Lena": ("person", ()),
        "Acme Corp": ("organisation", ()),
        "Lisbon": ("place", ()),
        "Atlas": ("project", ()),
        "docs/setup.md": ("document", ()),
        "@bob_k": ("person", ()),
        "PyData Summit": ("event", ()),
        "Priya": ("person", ()),
        "Q3 Roadmap": ("document", ()),
    }


def test_it_merges_aliases_the_text_declares() -> None:
    result = run(
        "Bob (Robert Smith) is my manager.",
        "I had lunch with Katherine, Kate to her friends.",
        "Talked to Jonathan, aka Jon, yesterday.",
    )
    found = entities(result)
    assert found["Robert Smith"] == ("person", ("Bob",))
    assert found["Katherine"] == ("person", ("Kate",))
    assert found["Jonathan"] == ("person", ("Jon",))
    assert "Bob" not in found and "Kate" not in found


def test_it_merges_nothing_without_evidence() -> None:
    result = run("I met Robert Smith.", "Robert said hi.")
    assert set(entities(result)) == {"Robert Smith", "Robert"}


def test_it_points_a_relation_at_the_merged_entity() -> None:
    result = run("Bob (Robert Smith) is my manager.")
    assert ("user", "related_to", "Robert Smith", "manager") in relations(result)


def test_it_derives_relations_from_facts_and_decisions() -> None:
    result = run(
        "I work at Acme Corp. I live in Lisbon. My dog Max is lazy.",
        "I prefer Vim. The release is blocked by the audit. We decided to use Postgres.",
        "I'm working on Atlas.",
    )
    assert relations(result) >= {
        ("user", "part_of", "Acme Corp", ""),
        ("user", "located_in", "Lisbon", ""),
        ("user", "owns", "Max", "dog"),
        ("user", "prefers", "Vim", ""),
        ("release", "blocked_by", "the audit", ""),
        ("team", "decided", "to use Postgres", ""),
        ("user", "works_on", "Atlas", ""),
    }
    targets = {r.target: r.target_is_entity for r in result.relations}
    assert targets["Acme Corp"] and not targets["Vim"]


def test_every_entity_evidence_quotes_its_unit() -> None:
    texts = ["Bob (Robert Smith) is my manager.", "Ping @bob_k about docs/setup.md."]
    result = run(*texts)
    for entity in result.entities:
        for ev in entity.evidence:
            assert texts[ev.unit_index][ev.start : ev.end] == ev.quote
