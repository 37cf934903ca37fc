"""Self-disclosure notes (memory/extract/rules_notes.py)."""

from __future__ import annotations

from tests.memory.helpers import by_attribute, run


def notes(*messages: str) -> list[str]:
    return [e.statement for e in by_attribute(run(*messages), "note") if e.rule == "note"]


def test_it_keeps_a_personal_statement_in_the_third_person() -> None:
    assert notes("I actually redeemed a $5 coupon on coffee creamer last Sunday.") == [
        "The user actually redeemed a $5 coupon on coffee creamer last Sunday."
    ]


def test_it_resolves_the_dates_a_note_mentions() -> None:
    (found,) = by_attribute(run("I redeemed a coupon at Target last Sunday."), "note")
    assert [d.isoformat() for d in found.dates] == ["2024-05-12"]  # the message is a Tuesday
    assert found.time is not None and found.time.isoformat() == "2024-05-14T10:30:00"


def test_it_keeps_the_statement_before_a_question_in_the_same_sentence() -> None:
    text = "By the way, I have 20 playlists on Spotify already - do you have any tips?"
    assert "The user has 20 playlists on Spotify already." in notes(text)


def test_it_splits_a_comma_splice_after_a_clause_with_its_own_subject() -> None:
    found = notes("I'm going back to Hawaii soon, I loved the Big Island last year.")
    assert "The user loved the Big Island last year." in found


def test_it_keeps_an_opening_phrase_with_its_clause() -> None:
    assert notes("For my sister's birthday, I got her a yellow dress.") == [
        "For the user's sister's birthday, the user got her a yellow dress."
    ]


def test_it_keeps_a_short_detail_after_a_dash() -> None:
    found = notes("I remember buying a designer handbag for a pretty penny - $800, to be exact.")
    assert found == [
        "The user remembers buying a designer handbag for a pretty penny - $800, to be exact."
    ]


def test_it_lowers_confidence_for_a_hedged_statement() -> None:
    (found,) = by_attribute(run("I think I spent 10 hours on Netflix last month."), "note")
    assert found.statement == "The user spent 10 hours on Netflix last month."
    assert found.confidence == 0.55


def test_it_takes_nothing_from_questions() -> None:
    assert notes("Do you think I spend too much on coffee?", "Did I mention my trip?") == []


def test_it_takes_nothing_from_conditionals_and_wishes() -> None:
    assert (
        notes(
            "If I had more time, I'd learn Rust.",
            "I would buy a boat.",
            "Maybe I moved too fast.",
            "I'll try that tomorrow.",
        )
        == []
    )


def test_it_takes_nothing_from_requests_and_reactions() -> None:
    assert (
        notes(
            "I'm looking for some tips on budgeting.",
            "I was wondering how compound interest works.",
            "I love that idea!",
            "I need some advice on my resume.",
            "I want you to act as a travel guide.",
            "Tell me about my options.",
            "Thanks, I appreciate it.",
        )
        == []
    )


def test_it_takes_nothing_from_quoted_speech() -> None:
    assert notes('She told everyone "I quit my job" at the party.') == []


def test_it_takes_nothing_from_pasted_material() -> None:
    text = "Rewrite this paragraph:\nI grew up in a small village and I hated the winters."
    assert run(text).extractions == ()


def test_it_takes_nothing_from_the_assistant() -> None:
    assert run(("assistant", "I have been trained on many recipes.")).extractions == ()


def test_it_drops_the_note_when_an_attribute_rule_says_the_same() -> None:
    result = run("I live in Berlin.")
    assert [e.rule for e in result.extractions] == ["place"]


def test_it_takes_nothing_from_opinions_on_the_conversation() -> None:
    assert (
        notes(
            "It's nice to have an impartial perspective on my roommates.",
            "For step 3, please help me find my style.",
            "I'm looking for some fashion advice.",
            "I'm excited to try out these organization tips.",
        )
        == []
    )


def test_it_skips_a_sample_the_user_pastes_after_an_introduction() -> None:
    text = "HERE IS A SAMPLE EMAIL FOR YOU TO FOLLOW: Hi there, I'm the co-founder of Acme."
    assert run(text).extractions == ()


def test_it_takes_nothing_that_only_points_back_into_the_conversation() -> None:
    assert (
        notes(
            "It allows me to bookmark and add notes.",
            "I've worn them for casual outings and workouts.",
            "I'm determined to get it just right.",
            "Interesting, I had no idea that cities did this.",
        )
        == []
    )


def test_it_keeps_a_clause_that_names_something_besides_its_pronoun() -> None:
    assert notes("I remember Alex telling me he marinated them for 24 hours.") == [
        "The user remembers Alex telling them he marinated them for 24 hours."
    ]
    assert notes("It took me 4 hours to assemble the bookshelf.") == [
        "It took the user 4 hours to assemble the bookshelf."
    ]


def test_it_takes_nothing_from_thanks_and_hand_overs() -> None:
    assert notes("I'm glad you provided that information.", "Here's my next response:") == []
