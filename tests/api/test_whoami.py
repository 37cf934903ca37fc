from __future__ import annotations

import pytest

from ctx.models import ApiKey
from tests.conftest import Api, Cast

pytestmark = pytest.mark.django_db


def test_it_describes_the_key(cast: Cast) -> None:
    status, body = cast.reader.get("/api/whoami")
    assert status == 200
    assert body["tenant"] == "acme" and body["home_scope"] == "acme:team"
    assert body["read_scopes"] == ["acme:main", "acme:team"] and body["write_scopes"] == []
    assert body["role"] == "member" and body["is_admin"] is False
    assert "secret_hmac" not in str(body)


def test_it_accepts_a_bearer_header(cast: Cast) -> None:
    resp = Api(None).client.get("/api/whoami", HTTP_AUTHORIZATION=f"Bearer {cast.owner.key}")
    assert resp.status_code == 200 and resp.json()["tenant"] == "acme"


@pytest.mark.parametrize("key", ["", "nonsense", "ctx_aaaaaaaa_" + "b" * 40])
def test_it_refuses_bad_keys_alike(cast: Cast, key: str) -> None:
    status, body = Api(key or None).get("/api/whoami")
    assert status == 401
    assert body == {
        "success": False,
        "error": {"code": "unauthorized", "message": "A valid API key is required."},
    }


def test_it_refuses_a_key_with_a_wrong_secret(cast: Cast) -> None:
    assert cast.owner.key is not None
    tampered = cast.owner.key[:-1] + ("A" if cast.owner.key[-1] != "A" else "B")
    assert Api(tampered).get("/api/whoami")[0] == 401


def test_it_refuses_revoked_keys_and_suspended_tenants(cast: Cast) -> None:
    ApiKey.objects.filter(name="reader").update(active=False)
    assert cast.reader.get("/api/whoami")[0] == 401
    cast.acme.status = "suspended"
    cast.acme.save()
    assert cast.owner.get("/api/whoami")[0] == 401


def test_it_records_last_use_at_most_once_a_minute(cast: Cast) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    cast.owner.get("/api/whoami")
    first = ApiKey.objects.get(name="owner").last_used_at
    assert first is not None
    with CaptureQueriesContext(connection) as ctx:
        cast.owner.get("/api/whoami")
    assert not any(q["sql"].startswith("UPDATE") for q in ctx.captured_queries)
    assert ApiKey.objects.get(name="owner").last_used_at == first


def test_it_stores_only_an_hmac_of_the_secret(cast: Cast) -> None:
    key = ApiKey.objects.get(name="owner")
    assert cast.owner.key is not None
    secret = cast.owner.key.split("_")[2]
    assert secret not in key.secret_hmac and len(key.secret_hmac) == 64
