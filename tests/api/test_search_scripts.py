"""Accents and scripts (#19.14): folded full text and the language-agnostic `simple` arm."""

from __future__ import annotations

import pytest

from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _titles(body: dict) -> list[str]:
    return [r["title"] for r in body["results"]]


def _store_people(cast: Cast) -> None:
    cast.owner.store(title="Guest list", content="Zoë and Björn Müller arrive on Friday.")
    cast.owner.store(title="Chores", content="Zoe's plants need water on Monday.")
    cast.owner.store(title="Lunch", content="Pasta with tomatoes.")


def test_a_name_without_its_accents_finds_the_accented_name(cast: Cast) -> None:
    _store_people(cast)
    _status, body = cast.owner.post("/api/search", {"query": "Bjorn Muller"})
    assert _titles(body) == ["Guest list"]


def test_an_accented_name_finds_it_written_without_accents(cast: Cast) -> None:
    _store_people(cast)
    _status, body = cast.owner.post("/api/search", {"query": "Zoë"})
    assert sorted(_titles(body)) == ["Chores", "Guest list"]


def test_a_decomposed_accent_matches_a_composed_one(cast: Cast) -> None:
    # "e" + U+0301 (as macOS file names and some keyboards write it) against a stored "é".
    cast.owner.store(title="Menu", content="Crème brûlée at the café.")
    cast.owner.store(title="Other", content="Nothing sweet here.")
    _status, body = cast.owner.post("/api/search", {"query": "cafe\u0301"})
    assert _titles(body) == ["Menu"]


def test_japanese_finds_a_word_inside_a_sentence(cast: Cast) -> None:
    cast.owner.store(title="Languages", content="彼は日本語を話すのが上手です。")
    cast.owner.store(title="Travel", content="東京タワーに行きました。")
    _status, body = cast.owner.post("/api/search", {"query": "日本語"})
    assert _titles(body) == ["Languages"]
    _status, body = cast.owner.post("/api/search", {"query": "東京"})
    assert _titles(body) == ["Travel"]


def test_characters_in_another_order_are_not_the_word(cast: Cast) -> None:
    cast.owner.store(title="Languages", content="彼は日本語を話すのが上手です。")
    _status, body = cast.owner.post("/api/search", {"query": "語本日"})
    assert _titles(body) == []


def test_cyrillic_and_korean_are_found(cast: Cast) -> None:
    cast.owner.store(title="Greeting", content="Привет, как дела у команды?")  # noqa: RUF001 (Russian text)
    cast.owner.store(title="Korean", content="한국어 수업은 화요일입니다.")
    cast.owner.store(title="Other", content="Nothing here.")
    _status, body = cast.owner.post("/api/search", {"query": "команды"})
    assert _titles(body) == ["Greeting"]
    _status, body = cast.owner.post("/api/search", {"query": "한국어"})
    assert _titles(body) == ["Korean"]


def test_a_query_finds_japanese_inside_an_english_question(cast: Cast) -> None:
    cast.owner.store(title="Languages", content="彼は日本語を話すのが上手です。")
    for i in range(6):
        cast.owner.store(title=f"Note {i}", content=f"An English note about topic {i}.")
    status, body = cast.owner.post(
        "/api/query", {"query": "who speaks 日本語 well?", "synthesize": False}
    )
    assert status == 200
    assert body["sources"][0]["title"] == "Languages"
