"""MCP tool `update`."""

from __future__ import annotations

import uuid

import pytest

from ctx.models import Block
from tests.conftest import Cast, snapshot
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_changes_only_the_given_fields(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(category="infra", title="Deploys", content="Tuesdays", tags=["x"])
    args = {"id": stored["id"], "content": "Wednesdays"}
    data, text, error = call(live, cast.owner.key or "", "update", args)
    assert not error and data["action"] == "updated"
    block = Block.objects.get(pk=stored["id"])
    assert (block.content, block.title, block.tags) == ("Wednesdays", "Deploys", ["x"])
    assert text.startswith("Updated.") and "Wednesdays" in text


def test_it_answers_another_tenants_block_like_a_missing_one(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(content="acme")
    before = snapshot()
    foreign, _, error = call(
        live, cast.outsider.key or "", "update", {"id": stored["id"], "content": "pwned"}
    )
    missing, _, _ = call(
        live, cast.outsider.key or "", "update", {"id": str(uuid.uuid4()), "content": "pwned"}
    )
    assert error and foreign == missing and foreign["error"]["code"] == "not_found"
    assert snapshot() == before


def test_it_refuses_a_reader_and_a_taken_title(live: LiveServer, cast: Cast) -> None:
    first = cast.owner.store(title="one", content="1")
    cast.owner.store(title="two", content="2")
    data, _, _ = call(live, cast.reader.key or "", "update", {"id": first["id"], "content": "x"})
    assert data["error"]["code"] == "forbidden"
    data, _, _ = call(live, cast.owner.key or "", "update", {"id": first["id"], "title": "two"})
    assert data["error"]["code"] == "conflict"
    data, _, _ = call(live, cast.owner.key or "", "update", {"id": first["id"]})
    assert data["error"]["code"] == "validation_error"  # nothing to change
