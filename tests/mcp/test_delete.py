"""MCP tool `delete` (archive)."""

from __future__ import annotations

import uuid

import pytest

from ctx.models import Block
from tests.conftest import Cast, snapshot
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_archives_the_block(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(content="to forget")
    data, text, error = call(live, cast.owner.key or "", "delete", {"id": stored["id"]})
    assert not error and data == {"success": True, "action": "archived", "id": stored["id"]}
    assert Block.objects.get(pk=stored["id"]).archived is True
    assert text.startswith("Archived block")
    again, _, _ = call(live, cast.owner.key or "", "get", {"id": stored["id"]})
    assert again["error"]["code"] == "not_found"


def test_it_answers_another_tenants_block_like_a_missing_one(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(content="acme")
    before = snapshot()
    foreign, _, error = call(live, cast.outsider.key or "", "delete", {"id": stored["id"]})
    missing, _, _ = call(live, cast.outsider.key or "", "delete", {"id": str(uuid.uuid4())})
    assert error and foreign == missing and foreign["error"]["code"] == "not_found"
    assert snapshot() == before


def test_it_refuses_a_reader(live: LiveServer, cast: Cast) -> None:
    stored = cast.owner.store(content="keep")
    data, _, error = call(live, cast.reader.key or "", "delete", {"id": stored["id"]})
    assert error and data["error"]["code"] == "forbidden"
    assert Block.objects.get(pk=stored["id"]).archived is False
