"""A fact reads as its sentence wherever titles show (query sources, listings), and never
lands on another block that holds the same sentence."""

from __future__ import annotations

import importlib
from typing import Any

from django.db import connection

from ctx.models import Block
from memory.models import Fact
from tests.conftest import Cast
from tests.memory.support import facts, store

SENTENCE = "The team deploys on Thursdays."


def _titles(cast: Cast, query: str) -> list[str]:
    status, answer = cast.owner.post("/api/query", {"query": query, "types": ["fact"]})
    assert status == 200, answer
    return [s["title"] for s in answer["sources"]]


def test_a_fact_is_titled_by_its_sentence(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    store(cast.owner, django_capture_on_commit_callbacks, "We deploy on Thursdays after QA.")
    assert _titles(cast, "when do we deploy?") == [SENTENCE]


def test_a_block_holding_the_sentence_keeps_it_and_the_fact_is_numbered(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    mine = {"category": "memory/fact", "title": SENTENCE, "content": "my own words, kept"}
    status, note = cast.owner.post("/api/store", mine)
    assert status in (200, 201), note
    store(cast.owner, django_capture_on_commit_callbacks, "We deploy on Thursdays after QA.")
    assert Block.objects.get(pk=note["id"]).content == "my own words, kept"
    [fact] = facts(cast.owner, attribute="deploy_day")
    assert Block.objects.get(pk=fact["id"]).title == f"{SENTENCE} (2)"


def test_the_migration_drops_the_old_key_suffix(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    store(cast.owner, django_capture_on_commit_callbacks, "We deploy on Thursdays after QA.")
    [fact] = facts(cast.owner, attribute="deploy_day")
    block = Block.objects.get(pk=fact["id"])
    block.title = f"{SENTENCE} [{Fact.objects.get(block=block).key[:8]}]"
    block.save(update_fields=["title"])
    migration = importlib.import_module("migrations.memory.0002_fact_titles_plain")
    with connection.cursor() as cursor:
        cursor.execute(migration.STRIP)
    assert Block.objects.get(pk=fact["id"]).title == SENTENCE
