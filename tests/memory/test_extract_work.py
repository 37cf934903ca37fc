"""Decisions, schedules, tasks and blockers (memory/extract/rules_work.py)."""

from __future__ import annotations

from tests.memory.helpers import attributes, by_attribute, one, run


def test_it_reads_a_team_decision() -> None:
    found = one(run("We decided to move the launch to June."), "decision:move_launch")
    assert (found.kind, found.subject) == ("decision", "team")
    assert found.statement == "The team decided to move the launch to June."


def test_a_decision_is_keyed_by_what_not_when() -> None:
    # so a later decision on the same thing at another time supersedes the earlier one
    for text, key in [
        ("We decided to deploy shop-api on Thursdays.", "decision:deploy_shop_api"),
        ("We decided to deploy shop-api on Fridays.", "decision:deploy_shop_api"),
        ("We decided to meet at 3pm tomorrow.", "decision:meet"),
        ("We agreed to release v2 in March 2027.", "decision:release_v2"),
        ("We decided to freeze the code next week.", "decision:freeze_code"),
        ("We decided to use a weekly cadence.", "decision:use_weekly_cadence"),
        ("We decided on Friday.", "decision:friday"),  # nothing but the time: kept whole
    ]:
        found = one(run(text), key)
        assert found.value in text, text


def test_it_reads_a_decision_against_something() -> None:
    result = run("We decided against Kubernetes.")
    (found,) = [e for e in result.extractions if e.kind == "decision"]
    assert found.negated and found.statement == "The team decided against Kubernetes."


def test_it_files_a_choice_of_a_known_tool_under_its_category() -> None:
    for text in ("Let's go with Postgres.", "We'll use Postgres.", "We're going with Postgres."):
        found = one(run(text), "database")
        assert (found.kind, found.subject, found.value) == ("decision", "team", "Postgres"), text


def test_it_reads_a_weekly_schedule_as_a_day_attribute() -> None:
    found = one(run("We deploy on Tuesdays."), "deploy_day")
    assert (found.subject, found.value, found.statement) == (
        "team",
        "Tuesday",
        "The team deploys on Tuesdays.",
    )


def test_it_reads_todo_and_need_to_as_tasks() -> None:
    result = run("TODO: fix the login bug", "I need to renew my passport before May.")
    tasks = [e for e in result.extractions if e.kind == "task"]
    assert [e.statement for e in tasks] == [
        "The user needs to fix the login bug.",
        "The user needs to renew their passport before May.",
    ]


def test_it_reads_remind_me_as_a_task() -> None:
    (found,) = [e for e in run("Remind me to call the bank.").extractions if e.kind == "task"]
    assert found.value == "call the bank" and found.rule == "remind"


def test_it_takes_no_task_from_a_request_for_information() -> None:
    result = run("I need to know how to file taxes. I need to figure out the best plan.")
    assert not [e for e in result.extractions if e.kind == "task"]


def test_it_reads_blockers_and_waiting() -> None:
    result = run("The release is blocked by the security review.", "I'm waiting on legal.")
    blocked = {(e.subject, e.value) for e in by_attribute(result, "blocked_by")}
    assert blocked == {("release", "the security review"), ("user", "legal")}


def test_it_takes_no_decision_or_task_from_a_question_or_the_assistant() -> None:
    result = run(
        "Should we decide to use MySQL?",
        ("assistant", "You need to update your drivers. We decided to help."),
    )
    assert not attributes(result)


def test_it_says_plans_as_plans_and_stops_where_the_user_turns_to_the_assistant() -> None:
    result = run("I'm planning to re-watch the MCU and was wondering if you could help me.")
    (found,) = [e for e in result.extractions if e.kind == "task"]
    assert found.statement == "The user plans to re-watch the MCU."


def test_it_drops_filler_at_the_end_of_a_value() -> None:
    (found,) = [e for e in run("I'll stick with my current headphones for now.").extractions]
    assert found.statement == "The user decided on their current headphones."


def test_it_takes_no_team_task_from_a_maxim() -> None:
    assert not run("We all need to do our part to help.").extractions


def test_it_takes_no_task_that_stops_before_its_object() -> None:
    assert not run("I still need to go through.").extractions
    (found,) = run("I need to call mom.").extractions
    assert found.statement == "The user needs to call mom."
