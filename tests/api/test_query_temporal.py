"""Temporal retrieval through /api/query with a frozen reference time (`now`)."""

from __future__ import annotations

import pytest

from ctx.models import Block
from retrieval import indexing, query, temporal_query
from retrieval.models import TemporalAnchor
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

NOW = "2025-03-12T14:00:00+01:00"  # a Wednesday in Europe/Berlin


def _store(cast: Cast, title: str, content: str, when: str, **extra: object) -> str:
    return cast.owner.store(
        category="log", title=title, content=content, source_time=when, **extra
    )["id"]


def _ask(cast: Cast, query: str, **extra: object) -> dict:
    status, body = cast.owner.post(
        "/api/query", {"query": query, "now": NOW, "explain": True, "limit": 5, **extra}
    )
    assert status == 200, body
    return body


def _titles(body: dict) -> list[str]:
    return [s["title"] for s in body["sources"]]


def test_it_anchors_content_and_meta_dates_on_write(cast: Cast) -> None:
    bid = _store(
        cast,
        "Trip",
        "Flight booked for 15.04.2025 and hotel on April 17, 2025.",
        "2025-03-01T10:00:00Z",
    )
    block = Block.objects.get(pk=bid)
    assert [t.date().isoformat() for t in block.content_times] == ["2025-04-15", "2025-04-17"]
    kinds = set(TemporalAnchor.objects.filter(block=block).values_list("kind", flat=True))
    weekdays = TemporalAnchor.objects.filter(block=block, dimension="weekday", kind="content")
    assert kinds == {"content", "meta"} and sorted(a.value for a in weekdays) == [1.0, 3.0]


def test_it_prefers_last_tuesday_for_a_last_tuesday_question(cast: Cast) -> None:
    _store(cast, "Gym A", "Went to the gym and did squats.", "2025-02-11T18:00:00+01:00")
    _store(cast, "Gym B", "Went to the gym and did squats.", "2025-03-11T18:00:00+01:00")
    _store(cast, "Gym C", "Went to the gym and did squats.", "2025-01-14T18:00:00+01:00")
    indexing.embed_pending(limit=50)
    body = _ask(cast, "What did I do at the gym last Tuesday?")
    assert _titles(body)[0] == "Gym B"
    linear = body["explain"]["gravity_linear"]
    assert linear["ranges"] == [["2025-03-11", "2025-03-11"]]
    assert list(linear["lifted"]) == [body["sources"][0]["id"]]


def test_it_lifts_recurring_weekdays_in_german(cast: Cast) -> None:
    # Thursday's and Friday's notes repeat the word, so they rank first on text alone;
    # only the weekday favours Tuesday.
    twice = "Teamtreffen, Teamtreffen mit Kaffee"
    _store(cast, "Termin 1", twice, "2025-02-20T09:00:00+01:00")  # Thursday
    _store(cast, "Termin 2", "Teamtreffen mit Kaffee", "2025-02-18T09:00:00+01:00")  # Tuesday
    _store(cast, "Termin 3", twice, "2025-02-21T09:00:00+01:00")  # Friday
    indexing.embed_pending(limit=50)
    body = _ask(cast, "Was passiert immer dienstags beim Teamtreffen?")
    assert _titles(body)[0] == "Termin 2"
    assert body["explain"]["temporal"]["recurrent"] is True
    assert body["explain"]["temporal"]["targets"] == {"weekday": 1.0}


def test_it_finds_christmas_by_dates_in_the_content(cast: Cast) -> None:
    _store(
        cast,
        "Family",
        "Dinner with the family on 24.12.2024, roast and presents.",
        "2025-01-05T10:00:00Z",
    )
    _store(cast, "Dinner", "Dinner with the family, roast and presents.", "2025-01-05T10:00:00Z")
    indexing.embed_pending(limit=50)
    body = _ask(cast, "What did we eat with the family over Christmas?")
    assert _titles(body)[0] == "Family"


def test_it_takes_the_last_holiday_for_a_simple_past_question(cast: Cast) -> None:
    # Both parties fall on Whitsun (2023 and 2024), so the season alone cannot choose, and
    # the 2023 note repeats the word. "What happened" is past: the last Whitsun, 2024.
    _store(cast, "Party 2023", "Garden party, garden party with the team", "2023-05-28T15:00:00Z")
    _store(cast, "Party 2024", "Garden party with the team", "2024-05-19T15:00:00Z")
    indexing.embed_pending(limit=50)
    body = _ask(cast, "What happened at the garden party over Whitsun?")
    assert body["explain"]["temporal"]["ranges"] == [["2024-05-19", "2024-05-20"]]
    assert _titles(body)[0] == "Party 2024"


