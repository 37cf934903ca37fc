from __future__ import annotations

from typing import Any

import pytest

from retrieval import indexing
from tests.conftest import Cast, snapshot

pytestmark = pytest.mark.django_db


def _seed(cast: Cast) -> dict[str, str]:
    notes = {
        "Car service": "My Honda got its first service in March; the mechanic changed the oil.",
        "Lunch spots": "The ramen place on 5th street has the best broth in town.",
        "Deploy policy": "Production deploys happen on Tuesdays after the standup.",
    }
    return {
        t: cast.owner.store(category="notes", title=t, content=c)["id"] for t, c in notes.items()
    }


def _titles(body: dict) -> list[str]:
    return [s["title"] for s in body["sources"]]


def test_it_finds_by_meaning_once_embedded(cast: Cast) -> None:
    _seed(cast)
    assert indexing.embed_pending(limit=100) == 3
    status, body = cast.owner.post(
        "/api/query", {"query": "automobile maintenance", "explain": True}
    )
    assert status == 200 and _titles(body)[0] == "Car service"
    top = body["explain"]["hits"][body["sources"][0]["id"]]
    assert "semantic" in top["arms"] and "fts_en" not in top["arms"]
    assert body["mode"] == "retrieval" and body["answer"] is None
    assert set(body["sources"][0]) >= {"n", "id", "title", "category", "score", "age_days"}


def test_it_finds_a_new_block_lexically_before_it_is_embedded(cast: Cast) -> None:
    _seed(cast)
    body = cast.owner.post("/api/query", {"query": "ramen broth", "explain": True})[1]
    assert _titles(body)[0] == "Lunch spots"
    assert body["explain"]["best_cosine"] is None


def test_it_reports_confidence_from_corpus_independent_signals(cast: Cast) -> None:
    """With a background of unrelated notes, as a real scope has: the gap is then measured
    against the 5th-10th candidates."""
    _seed(cast)
    _more_notes(cast)
    indexing.embed_pending(limit=100)
    good = cast.owner.post("/api/query", {"query": "When do production deploys happen?"})[1]
    assert good["confidence"] == "confident"
    bad = cast.owner.post("/api/query", {"query": "quantum chromodynamics lattice gluons"})[1]
    assert bad["confidence"] in ("no_relevant_blocks_found", "low_confidence")
    assert bad["confidence"] != "confident"


def test_a_new_users_few_notes_answer_confidently(cast: Cast) -> None:
    """A scope of two notes that both answer (a note and the fact extracted from it, as a new
    user's first `ctx save` leaves): the best stood 0.01 above the other and the exact answer
    came back `low_confidence`."""
    cast.owner.store(
        category="infra", title="Deploys", content="We deploy on Thursdays after QA signs off."
    )
    cast.owner.store(
        category="memory/fact", title="Deploy day", content="The team deploys on Thursdays."
    )
    indexing.embed_pending(limit=10)
    body = cast.owner.post("/api/query", {"query": "when do we deploy?", "explain": True})[1]
    assert _titles(body)[0] in ("Deploys", "Deploy day")
    assert body["confidence"] == "confident", body["explain"]["semantic_gap"]
    for other in ("how tall is Mount Everest?", "asdkjh qwepoi zzxx"):
        assert cast.owner.post("/api/query", {"query": other})[1]["confidence"] != "confident"


def _more_notes(cast: Cast) -> None:
    notes = {
        "Lorem": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.",
        "Gym": "Leg day is Thursday; the squat rack opens at seven.",
        "Books": "Reading the second volume of the trilogy, slowly.",
        "Garden": "The tomatoes need watering every other evening in July.",
        "Taxes": "The tax return is due at the end of May this year.",
    }
    for title, content in notes.items():
        cast.owner.store(category="notes", title=title, content=content)


def test_letter_soup_is_never_confident(cast: Cast) -> None:
    """MiniLM gives letter soup cosines of 0.4-0.6 to any text: a cosine alone said
    'confident' here. No word matched: at most low confidence (the lorem ipsum note stands
    out for it), nothing relevant when nothing stands out."""
    _seed(cast)
    indexing.embed_pending(limit=100)
    body = cast.owner.post("/api/query", {"query": "asdkjh qwepoi zzxx"})[1]
    assert body["confidence"] == "no_relevant_blocks_found"
    _more_notes(cast)
    indexing.embed_pending(limit=100)
    for query in ("asdkjh qwepoi zzxx", "qwerty uiop asdf"):
        body = cast.owner.post("/api/query", {"query": query})[1]
        assert body["confidence"] != "confident"


def test_an_off_topic_question_is_not_confident(cast: Cast) -> None:
    _seed(cast)
    _more_notes(cast)
    indexing.embed_pending(limit=100)
    body = cast.owner.post("/api/query", {"query": "How tall is Mount Everest?"})[1]
    assert body["confidence"] != "confident"


