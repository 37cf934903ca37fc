"""A credential setting names a secret in the admin's scope; requests of any tenant use it,
also under row-level security (the servers' runtime role)."""

from __future__ import annotations

import pytest

from ctx.overrides import resolver
from rls import context as rls
from tests.api.settings_support import put, server_admin_key
from tests.conftest import Cast
from tests.secrets.conftest import VALUE, key_a, make_secret, principal  # noqa: F401 - key_a: autouse

pytestmark = pytest.mark.django_db


def test_a_tenants_request_opens_the_servers_referenced_secret(
    cast: Cast,
    runtime_role: None,
) -> None:
    with rls.using(rls.SYSTEM):  # set-up, as an operator would
        root, admin = server_admin_key()
        make_secret(root, "rerank-token")
    assert put(admin, "CTX_RERANK_API_KEY", {"secret": "rerank-token"})[0] == 200
    resolver.invalidate()
    acme = principal(cast.owner_key)
    with rls.using(rls.for_principal(acme)):
        assert resolver.value("CTX_RERANK_API_KEY", acme.tenant_id) == VALUE
