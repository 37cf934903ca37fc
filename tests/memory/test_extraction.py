"""Extraction of stored blocks: entities (aliases merged) and relations as links the graph
follows, idempotence per content hash, re-extraction after an edit, the per-tenant switch."""

from __future__ import annotations

from typing import Any

from pytest_django import DjangoAssertNumQueries

from ctx.models import Block
from dream.models import Link
from memory import services, tasks
from memory.models import Entity, Fact, Provenance
from tests.api.settings_support import put
from tests.conftest import Cast
from tests.memory.support import facts, store, values

BOB = "Bob (Robert Smith) is working on the Atlas project."


def test_it_merges_aliases_into_one_entity_per_name(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, BOB, title="atlas")
    store(cast.owner, capture, "Bob is my manager.", title="manager")
    store(cast.owner, capture, "Bob is my manager.", title="manager", scope="acme:team")
    main = Entity.objects.filter(scope__name="acme:main").order_by("name")
    assert [(e.name, e.type, e.aliases) for e in main] == [
        ("Atlas", "project", []),
        ("Robert Smith", "person", ["Bob"]),
    ]
    block = Block.objects.get(pk=main[1].pk)
    assert (block.type, block.content) == ("entity", "Robert Smith (person). Also known as: Bob.")
    assert Provenance.objects.filter(block_id=block.pk).count() == 2
    team = Entity.objects.get(scope__name="acme:team")
    assert (team.name, team.pk != main[1].pk) == ("Bob", True)


def test_it_links_a_relation_with_its_evidence_and_the_graph_follows_it(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, BOB, title="atlas")
    store(cast.owner, capture, "Bob is my manager.", title="manager")
    (fact,) = facts(cast.owner, attribute="manager_name")
    person = Entity.objects.get(name="Robert Smith")
    link = Link.objects.get(origin="extraction", link_class="factual")
    assert {str(link.source_id), str(link.target_id)} == {fact["id"], str(person.pk)}
    assert link.evidence["relations"][0]["relation"] == "related_to"
    assert "Bob is my manager" in link.evidence["reason"]
    status, graph = cast.owner.get("/api/graph/ego", block=fact["id"])
    assert status == 200
    assert {n["title"] for n in graph["nodes"]} >= {"Robert Smith"}
    origin = graph["edge_fields"].index("origin")
    assert graph["edges"][0][origin] == "extraction"
    body = {"query": "Who is my manager?", "explain": True}
    status, answer = cast.owner.post("/api/query", body)
    graph_stage = answer["explain"]["graph"]
    assert str(person.pk) in {*graph_stage["added"], *graph_stage["boosted"]}, graph_stage


def test_it_extracts_a_source_once_per_content(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    stored = store(cast.owner, capture, "We deploy on Tuesdays.", title="deploys")
    key = f"block:{stored['id']}"
    before = (Fact.objects.count(), Provenance.objects.count(), Block.objects.count())
    assert tasks.extract_sources([key]) == [{"source": key, "status": "unchanged"}]
    assert (Fact.objects.count(), Provenance.objects.count(), Block.objects.count()) == before


def test_it_extracts_again_after_an_edit_and_drops_what_is_no_longer_said(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, "I work at Acme Corp. We deploy on Tuesdays.", title="notes")
    store(cast.owner, capture, "We deploy on Tuesdays. I live in Lisbon.", title="notes")
    assert values(cast.owner) == {"team.deploy_day": "Tuesday", "user.lives_in": "Lisbon"}
    assert not Entity.objects.filter(name="Acme Corp").exists()


def test_it_does_not_extract_from_its_own_output_or_transcripts(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, "I work at Acme Corp.", title="job")
    store(cast.owner, capture, "I work at Initech.", title="t", type="transcript")
    assert values(cast.owner) == {"user.employer": "Acme Corp"}
    assert Provenance.objects.exclude(source_block__type="knowledge").count() == 0


def test_it_extracts_nothing_for_a_tenant_that_turned_it_off(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    status, body = put(cast.owner, "CTX_EXTRACTION", "off")
    assert status == 200, body
    store(cast.owner, django_capture_on_commit_callbacks, "I work at Acme Corp.")
    assert facts(cast.owner) == []


def test_it_skips_transcript_windows_with_three_queries_for_the_lot(
    cast: Cast,
    django_capture_on_commit_callbacks: Any,
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    """An import's windows reach extraction by the block hook; none is read, none costs a
    transaction of its own."""
    messages = [
        {"index": i, "role": "user" if i % 2 == 0 else "assistant", "text": f"step {i}"}
        for i in range(16)
    ]
    body = {"sessions": [{"tool": "codex", "external_id": "s-1", "messages": messages}]}
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = cast.owner.post("/api/sessions/import", body)
    assert status == 202
    windows = [
        f"block:{pk}" for pk in Block.objects.filter(type="transcript").values_list("pk", flat=True)
    ]
    assert len(windows) == 3
    with django_assert_num_queries(3):  # the blocks, extraction records, provenance
        result = tasks.extract_sources(windows)
    assert result == [{"source": key, "status": "skipped"} for key in windows]


def test_it_still_forgets_what_a_block_no_longer_read_said(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    """A block extracted before and no longer read (archived without its hook here) is not
    skipped: its extraction goes, with the facts only it supported."""
    stored = store(cast.owner, django_capture_on_commit_callbacks, BOB, title="atlas")
    key = f"block:{stored['id']}"
    assert Provenance.objects.filter(source=key).exists()
    Block.objects.filter(pk=stored["id"]).update(archived=True)
    assert services.never_read([key]) == set()
    assert tasks.extract_sources([key])[0]["status"] == "gone"
    assert not Provenance.objects.filter(source=key).exists()
