"""GET /api/graph/ego: the walk, each parameter's effect, its bounds, visibility in every leg,
the compact payload (edges as node positions, degrees capped at 201), tenant isolation."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from ctx.errors import ValidationFailed
from ctx.models import Block, Scope
from dream.models import Link
from dream.services import LinkInput, link_upsert
from tests.conftest import Cast
from tests.dream.conftest import put, unit

pytestmark = pytest.mark.django_db

EGO = "/api/graph/ego"


def blocks(*names: str, scope: str = "acme:main", category: str = "notes") -> dict[str, str]:
    return {
        name: str(put(scope, name, f"{name} text", unit(a0=1.0), category=category).pk)
        for name in names
    }


def link(ids: dict[str, str], s: str, t: str, cls: str, conf: float) -> None:
    link_upsert(LinkInput(ids[s], ids[t], cls, conf))


@pytest.fixture
def chain(cast: Cast) -> dict[str, str]:
    """root - a (0.9 factual) - b (0.8 topical) - c (0.6 causal); root - d (0.5 topical)."""
    ids = blocks("root", "a", "b", "c", "d")
    for s, t, cls, conf in (
        ("root", "a", "factual", 0.9),
        ("a", "b", "topical", 0.8),
        ("b", "c", "causal", 0.6),
        ("root", "d", "topical", 0.5),
    ):
        link(ids, s, t, cls, conf)
    return ids


def titles(body: dict[str, Any]) -> dict[str, int]:
    return {n["title"]: n["hop"] for n in body["nodes"]}


def edges(body: dict[str, Any]) -> list[tuple[str, str, str, float]]:
    """The edges as (source title, target title, class, confidence), in the payload's order."""
    nodes = body["nodes"]
    return [(nodes[e[0]]["title"], nodes[e[1]]["title"], e[2], e[3]) for e in body["edges"]]


def ego(api: Any, focus: str, **params: Any) -> dict[str, Any]:
    status, body = api.get(EGO, id=focus, **params)
    assert status == 200, body
    return dict(body)


# --- the walk and the payload --------------------------------------------------------------


def test_it_returns_the_neighbourhood_hop_by_hop(cast: Cast, chain: dict[str, str]) -> None:
    body = ego(cast.owner, chain["root"])
    assert titles(body) == {"root": 0, "a": 1, "d": 1}
    assert body["root"] == chain["root"] and body["nodes"][0]["id"] == chain["root"]
    # undirected classes are stored smaller id first: compare the pairs, strongest first
    assert [({s, t}, cls, conf) for s, t, cls, conf in edges(body)] == [
        ({"root", "a"}, "factual", 0.9),
        ({"root", "d"}, "topical", 0.5),
    ]
    assert all("content" not in n for n in body["nodes"])
    assert body["edge_fields"][:4] == ["source", "target", "link_class", "confidence"]
    deep = ego(cast.owner, chain["root"], hops=3)
    assert titles(deep) == {"root": 0, "a": 1, "d": 1, "b": 2, "c": 3}
    assert ("b", "c", "causal", 0.6) in edges(deep)


def test_it_keeps_the_edges_among_the_nodes_when_the_budget_is_full(
    cast: Cast, chain: dict[str, str]
) -> None:
    link(chain, "a", "d", "causal", 0.7)  # a triangle root, a, d
    full = ego(cast.owner, chain["root"], hops=2, limit=3)
    assert titles(full) == {"root": 0, "a": 1, "d": 1} and full["truncated"] is True
    assert ("a", "d", "causal", 0.7) in edges(full) and len(full["edges"]) == 3


def test_it_counts_visible_degrees_up_to_201(cast: Cast) -> None:
    ids = blocks("hub", "leaf", "gone")
    main = Scope.objects.get(name="acme:main")
    spokes = Block.objects.bulk_create(
        Block(scope=main, category="c", title=f"s{i}", content="x", content_hash="h")
        for i in range(205)
    )
    Link.objects.bulk_create(
        Link(
            source_id=s.pk,
            target_id=ids["hub"],
            link_class="causal",
            scope=main,
            confidence=0.5,
            raw_confidence=0.5,
            origin="manual",
        )
        for s in spokes
    )
    link(ids, "leaf", "hub", "causal", 0.9)
    link(ids, "gone", "leaf", "causal", 0.9)
    cast.owner.post("/api/manage", {"action": "delete", "id": ids["gone"]})
    body = ego(cast.owner, ids["leaf"])
    degree = {n["title"]: n["degree"] for n in body["nodes"]}
    assert degree == {"leaf": 1, "hub": 201}  # 206 links: "200+"; the archived end is not counted


# --- each parameter ------------------------------------------------------------------------------


def test_it_filters_by_confidence_and_classes(cast: Cast, chain: dict[str, str]) -> None:
    strong = ego(cast.owner, chain["root"], hops=3, min_confidence="0.7")
    assert titles(strong) == {"root": 0, "a": 1, "b": 2}
    factual = ego(cast.owner, chain["root"], hops=3, link_class="factual")
    assert titles(factual) == {"root": 0, "a": 1}
    two = ego(cast.owner, chain["root"], hops=3, link_class="factual,topical")
    assert titles(two) == {"root": 0, "a": 1, "b": 2, "d": 1}


