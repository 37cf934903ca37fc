from __future__ import annotations

import pytest

from ctx.models import ApiKey
from ctx.selectors import KEY_NOT_ACCEPTED, MALFORMED_KEY, NO_KEY
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


def _refusal(key: str | None) -> str:
    status, body = Api(key).get("/api/whoami")
    assert status == 401 and body["error"]["code"] == "unauthorized"
    return str(body["error"]["message"])


def test_it_says_when_no_key_was_sent(cast: Cast) -> None:
    assert _refusal(None) == NO_KEY and "Authorization: Bearer" in NO_KEY


@pytest.mark.parametrize("key", ["nonsense", "ctx_short_key", "ctx_aaaaaaaa_" + "b" * 39])
def test_it_says_when_a_key_is_malformed(cast: Cast, key: str) -> None:
    assert _refusal(key) == MALFORMED_KEY


def test_it_refuses_an_unknown_key_and_a_wrong_secret_alike(cast: Cast) -> None:
    assert cast.owner.key is not None
    tampered = cast.owner.key[:-1] + ("A" if cast.owner.key[-1] != "A" else "B")
    unknown = "ctx_aaaaaaaa_" + "b" * 40
    # Whether a prefix exists is no one's business without its secret: the same answer.
    assert _refusal(tampered) == _refusal(unknown) == KEY_NOT_ACCEPTED


def test_it_tells_the_holder_of_a_revoked_key_or_suspended_tenant(cast: Cast) -> None:
    ApiKey.objects.filter(name="reader").update(active=False)
    assert "revoked" in _refusal(cast.reader.key)
    cast.acme.status = "suspended"
    cast.acme.save()
    assert "suspended" in _refusal(cast.owner.key)
    # A stranger guessing at the suspended tenant's key prefix learns nothing.
    assert cast.owner.key is not None
    assert _refusal(cast.owner.key[:-1] + ("A" if cast.owner.key[-1] != "A" else "B")) == (
        KEY_NOT_ACCEPTED
    )


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
