"""LongMemEval loading, corpora, subsets and the block mapping, on literal data."""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bench.longmemeval.client import (
    build_blocks,
    chunked,
    iso_utc,
    opaque_title,
    ranked_ids,
    scope_name,
    truncate_utf8,
)
from bench.longmemeval.data import (
    RawEntry,
    build_question,
    build_questions,
    default_data_dir,
    filter_types,
    is_scorable,
    load_entries,
    load_questions,
    parse_date,
    session_of_turn,
    stratified_subset,
)


def _entry(question_id: str = "q1", question_type: str = "multi-session") -> RawEntry:
    return {
        "question_id": question_id,
        "question_type": question_type,
        "question": "Where did I move?",
        "answer": "Berlin",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_dates": [
            "2023/05/20 (Sat) 02:21",
            "2023/05/21 (Sun) 10:00",
            "2023/05/22 (Mon) 11:00",
        ],
        "haystack_session_ids": ["sharegpt_x_0", "answer_a_1", "answer_a_2"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "hello"},
                {"role": "assistant", "content": "hi there"},
                {"role": "user", "content": "bye"},
            ],
            [
                {"role": "user", "content": "I moved", "has_answer": False},
                {"role": "assistant", "content": "Where to?", "has_answer": False},
                {"role": "user", "content": "to Berlin", "has_answer": True},
            ],
            [
                # evidence only on the assistant side: not a gold session
                {"role": "user", "content": "recommend a cafe", "has_answer": False},
                {"role": "assistant", "content": "Cafe X", "has_answer": True},
            ],
        ],
        "answer_session_ids": ["answer_a_1", "answer_a_2"],
    }


def test_it_parses_dates_as_naive_datetimes() -> None:
    assert parse_date("2023/04/10 (Mon) 23:07") == datetime(2023, 4, 10, 23, 7)


def test_it_builds_session_keys_from_user_turns_only() -> None:
    question = build_question(_entry())
    assert [(d.id, d.text) for d in question.sessions] == [
        ("sharegpt_x_0", "hello bye"),
        ("answer_a_1", "I moved to Berlin"),
        ("answer_a_2", "recommend a cafe"),
    ]
    assert question.sessions[1].date == datetime(2023, 5, 21, 10, 0)
    assert question.question_date == datetime(2023, 5, 30, 23, 40)


def test_it_numbers_turns_by_their_position_in_the_session() -> None:
    question = build_question(_entry())
    assert [d.id for d in question.turns] == [
        "sharegpt_x_0#0",
        "sharegpt_x_0#2",
        "answer_a_1#0",
        "answer_a_1#2",
        "answer_a_2#0",
    ]
    assert {d.session_id for d in question.turns if d.id.startswith("answer_a_1")} == {"answer_a_1"}
    assert session_of_turn("answer_a_1#2") == "answer_a_1"


def test_it_takes_gold_from_user_side_evidence_only() -> None:
    question = build_question(_entry())
    assert question.gold_sessions == {"answer_a_1"}
    assert question.gold_turns == {"answer_a_1#2"}
    assert question.gold("session") == question.gold_sessions
    assert question.documents("turn") == question.turns


def test_it_skips_abstention_and_assistant_only_questions() -> None:
    assistant_only = _entry("q2")
    assistant_only["haystack_sessions"][1][2]["has_answer"] = False
    entries = [_entry("q1"), _entry("q1_abs"), assistant_only]
    assert [is_scorable(e) for e in entries] == [True, False, False]
    assert [q.question_id for q in build_questions(entries)] == ["q1"]


