"""Corrections (memory/extract/corrections.py)."""

from __future__ import annotations

from tests.memory.helpers import by_attribute, run


def test_it_applies_a_bare_correction_to_the_value_of_the_same_type() -> None:
    result = run("We deploy on Tuesdays.", "No, it's Thursday.")
    first, second = by_attribute(result, "deploy_day")
    assert (first.value, first.corrects) == ("Tuesday", False)
    assert (second.value, second.corrects, second.subject) == ("Thursday", True, "team")
    assert second.statement == "The team deploys on Thursdays."
    assert second.evidence.unit_index == 1 and second.evidence.quote == "No, it's Thursday."


def test_it_applies_x_not_y_to_the_value_it_names() -> None:
    result = run("My flight is at 7:40 am. My gate is B12.", "Sorry, 8:10 am, not 7:40 am.")
    corrected = [e for e in result.extractions if e.corrects]
    assert [(e.attribute, e.value) for e in corrected] == [("flight", "at 8:10 am")]
    assert corrected[0].statement == "The user's flight is at 8:10 am."


def test_it_flags_extractions_from_an_actually_sentence() -> None:
    result = run("I prefer Vim.", "Actually, I prefer Emacs.")
    first, second = by_attribute(result, "preferred_editor")
    assert (first.corrects, second.corrects) == (False, True)
    assert second.value == "Emacs"


def test_it_flags_i_meant() -> None:
    found = [
        e for e in run("I live in Bern.", "I meant I live in Basel.").extractions if e.corrects
    ]
    assert [(e.attribute, e.value) for e in found] == [("lives_in", "Basel")]


def test_it_leaves_an_unresolvable_correction_alone() -> None:
    result = run("I like jazz.", "No, it's fine.")
    assert not [e for e in result.extractions if e.corrects]


def test_it_does_not_take_not_sure_for_a_correction() -> None:
    result = run("I'm not sure, I live in Oslo.")
    assert not [e for e in result.extractions if e.corrects]
