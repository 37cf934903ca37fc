"""An outsider's OAuth token reads nothing of another tenant, through any tool."""

from __future__ import annotations

import uuid

import pytest

from ctx.models import Block
from tests.conftest import Cast, snapshot
from tests.mcp.live import LiveServer, assert_unreadable, call
from tests.oauth.flow import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_keeps_every_tool_inside_the_tokens_tenant(live: LiveServer, cast: Cast) -> None:
    secret = cast.owner.store(category="secret", title="Acme plan", content="acme launch plan")
    token = sign_in(live, cast.outsider.key or "")["access_token"]
    before = snapshot()
    missing = call(live, token, "get", {"id": str(uuid.uuid4())})[0]
    for tool in ("get", "update", "delete"):
        args = {"id": secret["id"], **({"content": "x"} if tool == "update" else {})}
        data, text, error = call(live, token, tool, args)
        assert error and data == missing and "acme" not in text, tool
    for tool, args in (
        ("query", {"query": "launch plan"}),
        ("search", {"query": "launch plan"}),
        ("recent", {}),
        ("categories", {}),
        ("stats", {}),
    ):
        data, text, error = call(live, token, tool, args)
        assert not error and secret["id"] not in str(data) and "acme" not in text, tool
    assert call(live, token, "stats", {})[0]["stats"]["blocks"] == 0
    for tool in ("categories", "stats"):
        assert_unreadable(live, token, tool, {})
    data, _, error = call(live, token, "store", {"category": "c", "title": "t", "content": "x"})
    assert not error and data["scope"] == "globex:main"  # the outsider key's own home scope
    acme = Block.objects.get(pk=secret["id"])
    assert (acme.content, acme.archived) == ("acme launch plan", False)
    assert [row for row in snapshot() if row in before] == before  # nothing else changed
