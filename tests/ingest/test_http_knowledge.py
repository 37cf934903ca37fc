"""POST /api/knowledge/{decisions,error-solutions,insights}: saved, enriched, deduplicated
against the same kind (duplicate rejected, close one superseded, else created)."""

from __future__ import annotations

from typing import Any

import pytest

from ctx.models import Block
from dream.models import Link
from retrieval import indexing
from tests.conftest import Cast
from tests.ingest.support import batch, by_id, imported, session, turns

pytestmark = pytest.mark.django_db

DECISION = {
    "title": "Use PostgreSQL for the session store",
    "rationale": "we already run it and pgvector covers the vectors.",
}
REWORDED = {**DECISION, "rationale": "we already operate it, and pgvector handles the embeddings."}


def _save(api: Any, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return api.post(f"/api/knowledge/{kind}", body)


def test_it_creates_a_decision_with_files_tools_and_its_session(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    job = imported(
        cast.owner, batch(session(messages=turns(2))), django_capture_on_commit_callbacks
    )
    sid = by_id(job)["s-1"]["id"]
    body = {
        **DECISION,
        "context": "Settled while editing ctx/settings.py and docker-compose.yml; pytest passed.",
        "alternatives": ["Redis", "SQLite"],
        "session": sid,
    }
    status, data = _save(cast.owner, "decisions", body)
    assert status == 201 and data["action"] == "created", data
    assert data["files"] == ["ctx/settings.py", "docker-compose.yml"]
    assert data["tools"] == ["pytest"]
    assert data["source_session"]["external_id"] == "s-1"
    block = Block.objects.get(pk=data["id"])
    assert (block.type, block.category) == ("decision", "decisions")
    assert block.content.startswith("Decision: Use PostgreSQL for the session store\n\n")
    assert "Alternatives considered: \n- Redis\n- SQLite" in block.content
    assert block.metadata["alternatives"] == ["Redis", "SQLite"]
    assert block.source_session == "claude-code:s-1"


def test_it_rejects_a_duplicate_and_names_the_existing_block(cast: Cast) -> None:
    _, first = _save(cast.owner, "decisions", DECISION)
    status, again = _save(cast.owner, "decisions", DECISION)
    assert status == 200 and again["action"] == "rejected" and again["id"] == first["id"]
    assert again["similarity"] == 1.0
    assert Block.objects.filter(category="decisions").count() == 1


@pytest.mark.parametrize("embedded", [False, True])
def test_it_supersedes_a_close_one_and_keeps_it(cast: Cast, embedded: bool) -> None:
    """Against a stored vector (embedded) and one computed at write time (not yet embedded)."""
    _, first = _save(cast.owner, "decisions", DECISION)
    if embedded:
        assert indexing.embed_blocks([first["id"]]) == 1
    status, second = _save(cast.owner, "decisions", REWORDED)
    assert status == 201 and second["action"] == "superseded", second
    assert second["supersedes"] == first["id"] and 0.85 <= second["similarity"] < 0.95
    old = Block.objects.get(pk=first["id"])
    assert str(old.superseded_by_id) == second["id"] and not old.archived
    link = Link.objects.get(link_class="supersedes")
    assert (str(link.source_id), str(link.target_id), link.pinned) == (
        second["id"],
        first["id"],
        True,
    )
    assert Block.objects.get(pk=second["id"]).title == "Use PostgreSQL for the session store (2)"


def test_it_creates_what_is_not_close_and_compares_only_the_same_kind(cast: Cast) -> None:
    _save(cast.owner, "decisions", DECISION)
    other = {"title": "Deploy on Tuesdays", "rationale": "the whole team is in on Tuesdays."}
    assert _save(cast.owner, "decisions", other)[1]["action"] == "created"
    insight = {"insight": f"{DECISION['title']}: {DECISION['rationale']}"}
    assert _save(cast.owner, "insights", insight)[1]["action"] == "created"


def test_it_saves_an_error_with_its_solution(cast: Cast) -> None:
    body = {
        "error": "ModuleNotFoundError: No module named 'psycopg'",
        "solution": "pip install 'psycopg[binary]' in the project's venv",
    }
    status, data = _save(cast.owner, "error-solutions", body)
    assert status == 201 and data["action"] == "created" and data["tools"] == ["pip"]
    block = Block.objects.get(pk=data["id"])
    assert block.title == "ModuleNotFoundError: No module named 'psycopg'"
    assert block.category == "error-solutions"
    assert _save(cast.owner, "error-solutions", body)[1]["action"] == "rejected"


def test_it_never_compares_with_another_tenant_or_takes_its_session(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    _save(cast.owner, "decisions", DECISION)
    status, theirs = _save(cast.outsider, "decisions", DECISION)
    assert status == 201 and theirs["action"] == "created"
    job = imported(
        cast.owner, batch(session(messages=turns(2))), django_capture_on_commit_callbacks
    )
    status, data = _save(
        cast.outsider, "insights", {"insight": "x y z", "session": by_id(job)["s-1"]["id"]}
    )
    assert status == 404 and data["error"]["message"] == "Session not found."


@pytest.mark.parametrize(
    ("kind", "body", "field"),
    [
        ("decisions", {"title": "x"}, "rationale"),
        ("decisions", {**DECISION, "alternatives": ["a"] * 21}, "alternatives"),
        ("decisions", {**DECISION, "title": "t" * 201}, "title"),
        ("error-solutions", {"error": "e"}, "solution"),
        ("insights", {}, "insight"),
    ],
)
def test_it_refuses_bad_input(cast: Cast, kind: str, body: dict[str, Any], field: str) -> None:
    status, data = _save(cast.owner, kind, body)
    assert status == 400 and data["error"]["details"]["field"] == field, data


def test_it_refuses_a_reader(cast: Cast) -> None:
    status, data = _save(cast.reader, "decisions", DECISION)
    assert status == 403 and data["error"]["code"] == "forbidden"
