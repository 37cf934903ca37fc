"""The shared scope on the admin's key page: a tenant owner gives a key the read grant; only a
server admin gives the write grant (the same operation as the API, ctx.tenancy)."""

from __future__ import annotations

import pytest

from ctx.models import ApiKey, Scope
from ctx.shared import shared_scope
from tests.admin.conftest import Keys, sign_in
from tests.conftest import Api

pytestmark = pytest.mark.django_db


def _change(raw: str, target: ApiKey, read: list[int], write: list[int]) -> int:
    main = Scope.objects.get(name="acme:main")
    resp = sign_in(raw).post(
        f"/admin/ctx/apikey/{target.pk}/change/",
        {"home_scope": main.pk, "read_scopes": read, "write_scopes": write},
    )
    return int(resp.status_code)


def test_it_lets_a_tenant_owner_grant_shared_read_only(keys: Keys) -> None:
    target, main, shared = (
        ApiKey.objects.get(name="member"),
        Scope.objects.get(name="acme:main"),
        shared_scope(),
    )
    assert _change(keys.owner, target, [shared.pk], [main.pk]) == 302
    who = Api(keys.member).get("/api/whoami")[1]
    assert (who["read_scopes"], who["write_scopes"]) == (["acme:main", "shared"], ["acme:main"])

    _change(keys.owner, target, [shared.pk], [main.pk, shared.pk])  # refused: not its to give
    assert Api(keys.member).get("/api/whoami")[1]["write_scopes"] == ["acme:main"]

    assert _change(keys.root, target, [shared.pk], [main.pk, shared.pk]) == 302
    assert Api(keys.member).get("/api/whoami")[1]["write_scopes"] == ["acme:main", "shared"]


def _offered(raw: str, field: str) -> list[str]:
    """The labels a key's add page offers in one scope box."""
    form = sign_in(raw).get("/admin/ctx/apikey/add/").context["adminform"].form
    return [str(label) for _, label in form.fields[field].choices if label != "---------"]


def test_the_key_page_names_the_shared_scope_and_offers_writing_it_to_server_admins_only(
    keys: Keys,
) -> None:
    assert "shared" in _offered(keys.owner, "read_scopes")
    assert not any("_shared" in label for label in _offered(keys.owner, "read_scopes"))
    assert "shared" not in _offered(keys.owner, "write_scopes")
    assert "shared" not in _offered(keys.owner, "home_scope")
    assert "acme:main" in _offered(keys.owner, "write_scopes")
    assert "shared" in _offered(keys.root, "write_scopes")
