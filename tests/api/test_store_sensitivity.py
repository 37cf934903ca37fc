"""/api/store, /api/store/batch and manage update: the sensitivity level and its detector."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctx.models import Block
from tests.conftest import Cast, snapshot

pytestmark = pytest.mark.django_db

AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
SECRET_NOTE = f"The staging deploy uses access key {AWS} until we rotate it."


def _get(cast: Cast, block_id: str) -> dict[str, Any]:
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": block_id})
    assert status == 200, body
    return body["block"]


def test_it_stores_a_block_holding_an_aws_key_as_credentials(cast: Cast) -> None:
    status, body = cast.owner.post(
        "/api/store", {"category": "infra", "title": "Deploy", "content": SECRET_NOTE}
    )
    assert status == 201
    assert body["sensitivity"] == "credentials"
    assert body["sensitivity_reasons"] == ["aws_access_key"]
    assert AWS not in json.dumps(body)  # the response names the detector, never the match
    assert _get(cast, body["id"])["sensitivity"] == "credentials"


def test_it_defaults_to_internal_and_reports_no_reasons(cast: Cast) -> None:
    body = cast.owner.store(content="Deploys happen on Tuesdays.")
    assert (body["sensitivity"], body["sensitivity_reasons"]) == ("internal", [])


def test_it_keeps_an_explicit_level_that_is_higher(cast: Cast) -> None:
    body = cast.owner.store(content="Deploys happen on Tuesdays.", sensitivity="credentials")
    assert (body["sensitivity"], body["sensitivity_reasons"]) == ("credentials", [])


def test_it_raises_an_explicit_level_that_is_lower(cast: Cast) -> None:
    body = cast.owner.store(content="Mail jane.doe@gmail.com for access.", sensitivity="public")
    assert (body["sensitivity"], body["sensitivity_reasons"]) == ("personal", ["email_address"])


def test_it_accepts_public(cast: Cast) -> None:
    body = cast.owner.store(content="Our office is in Berlin.", sensitivity="public")
    assert Block.objects.get(pk=body["id"]).sensitivity == "public"


def test_it_rejects_an_unknown_level(cast: Cast) -> None:
    before = snapshot()
    status, body = cast.owner.post(
        "/api/store", {"category": "a", "title": "b", "content": "c", "sensitivity": "secret"}
    )
    assert status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"] == {"field": "sensitivity"}
    assert snapshot() == before


def test_it_never_lowers_on_a_later_write_without_an_explicit_level(cast: Cast) -> None:
    first = cast.owner.store(title="Deploy", content=SECRET_NOTE)
    later = cast.owner.store(title="Deploy", content="Key rotated; see the vault.")
    assert later["action"] == "updated" and later["sensitivity"] == "credentials"
    lowered = cast.owner.store(title="Deploy", content="Key rotated.", sensitivity="internal")
    assert lowered["id"] == first["id"] and lowered["sensitivity"] == "internal"


def test_it_updates_when_only_the_level_changes(cast: Cast) -> None:
    cast.owner.store(title="Policy", content="Deploys happen on Tuesdays.")
    again = cast.owner.store(title="Policy", content="Deploys happen on Tuesdays.")
    assert again["action"] == "noop"
    marked = cast.owner.store(
        title="Policy", content="Deploys happen on Tuesdays.", sensitivity="personal"
    )
    assert marked["action"] == "updated" and marked["sensitivity"] == "personal"


def test_it_detects_in_every_item_of_a_batch(cast: Cast) -> None:
    status, body = cast.owner.post(
        "/api/store/batch",
        {
            "blocks": [
                {"category": "n", "title": "a", "content": SECRET_NOTE},
                {"category": "n", "title": "b", "content": "Call +49 30 12345678 after 9."},
                {"category": "n", "title": "c", "content": "Plain words.", "sensitivity": "public"},
            ]
        },
    )
    assert status == 200, body
    got = [(r["sensitivity"], r["sensitivity_reasons"]) for r in body["results"]]
    assert got == [
        ("credentials", ["aws_access_key"]),
        ("personal", ["phone_number"]),
        ("public", []),
    ]
    assert AWS not in json.dumps(body)


def test_it_names_the_bad_batch_item(cast: Cast) -> None:
    status, body = cast.owner.post(
        "/api/store/batch",
        {"blocks": [{"category": "n", "title": "a", "content": "x", "sensitivity": 3}]},
    )
    assert status == 400 and body["error"]["details"] == {"field": "sensitivity", "index": 0}


def test_it_runs_the_detector_on_update(cast: Cast) -> None:
    block_id = cast.owner.store(title="Note", content="Nothing here.")["id"]
    status, body = cast.owner.post(
        "/api/manage", {"action": "update", "id": block_id, "fields": {"content": SECRET_NOTE}}
    )
    assert status == 200 and body["block"]["sensitivity"] == "credentials"
    status, body = cast.owner.post(
        "/api/manage",
        {"action": "update", "id": block_id, "fields": {"sensitivity": "public"}},
    )
    assert status == 200 and body["block"]["sensitivity"] == "credentials"  # only raises
