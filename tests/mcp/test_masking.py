"""MCP `get`, `search`, `recent` and `query` mask a credentials block for a key whose read
ceiling is below credentials (the MCP client is itself a remote LLM), and show it in clear to a
key whose ceiling is credentials."""

from __future__ import annotations

import json

import pytest

from ctx import services
from tests.conftest import Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)

AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
SECRET_NOTE = f"The staging deploy uses access key {AWS} until the rotation in May."
MARK = "[redacted:credentials]"


def _secret(cast: Cast) -> str:
    stored = cast.owner.store(category="infra", title="Staging deploy key", content=SECRET_NOTE)
    return str(stored["id"])


def test_it_masks_a_credentials_block_in_every_read_tool(live: LiveServer, cast: Cast) -> None:
    block_id = _secret(cast)
    key = cast.owner.key or ""
    data, text, error = call(live, key, "get", {"id": block_id})
    assert not error and data["block"]["content"] == MARK and data["block"]["redacted"] is True
    assert data["block"]["title"] == "Staging deploy key"
    assert "max_sensitivity" in data["block"]["hint"]
    assert AWS not in json.dumps(data) and AWS not in text and MARK in text
    for tool, args in (
        ("search", {"query": "staging deploy access key"}),
        ("recent", {}),
        ("query", {"query": "which access key does staging use?"}),
    ):
        data, text, error = call(live, key, tool, args)
        assert not error, (tool, data)
        rows = data.get("results") or data.get("sources")
        assert rows and rows[0]["preview"] == MARK, (tool, data)
        assert AWS not in json.dumps(data) and AWS not in text, tool


def test_it_shows_credentials_to_a_key_with_the_credentials_ceiling(
    live: LiveServer, cast: Cast
) -> None:
    block_id = _secret(cast)
    _, raw = services.key_create(
        tenant=cast.acme, name="vault", home="acme:main", write=[], max_sensitivity="credentials"
    )
    data, text, error = call(live, raw, "get", {"id": block_id})
    assert not error and data["block"]["content"] == SECRET_NOTE and "redacted" not in data["block"]
    assert AWS in text
    data, _, error = call(live, raw, "search", {"query": "staging deploy access key"})
    assert not error and AWS in data["results"][0]["preview"]
