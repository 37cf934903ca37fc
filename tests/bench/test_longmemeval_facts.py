"""--facts: extracted facts as extra keys that stand for their sessions (pure, literal data)."""

from __future__ import annotations

from datetime import datetime

from bench.longmemeval.client import ranked_ids
from bench.longmemeval.data import Document, Question
from bench.longmemeval.facts import PREFIX, expand, question_facts

DAY = datetime(2024, 5, 1)


def _session(sid: str, *turns: str) -> Document:
    return Document(sid, sid, " ".join(turns), DAY, turns)


def _question(*sessions: Document) -> Question:
    return Question("q1", "multi-session", "?", DAY, sessions, (), frozenset(), frozenset())


def test_it_keys_one_fact_per_key_citing_every_session_that_states_it() -> None:
    q = _question(
        _session("a", "I work at Acme Corp.", "I prefer Vim over VS Code."),
        _session("b", "Hello there."),
        _session("c", "By the way, I work at Acme Corp."),
    )
    found = {f.statement: f for f in question_facts(q)}
    assert found["The user works at Acme Corp."].sources == ("a", "c")
    assert found["The user prefers Vim over VS Code."].sources == ("a",)
    assert all(f.document.id == PREFIX + f.key for f in found.values())


def test_it_counts_a_fact_hit_as_its_sessions_each_once() -> None:
    q = _question(_session("a", "I work at Acme Corp."), _session("c", "I work at Acme Corp."))
    (fact,) = question_facts(q)
    assert expand(["b", PREFIX + fact.key, "a", "d"], [fact]) == ["b", "a", "c", "d"]


def test_it_maps_a_fact_block_to_its_sessions() -> None:
    sources = [
        {"id": "1", "title": "t", "metadata": {"session_id": "s2", "session_ids": ["s2", "s5"]}},
        {"id": "2", "title": "t", "metadata": {"session_id": "s5"}},
        {"id": "3", "title": "t", "metadata": {"session_id": "s1"}},
    ]
    assert ranked_ids(sources, "session") == ["s2", "s5", "s1"]  # type: ignore[arg-type]


def test_at_turn_level_a_fact_cites_its_turns_and_maps_back_to_them() -> None:
    a0 = Document("a#0", "a", "I work at Acme Corp.", DAY, ("I work at Acme Corp.",))
    a2 = Document("a#2", "a", "Hello there.", DAY, ("Hello there.",))
    c0 = Document(
        "c#0", "c", "By the way, I work at Acme Corp.", DAY, ("By the way, I work at Acme Corp.",)
    )
    q = Question("q1", "multi-session", "?", DAY, (), (a0, a2, c0), frozenset(), frozenset())
    (fact,) = question_facts(q, "turn")
    assert fact.sources == ("a#0", "c#0") and fact.document.session_id == "a"
    sources = [
        {"id": "1", "title": "t", "metadata": {"turn_id": "c#0", "turn_ids": ["c#0", "a#0"]}},
        {"id": "2", "title": "t", "metadata": {"turn_id": "a#2"}},
    ]
    assert ranked_ids(sources, "turn") == ["c#0", "a#0", "a#2"]  # type: ignore[arg-type]
