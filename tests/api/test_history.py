"""GET /api/blocks/{id}/history and POST …/history/{version}/restore: every change keeps the
content it replaced, with who, when and through which interface; a version comes back as a new
change."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db


def _update(api: Api, block_id: str, **fields: Any) -> dict[str, Any]:
    status, body = api.post("/api/manage", {"action": "update", "id": block_id, "fields": fields})
    assert status == 200, body
    return body


def _history(api: Api, block_id: str, **params: Any) -> dict[str, Any]:
    status, body = api.get(f"/api/blocks/{block_id}/history", **params)
    assert status == 200, body
    return body


def test_it_keeps_the_replaced_content_with_who_and_how(cast: Cast) -> None:
    block = cast.owner.store(title="Deploy day", content="We deploy on Tuesdays.", tags=["ops"])
    _update(cast.owner, block["id"], content="We deploy on Thursdays.", tags=["ops", "prod"])
    body = _history(cast.owner, block["id"])
    assert body["current"]["version"] == 2 and body["count"] == 1
    assert body["current"]["written_by"] == "owner" and body["current"]["written_via"] == "http"
    (old,) = body["versions"]
    assert old["version"] == 1 and old["content"] == "We deploy on Tuesdays."
    assert old["tags"] == ["ops"] and old["title"] == "Deploy day"
    assert old["replaced_by"] == "owner" and old["replaced_via"] == "http"
    assert old["written_at"] <= old["replaced_at"]


def test_it_records_a_store_over_the_same_title_and_not_an_identical_one(cast: Cast) -> None:
    first = cast.owner.store(title="Editor", content="Vim")
    cast.owner.store(title="Editor", content="Vim")  # identical: a no-op, no version
    cast.owner.store(title="Editor", content="Emacs")
    cast.owner.store(title="Editor", content="Helix")
    body = _history(cast.owner, first["id"])
    assert [v["content"] for v in body["versions"]] == ["Emacs", "Vim"]
    assert body["current"]["version"] == 3


def test_it_records_batch_updates_too(cast: Cast) -> None:
    block = cast.owner.store(title="a", content="one")
    items = [
        {"category": "notes", "title": "a", "content": "two"},
        {"category": "notes", "title": "b", "content": "x"},
    ]
    status, body = cast.owner.post("/api/store/batch", {"blocks": items})
    assert status == 200, body
    assert [v["content"] for v in _history(cast.owner, block["id"])["versions"]] == ["one"]


def test_it_tells_the_cli_from_other_http_clients(cast: Cast) -> None:
    block = cast.owner.store(title="x", content="one")
    resp = cast.owner.client.post(
        "/api/manage",
        data={"action": "update", "id": block["id"], "fields": {"content": "two"}},
        content_type="application/json",
        headers={"X-Context-Key": str(cast.owner.key), "User-Agent": "ctx-cli/0.1.0"},
    )
    assert resp.status_code == 200
    assert _history(cast.owner, block["id"])["versions"][0]["replaced_via"] == "cli"


def test_it_restores_a_version_as_a_new_version(cast: Cast) -> None:
    block = cast.owner.store(title="Deploy day", content="Tuesdays", tags=["ops"])
    _update(cast.owner, block["id"], content="Thursdays", title="Deploy weekday", tags=[])
    status, body = cast.owner.post(f"/api/blocks/{block['id']}/history/1/restore")
    assert status == 200, body
    assert body["restored_version"] == 1 and body["current_version"] == 3
    assert body["block"]["content"] == "Tuesdays" and body["block"]["title"] == "Deploy day"
    assert body["block"]["tags"] == ["ops"]
    history = _history(cast.owner, block["id"])
    assert [v["content"] for v in history["versions"]] == ["Thursdays", "Tuesdays"]  # nothing lost


def test_it_pages_versions_newest_first(cast: Cast) -> None:
    block = cast.owner.store(title="n", content="v1")
    for n in range(2, 6):
        _update(cast.owner, block["id"], content=f"v{n}")
    first = _history(cast.owner, block["id"], limit=2)
    assert [v["version"] for v in first["versions"]] == [4, 3] and first["next_before"] == 3
    second = _history(cast.owner, block["id"], limit=2, before=first["next_before"])
    assert [v["version"] for v in second["versions"]] == [2, 1] and second["next_before"] is None
    assert second["current"] == first["current"]


def test_it_answers_a_foreign_block_exactly_like_a_missing_one(cast: Cast) -> None:
    block = cast.owner.store(title="secret plan", content="one")
    _update(cast.owner, block["id"], content="two")
    missing = "00000000-0000-4000-8000-000000000000"
    for path in ("history", "history/1/restore"):
        send = cast.outsider.get if path == "history" else cast.outsider.post
        foreign = send(f"/api/blocks/{block['id']}/{path}")
        absent = send(f"/api/blocks/{missing}/{path}")
        assert foreign == absent and foreign[0] == 404


def test_it_answers_a_missing_version_like_a_missing_block(cast: Cast) -> None:
    block = cast.owner.store(title="x", content="one")
    status, body = cast.owner.post(f"/api/blocks/{block['id']}/history/7/restore")
    missing = cast.owner.post("/api/blocks/00000000-0000-4000-8000-000000000000/history/7/restore")
    assert status == 404 and (status, body) == missing


def test_it_lets_a_reader_see_history_but_not_restore(cast: Cast) -> None:
    block = cast.owner.store(title="team note", content="one", scope="acme:team")
    _update(cast.owner, block["id"], content="two")
    assert _history(cast.reader, block["id"])["count"] == 1
    status, body = cast.reader.post(f"/api/blocks/{block['id']}/history/1/restore")
    assert status == 403, body


def test_it_refuses_a_version_that_is_not_a_number(cast: Cast) -> None:
    block = cast.owner.store(title="x", content="one")
    status, body = cast.owner.post(f"/api/blocks/{block['id']}/history/latest/restore")
    assert status == 400 and body["error"]["message"] == "'version' must be an integer."
