from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import Cast, snapshot

pytestmark = pytest.mark.django_db


def _titles(body: dict) -> list[str]:
    return [r["title"] for r in body["results"]]


def test_it_finds_english_text_by_stem(cast: Cast) -> None:
    cast.owner.store(
        category="infra", title="Deploys", content="We deployed the servers on Friday."
    )
    cast.owner.store(category="food", title="Lunch", content="Pasta with tomatoes.")
    status, body = cast.owner.post("/api/search", {"query": "deploying server"})
    assert status == 200 and _titles(body) == ["Deploys"]
    hit = body["results"][0]
    assert set(hit) >= {"id", "scope", "category", "title", "preview", "tags", "type", "score"}


def test_it_finds_german_text_by_stem(cast: Cast) -> None:
    cast.owner.store(title="Umzug", content="Wir haben die Datenbanken migriert und Häuser gebaut.")
    cast.owner.store(title="Other", content="Nothing relevant here at all.")
    _status, body = cast.owner.post("/api/search", {"query": "Datenbank Haus"})
    assert _titles(body) == ["Umzug"]


def test_it_finds_titles_by_trigram_despite_a_typo(cast: Cast) -> None:
    cast.owner.store(title="Kubernetes upgrade", content="Plan for the cluster.")
    _status, body = cast.owner.post("/api/search", {"query": "kubernets"})
    assert _titles(body) == ["Kubernetes upgrade"]


def test_it_finds_a_mistyped_title_inside_a_question(cast: Cast) -> None:
    # Only the title arm can match: both words are misspelt; the question's own words
    # ("when", "is", "the") must not dilute the match.
    cast.owner.store(title="Kubernetes upgrade plan", content="Cluster notes.")
    cast.owner.store(title="Kitchen rota", content="Who cleans when.")
    _status, body = cast.owner.post("/api/search", {"query": "when is the kubernets upgrde?"})
    assert _titles(body) == ["Kubernetes upgrade plan"]


def test_it_takes_full_text_candidates_from_the_rarest_terms(cast: Cast, settings: Any) -> None:
    # 60 blocks share "coffee"; one also says "zanzibar". With a match budget of 50, only the
    # rare term picks candidates (60 + 1 documents do not fit), so the common-only blocks
    # are never read; with the default budget they are ranked below it.
    filler = [{"category": "n", "title": f"note {i}", "content": "coffee"} for i in range(60)]
    status, _ = cast.owner.post("/api/store/batch", {"blocks": filler})
    assert status == 200
    cast.owner.store(title="Trip", content="Zanzibar coffee farms.")
    query = {"query": "zanzibar coffee", "limit": 5}
    assert _titles(cast.owner.post("/api/search", query)[1])[0] == "Trip"
    assert len(_titles(cast.owner.post("/api/search", query)[1])) == 5
    settings.CTX = {**settings.CTX, "CTX_FTS_MATCH_BUDGET": 50}
    assert _titles(cast.owner.post("/api/search", query)[1]) == ["Trip"]


def test_it_filters_by_category_tags_and_types(cast: Cast) -> None:
    cast.owner.store(category="a", title="one", content="alpha topic", tags=["x", "y"])
    cast.owner.store(category="b", title="two", content="alpha topic", tags=["x"], type="decision")
    search = lambda **f: _titles(cast.owner.post("/api/search", {"query": "alpha", **f})[1])  # noqa: E731
    assert search(category="a") == ["one"]
    assert search(tags=["x", "y"]) == ["one"]
    assert search(types=["decision"]) == ["two"]
    assert search(types_exclude=["decision"]) == ["one"]


def test_it_gives_compact_previews(cast: Cast) -> None:
    cast.owner.store(title="long", content="word " * 2000)
    body = cast.owner.post("/api/search", {"query": "word"})[1]
    assert len(body["results"][0]["preview"]) <= 240


def test_it_never_returns_foreign_blocks(cast: Cast) -> None:
    cast.owner.store(title="secret plan", content="acme launches rockets")
    cast.outsider.store(title="globex plan", content="globex launches rockets")
    body = cast.outsider.post("/api/search", {"query": "launches rockets plan"})[1]
    assert _titles(body) == ["globex plan"]
    asked = cast.outsider.post("/api/search", {"query": "rockets", "scope": "acme:main"})
    assert asked == cast.outsider.post("/api/search", {"query": "rockets", "scope": "acme:nowhere"})
    assert asked[0] == 403


def test_it_searches_only_readable_scopes_of_teammates(cast: Cast) -> None:
    cast.owner.store(title="main note", content="shared words")
    cast.writer.store(scope="acme:team", title="team note", content="shared words")
    assert sorted(_titles(cast.reader.post("/api/search", {"query": "shared"})[1])) == [
        "main note",
        "team note",
    ]
    assert _titles(cast.writer.post("/api/search", {"query": "shared"})[1]) == ["team note"]


def test_it_skips_archived_blocks(cast: Cast) -> None:
    data = cast.owner.store(title="gone", content="ephemeral thing")
    cast.owner.post("/api/manage", {"action": "delete", "id": data["id"]})
    assert cast.owner.post("/api/search", {"query": "ephemeral"})[1]["results"] == []


