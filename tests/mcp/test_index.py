"""MCP tools `index` and `index_search`: the same operations as /api/index, through a real MCP
client against the live server (which runs as the runtime role, under row-level security)."""

from __future__ import annotations

import pytest

from tests.conftest import Cast
from tests.mcp.live import LiveServer, call
from tests.refindex.support import GUIDE, search

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_indexes_and_searches_like_the_http_api(live: LiveServer, cast: Cast) -> None:
    key = cast.owner.key or ""
    data, text, error = call(live, key, "index", {"content": GUIDE, "source": "guide.md"})
    assert not error and data["action"] == "created" and data["source"]["chunks"] == 6
    assert "Guide > Configure > Database" in text and "index_search" in text
    queries = ["retries webhooks", "pgvectr"]
    args = {"queries": queries, "limit": 2}
    found, text, error = call(live, key, "index_search", args)
    assert not error and found["results"][1]["corrections"] == {"pgvectr": "pgvector"}
    assert "«retries» failed «webhooks»" in text and "(typo)" in text
    _, over_http = search(cast.owner, *queries, limit=2)
    assert {**found, "success": True} == over_http


def test_it_keeps_another_tenants_documents_out_of_reach(live: LiveServer, cast: Cast) -> None:
    call(live, cast.owner.key or "", "index", {"content": GUIDE, "source": "guide.md"})
    outsider = cast.outsider.key or ""
    found, _, error = call(live, outsider, "index_search", {"queries": ["scheduler", "pgvectr"]})
    assert not error and [r["hits"] for r in found["results"]] == [[], []]
    named = call(live, outsider, "index_search", {"queries": ["x"], "source": "guide.md"})
    missing = call(live, outsider, "index_search", {"queries": ["x"], "source": "none.md"})
    assert named == missing and named[2] and named[0]["error"]["code"] == "not_found"
    refused = call(live, outsider, "index", {"content": "x", "source": "a", "scope": "acme:main"})
    assert refused[2] and refused[0]["error"]["code"] == "forbidden"


def test_it_rejects_unknown_arguments(live: LiveServer, cast: Cast) -> None:
    data, _, error = call(
        live, cast.owner.key or "", "index", {"content": "x", "source": "a", "x": 1}
    )
    assert error and data["error"]["message"] == "Unknown field 'x'."
