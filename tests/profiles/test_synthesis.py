"""Synthesis: deduplication, replacement, metric adjustments, facts, versions and the
attribution of every change to the signals behind it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from profiles.core.interpret import Interpretation, RuleInterpreter, UserFact
from profiles.core.profile import Change, Profile
from profiles.core.signals import Signal, SignalType
from profiles.core.synthesis import create_profile, synthesize
from profiles.core.templates import TEMPLATES

T0 = datetime(2025, 3, 12, 14, 0, tzinfo=UTC)
RULES = RuleInterpreter()
BULLETS = "Options:\n- fast\n- cheap\n- small\n- simple"


def signals(
    *items: tuple[str, SignalType, str] | tuple[str, SignalType, str, str],
) -> tuple[list[Interpretation], list[UserFact]]:
    """The interpretations and facts of (id, type, note[, context]) signals, in order."""
    found: list[Interpretation] = []
    facts: list[UserFact] = []
    for sid, kind, note, *context in items:
        signal = Signal(id=sid, type=kind, note=note, context="".join(context), created_at=T0)
        reading = RULES.interpret(signal)
        found += reading.interpretations
        facts += reading.facts
    return found, facts


def apply(
    profile: Profile, *items: tuple[str, SignalType, str] | tuple[str, SignalType, str, str]
) -> tuple[Profile, Change]:
    found, facts = signals(*items)
    return synthesize(profile, found, facts, now=profile.updated_at + timedelta(minutes=1))


def texts(profile: Profile) -> list[str]:
    return [rule.text for rule in profile.rules]


def general() -> Profile:
    return create_profile("me", "Me", "general", now=T0)


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_it_starts_a_profile_from_each_template(key: str) -> None:
    profile = create_profile("p", "P", key, now=T0)
    template = TEMPLATES[key]
    assert profile.version == 1 and profile.template == key
    assert texts(profile) == template.rule_texts()
    assert profile.core_style.count(". ") + 1 in (2, 3) and template.focus in profile.core_style
    (change,) = profile.history
    assert change.version == 1 and key in change.summary


def test_it_keeps_one_rule_for_the_same_preference_from_two_signals() -> None:
    profile, change = apply(
        general(), ("s1", "dislike", "too long"), ("s2", "dislike", "way too verbose")
    )
    assert texts(profile) == ["Keep answers short."]
    assert profile.rules[0].signal_ids == ("s1", "s2")
    assert [c.text for c in change.added] == ["Keep answers short."]


def test_it_merges_a_near_duplicate_worded_differently() -> None:
    profile, _ = apply(general(), ("s1", "note", "always mention the version numbers you assume"))
    later = Interpretation(
        "other", "Mention the version numbers you assumed.", "+", 0.8, "llm", signal_id="s2"
    )
    same_aspect = Interpretation(
        "format", "Avoid bullet points.", "-", 0.8, "llm", aspect="bullets", signal_id="s3"
    )
    profile, change = synthesize(
        profile, [later, *signals(("s4", "note", "no bullet lists"))[0], same_aspect]
    )
    assert texts(profile) == [
        "Always mention the version numbers you assume.",
        "Avoid bullet lists.",
    ]
    assert profile.rules[0].signal_ids == ("s1", "s2")
    assert profile.rules[1].signal_ids == ("s4", "s3")
    assert [(c.text, c.signal_ids) for c in change.reinforced] == [
        ("Always mention the version numbers you assume.", ("s2",)),
        ("Avoid bullet lists.", ("s3",)),
    ]


def test_it_replaces_an_older_rule_that_a_newer_one_contradicts() -> None:
    first, _ = apply(general(), ("s1", "note", "no bullet lists"))
    second, change = apply(first, ("s2", "note", "bullet points please"))
    assert texts(second) == ["Use bullet lists where they help."]
    (replaced,) = change.replaced
    assert (replaced.old, replaced.new, replaced.signal_ids) == (
        "Avoid bullet lists.",
        "Use bullet lists where they help.",
        ("s2",),
    )
    assert second.version == 3


def test_it_keeps_one_choice_per_exclusive_slot() -> None:
    first, _ = apply(general(), ("s1", "note", "answer in German"), ("s2", "note", "summary first"))
    second, change = apply(
        first, ("s3", "note", "reply in English"), ("s4", "note", "show the command first")
    )
    assert texts(second) == ["Answer in English.", "Show the command first, then explain."]
    assert {(r.old, r.new) for r in change.replaced} == {
        ("Answer in German.", "Answer in English."),
        ("Start with a short summary.", "Show the command first, then explain."),
    }


def test_it_ignores_a_weak_guess_against_a_stated_rule() -> None:
    first, _ = apply(general(), ("s1", "note", "bullet points please"))
    second, change = apply(first, ("s2", "dislike", "", BULLETS))  # excerpt only, no note
    assert second is first and texts(second) == ["Use bullet lists where they help."]
    assert [c.text for c in change.ignored] == ["Avoid bullet lists."] and change.empty


def test_it_moves_a_metric_for_an_adjustment_instead_of_adding_a_rule() -> None:
    coding = create_profile("c", "Coding", "coding", now=T0)
    assert coding.metrics["directness"] == 0.4
    profile, change = apply(coding, ("s1", "note", "decrease directness by 0.5"))
    assert profile.metrics["directness"] == pytest.approx(-0.1)
    assert texts(profile) == texts(coding) and not change.added
    (move,) = change.metrics
    assert (move.dimension, move.before, move.after, move.signal_ids) == (
        "directness",
        0.4,
        -0.1,
        ("s1",),
    )
    assert "direct" in coding.core_style and "diplomatic" not in coding.core_style
    assert "clear" in profile.core_style


def test_it_reads_a_metric_adjustment_in_plain_words() -> None:
    profile, change = apply(general(), ("s1", "note", "be a bit more formal"))
    assert profile.metrics["formality"] == pytest.approx(0.15) and profile.rules == ()
    assert change.summary == "Formality +0.00 → +0.15."


def test_it_drops_a_rule_that_an_adjustment_turns_against() -> None:
    first, _ = apply(general(), ("s1", "dislike", "too long"))
    second, change = apply(first, ("s2", "note", "give me a lot more detail"))
    assert texts(second) == [] and [c.text for c in change.removed] == ["Keep answers short."]
    assert change.removed[0].signal_ids == ("s2",)


def test_it_keeps_metrics_within_the_scale() -> None:
    profile = general()
    for i in range(5):
        profile, _ = apply(profile, (f"s{i}", "note", "increase directness by 0.5"))
    assert profile.metrics["directness"] == 1.0
    assert "blunt" in profile.core_style


def test_it_numbers_versions_and_keeps_the_history() -> None:
    v1 = general()
    v2, c2 = apply(v1, ("s1", "dislike", "too long"))
    v3, c3 = apply(v2, ("s2", "note", "no emoji"))
    same, nothing = apply(v3, ("s3", "like", "thanks!"))
    assert [c.version for c in v3.history] == [1, 2, 3] and (c2.version, c3.version) == (2, 3)
    assert same is v3 and nothing.empty and nothing.version == 3
    assert v3.history[-1].summary == "Added 'Do not use emoji.'."
    assert v3.updated_at > v2.updated_at > v1.updated_at


def test_it_attributes_each_change_to_its_signals() -> None:
    profile, _ = apply(general(), ("s1", "note", "no bullet lists"))
    _, change = apply(
        profile,
        ("s2", "dislike", "too long"),
        ("s3", "note", "decrease directness by 0.5"),
        ("s4", "note", "bullet points please"),
        ("s5", "note", "my name is Priya"),
        ("s6", "like", "thanks!"),
    )
    assert change.signal_ids == ("s2", "s4", "s3", "s5")
    assert [(c.text, c.signal_ids) for c in change.added] == [("Keep answers short.", ("s2",))]
    assert change.replaced[0].signal_ids == ("s4",)
    assert {m.dimension: m.signal_ids for m in change.metrics} == {
        "verbosity": ("s2",),
        "directness": ("s3",),
    }
    assert [(f.key, f.after, f.signal_ids) for f in change.facts] == [("name", "Priya", ("s5",))]


def test_it_gives_facts_their_own_lifecycle() -> None:
    profile, _ = apply(
        general(), ("s1", "note", "I work at Siemens"), ("s2", "note", "I speak German")
    )
    profile, _ = apply(
        profile, ("s3", "note", "I speak English"), ("s4", "note", "I work at Bosch")
    )
    assert {f.key: f.value for f in profile.facts} == {
        "employer": "Bosch",
        "languages": "German, English",
    }
    profile, change = apply(profile, ("s5", "note", "I no longer work at Bosch"))
    assert {f.key for f in profile.facts} == {"languages"}
    assert change.summary == "Employer forgotten."
    assert profile.rules == ()  # facts never become style rules


def test_it_groups_rules_by_section_in_prompt_order() -> None:
    profile, _ = apply(
        general(),
        ("s1", "note", "no emoji"),
        ("s2", "note", "add comments to the code"),
        ("s3", "dislike", "too long"),
        ("s4", "note", "answer in German"),
    )
    assert [name for name, _ in profile.sections()] == [
        "Language",
        "Length and tone",
        "Formatting",
        "Code",
    ]
