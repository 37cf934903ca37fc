"""Row-level security on blobs_blob (migrations/rls/0010_blob_policy.py): under the runtime role
an unfiltered query shows only the caller's scopes, and a write into another tenant's scope is
refused by the database itself."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, transaction

from blobs.models import Blob
from ctx import selectors
from ctx.models import Scope
from rls import context as rls
from tests.conftest import Cast

pytestmark = pytest.mark.django_db


def _blob(scope: Scope, name: str) -> Blob:
    digest = f"{scope.pk:064x}"
    return Blob.objects.create(
        scope=scope, name=name, content_type="text/plain", size=1, sha256=digest,
        storage_name=f"{scope.pk}/x", created_by="test",
    )  # fmt: skip


@pytest.fixture
def blobs(cast: Cast) -> Cast:
    _blob(Scope.objects.get(name="acme:main"), "acme file")
    _blob(Scope.objects.get(name="globex:main"), "globex file")
    return cast


def _as(cast: Cast, which: str) -> Any:
    principal = selectors.principal_for_key(getattr(cast, which).key)
    assert principal is not None
    return rls.for_principal(principal)


def test_it_shows_each_tenant_only_its_own_blobs(blobs: Cast, runtime_role: None) -> None:
    with rls.using(_as(blobs, "owner")):
        assert [b.name for b in Blob.objects.all()] == ["acme file"]
    with rls.using(_as(blobs, "outsider")):
        assert [b.name for b in Blob.objects.all()] == ["globex file"]
    with rls.using(rls.NONE):
        assert Blob.objects.count() == 0


def test_it_refuses_a_blob_written_into_another_tenants_scope(
    blobs: Cast,
    runtime_role: None,
) -> None:
    globex = Scope.objects.get(name="globex:main")
    with rls.using(_as(blobs, "owner")):
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            _blob(globex, "planted")
        assert Blob.objects.filter(scope=globex).update(name="renamed") == 0
