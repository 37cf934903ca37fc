"""The database's own wall around `shared`: under the runtime role, with the context the request
path applies (ctx/auth.py → rls.context), the policies hide the shared scope's rows from a key
without the read grant, in every policed table, and refuse writes there without the write grant.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from ctx import selectors, services
from ctx.models import ApiKey, Block
from ctx.shared import shared_scope
from rls import context as rls
from tests.conftest import Cast
from tests.ctx.test_rls import POLICED, _refused, _scopes_seen, _tenant_rows


def _principal(key: ApiKey) -> Any:
    return selectors.principal_from_key(ApiKey.objects.get(pk=key.pk))


def _grant_read(cast: Cast) -> ApiKey:
    key, _ = services.key_create(
        tenant=cast.acme, name="granted", home="acme:main", read=["shared"]
    )
    return key


def test_it_hides_shared_rows_from_a_session_without_the_grant(
    cast: Cast, runtime_role: None
) -> None:
    with rls.using(rls.SYSTEM):
        shared = shared_scope()
        _tenant_rows(shared, "shared")
        granted = _grant_read(cast)
    plain = _principal(cast.owner_key)  # acme's owner: no grant
    with rls.using(rls.for_principal(plain)):
        for table in POLICED:
            assert shared.pk not in _scopes_seen(table), table
        # Asked for by id, by scope, unfiltered: the database itself returns nothing.
        assert not Block.objects.filter(scope_id=shared.pk).exists()
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM ctx_block WHERE scope_id = %s", [shared.pk])
            assert cur.fetchone() == (0,)
    with rls.using(rls.for_principal(_principal(granted))):
        for table in POLICED:
            assert shared.pk in _scopes_seen(table), table
        assert Block.objects.filter(scope_id=shared.pk).count() == 2


def test_it_refuses_writes_into_shared_without_the_write_grant(
    cast: Cast, runtime_role: None
) -> None:
    with rls.using(rls.SYSTEM):
        shared = shared_scope()
        _tenant_rows(shared, "shared")
        granted = _grant_read(cast)

    def plant() -> None:
        Block.objects.create(scope=shared, category="c", title="x", content="x", content_hash="h")

    with rls.using(rls.for_principal(_principal(granted))):  # reads shared, writes acme:main
        assert _refused(plant)
        assert Block.objects.filter(scope=shared).update(title="renamed") == 0
        assert Block.objects.filter(scope=shared).delete()[0] == 0
