"""The turn-level scoring of windows (measuring.md: a window expands into the turns it holds)."""

from __future__ import annotations

from typing import Any

from bench.longmemeval.sessions import Window, expand, import_body, user_turns

ENTRY: Any = {
    "question_id": "q1",
    "haystack_session_ids": ["s1", "s2", "s1"],
    "haystack_dates": [
        "2023/05/20 (Sat) 02:21",
        "2023/05/21 (Sun) 10:00",
        "2023/05/20 (Sat) 02:21",
    ],
    "haystack_sessions": [
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
        [
            {"role": "user", "content": "c"},
            {"role": "assistant", "content": "d"},
            {"role": "user", "content": "e", "has_answer": True},
        ],
        [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
    ],
}


def test_it_expands_each_window_into_its_user_turns_in_order_once() -> None:
    turns = user_turns(ENTRY)
    ranked = [Window("s2", 1, 2), Window("s2", 0, 1), Window("s1", 0, 1), Window("s1", 1, 1)]
    assert expand(ranked, turns) == ["s2#2", "s2#0", "s1#0"]


def test_it_never_counts_a_window_as_more_than_the_turns_it_holds() -> None:
    turns = user_turns(ENTRY)
    assert expand([Window("s2", 0, 2)], turns) == ["s2#0", "s2#2"]  # two, not k
    assert expand([Window("s1", 1, 1)], turns) == []  # an assistant message alone


def test_it_sends_each_haystack_session_once_with_its_date_and_positions() -> None:
    body = import_body(ENTRY, "lmes-q1")
    assert [s["external_id"] for s in body["sessions"]] == ["s1", "s2"]
    second = body["sessions"][1]["messages"]
    assert [(m["index"], m["role"]) for m in second] == [(0, "user"), (1, "assistant"), (2, "user")]
    assert second[0]["timestamp"] == "2023-05-21T10:00:00+00:00"
