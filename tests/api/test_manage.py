from __future__ import annotations

import base64
import os
import uuid
from pathlib import Path

import pytest
from django.utils import timezone

from ctx.errors import NOT_FOUND_MESSAGE
from ctx.models import Block
from tests.conftest import Cast, snapshot

pytestmark = pytest.mark.django_db

NOT_FOUND = {"success": False, "error": {"code": "not_found", "message": NOT_FOUND_MESSAGE}}
MISSING = "00000000-0000-4000-8000-000000000000"


def test_it_gets_a_block(cast: Cast) -> None:
    data = cast.owner.store(title="Docker", content="compose", tags=["ops"])
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": data["id"]})
    assert status == 200 and body["block"]["content"] == "compose"
    assert body["block"]["tags"] == ["ops"] and body["block"]["scope"] == "acme:main"


def test_it_updates_only_the_given_fields(cast: Cast) -> None:
    data = cast.owner.store(title="Docker", content="compose", tags=["ops"])
    status, body = cast.owner.post(
        "/api/manage", {"action": "update", "id": data["id"], "fields": {"tags": ["infra"]}}
    )
    assert status == 200 and body["block"]["tags"] == ["infra"]
    assert body["block"]["content"] == "compose" and body["block"]["title"] == "Docker"


def test_it_refuses_an_update_onto_another_blocks_key(cast: Cast) -> None:
    a = cast.owner.store(title="A", content="a")
    cast.owner.store(title="B", content="b")
    status, body = cast.owner.post(
        "/api/manage", {"action": "update", "id": a["id"], "fields": {"title": "B"}}
    )
    assert status == 409 and body["error"]["code"] == "conflict"


def test_it_archives_on_delete(cast: Cast) -> None:
    data = cast.owner.store(title="Docker")
    status, body = cast.owner.post("/api/manage", {"action": "delete", "id": data["id"]})
    assert status == 200 and body["action"] == "archived"
    assert Block.objects.get(pk=data["id"]).archived
    assert cast.owner.post("/api/manage", {"action": "get", "id": data["id"]}) == (404, NOT_FOUND)


def test_it_restores_what_delete_archived_and_only_for_its_tenant(cast: Cast) -> None:
    data = cast.owner.store(title="Docker")
    cast.owner.post("/api/manage", {"action": "delete", "id": data["id"]})
    missing = {"action": "restore", "id": "00000000-0000-4000-8000-000000000000"}
    theirs = cast.outsider.post("/api/manage", {"action": "restore", "id": data["id"]})
    assert theirs == cast.outsider.post("/api/manage", missing) and theirs[0] == 404
    assert Block.objects.get(pk=data["id"]).archived
    status, body = cast.owner.post("/api/manage", {"action": "restore", "id": data["id"]})
    assert status == 200 and body["action"] == "restored"
    assert cast.owner.post("/api/manage", {"action": "get", "id": data["id"]})[0] == 200


def test_it_counts_stats_and_categories(cast: Cast) -> None:
    cast.owner.store(category="infra", title="a")
    cast.owner.store(category="infra", title="b")
    cast.owner.store(category="food", title="c")
    cast.outsider.store(category="infra", title="x")
    stats = cast.owner.post("/api/manage", {"action": "stats"})[1]["stats"]
    assert stats["blocks"] == 3 and stats["scopes"] == {"acme:main": 3}
    assert stats["awaiting_embedding"] == 3
    cats = cast.owner.post("/api/manage", {"action": "list-categories"})[1]["categories"]
    assert cats == [{"category": "infra", "count": 2}, {"category": "food", "count": 1}]


def test_it_counts_the_generated_digest_apart_from_the_blocks(cast: Cast) -> None:
    cast.owner.store(category="infra", title="a")
    cast.owner.store(category="food", title="b")
    assert cast.owner.post("/api/digest", {})[1]["action"] == "created"
    stats = cast.owner.post("/api/manage", {"action": "stats"})[1]["stats"]
    assert (stats["blocks"], stats["digests"]) == (2, 1)
    assert stats["scopes"] == {"acme:main": 2} and "digest" not in stats["types"]
    assert stats["awaiting_embedding"] == 2


