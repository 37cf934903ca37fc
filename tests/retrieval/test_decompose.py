"""Splitting comparison questions into their parts (English and German): literal data."""

from __future__ import annotations

import pytest

from retrieval.decompose import parts


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which event happened first, the purchase of the coffee maker or the malfunction "
            "of the stand mixer?",
            ["purchase of the coffee maker", "malfunction of the stand mixer"],
        ),
        (
            "How many days passed between my visit to the MoMA and the jazz night?",
            ["visit to the MoMA", "jazz night"],
        ),
        (
            "Which book did I finish first, 'The Hate U Give' or 'The Nightingale'?",
            ["The Hate U Give", "The Nightingale"],
        ),
        (
            "How long did I take to finish “Circe” and “The Silent Patient” combined?",
            ["Circe", "The Silent Patient"],
        ),
        (
            "Was war zuerst, das Treffen mit Anna oder die Reise nach Rom?",
            ["Treffen mit Anna", "Reise nach Rom"],
        ),
        ("Wie viele Tage lagen zwischen dem Umzug und der Hochzeit?", ["Umzug", "Hochzeit"]),
        ("Welches Projekt kam zuerst, „Apollo“ oder „Gemini“?", ["Apollo", "Gemini"]),
    ],
)
def test_it_finds_the_compared_things(question: str, expected: list[str]) -> None:
    assert parts(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What did I eat on Tuesday?",
        "I'm looking at my friend's car, what's wrong with it?",  # apostrophes are not quotes
        "Should I use Postgres or MySQL?",  # no comma before the alternatives: a plain question
        "Which is better, this or this?",  # the same part twice
        "",
    ],
)
def test_it_leaves_other_questions_whole(question: str) -> None:
    assert parts(question) == []


def test_it_bounds_the_parts() -> None:
    many = "Compare 'a1', 'b2', 'c3', 'd4', 'e5' and 'f6'."
    assert parts(many) == ["a1", "b2", "c3", "d4"]
    long = "Which came first, " + "word " * 20 + "or the other thing?"
    assert parts(long) == []
