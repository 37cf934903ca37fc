"""German statements (memory/extract/rules_de.py)."""

from __future__ import annotations

from tests.memory.helpers import one, run


def test_it_reads_german_facts_under_the_english_attributes() -> None:
    result = run("Ich wohne in Köln und ich arbeite bei Siemens.")
    assert one(result, "lives_in").value == "Köln"
    assert one(result, "employer").statement == "The user works at Siemens."


def test_it_reads_german_preferences_and_decisions() -> None:
    assert one(run("Ich bevorzuge Vim."), "preferred_editor").value == "Vim"
    found = one(run("Ich hasse Staus."), "likes")
    assert found.negated
    decision = next(e for e in run("Wir haben entschieden, Postgres zu nehmen.").extractions)
    assert (decision.kind, decision.subject) == ("decision", "team")


def test_it_reads_mein_x_ist_y() -> None:
    assert one(run("Mein Name ist Jana."), "name").value == "Jana"


def test_it_takes_nothing_from_a_german_question() -> None:
    assert run("Wohne ich in Köln?", "Mag ich Kaffee?").extractions == ()
