"""The `shared` scope through MCP, against the live server (runtime role, RLS on): a granted key's
search, query, get and recent return shared blocks; a key without the grant gets nothing, and a
shared block's id answers like a missing one."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ctx import services
from tests.conftest import Api, Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    """As tests/mcp/conftest.py: this process's writes skip the embedding enqueue."""
    settings.CELERY_BROKER_URL = ""
    settings.CTX = {**settings.CTX, "CTX_GUARD_HINTS": False}


def _shared_block(cast: Cast) -> tuple[str, str]:
    """A shared block written by a key a server admin let write `shared`, and an acme key
    with the read grant."""
    _, publisher = services.key_create(
        tenant=cast.globex, name="publisher", home="globex:main", write=["shared"]
    )
    stored = Api(publisher).store(
        scope="shared", category="office", title="Wifi", content="The wifi password rotates."
    )
    _, reader = services.key_create(
        tenant=cast.acme, name="reader", home="acme:main", read=["shared"]
    )
    return stored["id"], reader


def _ids(data: Any, field: str) -> list[str]:
    return [r["id"] for r in data[field]]


def test_it_returns_shared_blocks_to_a_granted_key(live: LiveServer, cast: Cast) -> None:
    block_id, reader = _shared_block(cast)
    data, _, error = call(live, reader, "search", {"query": "wifi password"})
    assert not error and _ids(data, "results") == [block_id]
    data, _, error = call(live, reader, "query", {"query": "wifi password"})
    assert not error and _ids(data, "sources") == [block_id]
    data, _, error = call(live, reader, "recent", {"scopes": ["shared"]})
    assert not error and _ids(data, "results") == [block_id]
    data, _, error = call(live, reader, "get", {"id": block_id})
    assert not error and data["block"]["scope"] == "shared"


def test_it_hides_shared_blocks_from_a_key_without_the_grant(live: LiveServer, cast: Cast) -> None:
    block_id, _ = _shared_block(cast)
    plain = cast.owner.key or ""
    data, _, error = call(live, plain, "search", {"query": "wifi password"})
    assert not error and data["results"] == []
    data, _, error = call(live, plain, "query", {"query": "wifi password"})
    assert not error and data["sources"] == []
    data, _, error = call(live, plain, "recent", {})
    assert not error and block_id not in _ids(data, "results")
    shared = call(live, plain, "get", {"id": block_id})
    assert shared[2] and shared == call(live, plain, "get", {"id": str(uuid.uuid4())})
