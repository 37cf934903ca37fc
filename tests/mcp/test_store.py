"""MCP tool `store`."""

from __future__ import annotations

import pytest

from ctx.models import Block
from tests.conftest import Cast, snapshot
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = {"category": "infra", "title": "Deploy policy", "content": "Deploys happen on Tuesdays."}


def test_it_creates_a_block_in_the_home_scope(live: LiveServer, cast: Cast) -> None:
    data, text, error = call(live, cast.owner.key or "", "store", {**NOTE, "tags": ["Deploy"]})
    assert not error and data["success"] is True and data["action"] == "created"
    block = Block.objects.get(pk=data["id"])
    assert (block.scope.name, block.content, block.tags) == (
        "acme:main",
        NOTE["content"],
        ["deploy"],
    )
    assert f"Created block {data['id']} in scope acme:main" in text


def test_it_does_nothing_for_identical_content(live: LiveServer, cast: Cast) -> None:
    first, _, _ = call(live, cast.owner.key or "", "store", NOTE)
    again, text, _ = call(live, cast.owner.key or "", "store", NOTE)
    assert again["action"] == "noop" and again["id"] == first["id"]
    assert text.startswith("Unchanged")


def test_it_refuses_a_scope_the_key_cannot_write(live: LiveServer, cast: Cast) -> None:
    before = snapshot()
    for key, scope in ((cast.reader.key, None), (cast.outsider.key, "acme:main")):
        data, text, error = call(live, key or "", "store", {**NOTE, "scope": scope})
        assert error and data["success"] is False
        assert data["error"]["code"] == "forbidden" and text.startswith("Error (forbidden)")
    assert snapshot() == before


def test_it_reports_bad_arguments_in_the_error_envelope(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(live, cast.owner.key or "", "store", {**NOTE, "type": "bogus"})
    assert error and data["error"]["code"] == "validation_error"
    assert "'type' must be one of" in data["error"]["message"]
    data, _, error = call(live, cast.owner.key or "", "store", {**NOTE, "content": ""})
    assert error and data["error"]["code"] == "validation_error"  # the schema's minLength
    assert Block.objects.count() == 0


def test_it_reports_the_detected_sensitivity(live: LiveServer, cast: Cast) -> None:
    aws = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
    note = {**NOTE, "content": f"Deploys use the access key {aws}."}
    data, text, error = call(live, cast.owner.key or "", "store", note)
    assert not error and data["sensitivity"] == "credentials"
    assert data["sensitivity_reasons"] == ["aws_access_key"]
    assert "Sensitivity: credentials (detected: aws_access_key)" in text and aws not in text
    assert Block.objects.get(pk=data["id"]).sensitivity == "credentials"


def test_it_accepts_an_explicit_sensitivity(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(live, cast.owner.key or "", "store", {**NOTE, "sensitivity": "personal"})
    assert not error and data["sensitivity"] == "personal" and data["sensitivity_reasons"] == []
    data, _, error = call(live, cast.owner.key or "", "store", {**NOTE, "sensitivity": "secret"})
    assert error and data["error"]["code"] == "validation_error"


def test_it_rejects_an_unknown_argument_by_name(live: LiveServer, cast: Cast) -> None:
    args = {"category": "infra", "title": "x", "content": "y", "tag": ["ops"]}
    _, text, error = call(live, cast.owner.key or "", "store", args)
    assert error and "tag" in text
