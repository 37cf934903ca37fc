"""Graph expansion as a query stage, and the supersedes filter's "unless asking about the past"."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from ctx.models import Block
from ctx.selectors import principal_from_key
from dream.cycle import run_cycles
from dream.graph import Edge, GraphExpansion, per_seed
from dream.services import LinkInput, link_upsert
from retrieval.search import Hit
from retrieval.sql import Filters
from retrieval.stages import QueryContext, run_stages
from tests.conftest import Cast
from tests.dream.conftest import T0, cos_mix, days, put, settings_ctx, unit

pytestmark = pytest.mark.django_db


# --- pure parts ---------------------------------------------------------------------------------


def test_it_weighs_edges_by_class_and_damps_hubs() -> None:
    assert Edge("s", "o", "recurrent", 0.9, 3).strength == 0.9
    assert Edge("s", "o", "factual", 1.0, 10).strength == 0.9
    assert Edge("s", "o", "topical", 1.0, 1).strength == 0.5
    assert Edge("s", "o", "causal", 1.0, 40).strength == pytest.approx(0.45)  # sqrt(10/40)


def test_it_caps_the_neighbours_per_seed() -> None:
    edges = [Edge("s1", f"n{i}", "factual", 0.8 + i / 100, 1) for i in range(5)]
    edges += [Edge("s2", "n9", "topical", 0.9, 1), Edge("s2", "s2", "topical", 1.0, 1)]
    chosen = per_seed(edges, 3, ["s1", "s2"])
    assert [e.other for e in chosen] == ["n4", "n3", "n2", "n9"]


# --- the stage on the database -----------------------------------------------------------------


def hit(block: Block, score: float) -> Hit:
    return Hit(id=str(block.pk), score=score, fused=score, block=block)


def ctx_for(cast: Cast, **kw: Any) -> QueryContext:
    return QueryContext(
        principal=principal_from_key(cast.owner_key),
        query="q",
        now=timezone.now(),
        limit=10,
        **kw,
    )


def block(title: str, i: int, category: str = "notes", scope: str = "acme:main") -> Block:
    return put(scope, title, f"{title} text", unit(**{f"a{i}": 1.0}), category=category)


def link(a: Block, b: Block, cls: str, conf: float) -> None:
    link_upsert(LinkInput(str(a.pk), str(b.pk), cls, conf))


def test_it_boosts_present_neighbours_and_injects_new_ones(cast: Cast) -> None:
    seed, weak, present = block("Seed", 0), block("Weak seed", 1), block("Present", 2)
    new, faint, recurring = block("New", 3), block("Faint", 4), block("Recurring", 5)
    link(seed, present, "factual", 1.0)
    link(seed, new, "causal", 0.8)
    link(seed, faint, "topical", 0.74)  # below the minimum confidence
    link(seed, recurring, "recurrent", 0.79)  # below the recurrent minimum
    link(weak, block("Not from a weak seed", 6), "factual", 1.0)
    hits = [hit(seed, 1.0), hit(present, 0.6), hit(weak, 0.4)]
    ctx = ctx_for(cast)
    out = GraphExpansion().run(ctx, hits)
    scores = {h.block.title: round(h.score, 4) for h in out if h.block is not None}
    # Seed and Present are both seeds, linked to each other: each boosts the other
    assert scores == {"Seed": 1.18, "Present": 0.708, "New": 0.432, "Weak seed": 0.4}
    assert ctx.explain["graph"]["seeds"] == [str(seed.pk), str(present.pk)]
    injected = next(h for h in out if h.id == str(new.pk))
    assert injected.stages["graph"] == {"via": str(seed.pk), "link_class": "causal"}


def test_it_adds_at_most_the_configured_number_of_new_neighbours(cast: Cast, settings: Any) -> None:
    settings_ctx(settings, CTX_GRAPH_MAX_NEW=2, CTX_GRAPH_PER_SEED=3)
    seed = block("Seed", 0)
    for i in range(5):
        link(seed, block(f"N{i}", 10 + i), "factual", 0.8 + i / 100)
    out = GraphExpansion().run(ctx_for(cast), [hit(seed, 1.0)])
    assert [h.block.title for h in out] == ["Seed", "N4", "N3"]  # type: ignore[union-attr]


def test_it_keeps_new_neighbours_within_the_query_filters(cast: Cast) -> None:
    seed, other = block("Seed", 0, "infra"), block("Elsewhere", 1, "food")
    link(seed, other, "factual", 0.9)
    scope_ids = sorted(principal_from_key(cast.owner_key).read_scope_ids)
    ctx = ctx_for(cast, filters=Filters(scope_ids=scope_ids, category="infra"))
    assert [h.id for h in GraphExpansion().run(ctx, [hit(seed, 1.0)])] == [str(seed.pk)]


def test_it_follows_no_links_from_seeds_the_caller_cannot_read(cast: Cast) -> None:
    seed, other = (
        block("Foreign seed", 0, scope="globex:main"),
        block("Foreign", 1, scope="globex:main"),
    )
    link(seed, other, "factual", 0.9)
    out = GraphExpansion().run(ctx_for(cast), [hit(seed, 1.0)])
    assert [h.id for h in out] == [str(seed.pk)]


def test_it_fails_open(cast: Cast, settings: Any) -> None:
    seed, present = block("Seed", 0), block("Present", 1)
    link(seed, present, "factual", 0.9)
    settings_ctx(settings, CTX_GRAPH_BOOST=None)  # a broken live override
    ctx = ctx_for(cast)
    hits = [hit(seed, 1.0), hit(present, 0.9)]
    assert run_stages(ctx, hits, ("graph",)) == hits
    assert ctx.explain["graph"] == {"error": "TypeError"}


# --- through /api/query -------------------------------------------------------------------------


def test_it_expands_queries_and_can_be_switched_off(cast: Cast, settings: Any) -> None:
    runbook = put("acme:main", "Deploy runbook", "How we deploy the API.", unit(a0=1.0))
    rollback = put("acme:main", "Rollback checklist", "Revert the last release.", unit(a1=1.0))
    link(runbook, rollback, "causal", 0.9)
    body = cast.owner.post("/api/query", {"query": "deploy runbook", "explain": True})[1]
    assert [s["title"] for s in body["sources"]] == ["Deploy runbook", "Rollback checklist"]
    assert body["explain"]["graph"]["added"] == [str(rollback.pk)]
    settings_ctx(settings, CTX_QUERY_STAGES=["gravity_cyclic", "gravity_linear", "supersedes"])
    off = cast.owner.post("/api/query", {"query": "deploy runbook", "explain": True})[1]
    assert [s["title"] for s in off["sources"]] == ["Deploy runbook"]
    assert "graph" not in off["explain"]


def test_it_keeps_superseded_blocks_when_the_query_asks_about_the_past(cast: Cast) -> None:
    put("acme:main", "Deploy policy", "We deploy on Tuesdays.", cos_mix(1.0), when=T0)
    put(
        "acme:main",
        "Deploy policy 2025",
        "We now deploy on Thursdays instead.",
        cos_mix(0.97),
        when=T0 + days(30),
    )
    run_cycles(worker="w")
    assert Block.objects.get(title="Deploy policy").lifecycle == "snapshot"
    now = cast.owner.post("/api/query", {"query": "What is the deploy policy?"})[1]
    past = cast.owner.post("/api/query", {"query": "What was the deploy policy before?"})[1]
    assert [s["title"] for s in now["sources"]] == ["Deploy policy 2025"]
    assert sorted(s["title"] for s in past["sources"]) == ["Deploy policy", "Deploy policy 2025"]


def test_the_successor_answers_where_the_superseded_block_ranked(cast: Cast) -> None:
    old, staging, new = block("Deploy day", 0), block("Staging", 1), block("Deploy day (new)", 2)
    Block.objects.filter(pk=old.pk).update(superseded_by=new, lifecycle="snapshot")
    old.refresh_from_db()
    hits = [hit(old, 1.0), hit(staging, 0.8), hit(new, 0.5)]
    out = run_stages(ctx_for(cast), hits, ("supersedes",))
    assert [(h.id, h.score) for h in out] == [(str(new.pk), 1.0), (str(staging.pk), 0.8)]
