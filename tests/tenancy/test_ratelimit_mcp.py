"""MCP tool calls spend the same per-key buckets as the HTTP API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def limited(transactional_db: Any, tmp_path: Any, settings: Any) -> Iterator[LiveServer]:
    """A server whose keys may make 2 reads and 2 writes, then one of each a minute."""
    from django.db import connection

    settings.CELERY_BROKER_URL = ""  # this process's own writes skip the enqueue
    env = {
        "CTX_GUARD_HINTS": "false",
        "CTX_RATE_BURST": "2",
        "CTX_RATE_READ_PER_MIN": "1",
        "CTX_RATE_WRITE_PER_MIN": "1",
    }
    name = connection.settings_dict["NAME"]
    yield from start(name, settings.SECRET_KEY, tmp_path / "uvicorn.log", **env)


def test_it_limits_tool_calls_per_key_and_kind(limited: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    for _ in range(2):
        assert not call(limited, key, "stats", {})[2]
    data, text, error = call(limited, key, "search", {"query": "x"})
    assert error and data["error"]["code"] == "rate_limited"
    assert data["error"]["details"]["bucket"] == "read"
    assert data["error"]["details"]["retry_after"] >= 1
    assert "rate_limited" in text
    stored, _, error = call(limited, key, "store", {"category": "c", "title": "t", "content": "x"})
    assert not error, stored  # writes have their own bucket
    assert not call(limited, cast.outsider.key or "", "stats", {})[2]  # another key is untouched