def test_it_loads_gzip_and_plain_json_from_ctx_eval_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with gzip.open(tmp_path / "longmemeval_s_cleaned_499of500.json.gz", "wt") as handle:
        json.dump([_entry("q1"), _entry("q1_abs")], handle)
    (tmp_path / "longmemeval_oracle.json").write_text(json.dumps([_entry("q9")]))
    monkeypatch.setenv("CTX_EVAL_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    assert len(load_entries("s")) == 2
    assert [q.question_id for q in load_questions("s")] == ["q1"]
    assert [q.question_id for q in load_questions("oracle")] == ["q9"]


def test_it_defaults_to_the_shared_eval_data_beside_the_repository(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CTX_EVAL_DATA", raising=False)
    repo = Path(__file__).resolve().parents[2]
    assert default_data_dir().resolve() == (repo / ".." / "shared" / "eval" / "data").resolve()


def test_it_says_where_it_looked_when_the_file_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTX_EVAL_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"longmemeval_oracle\.json"):
        load_entries("oracle")


def _questions(counts: dict[str, int]) -> list[Any]:
    return build_questions(
        _entry(f"{question_type[:3]}{i}", question_type)
        for question_type, n in counts.items()
        for i in range(n)
    )


def test_it_picks_a_stable_stratified_subset_in_input_order() -> None:
    questions = _questions({"multi-session": 6, "temporal-reasoning": 3, "knowledge-update": 1})
    subset = stratified_subset(questions, 5)
    types = [q.question_type for q in subset]
    assert len(subset) == 5
    assert types.count("multi-session") == 3
    assert types.count("knowledge-update") == 1  # every type gets one when n allows
    assert [q.question_id for q in subset] == [q.question_id for q in questions if q in subset]
    assert stratified_subset(list(reversed(questions)), 5) == list(reversed(subset))
    assert stratified_subset(questions, 50) == questions


def test_it_filters_types_and_rejects_unknown_ones() -> None:
    questions = _questions({"multi-session": 2, "knowledge-update": 1})
    assert len(filter_types(questions, ["knowledge-update"])) == 1
    assert filter_types(questions, []) == questions
    with pytest.raises(ValueError, match="no-such-type"):
        filter_types(questions, ["no-such-type"])


def test_it_maps_documents_to_blocks_with_ids_dates_and_metadata() -> None:
    plan = build_blocks(build_question(_entry()), "turn", "conversation")
    first = plan.blocks[0]
    assert first["title"] == opaque_title("sharegpt_x_0#0", "turn")
    assert "sharegpt" not in first["title"]  # the id (answer_… for evidence) stays hidden
    assert first["content"] == "hello"
    assert first["category"] == "conversation"
    assert first["source_time"] == "2023-05-20T02:21:00+00:00"
    assert first["metadata"] == {
        "session_id": "sharegpt_x_0",
        "date": "2023-05-20T02:21:00+00:00",
        "turn_id": "sharegpt_x_0#0",
    }
    session_plan = build_blocks(build_question(_entry()), "session", "conversation")
    assert "turn_id" not in session_plan.blocks[0]["metadata"]


def test_it_truncates_long_content_and_skips_empty_and_repeated_documents() -> None:
    entry = _entry()
    entry["haystack_session_ids"][2] = "sharegpt_x_0"  # a repeated filler session
    entry["haystack_sessions"][0][0]["content"] = "é" * 30_000  # 60,000 bytes
    entry["haystack_sessions"][0][2]["content"] = ""
    entry["haystack_sessions"][1] = [{"role": "assistant", "content": "no user turn"}]
    plan = build_blocks(build_question(entry), "session", "c")
    assert [b["metadata"]["session_id"] for b in plan.blocks] == ["sharegpt_x_0"]
    assert len(plan.blocks[0]["content"].encode("utf-8")) == 50_000
    assert (plan.truncated, plan.skipped_empty) == (1, 1)
    turn_plan = build_blocks(build_question(entry), "turn", "c")
    assert [b["metadata"]["turn_id"] for b in turn_plan.blocks] == ["sharegpt_x_0#0"]
    assert (turn_plan.truncated, turn_plan.skipped_empty) == (1, 1)


def test_it_cuts_utf8_on_a_character_boundary() -> None:
    assert truncate_utf8("aé", 2) == ("a", True)
    assert truncate_utf8("aé", 3) == ("aé", False)


def test_it_maps_sources_back_to_document_ids_once_each() -> None:
    sources: list[Any] = [
        {"title": "s2", "metadata": {"session_id": "s2"}},
        {"title": "legacy-title", "metadata": {}},
        {"title": "s2", "metadata": {"session_id": "s2"}},
    ]
    assert ranked_ids(sources, "session") == ["s2", "legacy-title"]
    turns: list[Any] = [{"title": "x", "metadata": {"session_id": "s1", "turn_id": "s1#2"}}]
    assert ranked_ids(turns, "turn") == ["s1#2"]


def test_it_names_scopes_and_batches_blocks() -> None:
    assert scope_name("lme", "gpt4_2655b836", "turn") == "lme-gpt4_2655b836-turn"
    assert iso_utc(datetime(2023, 5, 30, 23, 40)) == "2023-05-30T23:40:00+00:00"
    blocks: list[Any] = list(range(1001))
    assert [len(batch) for batch in chunked(blocks)] == [500, 500, 1]


def test_it_stores_a_sessions_user_turns_as_paragraphs() -> None:
    question = build_question(_entry())
    session = question.sessions[0]
    assert session.content == "\n\n".join(t for t in session.turns if t.strip())
    assert session.text == " ".join(session.turns)  # the baselines keep the official text
    plan = build_blocks(question, "session", "c")
    assert plan.blocks[0]["content"] == session.content


def test_it_parses_variants_of_ctx_to_query_in_the_same_run() -> None:
    from bench.longmemeval.run import Variant

    assert Variant.parse("no-temporal=stages:feedback,supersedes") == Variant(
        "no-temporal", ("feedback", "supersedes"), None
    )
    assert Variant.parse("rrf=fusion:rrf;stages:") == Variant("rrf", (), "rrf")
    assert Variant.parse("plain=") == Variant("plain", None, None)
    with pytest.raises(ValueError, match="expected"):
        Variant.parse("x=weights:1")
    with pytest.raises(ValueError, match="name"):
        Variant.parse("=stages:a")
