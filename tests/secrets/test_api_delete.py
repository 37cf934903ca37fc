"""`DELETE /api/secrets/{name}`: refused while referenced; 404 for what the key cannot see."""

from __future__ import annotations

import pytest

from ctx import services as ctx_services
from ctx.models import ApiKey
from secrets import selectors
from secrets.models import Secret, SecretAudit
from tests.conftest import Api, Cast
from tests.secrets.conftest import make_secret, send

pytestmark = pytest.mark.django_db


def test_it_deletes_an_unreferenced_secret(cast: Cast) -> None:
    make_secret(cast.owner_key, "db", scope="acme:team")
    status, body = send(cast.owner, "DELETE", "/api/secrets/db", scope="acme:team")
    assert status == 200 and body == {
        "success": True,
        "action": "deleted",
        "name": "db",
        "scope": "acme:team",
    }
    assert not Secret.objects.exists()
    assert SecretAudit.objects.filter(action="deleted", scope="acme/acme:team").exists()


def test_it_refuses_while_something_refers_to_it(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_secret(cast.owner_key, "db")
    monkeypatch.setattr(selectors, "REFERENCE_FINDERS", [lambda s: ["setting:CTX_LLM_API_KEY"]])
    status, body = send(cast.owner, "DELETE", "/api/secrets/db")
    assert status == 409 and body["error"]["code"] == "conflict"
    assert body["error"]["details"] == {"referenced_by": ["setting:CTX_LLM_API_KEY"]}
    assert Secret.objects.count() == 1


def test_it_answers_another_tenants_secret_like_a_missing_one(cast: Cast) -> None:
    make_secret(cast.owner_key, "db")
    _, raw = ctx_services.key_create(
        tenant=cast.globex, name="boss", home="globex:main", role=ApiKey.Role.OWNER
    )
    boss = Api(raw)
    foreign = send(boss, "DELETE", "/api/secrets/db", scope="acme:main")
    missing = send(boss, "DELETE", "/api/secrets/db")
    assert foreign == missing and foreign[0] == 404
    assert Secret.objects.count() == 1


def test_it_needs_the_admin_tier(cast: Cast) -> None:
    make_secret(cast.owner_key, "db", scope="acme:team")
    status, body = send(cast.writer, "DELETE", "/api/secrets/db", scope="acme:team")
    assert status == 403 and body["error"]["code"] == "forbidden"
    assert Secret.objects.count() == 1