def test_it_documents_every_stats_field(cast: Cast) -> None:
    stats = cast.owner.post("/api/manage", {"action": "stats"})[1]["stats"]
    api = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    row = next(line for line in api.splitlines() if line.startswith("| `stats` |"))
    assert [k for k in stats if f'"{k}"' not in row] == []


@pytest.mark.parametrize("action", ["get", "delete", "update"])
def test_it_hides_foreign_blocks_exactly_like_missing_ones(cast: Cast, action: str) -> None:
    foreign = cast.owner.store(title="acme secret", content="x")["id"]
    before = snapshot()
    bodies = []
    for block_id in (foreign, MISSING, "not-a-uuid"):
        req = {"action": action, "id": block_id}
        if action == "update":  # the other actions refuse a field they do not take
            req["fields"] = {"content": "pwned"}
        bodies.append(cast.outsider.post("/api/manage", req))
    assert bodies == [(404, NOT_FOUND)] * 3
    assert snapshot() == before


def test_it_lets_a_reader_get_but_not_change(cast: Cast) -> None:
    data = cast.owner.store(title="main note")
    assert cast.reader.post("/api/manage", {"action": "get", "id": data["id"]})[0] == 200
    before = snapshot()
    status, body = cast.reader.post("/api/manage", {"action": "delete", "id": data["id"]})
    assert status == 403 and body["error"]["code"] == "forbidden"
    assert snapshot() == before


def test_it_keeps_foreign_stats_out(cast: Cast) -> None:
    cast.owner.store(title="a")
    assert cast.outsider.post("/api/manage", {"action": "stats"})[1]["stats"]["blocks"] == 0
    foreign = cast.outsider.post("/api/manage", {"action": "stats", "scope": "acme:main"})
    assert foreign == cast.outsider.post("/api/manage", {"action": "stats", "scope": "acme:nope"})
    assert foreign[0] == 403


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"action": "explode"}, "unknown_action"),
        ({}, "unknown_action"),
        ({"action": 5}, "unknown_action"),
        ({"action": "get"}, "validation_error"),
        ({"action": "update", "id": MISSING}, "validation_error"),
        ({"action": "update", "id": MISSING, "fields": {"scope_id": 1}}, "validation_error"),
        ({"action": "update", "id": MISSING, "fields": {"content": ""}}, "validation_error"),
    ],
)
def test_it_rejects_bad_input(cast: Cast, body: dict, code: str) -> None:
    cast.owner.store(title="a")
    before = snapshot()
    status, got = cast.owner.post("/api/manage", body)
    assert status == 400 and got["error"]["code"] == code
    assert snapshot() == before


def test_it_rejects_oversize_update_content(cast: Cast) -> None:
    data = cast.owner.store(title="a")
    before = snapshot()
    status, got = cast.owner.post(
        "/api/manage", {"action": "update", "id": data["id"], "fields": {"content": "x" * 60000}}
    )
    assert status == 413 and got["error"]["code"] == "payload_too_large"
    assert snapshot() == before


def test_it_rejects_malformed_json(cast: Cast) -> None:
    status, got = cast.owner.post("/api/manage", raw="{")
    assert status == 400 and got["error"]["code"] == "invalid_json"


def test_it_gets_a_block_by_the_start_of_its_id(cast: Cast) -> None:
    data = cast.owner.store(title="Docker", content="compose")
    for prefix in (data["id"][:8], data["id"][:13].upper()):
        status, body = cast.owner.post("/api/manage", {"action": "get", "id": prefix})
        assert status == 200 and body["block"]["id"] == data["id"], prefix


