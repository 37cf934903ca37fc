"""Tenant isolation and write access: a foreign blob is a missing one, a read-only key stores
nothing, and RLS polices the table like blocks."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from blobs.models import Blob
from tests.blobs.conftest import download, stored, upload
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

SECRET = b"acme quarterly numbers: the heron project"


def _answers(api: Any, blob_id: str) -> list[tuple[int, Any]]:
    """Every way to reach a blob by id: metadata, bytes, update, delete."""
    got = api.get(f"/api/blob/{blob_id}")
    resp = download(api, blob_id)
    update = api.post("/api/blob/manage", {"action": "update", "id": blob_id, "name": "x"})
    delete = api.post("/api/blob/manage", {"action": "delete", "id": blob_id})
    return [got, (resp.status_code, json.loads(resp.content)), update, delete]


def test_it_answers_another_tenants_blob_exactly_like_a_missing_one(cast: Cast) -> None:
    blob = stored(cast.owner, SECRET)
    foreign = _answers(cast.outsider, blob["id"])
    missing = _answers(cast.outsider, str(uuid.uuid4()))
    assert foreign == missing
    assert {status for status, _ in foreign} == {404}
    assert foreign[0][1]["error"] == {"code": "not_found", "message": "No such blob."}
    assert Blob.objects.get(pk=blob["id"]).name == "file.bin"  # neither renamed nor deleted


def test_it_does_not_find_another_tenants_blob_in_search(cast: Cast) -> None:
    stored(cast.owner, SECRET, "heron.txt")
    status, body = cast.outsider.post("/api/blob/search", {"query": "heron"})
    assert status == 200 and body["count"] == 0
    status, body = cast.outsider.post("/api/blob/search", {"scopes": ["acme:main"]})
    assert status == 403


def test_it_refuses_a_read_only_key_the_fixed_403(cast: Cast) -> None:
    status, body = upload(cast.reader, SECRET, scope="acme:main")
    assert status == 403 and body["error"]["code"] == "forbidden"
    status_home, body_home = upload(cast.reader, SECRET)  # its home scope is read-only too
    assert (status_home, body_home) == (status, body)
    assert Blob.objects.count() == 0
    blob = stored(cast.owner, SECRET)  # readable by the reader, not writable
    status, body = cast.reader.post("/api/blob/manage", {"action": "delete", "id": blob["id"]})
    assert status == 403 and Blob.objects.filter(pk=blob["id"]).exists()


def test_it_does_not_attach_a_blob_to_another_tenants_block(cast: Cast) -> None:
    theirs = cast.outsider.store(title="Globex plan", content="x")
    status, body = upload(cast.owner, SECRET, block=theirs["id"])
    assert status == 404 and body["error"]["code"] == "not_found"
