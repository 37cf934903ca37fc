from __future__ import annotations

import pytest
from django.utils.timezone import localtime

from ctx.errors import FORBIDDEN_SCOPE_MESSAGE
from ctx.models import Block
from tests.conftest import Api, Cast, snapshot

pytestmark = pytest.mark.django_db


def test_it_creates_then_updates_then_noops(cast: Cast) -> None:
    first = cast.owner.store(category="infra", title="Docker", content="Use compose v2.")
    assert first["action"] == "created" and first["scope"] == "acme:main"
    same = cast.owner.store(category="infra", title="Docker", content="Use compose v2.")
    assert same == {**first, "action": "noop"}
    changed = cast.owner.store(category="infra", title="Docker", content="Use compose v3.")
    assert changed["action"] == "updated" and changed["id"] == first["id"]
    assert Block.objects.get(pk=first["id"]).content == "Use compose v3."


def test_it_returns_201_for_created_and_200_for_noop(cast: Cast) -> None:
    body = {"category": "a", "title": "b", "content": "c"}
    assert cast.owner.post("/api/store", body)[0] == 201
    assert cast.owner.post("/api/store", body)[0] == 200


def test_it_stores_into_a_named_writable_scope(cast: Cast) -> None:
    data = cast.writer.store(scope="acme:team", title="x")
    assert data["scope"] == "acme:team"


def test_it_keeps_tags_metadata_type_and_validity(cast: Cast) -> None:
    data = cast.owner.store(
        tags=["Ops", "db"],
        metadata={"source": "chat"},
        type="decision",
        valid_from="2025-03-01",
        valid_to="2025-04-01T00:00:00Z",
    )
    block = Block.objects.get(pk=data["id"])
    assert block.tags == ["ops", "db"] and block.metadata == {"source": "chat"}
    assert block.type == "decision" and localtime(block.valid_from).month == 3


def test_it_revives_an_archived_block_on_store(cast: Cast) -> None:
    data = cast.owner.store(title="old", content="one")
    cast.owner.post("/api/manage", {"action": "delete", "id": data["id"]})
    again = cast.owner.store(title="old", content="one")
    assert again["action"] == "updated" and not Block.objects.get(pk=data["id"]).archived


@pytest.mark.parametrize(
    ("who", "scope"),
    [
        ("reader", "acme:team"),
        ("writer", "acme:main"),
        ("outsider", "acme:main"),
        ("outsider", "no-such-scope"),
        ("writer", "no-such-scope"),
    ],
)
def test_it_refuses_unwritable_scopes_with_one_body(cast: Cast, who: str, scope: str) -> None:
    api: Api = getattr(cast, who)
    before = snapshot()
    status, body = api.post(
        "/api/store", {"scope": scope, "category": "a", "title": "b", "content": "c"}
    )
    assert status == 403
    assert body == {
        "success": False,
        "error": {"code": "forbidden", "message": FORBIDDEN_SCOPE_MESSAGE},
    }
    assert snapshot() == before


def test_it_refuses_a_read_only_key_in_its_home_scope(cast: Cast) -> None:
    status, body = cast.reader.post("/api/store", {"category": "a", "title": "b", "content": "c"})
    assert status == 403 and body["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"title": "b", "content": "c"}, 400, "validation_error"),
        ({"category": "a", "content": "c"}, 400, "validation_error"),
        ({"category": "a", "title": "b"}, 400, "validation_error"),
        ({"category": 5, "title": "b", "content": "c"}, 400, "validation_error"),
        ({"category": "a", "title": ["b"], "content": "c"}, 400, "validation_error"),
        (
            {"category": "a", "title": "b", "content": "c", "tags": "x" * 101},
            400,
            "validation_error",
        ),
        ({"category": "a", "title": "b", "content": "c", "tags": [1]}, 400, "validation_error"),
        ({"category": "a", "title": "b", "content": "c", "type": "bogus"}, 400, "validation_error"),
        ({"category": "a", "title": "b", "content": "c", "metadata": []}, 400, "validation_error"),
        (
            {"category": "a", "title": "b", "content": "c", "valid_from": "yesterday"},
            400,
            "validation_error",
        ),
        (
            {
                "category": "a",
                "title": "b",
                "content": "c",
                "valid_from": "2025-02-01",
                "valid_to": "2025-01-01",
            },
            400,
            "validation_error",
        ),
        ({"category": "a" * 101, "title": "b", "content": "c"}, 400, "validation_error"),
        ({"category": "a", "title": "b" * 501, "content": "c"}, 400, "validation_error"),
        ({"category": "a", "title": "b", "content": "é" * 25_601}, 413, "payload_too_large"),
        ([1, 2], 400, "validation_error"),
    ],
)
def test_it_rejects_bad_input_and_changes_nothing(
    cast: Cast, body: object, status: int, code: str
) -> None:
    before = snapshot()
    got_status, got = cast.owner.post("/api/store", body)
    assert (got_status, got["success"], got["error"]["code"]) == (status, False, code)
    assert got["error"]["message"]
    assert snapshot() == before


