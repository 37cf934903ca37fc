"""Conflicts are history: a newer fact on a single-valued attribute supersedes the older one,
which stays and answers `as_of` a moment in its window (through /api/facts and /api/query)."""

from __future__ import annotations

from typing import Any

from ctx.models import Block
from dream.models import Link
from tests.conftest import Cast
from tests.ingest.support import batch, imported, message, session
from tests.memory.support import facts, store, values


def _deploy_days(cast: Cast, capture: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    store(cast.owner, capture, "We deploy on Tuesdays.", source_time="2026-03-01T09:00:00Z")
    store(cast.owner, capture, "We deploy on Thursdays now.", source_time="2026-03-10T09:00:00Z")
    every = {f["value"]: f for f in facts(cast.owner, attribute="deploy_day", history="true")}
    return every["Tuesday"], every["Thursday"]


def test_it_supersedes_the_older_value_and_keeps_it(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    old, new = _deploy_days(cast, django_capture_on_commit_callbacks)
    assert old["superseded_by"] == new["id"] and new["superseded_by"] is None
    assert old["valid_to"] == new["said_at"] == "2026-03-10T09:00:00+00:00"
    assert values(cast.owner)["team.deploy_day"] == "Thursday"
    link = Link.objects.get(source_id=new["id"], target_id=old["id"])
    assert (link.link_class, link.origin) == ("supersedes", "extraction")
    assert Block.objects.get(pk=old["id"]).archived is False


def test_a_later_decision_on_the_same_thing_supersedes_the_earlier(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    said = "We decided to deploy shop-api on {}."
    store(cast.owner, capture, said.format("Thursdays"), source_time="2026-03-01T09:00:00Z")
    store(cast.owner, capture, said.format("Fridays"), source_time="2026-03-10T09:00:00Z")
    every = {f["statement"]: f for f in facts(cast.owner, kind="decision", history="true")}
    old = every["The team decided to deploy shop-api on Thursdays."]
    new = every["The team decided to deploy shop-api on Fridays."]
    assert old["superseded_by"] == new["id"] and new["superseded_by"] is None
    current = [f["statement"] for f in facts(cast.owner, kind="decision")]
    assert current == ["The team decided to deploy shop-api on Fridays."]


def test_it_answers_as_of_a_moment_with_the_value_then(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    _deploy_days(cast, django_capture_on_commit_callbacks)
    assert values(cast.owner, as_of="2026-03-05")["team.deploy_day"] == "Tuesday"
    assert values(cast.owner, as_of="2026-03-12")["team.deploy_day"] == "Thursday"
    body = {"query": "Which day does the team deploy?", "types": ["fact"], "as_of": "2026-03-05"}
    status, answer = cast.owner.post("/api/query", body)
    assert status == 200, answer
    assert [s["title"] for s in answer["sources"]] == ["The team deploys on Tuesdays."]


def test_it_lets_an_older_statement_imported_later_stay_history(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    store(cast.owner, capture, "We deploy on Thursdays now.", source_time="2026-03-10T09:00:00Z")
    store(cast.owner, capture, "We deploy on Tuesdays.", source_time="2026-03-01T09:00:00Z")
    assert values(cast.owner)["team.deploy_day"] == "Thursday"


def test_it_prefers_the_more_confident_fact_said_at_the_same_time(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    same = "2026-03-01T10:00:00Z"
    messages = [
        message(0, "I prefer Vim over VS Code.", timestamp=same),
        message(1, "Since you prefer Emacs, here is a config.", "assistant", timestamp=same),
    ]
    imported(cast.owner, batch(session("s-1", messages)), django_capture_on_commit_callbacks)
    assert values(cast.owner)["user.preferred_editor"] == "Vim"


def test_it_lowers_the_confidence_of_a_corrected_fact(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    messages = [message(0, "We deploy on Tuesdays."), message(1, "No, it's Thursday.")]
    imported(cast.owner, batch(session("s-1", messages)), django_capture_on_commit_callbacks)
    every = {f["value"]: f for f in facts(cast.owner, attribute="deploy_day", history="true")}
    assert every["Tuesday"]["superseded_by"] == every["Thursday"]["id"]
    assert every["Tuesday"]["confidence"] < every["Thursday"]["confidence"] == 0.85
