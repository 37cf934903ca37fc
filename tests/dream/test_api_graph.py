"""GET /api/graph/ego: budgeted nodes (no content) and edges, tenant isolation, bad input."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ctx.errors import ValidationFailed
from dream.services import LinkInput, link_upsert
from tests.conftest import Cast
from tests.dream.conftest import put, unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def chain(cast: Cast) -> dict[str, str]:
    """root - a (0.9 factual) - b (0.8 topical) - c (0.6 causal); root - d (0.5 topical)."""
    ids = {}
    for i, name in enumerate(("root", "a", "b", "c", "d")):
        ids[name] = str(put("acme:main", name, f"{name} text", unit(**{f"a{i}": 1.0})).pk)
    for s, t, cls, conf in (
        ("root", "a", "factual", 0.9),
        ("a", "b", "topical", 0.8),
        ("b", "c", "causal", 0.6),
        ("root", "d", "topical", 0.5),
    ):
        link_upsert(LinkInput(ids[s], ids[t], cls, conf))
    return ids


def titles(body: dict[str, Any]) -> dict[str, int]:
    return {n["title"]: n["hop"] for n in body["nodes"]}


def test_it_returns_the_neighbourhood_hop_by_hop(cast: Cast, chain: dict[str, str]) -> None:
    status, body = cast.owner.get("/api/graph/ego", block=chain["root"])
    assert status == 200 and titles(body) == {"root": 0, "a": 1, "d": 1}
    assert len(body["edges"]) == 2 and body["root"] == chain["root"]
    assert all("content" not in n for n in body["nodes"])
    deep = cast.owner.get("/api/graph/ego", block=chain["root"], hops=3)[1]
    assert titles(deep) == {"root": 0, "a": 1, "d": 1, "b": 2, "c": 3}
    edge = next(e for e in deep["edges"] if e["link_class"] == "causal")
    assert (edge["source"], edge["target"], edge["confidence"]) == (chain["b"], chain["c"], 0.6)


def test_it_filters_by_confidence_and_class_and_keeps_the_budget(
    cast: Cast, chain: dict[str, str]
) -> None:
    strong = cast.owner.get("/api/graph/ego", block=chain["root"], hops=3, min_confidence="0.7")
    assert titles(strong[1]) == {"root": 0, "a": 1, "b": 2}
    factual = cast.owner.get("/api/graph/ego", block=chain["root"], hops=3, link_class="factual")
    assert titles(factual[1]) == {"root": 0, "a": 1}
    small = cast.owner.get("/api/graph/ego", block=chain["root"], hops=3, limit=2)[1]
    assert titles(small) == {"root": 0, "a": 1} and small["truncated"] is True


def test_it_keeps_the_edges_among_the_nodes_when_the_budget_is_full(
    cast: Cast, chain: dict[str, str]
) -> None:
    link_upsert(LinkInput(chain["a"], chain["d"], "causal", 0.7))  # a triangle root, a, d
    full = cast.owner.get("/api/graph/ego", block=chain["root"], hops=2, limit=3)[1]
    assert titles(full) == {"root": 0, "a": 1, "d": 1} and full["truncated"] is True
    pairs = {frozenset((e["source"], e["target"])) for e in full["edges"]}
    assert frozenset((chain["a"], chain["d"])) in pairs and len(pairs) == 3


def test_it_answers_foreign_and_missing_blocks_alike(cast: Cast, chain: dict[str, str]) -> None:
    foreign = cast.outsider.get("/api/graph/ego", block=chain["root"])
    missing = cast.owner.get("/api/graph/ego", block=str(uuid.uuid4()))
    malformed = cast.owner.get("/api/graph/ego", block="not-a-uuid")
    assert foreign == missing == malformed and foreign[0] == 404
    # a teammate who reads only acme:team cannot see acme:main's graph either
    assert cast.writer.get("/api/graph/ego", block=chain["root"]) == missing


def test_it_never_walks_into_archived_blocks(cast: Cast, chain: dict[str, str]) -> None:
    cast.owner.post("/api/manage", {"action": "delete", "id": chain["a"]})
    body = cast.owner.get("/api/graph/ego", block=chain["root"], hops=3)[1]
    assert titles(body) == {"root": 0, "d": 1}


@pytest.mark.parametrize(
    "params",
    [
        {"hops": "0"},
        {"hops": "4"},
        {"hops": "two"},
        {"limit": "0"},
        {"limit": "501"},
        {"min_confidence": "1.5"},
        {"min_confidence": "nan"},
        {"min_confidence": "high"},
        {"link_class": "friends"},
    ],
)
def test_it_rejects_out_of_range_parameters(
    cast: Cast, chain: dict[str, str], params: dict[str, str]
) -> None:
    status, body = cast.owner.get("/api/graph/ego", block=chain["root"], **params)
    assert status == 400 and body["success"] is False
    assert body["error"]["code"] == "validation_error"


def test_it_takes_the_block_as_id_like_manage(cast: Cast, chain: dict[str, str]) -> None:
    status, body = cast.owner.get("/api/graph/ego", id=chain["root"])
    assert status == 200 and titles(body) == {"root": 0, "a": 1, "d": 1}
    assert cast.owner.get("/api/graph/ego", block=chain["root"]) == (status, body)  # the alias
    both = cast.owner.get("/api/graph/ego", id=chain["root"], block=chain["a"])
    assert both[0] == 400 and both[1]["error"]["details"] == {"field": "block"}


def test_it_requires_the_id_parameter(cast: Cast) -> None:
    status, body = cast.owner.get("/api/graph/ego")
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