def test_it_accepts_content_at_the_limit(cast: Cast) -> None:
    status, _ = cast.owner.post(
        "/api/store", {"category": "a", "title": "b", "content": "x" * 51_200}
    )
    assert status == 201


def test_it_rejects_malformed_json(cast: Cast) -> None:
    before = snapshot()
    status, body = cast.owner.post("/api/store", raw='{"category": "a",')
    assert status == 400 and body["error"]["code"] == "invalid_json"
    assert snapshot() == before


def test_it_says_which_content_type_to_send(cast: Cast) -> None:
    resp = cast.owner.client.post(
        "/api/store", data="title=a", content_type="text/plain", headers=cast.owner._headers()
    )
    error = resp.json()["error"]
    assert resp.status_code == 415 and error["code"] == "unsupported_media_type"
    assert "Content-Type: application/json" in error["message"]
    assert '"text/plain"' in error["message"]


def test_it_needs_a_key(cast: Cast) -> None:
    status, body = Api(None).post("/api/store", {"category": "a", "title": "b", "content": "c"})
    assert status == 401 and body["error"]["code"] == "unauthorized"


def test_it_batches_and_names_the_bad_item(cast: Cast) -> None:
    good = {"category": "a", "title": "one", "content": "c"}
    status, body = cast.owner.post("/api/store/batch", {"blocks": [good, {**good, "title": "two"}]})
    assert status == 200 and [r["action"] for r in body["results"]] == ["created", "created"]
    before = snapshot()
    status, body = cast.owner.post(
        "/api/store/batch", {"blocks": [{**good, "title": "three"}, {"category": "a"}]}
    )
    assert status == 400 and body["error"]["message"].startswith("blocks[1]:")
    assert snapshot() == before


def test_it_stores_a_batch_with_a_constant_number_of_queries(cast: Cast) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def batch(n: int, prefix: str) -> list[dict[str, str]]:
        return [
            {"category": "c", "title": f"{prefix}{i}", "content": f"text {i}"} for i in range(n)
        ]

    cast.owner.get("/api/whoami")  # records the key's last use, once a minute
    # Both sizes end in a partial group of ctx.bulk.ROWS_PER_STATEMENT rows (one more
    # statement than whole groups alone): 21 and 50 blocks.
    with CaptureQueriesContext(connection) as small:
        cast.owner.post("/api/store/batch", {"blocks": batch(21, "a")})
    with CaptureQueriesContext(connection) as large:
        cast.owner.post("/api/store/batch", {"blocks": batch(50, "b")})
    assert len(large.captured_queries) == len(small.captured_queries)
    assert Block.objects.filter(title__startswith="b").count() == 50


def test_it_mixes_created_updated_and_noop_in_one_batch(cast: Cast) -> None:
    cast.owner.store(category="c", title="same", content="x")
    cast.owner.store(category="c", title="changed", content="old")
    blocks = [
        {"category": "c", "title": "same", "content": "x"},
        {"category": "c", "title": "changed", "content": "new"},
        {"category": "c", "title": "fresh", "content": "y"},
        {"category": "c", "title": "fresh", "content": "y2"},
    ]  # repeated key: last wins
    status, body = cast.owner.post("/api/store/batch", {"blocks": blocks})
    assert status == 200
    assert [r["action"] for r in body["results"]] == ["noop", "updated", "created", "updated"]
    assert Block.objects.get(title="fresh").content == "y2"
    assert Block.objects.get(title="changed").content == "new"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/store", {"category": "a", "title": "x", "content": "y", "tag": ["ops"]}, "tag"),
        ("/api/query", {"query": "deploy", "limt": 1}, "limt"),
        ("/api/search", {"query": "deploy", "categry": "infra"}, "categry"),
    ],
)
def test_it_rejects_an_unknown_field_by_name(cast: Cast, path: str, body: dict, field: str) -> None:
    before = snapshot()
    status, data = cast.owner.post(path, body)
    assert status == 400 and field in data["error"]["message"]
    assert snapshot() == before
