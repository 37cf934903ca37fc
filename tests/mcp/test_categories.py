"""MCP tool `categories`."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, assert_unreadable, call

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_counts_blocks_per_category(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(category="infra", title="a", content="a")
    cast.owner.store(category="infra", title="b", content="b")
    cast.owner.store(category="people", title="c", content="c")
    data, text, error = call(live, cast.owner.key or "", "categories", {})
    assert not error and data["categories"] == [
        {"category": "infra", "count": 2},
        {"category": "people", "count": 1},
    ]
    assert text == "infra: 2\npeople: 1"


def test_it_never_counts_another_tenants_blocks(live: LiveServer, cast: Cast) -> None:
    cast.owner.store(category="secret-project", title="a", content="a")
    data, _, error = call(live, cast.outsider.key or "", "categories", {})
    assert not error and data["categories"] == []
    assert_unreadable(live, cast.outsider.key or "", "categories", {})
