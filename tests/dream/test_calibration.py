"""The deterministic typer on real notes: stored through the HTTP API, embedded by the packaged
MiniLM, linked by dream cycles. Related notes get linked with the classes a user would expect;
unrelated notes are never linked (precision first: a false link misleads every later query)."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from dream.cycle import run_cycles
from dream.models import Link
from retrieval import indexing
from tests.conftest import Cast
from tests.dream import notes

pytestmark = pytest.mark.django_db


def store(cast: Cast, corpus: list[notes.Note]) -> dict[str, str]:
    """Block id → note key, every note embedded for real."""
    keys = {}
    for key, category, title, content, when in corpus:
        body = cast.owner.store(
            category=category, title=title, content=content, source_time=when.isoformat()
        )
        keys[body["id"]] = key
    while indexing.embed_pending(limit=100):
        pass
    assert not Block.objects.filter(pk__in=keys, embedding__isnull=True).exists()
    return keys


def dream(keys: dict[str, str]) -> set[tuple[str, str, str, float]]:
    summary = run_cycles(worker="calibration")
    assert summary.cycles >= len(keys) and not summary.outcomes.get("error")
    return {
        (keys[str(x.source_id)], keys[str(x.target_id)], x.link_class, x.confidence)
        for x in Link.objects.all()
    }


def false_links(found: set[tuple[str, str, str, float]], groups: dict[str, Any]) -> list[Any]:
    return [x for x in found if notes.group_of(x[0], groups) != notes.group_of(x[1], groups)]


def test_it_links_related_real_notes_and_nothing_else(cast: Cast) -> None:
    keys = store(cast, notes.NOTES)
    found = dream(keys)
    assert false_links(found, notes.GROUPS) == []
    classes = {x[:3] for x in found}
    assert classes >= notes.EXPECTED
    assert {frozenset(x[:2]) for x in found} >= notes.RELATED
    unlinked = {"dentist", "allergy", "spanish", "tax", "car", "book", "offsite", "bike", "wifi"}
    assert not {k for x in found for k in x[:2]} & unlinked
    by_title = dict(Block.objects.values_list("title", "lifecycle"))
    assert by_title["Deploy day"] == by_title["Favourite coffee"] == "snapshot"
    assert by_title["Deploy day (updated)"] != "snapshot"


def test_it_links_a_held_out_set_as_well(cast: Cast) -> None:
    keys = store(cast, notes.HELD_OUT)
    found = dream(keys)
    assert false_links(found, notes.HELD_OUT_GROUPS) == []
    assert {x[:3] for x in found} >= notes.HELD_OUT_EXPECTED
    assert {frozenset(x[:2]) for x in found} == {
        frozenset(keys) for keys in notes.HELD_OUT_GROUPS.values()
    }
