"""Row-level security on the index tables: an unfiltered query as the runtime role sees only
the caller's rows (the second wall behind the selectors, docs/rls.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection

from ctx import selectors
from ctx.models import Scope
from rls import context as rls
from rls.role import ROLE
from tests.conftest import Cast
from tests.refindex.support import GUIDE, index

pytestmark = pytest.mark.django_db
TABLES = ["refindex_source", "refindex_chunk", "refindex_term", "refindex_word"]


@pytest.fixture
def runtime_role(cast: Cast) -> Iterator[Cast]:
    assert index(cast.owner, GUIDE)[0] == 201
    assert index(cast.outsider, "Globex invoices.\n\nMore invoices.", source="g.txt")[0] == 201
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {ROLE}")
    rls.arm(connection)
    try:
        yield cast
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
        rls.arm(connection)


def _scopes_seen(table: str) -> set[int]:
    with connection.cursor() as cur:
        cur.execute(f"SELECT DISTINCT scope_id FROM {table}")  # noqa: S608 - ours
        return {row[0] for row in cur.fetchall()}


@pytest.mark.parametrize("who,scope", [("owner", "acme:main"), ("outsider", "globex:main")])
def test_it_shows_an_unfiltered_query_only_the_callers_rows(
    runtime_role: Cast, who: str, scope: str
) -> None:
    principal = selectors.principal_for_key(getattr(runtime_role, who).key)
    assert principal is not None
    with rls.using(rls.for_principal(principal)):
        for table in TABLES:
            assert _scopes_seen(table) == {Scope.objects.get(name=scope).pk}, table
    with rls.using(rls.NONE):
        assert all(_scopes_seen(table) == set() for table in TABLES)
