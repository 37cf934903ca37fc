"""MCP tool `stats`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_counts_live_and_archived_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(title="a", content="a")
    gone = cast.owner.store(title="b", content="b", scope="acme:team")
    cast.owner.post("/api/manage", {"action": "delete", "id": gone["id"]})
    data, text, error = call(live, cast.owner.key or "", "stats", {})
    assert not error and data["stats"]["blocks"] == 1 and data["stats"]["archived"] == 1
    assert data["stats"]["scopes"] == {"acme:main": 1}
    assert text.startswith("blocks: 1")


def test_it_never_counts_another_tenants_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(title="a", content="a")
    data, _, error = call(live, cast.outsider.key or "", "stats", {})
    assert not error and data["stats"]["blocks"] == 0 and data["stats"]["scopes"] == {}
    assert_unreadable(live, cast.outsider.key or "", "stats", {})
