"""`/api/query`: BM25 full text, the query feedback stage and comparison decomposition."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval import indexing
from retrieval.embeddings import embed_queries
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

NO_FEEDBACK = ["gravity_cyclic", "gravity_linear", "supersedes"]
WITH_FEEDBACK = ["gravity_cyclic", "gravity_linear", "feedback", "supersedes"]


def _store(cast: Cast, title: str, content: str) -> str:
    return str(cast.owner.store(category="notes", title=title, content=content)["id"])


def _ask(cast: Cast, query: str, stages: list[str], **extra: object) -> dict:
    status, body = cast.owner.post(
        "/api/query", {"query": query, "explain": True, "limit": 10, "stages": stages, **extra}
    )
    assert status == 200, body
    return body


def _semantic(body: dict, block_id: str) -> float:
    return float(body["explain"]["hits"][block_id]["arms"]["semantic"]["score"])


def test_it_rescores_the_candidates_with_the_moved_query(cast: Cast) -> None:
    visits = {
        "ENT": "Dr. Patel, my ENT specialist, diagnosed chronic sinusitis and prescribed a spray.",
        "GP": "My primary care physician put me on antibiotics for the infection last week.",
        "Skin": "The dermatologist removed the skin tag in ten minutes.",
    }
    ids = {t: _store(cast, t, c) for t, c in visits.items()}
    _store(cast, "Garden", "Planted tomatoes and basil along the south fence.")
    _store(cast, "Deploys", "Production deploys happen on Tuesdays after the standup.")
    indexing.embed_pending(limit=100)
    plain = _ask(cast, "How many doctors did I see?", NO_FEEDBACK)
    fed = _ask(cast, "How many doctors did I see?", WITH_FEEDBACK)
    seeds = fed["explain"]["feedback"]["seeds"]
    assert len(seeds) == 3 and fed["explain"]["feedback"]["windows"] == 3
    # the query moved towards the medical notes: each of them matches it better than before,
    # the unrelated notes do not gain
    for title in visits:
        assert _semantic(fed, ids[title]) > _semantic(plain, ids[title])
    titles = [s["title"] for s in fed["sources"]]
    assert set(titles[:3]) == set(visits)
    # the new cosines are those of q + 0.8 * mean(each seed's best window), worked out here
    q = np.array(embed_queries(["How many doctors did I see?"])[0])
    best = [max(_windows(seed), key=lambda w: float(w @ q)) for seed in seeds]
    moved = q + fed["explain"]["feedback"]["weight"] * np.mean(best, axis=0)
    for block_id in ids.values():
        expected = max(float(w @ moved) for w in _windows(block_id)) / np.linalg.norm(moved)
        assert _semantic(fed, block_id) == pytest.approx(expected, abs=1e-5)


def _windows(block_id: str) -> list[np.ndarray]:
    from retrieval.models import BlockChunk

    return [
        np.array(v)
        for v in BlockChunk.objects.filter(block_id=block_id).values_list("embedding", flat=True)
    ]


def test_it_skips_feedback_before_the_blocks_are_embedded(cast: Cast) -> None:
    _store(cast, "Lunch", "The ramen place on 5th street has the best broth in town.")
    body = _ask(cast, "ramen broth", WITH_FEEDBACK)  # nothing embedded yet
    assert body["explain"]["feedback"] == "skipped: the best blocks are not embedded yet"
    assert body["sources"][0]["title"] == "Lunch"


def test_it_searches_each_side_of_a_comparison(cast: Cast) -> None:
    coffee = _store(cast, "Kitchen 1", "Bought a new coffee maker at the mall on Saturday.")
    mixer = _store(cast, "Kitchen 2", "The stand mixer stopped working in the middle of a cake.")
    for i in range(6):
        _store(cast, f"Filler {i}", f"Notes about the kitchen renovation, part {i}: tiles.")
    indexing.embed_pending(limit=100)
    query = "Which happened first, the purchase of the coffee maker or the stand mixer breaking?"
    body = _ask(cast, query, NO_FEEDBACK)
    assert body["explain"]["decomposed"] == [
        "purchase of the coffee maker",
        "stand mixer breaking",
    ]
    assert {s["id"] for s in body["sources"][:2]} == {coffee, mixer}


def test_it_weighs_rare_words_above_common_ones(cast: Cast) -> None:
    # "meeting" is in every note, "sinusitis" in one: BM25's idf makes the rare word decide
    for i in range(8):
        _store(cast, f"Meeting {i}", f"Meeting notes {i}: meeting, meeting, another meeting.")
    rare = _store(cast, "Doctor", "A short note: the sinusitis came back after the meeting.")
    status, body = cast.owner.post("/api/search", {"query": "meeting sinusitis"})
    assert status == 200
    assert body["results"][0]["id"] == rare


def test_it_fuses_by_rank_when_asked_and_rejects_unknown_methods(cast: Cast) -> None:
    _store(cast, "Lunch", "The ramen place on 5th street has the best broth in town.")
    _store(cast, "Dinner", "Pasta with broth-based sauce at the corner place.")
    by_rank = _ask(cast, "ramen broth", NO_FEEDBACK, fusion="rrf")
    first = by_rank["sources"][0]
    # weighted RRF over the three full-text arms (two words are neither English nor German, so
    # the simple arm runs too): 0.25 / (60 + 1) + 0.15 / (60 + 1) + 0.10 / (60 + 1)
    raw = by_rank["explain"]["hits"][first["id"]]["score"]
    assert first["title"] == "Lunch" and raw == pytest.approx(0.50 / 61, abs=1e-6)
    status, body = cast.owner.post("/api/query", {"query": "ramen", "fusion": "median"})
    assert status == 400 and body["error"]["code"] == "validation_error"