def test_it_asks_for_more_of_an_id_that_several_blocks_start_with(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = iter(uuid.UUID(f"ffff0000-0000-4000-8000-00000000000{n}") for n in (1, 2))
    monkeypatch.setattr(Block._meta.get_field("id"), "_get_default", lambda: next(chosen))
    cast.owner.store(title="b1")
    cast.owner.store(title="b2")
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": "ffff0000"})
    assert status == 400 and "give more of the id" in body["error"]["message"]
    one = cast.owner.post(
        "/api/manage", {"action": "get", "id": "ffff0000-0000-4000-8000-0000000000"}
    )
    assert one[0] == 400
    whole = "ffff0000-0000-4000-8000-000000000001"
    assert cast.owner.post("/api/manage", {"action": "get", "id": whole})[0] == 200


def test_it_never_finds_another_tenants_block_by_a_prefix(cast: Cast) -> None:
    foreign = cast.outsider.store(title="x")["id"]
    assert cast.owner.post("/api/manage", {"action": "get", "id": foreign[:8]}) == (404, NOT_FOUND)
    assert cast.owner.post("/api/manage", {"action": "get", "id": foreign[:3]}) == (404, NOT_FOUND)


def test_it_never_counts_another_tenants_block_that_shares_the_prefix(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = iter(uuid.UUID(f"eeee0000-0000-4000-8000-00000000000{n}") for n in (1, 2))
    monkeypatch.setattr(Block._meta.get_field("id"), "_get_default", lambda: next(chosen))
    mine = cast.owner.store(title="mine")["id"]
    cast.outsider.store(title="theirs")
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": "eeee0000"})
    assert status == 200 and body["block"]["id"] == mine  # no "give more": theirs is unseen


def test_it_lists_the_most_recent_blocks(cast: Cast) -> None:
    for n in range(3):
        cast.owner.store(title=f"b{n}")
    status, body = cast.owner.post("/api/manage", {"action": "recent", "limit": 2})
    assert status == 200 and [r["title"] for r in body["results"]] == ["b2", "b1"]


def test_the_designs_action_names_answer_as_their_endpoints_do(cast: Cast) -> None:
    manage = lambda action, **f: cast.owner.post("/api/manage", {"action": action, **f})  # noqa: E731
    assert manage("api-key-list") == cast.owner.get("/api/keys")
    status, made = manage("api-key-create", name="ci", home_scope="acme:team")
    assert status == 201 and made["key"].startswith("ctx_") and made["home_scope"] == "acme:team"
    status, gone = manage("api-key-delete", prefix=made["prefix"])
    assert status == 200 and gone["action"] == "revoked"
    listed = {k["prefix"]: k for k in cast.owner.get("/api/keys")[1]["keys"]}
    assert listed[made["prefix"]]["active"] is False
    assert manage("mcp-client-list") == cast.owner.get("/api/oauth/clients")
    assert manage("dream-mode") == cast.owner.get("/api/dream/mode")
    status, body = manage("api-key-delete")
    assert status == 400 and body["error"]["details"]["field"] == "prefix"
    status, body = manage("nonsense")
    assert status == 400 and "api-key-create" in body["error"]["message"]


def test_stats_shows_each_scopes_storage_measured_and_dated(cast: Cast) -> None:
    from ctx.tasks import measure_storage

    cast.owner.store(title="small", content="x")
    noise = base64.b64encode(os.urandom(24_000)).decode()  # 32,000 characters nothing compresses
    cast.writer.store(scope="acme:team", title="big", content=noise)
    assert cast.owner.post("/api/manage", {"action": "stats"})[1]["stats"]["storage"] == {}
    assert measure_storage() >= 3  # the hourly task: every scope of every tenant
    storage = cast.owner.post("/api/manage", {"action": "stats"})[1]["stats"]["storage"]
    assert set(storage) == {"acme:main", "acme:team"}
    main, team = storage["acme:main"], storage["acme:team"]
    assert team["bytes"] > 20_000 > main["bytes"] > 0  # the big text, as stored
    assert team["bytes"] == team["blocks_bytes"] + team["vectors_bytes"]
    assert main["measured_at"].startswith(str(timezone.now().year))
    # Another tenant's stats never show acme's scopes.
    assert cast.outsider.post("/api/manage", {"action": "stats"})[1]["stats"]["storage"].keys() == {
        "globex:main"
    }