def test_hits_without_evidence_are_dropped_below_the_cosine_floor(
    cast: Cast, settings: Any
) -> None:
    """No word matched and a cosine under CTX_QUERY_COSINE_FLOOR: noise, not a source."""
    _seed(cast)
    _more_notes(cast)
    indexing.embed_pending(limit=100)
    ask = {"query": "automobile maintenance", "explain": True, "limit": 10}
    body = cast.owner.post("/api/query", ask)[1]
    arms = body["explain"]["hits"]
    assert _titles(body)[0] == "Car service" and len(body["sources"]) < 8
    assert all(h["arms"]["semantic"]["score"] >= 0.2 for h in arms.values())
    settings.CTX = {**settings.CTX, "CTX_QUERY_COSINE_FLOOR": 0.0}
    assert len(cast.owner.post("/api/query", ask)[1]["sources"]) == 8


def test_it_says_nothing_was_found_in_an_empty_scope(cast: Cast) -> None:
    body = cast.owner.post("/api/query", {"query": "anything"})[1]
    assert body["sources"] == [] and body["confidence"] == "no_relevant_blocks_found"


def test_it_uses_now_for_ages(cast: Cast) -> None:
    _seed(cast)
    body = cast.owner.post("/api/query", {"query": "ramen", "now": "2100-01-01T00:00:00Z"})[1]
    assert body["sources"][0]["age_days"] > 25_000


def test_it_never_returns_foreign_blocks(cast: Cast) -> None:
    _seed(cast)
    cast.outsider.store(title="Globex car", content="Our car fleet needs maintenance.")
    indexing.embed_pending(limit=100)
    body = cast.outsider.post("/api/query", {"query": "car service maintenance", "limit": 10})[1]
    assert _titles(body) == ["Globex car"]
    asked = cast.outsider.post("/api/query", {"query": "car", "scope": "acme:main"})
    assert asked == cast.outsider.post("/api/query", {"query": "car", "scope": "acme:nowhere"})
    assert asked[0] == 403


def test_it_filters_like_search(cast: Cast) -> None:
    _seed(cast)
    cast.owner.store(
        category="ops", title="Deploy runbook", content="deploy steps", type="reference"
    )
    body = cast.owner.post("/api/query", {"query": "deploy", "types": ["reference"]})[1]
    assert _titles(body) == ["Deploy runbook"]
    body = cast.owner.post("/api/query", {"query": "deploy", "category": "notes"})[1]
    assert _titles(body) == ["Deploy policy"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": 7},
        {"query": "x" * 2001},
        {"query": "x", "limit": 99},
        {"query": "x", "types": ["nope"]},
        {"query": "x", "synthesize": "yes"},
        {"query": "x", "now": "tomorrow-ish"},
        {"query": "x", "explain": 1},
    ],
)
def test_it_rejects_bad_input(cast: Cast, body: dict) -> None:
    before = snapshot()
    status, got = cast.owner.post("/api/query", body)
    assert status == 400 and got["error"]["code"] == "validation_error"
    assert snapshot() == before


def test_it_rejects_malformed_json(cast: Cast) -> None:
    status, got = cast.owner.post("/api/query", raw="[")
    assert status == 400 and got["error"]["code"] == "invalid_json"


def test_it_finds_a_fact_at_the_end_of_a_long_block(cast: Cast) -> None:
    filler = " ".join(
        f"Paragraph {i} talks about gardening, soil and tomato plants." for i in range(60)
    )
    cast.owner.store(title="Journal", content=filler + " Finally, my passport expires in May.")
    cast.owner.store(title="Garden", content="Tomatoes need sun, soil and water.")
    indexing.embed_pending(limit=10)
    body = cast.owner.post(
        "/api/query", {"query": "when does my passport expire", "explain": True}
    )[1]
    top = body["sources"][0]
    assert top["title"] == "Journal"
    # Only the last window mentions the passport: the semantic arm must have read it.
    assert body["explain"]["hits"][top["id"]]["arms"]["semantic"]["rank"] == 1


def test_it_drops_sources_below_min_score(cast: Cast) -> None:
    _seed(cast)
    indexing.embed_pending(limit=100)
    ask = {"query": "automobile maintenance"}
    everything = cast.owner.post("/api/query", ask)[1]
    assert len(everything["sources"]) == 3 and _titles(everything)[0] == "Car service"
    assert everything["sources"][0]["score"] == 1.0
    assert all(0 <= s["score"] < 0.8 for s in everything["sources"][1:])
    status, body = cast.owner.post("/api/query", {**ask, "min_score": 0.8})
    assert status == 200 and _titles(body) == ["Car service"]
    assert [s["n"] for s in body["sources"]] == [1]


@pytest.mark.parametrize("floor", [1.01, -0.1])
def test_it_refuses_a_min_score_outside_0_to_1(cast: Cast, floor: float) -> None:
    status, body = cast.owner.post("/api/query", {"query": "car", "min_score": floor})
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"]["field"] == "min_score"
    assert body["error"]["message"] == "'min_score' must be between 0 and 1."


def test_it_never_shows_a_score_above_1(cast: Cast) -> None:
    _seed(cast)
    indexing.embed_pending(limit=100)
    for question in ("ramen broth", "automobile maintenance", "xqzv blorf gnarp"):
        sources = cast.owner.post("/api/query", {"query": question})[1]["sources"]
        scores = [s["score"] for s in sources]
        assert scores[0] == 1.0 and all(0 <= s <= 1 for s in scores), (question, scores)
