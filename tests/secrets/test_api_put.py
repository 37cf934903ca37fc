"""`PUT /api/secrets/{name}`: create or rotate; tier, scope and input checks; never echoes."""

from __future__ import annotations

import json
import logging

import pytest
from django.conf import LazySettings

from ctx import services as ctx_services
from ctx.errors import FORBIDDEN_SCOPE_MESSAGE
from ctx.models import ApiKey
from ctx.permissions import TIER_MESSAGE
from secrets import services
from secrets.models import Secret, SecretAudit
from tests.conftest import Api, Cast
from tests.secrets.conftest import VALUE, send, use_keys, version

pytestmark = pytest.mark.django_db


def put(api: Api, name: str, **body: object) -> tuple[int, dict]:
    return send(api, "PUT", f"/api/secrets/{name}", {"value": VALUE, **body})


def test_it_creates_then_rotates(cast: Cast) -> None:
    status, body = put(cast.owner, "db-password")
    assert status == 201 and body["success"] and body["action"] == "created"
    secret = body["secret"]
    assert secret["name"] == "db-password" and secret["scope"] == "acme:main"
    assert secret["key_version"] == version("a1" * 32)
    assert secret["created_by"] == cast.owner_key.prefix and secret["rotated_at"] is None
    status, body = put(cast.owner, "db-password", value="another value")
    assert status == 200 and body["action"] == "rotated"
    assert body["secret"]["rotated_by"] == cast.owner_key.prefix
    assert Secret.objects.count() == 1
    actions = list(SecretAudit.objects.order_by("at").values_list("action", flat=True))
    assert actions == ["created", "rotated"]


def test_it_puts_into_a_named_writable_scope(cast: Cast) -> None:
    status, body = put(cast.owner, "token", scope="acme:team")
    assert status == 201 and body["secret"]["scope"] == "acme:team"


def test_it_never_echoes_the_value_or_logs_it(cast: Cast, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    bodies = [put(cast.owner, "db")[1], put(cast.owner, "db")[1]]
    bodies.append(send(cast.owner, "GET", "/api/secrets/db")[1])
    bodies.append(send(cast.owner, "GET", "/api/secrets")[1])
    bodies.append(send(cast.owner, "DELETE", "/api/secrets/db")[1])
    assert all(b["success"] for b in bodies)
    assert VALUE not in json.dumps(bodies)
    assert "db" in caplog.text and VALUE not in caplog.text


def test_it_needs_the_admin_tier(cast: Cast) -> None:
    status, body = put(cast.writer, "db", scope="acme:team")
    assert (status, body["error"]) == (403, {"code": "forbidden", "message": TIER_MESSAGE})
    assert not Secret.objects.exists()


def test_it_refuses_a_scope_the_key_cannot_write_with_one_body(cast: Cast) -> None:
    _, raw = ctx_services.key_create(
        tenant=cast.globex, name="boss", home="globex:main", role=ApiKey.Role.OWNER
    )
    boss = Api(raw)
    answers = [put(boss, "db", scope=s) for s in ("acme:main", "no-such-scope")]
    assert answers[0] == answers[1]
    assert answers[0][0] == 403 and answers[0][1]["error"]["message"] == FORBIDDEN_SCOPE_MESSAGE
    assert not Secret.objects.exists()


@pytest.mark.parametrize(
    ("name", "body", "status", "field"),
    [
        ("bad%20name", {"value": "x"}, 400, "name"),
        ("semi;colon", {"value": "x"}, 400, "name"),
        ("n" * 101, {"value": "x"}, 400, "name"),
        ("db", {}, 400, "value"),
        ("db", {"value": ""}, 400, "value"),
        ("db", {"value": 42}, 400, "value"),
        ("db", {"value": "x" * (services.MAX_VALUE_BYTES + 1)}, 413, "value"),
    ],
)
def test_it_rejects_bad_input(cast: Cast, name: str, body: dict, status: int, field: str) -> None:
    got, answer = send(cast.owner, "PUT", f"/api/secrets/{name}", body)
    assert got == status and answer["error"]["details"]["field"] == field
    assert not Secret.objects.exists()


def test_it_accepts_a_value_of_exactly_the_limit(cast: Cast) -> None:
    status, _ = send(
        cast.owner, "PUT", "/api/secrets/big", {"value": "é" * (services.MAX_VALUE_BYTES // 2)}
    )
    assert status == 201


def test_it_answers_503_without_a_master_key(cast: Cast, settings: LazySettings) -> None:
    use_keys(settings, "")
    status, body = put(cast.owner, "db")
    assert status == 503 and body["error"]["code"] == "service_unavailable"
    assert "CTX_SECRETS_KEY" in body["error"]["message"] and not Secret.objects.exists()


def test_it_answers_401_without_a_key(cast: Cast) -> None:
    assert put(Api(None), "db")[0] == 401
