"""POST /api/index/search: several queries in one call, each answered with focused snippets
(matched words marked «like this»), down a ladder of rungs when the strict match finds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cast
from tests.refindex.support import GUIDE, delete, index, search

pytestmark = pytest.mark.django_db


@pytest.fixture
def guide(cast: Cast) -> Cast:
    assert index(cast.owner, GUIDE)[0] == 201
    return cast


def _first(data: dict[str, Any], n: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = data["results"][n]
    return result


def test_it_answers_several_queries_with_marked_snippets(guide: Cast) -> None:
    status, data = search(guide.owner, "retries webhooks", "pgvector extension")
    assert status == 200 and [r["query"] for r in data["results"]] == [
        "retries webhooks",
        "pgvector extension",
    ]
    first = _first(data)
    assert first["rung"] == "stemmed_and"
    hit = first["hits"][0]
    assert hit["title"] == "Guide > Configure" and hit["source"] == "guide.md"
    assert "«retries» failed «webhooks»" in hit["snippet"]
    assert _first(data, 1)["hits"][0]["title"] == "Guide > Configure > Database"
    assert data["terms"]["guide.md"] == ["run", "scheduler"]  # 2 of 6 chunks each


def test_it_matches_stemmed_words(guide: Cast) -> None:
    _, data = search(guide.owner, "retrying webhook")
    hit = _first(data)["hits"][0]
    assert hit["rung"] == "stemmed_and" and "«retries»" in hit["snippet"]


def test_it_falls_back_to_any_word(guide: Cast) -> None:
    _, data = search(guide.owner, "scheduler zeppelin")
    result = _first(data)
    assert result["rung"] == "stemmed_or"
    assert {h["title"] for h in result["hits"]} == {
        "Guide > Configure",
        "Guide > Configure > Database",
    }


def test_it_finds_a_partial_word_through_trigrams(guide: Cast) -> None:
    _, data = search(guide.owner, "webhoo")  # not a word, nor the stem of one
    result = _first(data)
    assert result["rung"] == "trigram" and result["count"] == 2
    assert {h["title"] for h in result["hits"]} == {"Guide > Configure", "Guide > Monitoring"}
    assert "«webhook» endpoint" in "".join(h["snippet"] for h in result["hits"])


def test_it_corrects_a_typo_and_says_so(guide: Cast) -> None:
    _, data = search(guide.owner, "pgvectr")
    result = _first(data)
    assert result["rung"] == "typo" and result["corrections"] == {"pgvectr": "pgvector"}
    hit = result["hits"][0]
    assert hit["rung"] == "typo" and hit["title"] == "Guide > Configure > Database"
    assert "«pgvector»" in hit["snippet"]


def test_partial_words_and_typos_keep_to_the_searched_sources(guide: Cast) -> None:
    index(guide.owner, "The scheduler of the other system.\n\nIt runs at night.", source="b.txt")
    _, data = search(guide.owner, "webhoo", "pgvectr", source="b.txt")
    assert [(r["rung"], r["corrections"]) for r in data["results"]] == [(None, {}), (None, {})]


def _scope_words(*words: str) -> set[str]:
    from refindex.models import Word

    return set(Word.objects.filter(word__in=words).values_list("word", flat=True))


def test_a_deleted_sources_words_leave_with_it(guide: Cast) -> None:
    index(guide.owner, "The scheduler of the other system.\n\nIt runs at night.", source="b.txt")
    assert _scope_words("pgvector", "scheduler") == {"pgvector", "scheduler"}
    assert delete(guide.owner, "guide.md")[0] == 200
    assert _scope_words("pgvector", "scheduler") == {"scheduler"}  # b.txt still holds it
    assert _first(search(guide.owner, "pgvectr")[1])["corrections"] == {}
    index(guide.owner, "The scheduler moved.\n\nNothing else.", source="b.txt")  # re-indexed
    assert _scope_words("system", "scheduler") == {"scheduler"}


def test_it_finds_nothing_for_unrelated_words(guide: Cast) -> None:
    _, data = search(guide.owner, "zeppelin")
    assert _first(data) == {
        "query": "zeppelin",
        "rung": None,
        "corrections": {},
        "count": 0,
        "hits": [],
    }


def test_it_shows_a_window_of_a_long_chunk_around_the_hit(cast: Cast) -> None:
    filler = "\n".join(f"Line {i} says nothing in particular here." for i in range(40))
    doc = f"# Long\n\n{filler}\nThe needle sits here.\n{filler}\n"
    index(cast.owner, doc, source="long.md", type="markdown")
    _, data = search(cast.owner, "needle")
    snippet = _first(data)["hits"][0]["snippet"]
    assert "The «needle» sits here." in snippet
    assert 1000 < len(snippet) <= 1700 and snippet.startswith("…") and snippet.endswith("…")


def test_it_limits_hits_per_query_and_caps_the_answer(cast: Cast, settings: object) -> None:
    doc = "\n\n".join(f"## Part {i}\n\nThe common word appears in part {i}." for i in range(12))
    index(cast.owner, doc, source="parts.md", type="markdown")
    _, data = search(cast.owner, "common word", limit=3)
    assert _first(data)["count"] == 3 and data["truncated"] is False
    settings.CTX = {**settings.CTX, "CTX_INDEX_ANSWER_CHARS": 1000}  # type: ignore[attr-defined]
    _, capped = search(cast.owner, "common word", "appears", limit=20)
    shown = [h for r in capped["results"] for h in r["hits"]]
    assert capped["truncated"] is True and 0 < len(shown) < 24
    assert sum(len(h["snippet"]) for h in shown) <= 1000


def test_it_searches_one_source_when_asked(cast: Cast) -> None:
    index(cast.owner, GUIDE)
    index(cast.owner, "The scheduler of the other system.\n\nIt runs at night.", source="b.txt")
    _, data = search(cast.owner, "scheduler", source="b.txt")
    assert {h["source"] for h in _first(data)["hits"]} == {"b.txt"}
    assert list(data["terms"]) == ["b.txt"]


def test_it_never_shows_another_tenants_chunks(guide: Cast) -> None:
    _, theirs = search(guide.outsider, "scheduler", "pgvectr", "webhoo")
    assert [r["hits"] for r in theirs["results"]] == [[], [], []]
    _, teammate = search(guide.reader, "scheduler")  # reads acme:main, writes nothing
    assert _first(teammate)["count"] == 2
    status, body = search(guide.outsider, "scheduler", scope="acme:main")
    assert status == 403 and body["error"]["code"] == "forbidden"


def test_it_rejects_bad_input(guide: Cast) -> None:
    assert search(guide.owner)[1]["error"]["details"] == {"field": "queries"}
    status, data = search(guide.owner, *[f"q{i}" for i in range(11)])
    assert status == 400 and data["error"]["details"] == {"field": "queries"}
    status, data = search(guide.owner, "x", limit=21)
    assert status == 400 and data["error"]["details"] == {"field": "limit"}


def test_it_masks_a_credentials_snippet_and_keeps_its_words_out_of_the_terms(cast: Cast) -> None:
    from ctx import services
    from tests.api.test_masking import AWS, MARK
    from tests.conftest import Api

    doc = (
        "## Deploy\n\nThe staging deploy runs nightly.\n\n---\n\n"
        f"## Keys\n\nThe staging deploy uses access key {AWS} until May.\n\n---\n\n"
        f"## Rotation\n\nRotate key {AWS} staging deploy.\n"
    )
    assert index(cast.owner, doc, source="ops.md")[0] in (200, 201)
    _, raw = services.key_create(
        tenant=cast.acme, name="vault", home="acme:main", write=[], max_sensitivity="credentials"
    )
    query = "access key rotation"
    masked = [h["snippet"] for r in search(cast.owner, query)[1]["results"] for h in r["hits"]]
    clear = [h["snippet"] for r in search(Api(raw), query)[1]["results"] for h in r["hits"]]
    assert masked and MARK in masked and not any(AWS in s for s in masked)
    assert any(AWS in s for s in clear)  # a key that may read credentials sees the text
    typo = search(cast.owner, AWS.lower()[:-1] + "x")[1]
    terms = search(cast.owner, "staging")[1]["terms"]
    assert AWS.lower() not in typo["results"][0]["corrections"].values()
    assert AWS.lower() not in str(terms)