# The period's blocks found by id (ranked exactly); past the cap, among the unfiltered
# candidates, or when those hold too few of them, by the filter in each arm.
@pytest.mark.parametrize(
    ("ids_up_to", "from_candidates", "by"),
    [(2_000, True, "ids"), (2, True, "candidates"), (2, False, "arms")],
    ids=["by-id", "among-candidates", "in-arms"],
)
def test_it_restricts_an_explicit_period_when_enough_blocks_fall_inside(
    cast: Cast, monkeypatch: pytest.MonkeyPatch, ids_up_to: int, from_candidates: bool, by: str
) -> None:
    monkeypatch.setattr(temporal_query, "PERIOD_IDS_UP_TO", ids_up_to)
    if not from_candidates:  # as if the period's blocks ranked below every arm's pool
        monkeypatch.setattr(query, "_from_candidates", lambda r, _: r.restricted(set()))
    topics = iter(  # nine distinct texts: the guard archives near-copies once embedded
        [
            "the offsite travel",
            "two new hires",
            "the cloud bill",
            "conference tickets",
            "office chairs",
            "the security audit",
            "laptops for interns",
            "the design agency",
            "team lunches",
        ]
    )
    for month in ("01", "02", "03"):
        for i in range(3):
            _store(
                cast,
                f"Decision {month}-{i}",
                f"We decided the budget for {next(topics)}.",
                f"2024-{month}-0{i + 2}T10:00:00Z",
            )
    # Written in June, about a February date: in the period through its content date.
    _store(cast, "Noted later", "On 14.02.2024 we decided the budget.", "2024-06-01T10:00:00Z")
    indexing.embed_pending(limit=50)
    body = _ask(cast, "What did we decide about the budget in February 2024?", limit=4)
    assert body["explain"]["period_filter"]["applied"] is True
    assert body["explain"]["period_filter"]["by"] == by
    assert sorted(_titles(body)) == [
        "Decision 02-0",
        "Decision 02-1",
        "Decision 02-2",
        "Noted later",
    ]


def test_it_falls_back_when_an_explicit_period_holds_too_little(cast: Cast) -> None:
    _store(cast, "Budget", "We decided the budget.", "2024-06-02T10:00:00Z")
    body = _ask(cast, "What did we decide about the budget in February 2024?", limit=3)
    assert body["explain"]["period_filter"]["applied"] is False
    assert _titles(body) == ["Budget"]


def test_it_answers_as_of_a_moment_from_validity_windows(cast: Cast) -> None:
    cast.owner.store(
        category="org",
        title="CTO 2023",
        content="The CTO is Alice.",
        valid_from="2023-01-01",
        valid_to="2023-12-31",
    )
    cast.owner.store(
        category="org", title="CTO 2024", content="The CTO is Bob.", valid_from="2024-01-01"
    )
    body = _ask(cast, "Who is the CTO?", as_of="2023-06-01")
    assert _titles(body) == ["CTO 2023"]
    body = _ask(cast, "Who is the CTO?", as_of="2024-06-01")
    assert _titles(body) == ["CTO 2024"]


def test_it_leaves_undated_questions_alone(cast: Cast) -> None:
    _store(cast, "Gym", "Went to the gym.", "2025-03-11T18:00:00+01:00")
    body = _ask(cast, "gym")
    assert body["explain"]["gravity_linear"] == "skipped: no linear intent"
    assert body["explain"]["temporal"]["matchers"] == []


def test_it_runs_only_the_stages_a_request_names(cast: Cast) -> None:
    _store(cast, "Gym", "Went to the gym.", "2025-03-11T18:00:00+01:00")
    body = _ask(cast, "gym last Tuesday", stages=["supersedes"])
    assert "gravity_linear" not in body["explain"] and "supersedes" in body["explain"]
    status, bad = cast.owner.post("/api/query", {"query": "x", "stages": ["nope"]})
    assert status == 400 and bad["error"]["details"]["field"] == "stages"


def test_it_keeps_only_the_callers_period_however_the_question_reads(cast: Cast) -> None:
    _store(cast, "Standup March", "Standup notes: the deploy moved.", "2025-03-03T09:00:00Z")
    _store(cast, "Standup Feb", "Standup notes: the deploy slipped.", "2025-02-03T09:00:00Z")
    _store(cast, "Deploy plan", "The deploy is planned for 2025-03-20.", "2025-01-10T09:00:00Z")
    march = _ask(cast, "standup deploy notes", since="2025-03-01", until="2025-03-31")
    assert sorted(_titles(march)) == ["Deploy plan", "Standup March"]  # said or dated then
    # the question's own period ("in February") does not widen the caller's
    narrow = _ask(cast, "standup deploy notes in February", since="2025-03-01")
    assert "Standup Feb" not in _titles(narrow)
    before = _titles(_ask(cast, "standup deploy notes", until="2025-02-28"))
    assert sorted(before) == ["Deploy plan", "Standup Feb"]  # said on 10 January
    status, body = cast.owner.post(
        "/api/query", {"query": "x", "since": "2025-03-02", "until": "2025-03-01"}
    )
    assert status == 400 and body["error"]["details"]["field"] == "since"