def test_it_truncates_by_hop_then_confidence_then_id(cast: Cast, chain: dict[str, str]) -> None:
    small = ego(cast.owner, chain["root"], hops=3, limit=2)
    assert titles(small) == {"root": 0, "a": 1} and small["truncated"] is True  # a 0.9 > d 0.5
    three = ego(cast.owner, chain["root"], hops=3, limit=3)
    assert titles(three) == {"root": 0, "a": 1, "d": 1}  # hop 1 before b at hop 2
    ids = blocks("f", "x", "y")
    link(ids, "f", "x", "causal", 0.5)
    link(ids, "f", "y", "causal", 0.5)
    tie = ego(cast.owner, ids["f"], limit=2)
    assert [n["id"] for n in tie["nodes"]] == [ids["f"], min(ids["x"], ids["y"])]
    assert ego(cast.owner, chain["root"], hops=3)["truncated"] is False


def test_it_keeps_each_nodes_strongest_raw_links_up_to_the_cap(cast: Cast) -> None:
    ids = blocks("f", "n1", "n2", "n3", "n4", "hidden")
    for name, conf in (("n1", 0.9), ("n2", 0.8), ("n3", 0.7), ("n4", 0.6), ("hidden", 0.99)):
        link(ids, "f", name, "causal", conf)
    # the ranking is by raw confidence: n4 (calibrated 0.6) was 0.95 before calibration
    Link.objects.filter(target=uuid.UUID(ids["n4"])).update(raw_confidence=0.95)
    cast.owner.post("/api/manage", {"action": "delete", "id": ids["hidden"]})
    capped = ego(cast.owner, ids["f"], per_node_cap=2)
    assert titles(capped) == {"f": 0, "n4": 1, "n1": 1}  # the archived end takes no place
    passing = ego(cast.owner, ids["f"], per_node_cap=2, min_confidence="0.65")
    assert titles(passing) == {"f": 0, "n1": 1, "n2": 1}  # only filter-passing links count
    assert len(ego(cast.owner, ids["f"])["nodes"]) == 5  # default cap 25


def test_it_cuts_the_edges_strongest_first(cast: Cast, chain: dict[str, str]) -> None:
    body = ego(cast.owner, chain["root"], hops=3, edge_limit=2)
    assert [e[2:4] for e in edges(body)] == [("factual", 0.9), ("topical", 0.8)]
    assert body["truncated"] is True and len(body["nodes"]) == 5


def test_it_filters_the_neighbours_by_category_and_creation_but_keeps_the_focus(
    cast: Cast,
) -> None:
    ids = {
        **blocks("focus", "old", category="other"),
        **blocks("infra", category="infra"),
        **blocks("people", category="people"),
    }
    for name in ("old", "infra", "people"):
        link(ids, "focus", name, "causal", 0.8)
    Block.objects.filter(pk=ids["old"]).update(created_at=datetime(2024, 1, 1, tzinfo=UTC))
    Block.objects.filter(pk=ids["focus"]).update(created_at=datetime(2020, 1, 1, tzinfo=UTC))
    one = ego(cast.owner, ids["focus"], category="infra")
    assert titles(one) == {"focus": 0, "infra": 1}  # the focus fails the filter, and is shown
    two = ego(cast.owner, ids["focus"], category="infra,people")
    assert titles(two) == {"focus": 0, "infra": 1, "people": 1}
    recent = ego(cast.owner, ids["focus"], created_after="2025-01-01")
    assert titles(recent) == {"focus": 0, "infra": 1, "people": 1}
    older = ego(cast.owner, ids["focus"], created_before="2025-01-01")
    assert titles(older) == {"focus": 0, "old": 1}


def test_it_shows_supersedes_links_but_never_walks_through_them(cast: Cast) -> None:
    ids = blocks("new", "old", "beyond", "side")
    link(ids, "new", "old", "supersedes", 0.9)  # shown
    link(ids, "old", "beyond", "causal", 0.9)  # only reachable through the supersedes link
    link(ids, "new", "side", "causal", 0.8)
    body = ego(cast.owner, ids["new"], hops=3)
    assert titles(body) == {"new": 0, "old": 1, "side": 1}
    assert ("new", "old", "supersedes", 0.9) in edges(body)
    link(ids, "side", "old", "causal", 0.7)  # now also reachable through a traversable link
    assert titles(ego(cast.owner, ids["new"], hops=3)) == {
        "new": 0,
        "old": 1,
        "side": 1,
        "beyond": 3,  # old is 2 traversable steps away (new, side, old)
    }


# --- visibility in every leg -------------------------------------------------------------------


def _raw_link(source: str, target: str, scope: str) -> None:
    """A link the services refuse (it crosses scopes): what a bug or a moved block could leave."""
    Link.objects.create(
        source_id=source,
        target_id=target,
        link_class="causal",
        scope=Scope.objects.get(name=scope),
        confidence=0.9,
        raw_confidence=0.9,
        origin="manual",
    )


