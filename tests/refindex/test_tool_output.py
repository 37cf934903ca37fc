"""The sandbox's indexed output (`exec:` and `batch:` sources) is scratch that snippet search
serves: search, query and the listings leave it out unless a caller names its category; a
document indexed on purpose stays findable everywhere."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Cast
from tests.refindex.support import index, search

pytestmark = pytest.mark.django_db

LOG = "\n".join(f"10:{i:02d} INFO deploy shop-api step {i} finished" for i in range(60))
RUNBOOK = "# Deploy\n\nTo deploy shop-api, run make release from the main branch.\n"


@pytest.fixture
def three(cast: Cast) -> Cast:
    cast.owner.store(category="ops", title="Deploy day", content="We deploy shop-api on Fridays.")
    assert index(cast.owner, RUNBOOK, source="runbook.md")[0] == 201
    assert index(cast.owner, LOG, source="exec:0123456789ab", type="text")[0] == 201
    return cast


def _categories(body: dict[str, Any], key: str) -> set[str]:
    return {row["category"] for row in body[key]}


def test_query_and_search_leave_tool_output_out(three: Cast) -> None:
    for path, key in (("/api/query", "sources"), ("/api/search", "results")):
        status, body = three.owner.post(path, {"query": "deploy shop-api", "limit": 20})
        assert status == 200, body
        assert _categories(body, key) == {"ops", "index/runbook.md"}, path


def test_naming_its_category_finds_it(three: Cast) -> None:
    body = {"query": "deploy shop-api", "category": "index/exec:0123456789ab"}
    status, found = three.owner.post("/api/query", body)
    assert status == 200 and _categories(found, "sources") == {"index/exec:0123456789ab"}
    status, hits = search(three.owner, "deploy step 7", source="exec:0123456789ab")
    assert status == 200 and hits["results"][0]["hits"], hits


def test_the_listings_leave_it_out_unless_asked(three: Cast) -> None:
    status, page = three.owner.get("/api/blocks", limit=100)
    assert status == 200 and _categories(page, "results") == {"ops", "index/runbook.md"}
    status, page = three.owner.get("/api/blocks", category="index/exec:0123456789ab")
    assert status == 200 and len(page["results"]) >= 2
    status, recent = three.owner.post("/api/manage", {"action": "recent", "limit": 50})
    assert status == 200, recent
    assert "index/exec:0123456789ab" not in _categories(recent, "results")
