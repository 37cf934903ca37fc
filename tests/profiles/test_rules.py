"""The deterministic interpreter: one literal case per rule family, the like/dislike flip,
excerpt-only signals, explicit metric moves and the user-facts tier."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profiles.core.dimensions import DIMENSIONS, DIRECTIONS
from profiles.core.interpret import Reading, RuleInterpreter
from profiles.core.signals import SIGNAL_TYPES, Signal, SignalError, SignalType

NOW = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)
RULES = RuleInterpreter()
BULLETS = "Options:\n- fast\n- cheap\n- small\n- simple\nPick one."
TABLE = "| tool | speed |\n|---|---|\n| rg | fast |\n| grep | ok |"
EMOJI = "Done 🎉 Build passed ✅ deploy is live 🚀"


def read(
    note: str = "",
    kind: SignalType = "note",
    tags: tuple[str, ...] = (),
    context: str = "",
) -> Reading:
    signal = Signal(id="s1", type=kind, note=note, tags=tags, context=context, created_at=NOW)
    return RULES.interpret(signal)


def primary(reading: Reading) -> tuple[str, str, str]:
    assert reading.primary is not None, "no interpretation"
    return reading.primary.dimension, reading.primary.direction, reading.primary.preference


@pytest.mark.parametrize(
    ("kind", "note", "expected"),
    [
        # verbosity
        ("dislike", "too long", ("verbosity", "-", "Keep answers short.")),
        (
            "dislike",
            "too terse to be useful",
            ("verbosity", "+", "Give detailed, thorough answers."),
        ),
        ("note", "Keep answers short.", ("verbosity", "-", "Keep answers short.")),
        # tone
        ("dislike", "stop apologizing", ("tone", "-", "Do not apologise.")),
        ("like", "friendly and encouraging", ("tone", "+", "Be warm and encouraging.")),
        # formality
        (
            "dislike",
            "too casual for a client email",
            ("formality", "+", "Write formally and professionally."),
        ),
        ("note", "keep it casual", ("formality", "-", "Write casually, like a colleague.")),
        # directness
        (
            "note",
            "stop hedging",
            ("directness", "+", "Be direct: give a clear recommendation without hedging."),
        ),
        ("dislike", "too blunt", ("directness", "-", "Be diplomatic and soften criticism.")),
        # format
        ("note", "no bullet lists", ("format", "-", "Avoid bullet lists.")),
        (
            "note",
            "use tables when comparing options",
            ("format", "+", "Use tables to compare options."),
        ),
        ("note", "write in prose", ("format", "+", "Write in prose paragraphs.")),
        ("note", "no markdown", ("format", "-", "Use plain text, not Markdown formatting.")),
        # structure
        (
            "note",
            "always show the command first",
            ("structure", "set", "Show the command first, then explain."),
        ),
        ("note", "summary first", ("structure", "set", "Start with a short summary.")),
        ("note", "step by step please", ("structure", "+", "Use numbered steps for procedures.")),
        # code style
        (
            "note",
            "add comments to the code",
            ("code_style", "+", "Comment the code where it helps."),
        ),
        ("note", "always use type hints", ("code_style", "+", "Use type hints.")),
        ("note", "use f-strings", ("code_style", "+", "Prefer f-strings.")),
        ("note", "TypeScript, not JavaScript", ("code_style", "set", "Write code in TypeScript.")),
        # language
        ("note", "answer in German", ("language", "set", "Answer in German.")),
        ("note", "bitte auf Deutsch", ("language", "set", "Answer in German.")),
        # emoji, citations, explanations, examples
        ("note", "no emoji", ("emoji", "-", "Do not use emoji.")),
        (
            "note",
            "cite your sources",
            ("citations", "+", "Cite sources and link to documentation for factual claims."),
        ),
        (
            "note",
            "don't explain the basics",
            ("explanations", "-", "Skip basic explanations; assume expertise."),
        ),
        ("note", "more examples please", ("examples", "+", "Include concrete examples.")),
    ],
)
def test_it_reads_each_rule_family(kind: SignalType, note: str, expected: tuple[str, ...]) -> None:
    assert primary(read(note, kind)) == expected


@pytest.mark.parametrize(
    ("note", "liked", "disliked"),
    [
        ("verbose", "+", "-"),
        ("concise", "-", "+"),
        ("the bullet points", "+", "-"),
        ("the emojis", "+", "-"),
        ("so formal", "+", "-"),
    ],
)
def test_it_flips_the_direction_between_like_and_dislike(
    note: str, liked: str, disliked: str
) -> None:
    assert primary(read(note, "like"))[1] == liked
    assert primary(read(note, "dislike"))[1] == disliked


def test_it_keeps_the_direction_of_an_excess_whatever_the_reaction() -> None:
    # "too long" means shorter on a like, a dislike and a plain note alike.
    assert {primary(read("too long", kind))[1] for kind in ("like", "dislike", "note")} == {"-"}


def test_it_keeps_the_direction_of_a_request_on_a_dislike() -> None:
    assert primary(read("shorter please", "dislike"))[:2] == ("verbosity", "-")
    assert primary(read("no bullet lists", "dislike"))[:2] == ("format", "-")


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        ("not detailed enough", "+"),
        ("a one-liner isn't enough", "+"),
        ("one example is enough", "-"),
        ("never skip the examples", "+"),
        ("no bullets or tables", "-"),
    ],
)
def test_it_reads_negations_and_enough(note: str, expected: str) -> None:
    assert primary(read(note, "dislike" if "enough" in note else "note"))[1] == expected


def test_it_reads_a_question_with_no_as_a_complaint_about_something_missing() -> None:
    assert primary(read("no type annotations?", "dislike"))[:2] == ("code_style", "+")


def test_it_reads_a_disliked_excerpt_full_of_bullets_without_a_note() -> None:
    reading = read("", "dislike", context=BULLETS)
    assert primary(reading) == ("format", "-", "Avoid bullet lists.")
    assert reading.primary is not None and reading.primary.confidence < 0.5
    assert "bullet lines" in reading.primary.reasoning


@pytest.mark.parametrize(
    ("kind", "note", "context", "expected"),
    [
        ("like", "", TABLE, ("format", "+")),
        ("dislike", "", EMOJI, ("emoji", "-")),
        ("dislike", "", "word " * 400, ("verbosity", "-")),
        ("dislike", "not like this", BULLETS, ("format", "-")),
        ("dislike", "🚀🚀 really?", EMOJI, ("emoji", "-")),
    ],
)
def test_it_reads_the_excerpt_when_the_note_names_nothing(
    kind: SignalType, note: str, context: str, expected: tuple[str, str]
) -> None:
    assert primary(read(note, kind, context=context))[:2] == expected


def test_it_prefers_the_note_over_the_excerpt() -> None:
    assert primary(read("too long", "dislike", context=BULLETS))[0] == "verbosity"


def test_it_reads_tags_alone() -> None:
    assert primary(read("", "tag", tags=("no-emoji",)))[:2] == ("emoji", "-")
    assert primary(read("", "dislike", tags=("verbose",)))[:2] == ("verbosity", "-")
    assert primary(read("", "tag", tags=("german",)))[:2] == ("language", "set")


def test_it_turns_plain_word_metric_moves_into_adjustments() -> None:
    explicit = read("decrease directness by 0.5").primary
    assert explicit is not None
    assert (explicit.dimension, explicit.delta, explicit.adjustment) == ("directness", -0.5, True)
    small = read("be a bit more formal").primary
    assert small is not None and small.adjustment and small.delta == 0.15
    target = read("set formality to 0.8").primary
    assert target is not None and (target.direction, target.target) == ("set", 0.8)


def test_it_nudges_the_metric_of_a_plain_rule() -> None:
    rule = read("too long", "dislike").primary
    assert rule is not None and not rule.adjustment and rule.delta == -0.1


def test_it_keeps_an_unknown_instruction_as_an_other_rule() -> None:
    reading = read("always mention the version numbers you assume")
    assert primary(reading) == ("other", "+", "Always mention the version numbers you assume.")


@pytest.mark.parametrize("note", ["thanks!", "ok", "wrong answer, the API was removed in v3"])
def test_it_reads_nothing_into_a_note_without_a_preference(note: str) -> None:
    assert read(note, "like").interpretations == ()


@pytest.mark.parametrize(
    ("note", "key", "value", "private"),
    [
        ("my name is Priya", "name", "Priya", True),
        ("call me Sam", "name", "Sam", True),
        ("I'm a data scientist, mostly in R", "role", "data scientist", False),
        ("I work at Siemens", "employer", "Siemens", True),
        ("my timezone is CET", "timezone", "CET", True),
        ("I speak German and English", "languages", "German, English", False),
        ("I no longer work at Siemens", "employer", "", True),
    ],
)
def test_it_keeps_user_facts_in_their_own_tier(
    note: str, key: str, value: str, private: bool
) -> None:
    reading = read(note)
    fact = next(f for f in reading.facts if f.key == key)
    assert (fact.value, fact.private, fact.signal_id) == (value, private, "s1")
    assert all(i.dimension != key for i in reading.interpretations)


def test_it_reads_a_fact_and_a_preference_from_one_note() -> None:
    reading = read("don't explain the basics, I'm a senior engineer")
    assert primary(reading)[:2] == ("explanations", "-")
    assert [(f.key, f.value) for f in reading.facts] == [("role", "senior engineer")]


def test_it_attributes_every_interpretation_to_its_signal() -> None:
    reading = read("too long and no emoji", "dislike")
    assert {i.signal_id for i in reading.interpretations} == {"s1"}
    assert {i.dimension for i in reading.interpretations} == {"verbosity", "emoji"}


_TEXT = st.text(st.characters(codec="utf-8"), max_size=300)


@settings(max_examples=300, deadline=None)
@given(
    note=_TEXT,
    kind=st.sampled_from(SIGNAL_TYPES),
    tags=st.lists(st.text(min_size=1, max_size=50), max_size=5),
    context=_TEXT,
)
def test_it_never_raises_on_random_notes(
    note: str, kind: SignalType, tags: list[str], context: str
) -> None:
    try:
        signal = Signal(
            id="h", type=kind, note=note, tags=tuple(tags), context=context, created_at=NOW
        )
    except SignalError:
        return  # out of bounds: refused before any interpreter sees it
    reading = RULES.interpret(signal)
    for item in reading.interpretations:
        assert item.dimension in DIMENSIONS and item.direction in DIRECTIONS
        assert 0.0 <= item.confidence <= 1.0 and item.preference
