"""Sentences, clauses and the third person (memory/extract/text.py, person.py)."""

from __future__ import annotations

from memory.extract.person import agree, third_person
from memory.extract.text import Regions, clauses, question_clauses, sentences


def split(text: str) -> list[str]:
    return [s.text(text) for s in sentences(text)]


def test_it_splits_sentences_but_not_abbreviations_or_numbers() -> None:
    text = "I met Dr. Lee at 9.30 today. It went well! Did it?\n- a list item"
    assert split(text) == [
        "I met Dr. Lee at 9.30 today.",
        "It went well!",
        "Did it?",
        "a list item",
    ]


def test_it_splits_clauses_at_strong_boundaries_only() -> None:
    text = "I have 3 cats, and I love them - do you like cats?"
    (sentence,) = sentences(text)
    parts = clauses(text, sentence)
    assert [p.text(text) for p in parts] == ["I have 3 cats", "I love them", "do you like cats?"]
    assert question_clauses(text, sentence, parts) == [False, False, True]


def test_it_marks_a_sentence_that_starts_asking_as_a_question_throughout() -> None:
    text = "Do you think I prefer tea, and should I switch?"
    (sentence,) = sentences(text)
    assert question_clauses(text, sentence, clauses(text, sentence)) == [True, True]


def test_it_knows_quoted_speech_and_code() -> None:
    text = 'He said "I quit" and ```I am code``` here'
    regions = Regions(text)
    assert regions.contains(text.index("I quit"))
    assert regions.contains(text.index("I am code"))
    assert not regions.contains(text.index("here"))


def test_it_rewrites_the_first_person_with_agreement() -> None:
    assert third_person("I prefer tea and my sister drinks coffee") == (
        "the user prefers tea and their sister drinks coffee"
    )
    assert third_person("I've been there and I'm happy, I usually go") == (
        "the user has been there and the user is happy, the user usually goes"
    )
    assert third_person("It took me 4 hours") == "It took the user 4 hours"
    assert third_person("We went to Rome") == "they went to Rome"


def test_it_agrees_verbs_but_leaves_past_forms() -> None:
    pairs = {
        "prefer": "prefers",
        "watch": "watches",
        "carry": "carries",
        "need": "needs",
        "overslept": "overslept",
        "completed": "completed",
        "can": "can",
        "don't": "doesn't",
    }
    assert {verb: agree(verb) for verb in pairs} == pairs
