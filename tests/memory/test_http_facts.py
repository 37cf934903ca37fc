"""GET /api/facts and /api/facts/{id}: what extraction made of stored blocks."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import Cast
from tests.memory.support import facts, store, values


def test_it_lists_facts_extracted_from_a_stored_block(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    text = "I prefer Vim over VS Code. We deploy on Tuesdays. I work at Acme Corp."
    stored = store(cast.owner, django_capture_on_commit_callbacks, text)
    found = {f["attribute"]: f for f in facts(cast.owner)}
    assert found["preferred_editor"]["value"] == "Vim"
    assert found["preferred_editor"]["kind"] == "preference"
    assert found["deploy_day"]["evidence"] == "We deploy on Tuesdays"
    assert found["employer"]["statement"] == "The user works at Acme Corp."
    (source,) = found["employer"]["sources"]
    assert source["block_id"] == stored["id"] and source["quote"] == "I work at Acme Corp"
    assert text[text.index(source["quote"]) :].startswith(source["quote"])


def _seed(cast: Cast, capture: Any) -> None:
    store(cast.owner, capture, "I prefer Vim over VS Code. We decided to use Postgres.")
    store(cast.owner, capture, "We deploy on Tuesdays.", scope="acme:team")


def test_it_filters_by_subject_kind_and_scope(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    _seed(cast, django_capture_on_commit_callbacks)
    assert set(values(cast.owner, subject="team")) == {"team.database", "team.deploy_day"}
    assert set(values(cast.owner, kind="decision")) == {"team.database"}
    assert set(values(cast.owner, scopes="acme:team")) == {"team.deploy_day"}
    assert set(values(cast.reader)) == {"user.preferred_editor", "team.database"} | {
        "team.deploy_day"
    }


def test_it_answers_a_foreign_fact_like_a_missing_one(
    cast: Cast, django_capture_on_commit_callbacks: Any
) -> None:
    _seed(cast, django_capture_on_commit_callbacks)
    (mine,) = facts(cast.owner, kind="preference")
    assert cast.owner.get(f"/api/facts/{mine['id']}")[1]["fact"]["value"] == "Vim"
    foreign = cast.outsider.get(f"/api/facts/{mine['id']}")
    missing = cast.outsider.get(f"/api/facts/{uuid.uuid4()}")
    malformed = cast.outsider.get("/api/facts/not-an-id")
    assert foreign == missing == malformed
    assert foreign[0] == 404
    assert facts(cast.outsider) == []
    named = cast.outsider.get("/api/facts", scopes="acme:main")
    assert named == cast.outsider.get("/api/facts", scopes="acme:nowhere")
    assert named[0] == 403


@pytest.mark.parametrize(
    ("params", "status", "field"),
    [
        ({"subject": "x" * 201}, 413, "subject"),
        ({"attribute": "x" * 201}, 413, "attribute"),
        ({"kind": "rumour"}, 400, "kind"),
        ({"limit": "500"}, 400, "limit"),
        ({"history": "maybe"}, 400, "history"),
        ({"colour": "green"}, 400, "colour"),
    ],
)
def test_it_rejects_bad_filters(
    cast: Cast, params: dict[str, str], status: int, field: str
) -> None:
    got, body = cast.owner.get("/api/facts", **params)
    assert got == status and body["error"]["details"]["field"] == field, body
