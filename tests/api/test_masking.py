"""Masking on read through the HTTP API: a credentials block's text reaches only a key whose
read ceiling (max_sensitivity) is credentials; every other key gets `[redacted:credentials]`
in search, query, list, recent, get and history, and the title to find it by."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctx import services
from ctx.models import ApiKey
from retrieval import indexing
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db

AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo
SECRET_NOTE = f"The staging deploy uses access key {AWS} until the rotation in May."
MARK = "[redacted:credentials]"


def _secret(cast: Cast, **extra: Any) -> str:
    stored = cast.owner.store(
        category="infra", title="Staging deploy key", content=SECRET_NOTE, **extra
    )
    assert stored["sensitivity"] == "credentials"
    return str(stored["id"])


def _vault(cast: Cast) -> Api:
    """A key of acme reading acme:main with the credentials ceiling (made on the server)."""
    _, raw = services.key_create(
        tenant=cast.acme, name="vault", home="acme:main", write=[], max_sensitivity="credentials"
    )
    return Api(raw)


def _search(api: Api) -> dict[str, Any]:
    status, body = api.post("/api/search", {"query": "staging deploy access key"})
    assert status == 200 and body["count"] == 1, body
    return dict(body["results"][0])


def test_it_masks_a_credentials_preview_in_search_for_a_default_key(cast: Cast) -> None:
    _secret(cast)
    hit = _search(cast.owner)
    assert hit["title"] == "Staging deploy key"  # the title stays: it is how one finds it
    assert hit["preview"] == MARK and hit["redacted"] is True
    assert AWS not in json.dumps(hit)


def test_it_masks_a_credentials_source_in_query_even_with_explain(cast: Cast) -> None:
    _secret(cast, metadata={"note": f"rotate {AWS}"})
    indexing.embed_pending(limit=10)
    status, body = cast.owner.post(
        "/api/query", {"query": "which access key does staging use?", "explain": True}
    )
    assert status == 200, body
    (source,) = body["sources"]
    assert source["preview"] == MARK and source["redacted"] is True
    assert source["metadata"] == {}  # the detector reads metadata too
    assert AWS not in json.dumps(body)


def test_it_masks_a_credentials_block_in_the_list_and_recent(cast: Cast) -> None:
    _secret(cast)
    status, listed = cast.owner.get("/api/blocks")
    assert status == 200 and listed["results"][0]["preview"] == MARK, listed
    status, recent = cast.owner.post("/api/manage", {"action": "recent"})
    assert status == 200 and recent["results"][0]["preview"] == MARK, recent
    assert AWS not in json.dumps([listed, recent])


def test_it_masks_get_and_says_how_to_read_it(cast: Cast) -> None:
    block_id = _secret(cast, metadata={"note": f"rotate {AWS}"})
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": block_id})
    assert status == 200, body
    block = body["block"]
    assert (block["content"], block["metadata"], block["redacted"]) == (MARK, {}, True)
    assert block["title"] == "Staging deploy key" and block["sensitivity"] == "credentials"
    assert "max_sensitivity 'credentials'" in block["hint"]
    assert "--max-sensitivity credentials" in block["hint"]
    # The content hash of a short secret could be guessed offline: it is masked too.
    assert block["content_hash"] == MARK
    assert AWS not in json.dumps(body)


def test_it_masks_earlier_versions_in_the_history(cast: Cast) -> None:
    block_id = _secret(cast)
    cast.owner.post(
        "/api/manage",
        {"action": "update", "id": block_id, "fields": {"content": f"Now {AWS} and more."}},
    )
    status, body = cast.owner.get(f"/api/blocks/{block_id}/history")
    assert status == 200 and body["versions"][0]["content"] == MARK, body
    assert body["versions"][0]["redacted"] is True
    assert AWS not in json.dumps(body)


def test_it_masks_only_what_is_above_the_ceiling(cast: Cast) -> None:
    _secret(cast)
    cast.owner.store(
        category="people", title="Anna", content="Anna prefers Tuesdays.", sensitivity="personal"
    )
    status, body = cast.owner.get("/api/blocks")
    assert status == 200, body
    previews = {r["title"]: (r["preview"], r.get("redacted")) for r in body["results"]}
    assert previews == {
        "Anna": ("Anna prefers Tuesdays.", None),
        "Staging deploy key": (MARK, True),
    }


def test_it_shows_credentials_in_clear_to_a_key_with_the_credentials_ceiling(cast: Cast) -> None:
    block_id = _secret(cast)
    vault = _vault(cast)
    hit = _search(vault)
    assert AWS in hit["preview"] and "redacted" not in hit
    status, body = vault.post("/api/manage", {"action": "get", "id": block_id})
    assert status == 200 and body["block"]["content"] == SECRET_NOTE, body
    assert "redacted" not in body["block"] and "hint" not in body["block"]
    status, body = vault.post("/api/query", {"query": "staging deploy access key"})
    assert status == 200 and AWS in body["sources"][0]["preview"], body


def test_it_masks_the_same_block_for_one_key_and_not_another(cast: Cast) -> None:
    block_id = _secret(cast)
    vault = _vault(cast)
    masked = cast.reader.post("/api/manage", {"action": "get", "id": block_id})[1]["block"]
    clear = vault.post("/api/manage", {"action": "get", "id": block_id})[1]["block"]
    assert masked["content"] == MARK and clear["content"] == SECRET_NOTE


# --- minting keys with a ceiling ----------------------------------------------------------------


def test_it_creates_a_key_with_the_default_ceiling_personal(cast: Cast) -> None:
    status, body = cast.owner.post("/api/keys", {"name": "laptop"})
    assert status == 201 and body["max_sensitivity"] == "personal", body
    assert ApiKey.objects.get(prefix=body["prefix"]).max_sensitivity == "personal"


def test_it_refuses_to_mint_a_key_above_the_callers_own_ceiling(cast: Cast) -> None:
    status, body = cast.owner.post("/api/keys", {"name": "vault", "max_sensitivity": "credentials"})
    assert status == 403, body
    assert body["error"]["code"] == "forbidden" and "'personal'" in body["error"]["message"]
    assert not ApiKey.objects.filter(name="vault").exists()


def test_it_lets_a_credentials_key_mint_a_credentials_key_that_reads_in_clear(
    cast: Cast,
) -> None:
    cast.owner_key.max_sensitivity = "credentials"
    cast.owner_key.save(update_fields=["max_sensitivity"])
    block_id = _secret(cast)
    status, made = cast.owner.post(
        "/api/keys", {"name": "vault", "max_sensitivity": "credentials", "read_scopes": []}
    )
    assert status == 201 and made["max_sensitivity"] == "credentials", made
    body = Api(made["key"]).post("/api/manage", {"action": "get", "id": block_id})[1]
    assert body["block"]["content"] == SECRET_NOTE


def test_it_caps_a_minted_keys_default_at_a_lower_own_ceiling(cast: Cast) -> None:
    cast.owner_key.max_sensitivity = "internal"
    cast.owner_key.save(update_fields=["max_sensitivity"])
    status, made = cast.owner.post("/api/keys", {"name": "laptop"})
    assert status == 201 and made["max_sensitivity"] == "internal", made


def test_it_rejects_an_unknown_ceiling(cast: Cast) -> None:
    status, body = cast.owner.post("/api/keys", {"name": "k", "max_sensitivity": "secret"})
    assert status == 400 and body["error"]["details"] == {"field": "max_sensitivity"}, body


def test_it_masks_credentials_in_the_changes(cast: Cast) -> None:
    cast.owner.store(category="memory", title="Deploy key", content=SECRET_NOTE, type="fact")
    status, changes = cast.owner.get("/api/changes", since="yesterday")
    assert status == 200 and changes["changes"][0]["sentence"] == f"New fact: {MARK}", changes
    assert AWS not in json.dumps(changes)
