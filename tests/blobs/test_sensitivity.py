"""A credential in a text blob raises its sensitivity; a key below that level gets neither the
text, nor the hash, nor the bytes (ctx/masking.py), and still finds the blob by its name."""

from __future__ import annotations

import json

import pytest

from ctx import services
from tests.blobs.conftest import AWS, download, stored
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db

ENV = f"# staging\nAWS_REGION=eu-west-1\nAWS_ACCESS_KEY_ID={AWS}\n".encode()
MARK = "[redacted:credentials]"


def _vault(cast: Cast) -> Api:
    _, raw = services.key_create(
        tenant=cast.acme, name="vault", home="acme:main", write=[], max_sensitivity="credentials"
    )
    return Api(raw)


def test_it_raises_the_sensitivity_of_a_file_holding_a_credential(cast: Cast) -> None:
    plain = stored(cast.owner, b"just a shopping list: eggs, milk", "list.txt")
    secret = stored(cast.owner, ENV, "staging.env")
    assert plain["sensitivity"] == "internal" and plain["redacted"] is False
    assert secret["sensitivity"] == "credentials" and secret["redacted"] is True
    assert secret["sha256"] == MARK


def test_it_masks_the_text_for_a_key_below_the_level(cast: Cast) -> None:
    blob = stored(cast.owner, ENV, "staging.env")
    status, body = cast.owner.get(f"/api/blob/{blob['id']}")
    assert status == 200 and body["text"] == MARK and "max_sensitivity" in body["hint"]
    status, body = cast.owner.post("/api/blob/search", {"name": "staging"})
    assert body["blobs"][0]["name"] == "staging.env" and body["blobs"][0]["snippet"] == MARK
    resp = download(cast.owner, blob["id"])
    assert resp.status_code == 403 and AWS.encode() not in resp.content
    assert AWS not in json.dumps(body)


def test_it_shows_the_text_to_a_key_with_the_credentials_ceiling(cast: Cast) -> None:
    blob = stored(cast.owner, ENV, "staging.env")
    vault = _vault(cast)
    status, body = vault.get(f"/api/blob/{blob['id']}")
    assert status == 200 and AWS in body["text"] and body["blob"]["redacted"] is False
    resp = download(vault, blob["id"])
    assert resp.status_code == 200 and b"".join(resp.streaming_content) == ENV
