"""The blob endpoints end to end over HTTP: upload, dedup, bytes back, search, update, delete."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctx import tenancy
from tests.blobs.conftest import PNG, download, stored, upload
from tests.conftest import Cast

pytestmark = pytest.mark.django_db

NOTES = b"# Deploy runbook\n\nThe canary stage waits for the kittiwake health check.\n"


def test_it_stores_a_file_and_gives_the_same_bytes_back(cast: Cast, blob_folder: Path) -> None:
    status, body = upload(cast.owner, NOTES, "runbook.md", tags="ops,deploy")
    assert status == 201 and body["action"] == "created"
    blob = body["blob"]
    assert blob["name"] == "runbook.md" and blob["scope"] == "acme:main"
    assert blob["content_type"] == "text/markdown" and blob["size"] == len(NOTES)
    assert blob["tags"] == ["ops", "deploy"] and blob["has_text"] is True
    resp = download(cast.owner, blob["id"])
    assert resp.status_code == 200
    assert b"".join(resp.streaming_content) == NOTES
    assert resp["Content-Type"] == "text/markdown"
    assert resp["X-Content-Type-Options"] == "nosniff"
    assert resp["Content-Disposition"].startswith("attachment")
    assert not any(blob_folder.rglob("runbook.md"))  # stored by hash, never by the client's name


def test_it_returns_the_existing_blob_for_the_same_bytes_in_the_scope(cast: Cast) -> None:
    first = stored(cast.owner, NOTES, "a.md")
    status, body = upload(cast.owner, NOTES, "b.md")
    assert status == 200 and body["action"] == "existing"
    assert body["blob"]["id"] == first["id"] and body["blob"]["name"] == "a.md"


def test_it_makes_a_new_blob_for_the_same_bytes_in_another_scope(cast: Cast) -> None:
    first = stored(cast.owner, NOTES)
    status, body = upload(cast.owner, NOTES, scope="acme:team")
    assert status == 201 and body["action"] == "created"
    assert body["blob"]["id"] != first["id"] and body["blob"]["scope"] == "acme:team"


def test_it_takes_raw_bytes_with_the_name_in_the_query_string(cast: Cast) -> None:
    resp = cast.owner.client.post(
        "/api/blob/store?name=raw.txt&tags=a,b",
        data=b"plain words",
        content_type="application/octet-stream",
        headers=cast.owner._headers(),
    )
    body = json.loads(resp.content)
    assert resp.status_code == 201, body
    assert body["blob"]["name"] == "raw.txt" and body["blob"]["tags"] == ["a", "b"]
    assert body["blob"]["content_type"] == "text/plain"


def test_it_sniffs_the_type_from_the_bytes_not_the_client(cast: Cast) -> None:
    blob = stored(cast.owner, PNG, "notes.txt", ctype="text/plain")
    assert blob["content_type"] == "image/png" and blob["has_text"] is False
    assert download(cast.owner, blob["id"])["Content-Type"] == "image/png"


def test_it_answers_metadata_and_text_without_download(cast: Cast) -> None:
    blob = stored(cast.owner, NOTES, "runbook.md")
    status, body = cast.owner.get(f"/api/blob/{blob['id']}")
    assert status == 200 and body["blob"]["id"] == blob["id"]
    assert "kittiwake" in body["text"] and body["text_truncated"] is False
    status, body = cast.owner.get(f"/api/blob/{blob['id']}", max_chars=10)
    assert body["text"] == NOTES.decode()[:10] and body["text_truncated"] is True


def test_it_searches_by_name_type_tag_and_text(cast: Cast) -> None:
    runbook = stored(cast.owner, NOTES, "runbook.md", tags="ops")
    picture = stored(cast.owner, PNG, "diagram.png", tags="ops,art")
    data = stored(cast.owner, b'{"kittiwake": 1}', "data.json")

    def ids(**query: object) -> list[str]:
        status, body = cast.owner.post("/api/blob/search", query)
        assert status == 200, body
        return sorted(b["id"] for b in body["blobs"])

    assert ids(name="RUNB") == [runbook["id"]]
    assert ids(content_type="image/png") == [picture["id"]]
    assert ids(content_type="application/") == [data["id"]]
    assert ids(tags=["art"]) == [picture["id"]]
    assert ids(tags=["ops"]) == sorted([runbook["id"], picture["id"]])
    assert ids(query="kittiwake") == sorted([runbook["id"], data["id"]])
    assert ids(query="diagram") == [picture["id"]]
    assert ids(query="albatross") == []


def test_it_updates_name_tags_and_the_attached_block(cast: Cast) -> None:
    blob = stored(cast.owner, NOTES)
    block = cast.owner.store(title="Deploy", content="How we deploy.")
    status, body = cast.owner.post(
        "/api/blob/manage",
        {"action": "update", "id": blob["id"], "name": "new.md", "tags": ["x"]}
        | {"block": block["id"]},
    )
    assert status == 200, body
    assert body["blob"]["name"] == "new.md" and body["blob"]["tags"] == ["x"]
    assert body["blob"]["block"] == block["id"]
    status, body = cast.owner.post(
        "/api/blob/manage", {"action": "update", "id": blob["id"], "block": ""}
    )
    assert status == 200 and body["blob"]["block"] is None


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_it_deletes_the_blob_and_its_file(
    cast: Cast, blob_folder: Path, django_capture_on_commit_callbacks: Any
) -> None:
    blob = stored(cast.owner, NOTES)
    assert len(_files(blob_folder)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        status, body = cast.owner.post("/api/blob/manage", {"action": "delete", "id": blob["id"]})
    assert status == 200 and body == {"success": True, "action": "deleted", "id": blob["id"]}
    status, _ = cast.owner.get(f"/api/blob/{blob['id']}")
    assert status == 404
    assert _files(blob_folder) == []


def test_it_deletes_the_files_of_a_deleted_tenant(
    cast: Cast, blob_folder: Path, django_capture_on_commit_callbacks: Any
) -> None:
    stored(cast.owner, NOTES)
    stored(cast.outsider, NOTES)
    assert len(_files(blob_folder)) == 2
    with django_capture_on_commit_callbacks(execute=True):
        tenancy.tenant_purge(cast.globex)
    assert len(_files(blob_folder)) == 1
    status, body = cast.owner.post("/api/blob/search", {})
    assert status == 200 and body["count"] == 1


def test_it_refuses_an_unknown_action_and_a_missing_file(cast: Cast) -> None:
    status, body = cast.owner.post("/api/blob/manage", {"action": "rename", "id": "x"})
    assert status == 400 and body["error"]["code"] == "unknown_action"
    resp = cast.owner.client.post("/api/blob/store", {"name": "x"}, headers=cast.owner._headers())
    body = json.loads(resp.content)
    assert resp.status_code == 400 and body["error"]["details"] == {"field": "file"}


def test_it_refuses_an_unknown_form_field(cast: Cast) -> None:
    status, body = upload(cast.owner, NOTES, colour="red")
    assert status == 400 and body["error"]["details"] == {"field": "colour"}