def test_it_respects_the_limit_with_a_constant_number_of_queries(cast: Cast) -> None:
    for i in range(12):
        cast.owner.store(title=f"note {i}", content="common words here")
    with CaptureQueriesContext(connection) as ctx:
        status, body = cast.owner.post("/api/search", {"query": "common", "limit": 5})
    assert status == 200 and body["count"] == 5
    assert len(ctx.captured_queries) <= 6  # auth (key, scopes) + search + blocks


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": 3},
        {"query": "x", "limit": 0},
        {"query": "x", "limit": 51},
        {"query": "x", "limit": "5"},
        {"query": "x", "types": ["bogus"]},
        {"query": "q" * 2001},
        {"query": "x", "tags": {"a": 1}},
    ],
)
def test_it_rejects_bad_input(cast: Cast, body: dict) -> None:
    before = snapshot()
    status, got = cast.owner.post("/api/search", body)
    assert status == 400 and got["error"]["code"] == "validation_error"
    assert snapshot() == before


def test_it_rejects_malformed_json(cast: Cast) -> None:
    status, got = cast.owner.post("/api/search", raw="not json")
    assert status == 400 and got["error"]["code"] == "invalid_json"


def test_it_returns_nothing_rather_than_failing_when_no_arm_can_run(cast: Cast) -> None:
    cast.owner.store(title="note", content="some words")
    # only stopwords and a long query: no full-text terms, no title arm, no vector
    body = cast.owner.post("/api/search", {"query": "what is it that we were " * 2})[1]
    assert body["results"] == []


def test_it_drops_results_below_min_score(cast: Cast) -> None:
    cast.owner.store(title="Lunch", content="The ramen place has the best ramen broth in town.")
    cast.owner.store(title="Dinner", content="Pasta in a broth-based sauce.")
    everything = cast.owner.post("/api/search", {"query": "ramen broth"})[1]
    assert _titles(everything) == ["Lunch", "Dinner"]
    scores = [r["score"] for r in everything["results"]]
    assert scores[0] == 1.0 and 0 < scores[1] < 0.5
    status, body = cast.owner.post("/api/search", {"query": "ramen broth", "min_score": 0.5})
    assert status == 200 and _titles(body) == ["Lunch"] and body["count"] == 1


@pytest.mark.parametrize(
    ("floor", "message"),
    [
        (1.01, "'min_score' must be between 0 and 1."),
        (-0.1, "'min_score' must be between 0 and 1."),
        ("0.5", "'min_score' must be a number."),
        (True, "'min_score' must be a number."),
    ],
)
def test_it_refuses_a_min_score_outside_0_to_1(cast: Cast, floor: object, message: str) -> None:
    status, body = cast.owner.post("/api/search", {"query": "ramen", "min_score": floor})
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"]["field"] == "min_score"
    assert body["error"]["message"] == message


def test_it_never_shows_a_score_above_1(cast: Cast) -> None:
    # A lone candidate used to show its fused score, 1 + the positivity epsilon: 1.000001.
    cast.owner.store(title="Lunch", content="Ramen on 5th street.")
    alone = cast.owner.post("/api/search", {"query": "ramen"})[1]["results"]
    assert [r["score"] for r in alone] == [1.0]
    for i in range(5):
        cast.owner.store(title=f"Ramen {i}", content="ramen " * (i + 1) + "noodles")
    scores = [r["score"] for r in cast.owner.post("/api/search", {"query": "ramen"})[1]["results"]]
    assert len(scores) == 6 and scores[0] == 1.0 and all(0 <= s <= 1 for s in scores)
    assert scores == sorted(scores, reverse=True)


def _seed_exclusions(cast: Cast) -> None:
    cast.owner.store(category="a", title="one", content="alpha topic")
    cast.owner.store(category="b", title="two", content="alpha topic", type="decision")
    cast.owner.store(category="c", title="three", content="alpha topic")
    cast.owner.store(category="d", title="digest", content="alpha topic", type="digest")
    cast.owner.store(category="e", title="meta", content="alpha topic", type="system-meta")


@pytest.mark.parametrize("path", ["/api/search", "/api/query"])
def test_categories_and_types_left_out_stay_out_and_digests_do_not_come_back(
    cast: Cast, path: str
) -> None:
    _seed_exclusions(cast)

    def found(**filters: Any) -> list[str]:
        status, body = cast.owner.post(path, {"query": "alpha topic", **filters})
        assert status == 200, body
        return sorted(r["title"] for r in body.get("results", body.get("sources", [])))

    assert found() == ["one", "three", "two"]
    assert found(categories_exclude=["a", "c"]) == ["two"]
    # Leaving a type out used to let the digests back in.
    assert found(types_exclude=["decision"]) == ["one", "three"]
    assert found(block_roles_exclude=["decision"]) == ["one", "three"]  # the design's name
    assert found(types_exclude=["decision"], block_roles_exclude=["knowledge"]) == []
    assert found(types=["digest"]) == ["digest"]
    # The server's own bookkeeping never shows, even asked for by type.
    assert found(types=["system-meta"]) == []


def test_categories_exclude_is_bounded_and_named_in_the_error(cast: Cast) -> None:
    status, body = cast.owner.post(
        "/api/search", {"query": "x", "categories_exclude": [f"c{i}" for i in range(51)]}
    )
    assert status == 400 and body["error"]["details"]["field"] == "categories_exclude"
    status, body = cast.owner.post("/api/query", {"query": "x", "categories_exclude": [5]})
    assert status == 400 and body["error"]["details"]["field"] == "categories_exclude"
