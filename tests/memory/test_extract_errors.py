"""Error -> fix pairs (memory/extract/errors.py)."""

from __future__ import annotations

from tests.memory.helpers import by_attribute, run


def test_it_pairs_a_fix_with_the_error_before_it() -> None:
    result = run(
        "The error was ModuleNotFoundError: No module named foo",
        ("assistant", "Try reinstalling the virtualenv."),
        "That worked. I fixed it by reinstalling the venv.",
    )
    (found,) = by_attribute(result, "fix")
    assert found.subject == "error: ModuleNotFoundError: No module named foo"
    assert found.value == "reinstalling the venv"
    assert found.statement == (
        'The error "ModuleNotFoundError: No module named foo" was fixed by reinstalling the venv.'
    )
    assert found.evidence.unit_index == 2
    (support,) = found.support
    assert support.unit_index == 0 and support.quote.startswith("ModuleNotFoundError")


def test_it_reads_the_fix_was() -> None:
    result = run("I got an error saying port 5432 is in use. The fix was stopping the old server.")
    (found,) = by_attribute(result, "fix")
    assert (found.subject, found.value) == (
        "error: port 5432 is in use",
        "stopping the old server",
    )


def test_it_takes_no_fix_without_an_error() -> None:
    assert not by_attribute(run("I fixed it by restarting."), "fix")


def test_it_takes_no_fix_from_an_error_too_long_ago() -> None:
    messages = ["The error was Timeout", *["ok"] * 5, "I fixed it by raising the limit."]
    assert not by_attribute(run(*messages), "fix")


def test_it_takes_no_fix_the_assistant_only_proposes() -> None:
    result = run("The error was Timeout.", ("assistant", "It worked after you raise the limit."))
    assert not by_attribute(result, "fix")