def test_it_never_delivers_a_block_behind_a_foreign_bridge(cast: Cast) -> None:
    team = blocks("focus", "far", scope="acme:team")
    bridge = blocks("bridge", scope="acme:main")  # the writer cannot read acme:main
    _raw_link(team["focus"], bridge["bridge"], "acme:team")
    _raw_link(bridge["bridge"], team["far"], "acme:team")
    assert titles(ego(cast.writer, team["focus"], hops=3)) == {"focus": 0}
    seen = ego(cast.owner, team["focus"], hops=3)  # the owner reads both scopes
    assert titles(seen) == {"focus": 0, "bridge": 1, "far": 2}


def test_it_never_walks_through_archived_or_system_blocks(
    cast: Cast, chain: dict[str, str]
) -> None:
    Block.objects.filter(pk=chain["d"]).update(type="system-meta")
    link(chain, "d", "c", "causal", 0.9)
    cast.owner.post("/api/manage", {"action": "delete", "id": chain["a"]})
    body = ego(cast.owner, chain["root"], hops=3)
    assert titles(body) == {"root": 0}


def test_it_answers_foreign_and_missing_blocks_alike(cast: Cast, chain: dict[str, str]) -> None:
    foreign = cast.outsider.get(EGO, block=chain["root"])
    missing = cast.owner.get(EGO, block=str(uuid.uuid4()))
    malformed = cast.owner.get(EGO, block="not-a-uuid")
    assert foreign == missing == malformed and foreign[0] == 404
    # a teammate who reads only acme:team cannot see acme:main's graph either
    assert cast.writer.get(EGO, block=chain["root"]) == missing


# --- bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"hops": "0"}, "hops"),
        ({"hops": "4"}, "hops"),
        ({"hops": "two"}, "hops"),
        ({"per_node_cap": "0"}, "per_node_cap"),
        ({"per_node_cap": "101"}, "per_node_cap"),
        ({"limit": "0"}, "limit"),
        ({"limit": "5001"}, "limit"),
        ({"edge_limit": "0"}, "edge_limit"),
        ({"edge_limit": "20001"}, "edge_limit"),
        ({"min_confidence": "-0.1"}, "min_confidence"),
        ({"min_confidence": "1.5"}, "min_confidence"),
        ({"min_confidence": "nan"}, "min_confidence"),
        ({"min_confidence": "high"}, "min_confidence"),
        ({"link_class": "friends"}, "link_class"),
        ({"link_class": "topical,friends"}, "link_class"),
        ({"category": ",".join(f"c{i}" for i in range(51))}, "category"),
        ({"category": "x" * 101}, "category"),
        ({"created_after": "yesterday-ish"}, "created_after"),
        ({"created_before": "2026-02-30"}, "created_before"),
        ({"created_after": "2026-03-01", "created_before": "2026-02-01"}, "created_before"),
    ],
)
def test_it_refuses_out_of_range_values_naming_the_field(
    cast: Cast, chain: dict[str, str], params: dict[str, str], field: str
) -> None:
    status, body = cast.owner.get(EGO, block=chain["root"], **params)
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"] == {"field": field}


def test_it_accepts_the_bounds(cast: Cast, chain: dict[str, str]) -> None:
    for params in (
        {"hops": 3, "per_node_cap": 100, "limit": 5000, "edge_limit": 20000},
        {"hops": 1, "per_node_cap": 1, "limit": 1, "edge_limit": 1, "min_confidence": 1},
    ):
        assert cast.owner.get(EGO, block=chain["root"], **params)[0] == 200


def test_it_takes_the_block_as_id_like_manage(cast: Cast, chain: dict[str, str]) -> None:
    status, body = cast.owner.get(EGO, id=chain["root"])
    assert status == 200 and titles(body) == {"root": 0, "a": 1, "d": 1}
    assert cast.owner.get(EGO, block=chain["root"]) == (status, body)  # the alias
    both = cast.owner.get(EGO, id=chain["root"], block=chain["a"])
    assert both[0] == 400 and both[1]["error"]["details"] == {"field": "block"}


def test_it_requires_the_id_parameter(cast: Cast) -> None:
    status, body = cast.owner.get(EGO)
    assert status == 400 and body["error"]["details"] == {"field": "id"}
    assert body["error"]["message"] == "'id' is required."


def test_it_keeps_links_within_one_scope(cast: Cast) -> None:
    a = put("acme:main", "a", "a", unit(a0=1.0))
    b = put("acme:team", "b", "b", unit(a1=1.0))
    with pytest.raises(ValidationFailed, match="same scope"):
        link_upsert(LinkInput(str(a.pk), str(b.pk), "topical", 0.9))
    with pytest.raises(ValidationFailed, match="two different"):
        link_upsert(LinkInput(str(a.pk), str(a.pk), "topical", 0.9))
    with pytest.raises(ValidationFailed, match="link_class"):
        link_upsert(LinkInput(str(a.pk), str(b.pk), "friends", 0.9))
