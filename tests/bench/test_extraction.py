"""The answer-matching rules of bench/extraction.py: strict, and the same for every run."""

from __future__ import annotations

from bench.extraction import (
    is_hit,
    preference_hit,
    preference_needed,
    preference_words,
    tokens,
    user_answer_hit,
)
from memory.extract import Evidence, Extraction

USER_TYPE = "single-session-user"
PREFERENCE_TYPE = "single-session-preference"


def fact(statement: str, value: str = "") -> Extraction:
    return Extraction(
        kind="fact",
        subject="user",
        attribute="note",
        value=value,
        statement=statement,
        confidence=0.7,
        evidence=Evidence(0, 0, 1, "x"),
    )


def test_it_normalises_case_punctuation_articles_and_number_words() -> None:
    assert tokens("The Sports-Store, three $800 Joe's") == ["sports", "store", "3", "800", "joe"]


def test_it_matches_a_user_answer_as_a_token_sequence_or_all_content_words() -> None:
    assert user_answer_hit(
        "the sports store downtown", fact("He got it from a sports store downtown.")
    )
    assert user_answer_hit("three", fact("The user has got 3 bikes."))
    assert user_answer_hit(
        "Marketing specialist at a small startup", fact("x", "specialist small startup marketing")
    )
    assert not user_answer_hit("Golden Retriever", fact("The user has a Golden Labrador."))
    assert not user_answer_hit("500 Mbps", fact("The user upgraded to 500 kbps."))


def test_it_needs_a_share_of_the_preference_answers_specific_words_in_one_statement() -> None:
    answer = (
        "The user would prefer responses that suggest resources specifically tailored to Adobe "
        "Premiere Pro, especially those that delve into its advanced settings. They might not "
        "prefer general video editing resources."
    )
    words = preference_words(answer)
    assert words == {"adobe", "premiere", "pro", "delve", "advanced", "setting"}
    assert preference_needed(words) == 2
    assert preference_hit(answer, fact("The user enjoys Adobe Premiere Pro."))
    assert not preference_hit(answer, fact("The user edits videos with advanced tools."))


def test_it_scores_each_type_by_its_own_rule() -> None:
    assert is_hit(USER_TYPE, "Nike", fact("The user's favourite brand is Nike."))
    assert not is_hit(PREFERENCE_TYPE, "The user would prefer Nike shoes.", fact("Nike."))
