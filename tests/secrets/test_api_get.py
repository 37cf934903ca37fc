"""`GET /api/secrets[/{name}]`: metadata only; another tenant's secret is simply not there."""

from __future__ import annotations

import pytest
from pytest_django import DjangoAssertNumQueries

from secrets import selectors
from secrets.models import Secret
from tests.conftest import Cast
from tests.secrets.conftest import VALUE, make_secret, send

pytestmark = pytest.mark.django_db

METADATA = {"name", "scope", "key_version", "created_by", "created_at", "rotated_by", "rotated_at"}


def test_it_returns_metadata_and_references_only(cast: Cast) -> None:
    make_secret(cast.owner_key, "db")
    status, body = send(cast.owner, "GET", "/api/secrets/db")
    assert status == 200 and set(body["secret"]) == METADATA | {"referenced_by"}
    assert body["secret"]["referenced_by"] == [] and VALUE not in str(body)


def test_it_shows_what_the_reference_hook_reports(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_secret(cast.owner_key, "db")
    monkeypatch.setattr(selectors, "REFERENCE_FINDERS", [lambda s: ["setting:CTX_LLM_API_KEY"]])
    body = send(cast.owner, "GET", "/api/secrets/db")[1]
    assert body["secret"]["referenced_by"] == ["setting:CTX_LLM_API_KEY"]


def test_it_lets_a_reader_of_the_scope_see_metadata(cast: Cast) -> None:
    make_secret(cast.owner_key, "db", scope="acme:team")
    status, body = send(cast.reader, "GET", "/api/secrets/db", scope="acme:team")
    assert status == 200 and body["secret"]["scope"] == "acme:team"


def test_it_answers_another_tenants_secret_exactly_like_a_missing_one(cast: Cast) -> None:
    make_secret(cast.owner_key, "db")
    foreign = send(cast.outsider, "GET", "/api/secrets/db", scope="acme:main")
    missing = send(cast.outsider, "GET", "/api/secrets/nothing-here")
    unknown_scope = send(cast.outsider, "GET", "/api/secrets/db", scope="no-such-scope")
    assert foreign == missing == unknown_scope
    assert foreign[0] == 404 and foreign[1]["error"]["code"] == "not_found"


def test_it_hides_a_scope_the_key_cannot_read_within_the_tenant(cast: Cast) -> None:
    make_secret(cast.owner_key, "db", scope="acme:main")
    assert send(cast.writer, "GET", "/api/secrets/db", scope="acme:main")[0] == 404


def test_it_lists_metadata_in_readable_scopes_only(cast: Cast) -> None:
    make_secret(cast.owner_key, "db")
    make_secret(cast.owner_key, "token", scope="acme:team")
    names = {
        who: [(s["scope"], s["name"]) for s in send(api, "GET", "/api/secrets")[1]["secrets"]]
        for who, api in (("owner", cast.owner), ("writer", cast.writer), ("out", cast.outsider))
    }
    assert names == {
        "owner": [("acme:main", "db"), ("acme:team", "token")],
        "writer": [("acme:team", "token")],
        "out": [],
    }
    body = send(cast.owner, "GET", "/api/secrets", scope="acme:team")[1]
    assert body["count"] == 1 and set(body["secrets"][0]) == METADATA


def test_it_lists_in_constant_queries(
    cast: Cast, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    for i in range(5):
        make_secret(cast.owner_key, f"s{i}")
    send(cast.owner, "GET", "/api/secrets")  # warms the key's last-used stamp
    with django_assert_num_queries(3):  # key, its scopes, the secrets
        body = send(cast.owner, "GET", "/api/secrets")[1]
    assert body["count"] == Secret.objects.count() == 5


def test_it_rejects_a_malformed_name(cast: Cast) -> None:
    status, body = send(cast.owner, "GET", "/api/secrets/a%20b")
    assert status == 400 and body["error"]["code"] == "validation_error"
