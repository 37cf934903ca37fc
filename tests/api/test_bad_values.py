"""Bad values end in a 400 naming the field, never a 500, and nothing is stored (issue 18 B, C);
a row holding a timestamp Python cannot present never breaks a read (B)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from tests.conftest import Cast, snapshot
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db

NOTE = {"category": "notes", "title": "t", "content": "c"}


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**NOTE, "title": "a\x00b"}, "title"),
        ({**NOTE, "content": "nul \x00 here"}, "content"),
        ({**NOTE, "tags": ["ok", "x\x00"]}, "tags[1]"),
        ({**NOTE, "metadata": {"k": {"deep": "v\x00"}}}, "metadata.k.deep"),
        ({**NOTE, "metadata": {"k\x00": 1}}, "metadata.k\x00"),
        ({**NOTE, "valid_from": "2026-13-45"}, "valid_from"),
        ({**NOTE, "valid_from": "2026-02-30T00:00:00"}, "valid_from"),
        ({**NOTE, "valid_to": "2026-01-01T25:61:61"}, "valid_to"),
        ({**NOTE, "valid_to": "2026-01-01T00:00:00+99:00"}, "valid_to"),
        ({**NOTE, "valid_to": "9999-12-31T23:59:59-12:00"}, "valid_to"),
        ({**NOTE, "valid_from": "0001-01-01T00:00:00+14:00"}, "valid_from"),
        ({**NOTE, "metadata": _nested(40)}, "metadata"),
    ],
)
def test_it_refuses_a_bad_value_on_store_by_name(
    cast: Cast, body: dict[str, Any], field: str
) -> None:
    before = snapshot()
    status, answer = cast.owner.post("/api/store", body)
    assert status == 400 and answer["error"]["code"] == "validation_error"
    assert answer["error"]["details"]["field"].startswith(field)
    assert snapshot() == before


def test_it_refuses_a_lone_surrogate(cast: Cast) -> None:
    raw = '{"category": "notes", "title": "\\ud800", "content": "c"}'
    status, answer = cast.owner.post("/api/store", raw=raw)
    assert status == 400 and answer["error"]["details"]["field"] == "title"


def test_it_refuses_json_nested_thousands_deep(cast: Cast) -> None:
    raw = (
        '{"category": "n", "title": "t", "content": "c", "metadata": '
        + "[" * 5000
        + "]" * 5000
        + "}"
    )
    status, answer = cast.owner.post("/api/store", raw=raw)
    assert status == 400 and answer["success"] is False


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "deploy", "now": "2026-02-30"}, "now"),
        ({"query": "deploy", "as_of": "2026-01-01T00:00:00+99:00"}, "as_of"),
        ({"query": "dep\x00loy"}, "query"),
        ({"query": "deploy", "scopes": ["acme:\x00"]}, "scopes[0]"),
    ],
)
def test_it_refuses_a_bad_value_on_query_by_name(
    cast: Cast, body: dict[str, Any], field: str
) -> None:
    status, answer = cast.owner.post("/api/query", body)
    assert status == 400 and answer["error"]["details"]["field"] == field


def test_it_refuses_a_bad_value_on_update_and_in_a_query_string(cast: Cast) -> None:
    block = cast.owner.store(title="keep", content="kept")
    update = {"action": "update", "id": block["id"], "fields": {"valid_to": "2026-02-30"}}
    status, answer = cast.owner.post("/api/manage", update)
    assert status == 400 and "valid_to" in answer["error"]["details"]["field"]
    status, answer = cast.owner.get("/api/guard", scope="acme:\x00")
    assert status == 400 and answer["error"]["details"]["field"] == "scope"


def _break_dates(block_id: str) -> None:
    """What the old input check let through, written as it was stored then."""
    with connection.cursor() as cur:
        cur.execute(
            "UPDATE ctx_block SET valid_to = '10000-01-01 11:59:59+00',"
            " valid_from = '0001-12-31 10:00:00+00 BC' WHERE id = %s",
            [block_id],
        )


def test_it_reads_past_a_row_with_a_timestamp_python_cannot_hold(cast: Cast) -> None:
    bad = cast.owner.store(title="Deploy policy", content="Deploys happen on Tuesdays.")
    cast.owner.store(title="Deploy window", content="Deploys happen before noon.")
    _break_dates(bad["id"])
    status, body = cast.owner.post("/api/query", {"query": "deploys"})
    assert status == 200 and len(body["sources"]) == 2
    status, body = cast.owner.post("/api/manage", {"action": "get", "id": bad["id"]})
    assert status == 200 and body["block"]["valid_to"].startswith("9999-12-30")
    fix = {"action": "update", "id": bad["id"], "fields": {"valid_to": "2030-01-01"}}
    assert cast.owner.post("/api/manage", fix)[0] == 200
    assert cast.owner.post("/api/manage", {"action": "delete", "id": bad["id"]})[0] == 200


@pytest.mark.django_db(transaction=True)
def test_it_answers_mcp_store_with_a_validation_error(live: LiveServer, cast: Cast) -> None:
    args = {**NOTE, "content": "nul \x00 here"}
    _, text, error = call(live, cast.owner.key or "", "store", args)
    assert error and "content" in text and "internal" not in text


# Found by schemathesis (tests/api/test_schema_fuzz.py): each was a 500.


@pytest.mark.parametrize("path", ["/api/context", "/api/changes", "/api/preferences/active"])
def test_an_unknown_format_is_a_400_naming_it(cast: Cast, path: str) -> None:
    status, body = cast.owner.get(path, format="AAA")
    assert (status, body["error"]["details"]) == (400, {"field": "format"}), body


def test_a_digit_that_is_not_decimal_is_not_an_id(cast: Cast) -> None:
    status, body = cast.owner.get("/api/sessions/³")
    assert (status, body["error"]["code"]) == (404, "not_found"), body
