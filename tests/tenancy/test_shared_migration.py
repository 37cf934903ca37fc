"""Migration ctx 0020: a tenant's own scope called `shared` (allowed before) is renamed so that
the name is left to the server-wide scope."""

from __future__ import annotations

import importlib
from typing import Any

from django.apps import apps

from ctx import services
from ctx.models import Scope
from ctx.shared import shared_scope

migration = importlib.import_module("migrations.ctx.0020_shared_scope")


def test_it_renames_a_tenants_own_shared_scope(db: Any) -> None:
    acme = services.tenant_create(name="acme")
    globex = services.tenant_create(name="globex", scopes=["globex:shared"])
    Scope.objects.create(tenant=acme, name="shared")  # as an older server allowed
    migration.rename_tenant_scopes(apps, None)
    assert Scope.objects.filter(tenant=acme, name="acme:shared").exists()
    Scope.objects.create(tenant=globex, name="shared")
    migration.rename_tenant_scopes(apps, None)
    renamed = Scope.objects.get(tenant=globex, name__startswith="globex:shared-")
    assert renamed.name == f"globex:shared-{renamed.pk}"
    kept = shared_scope()
    migration.rename_tenant_scopes(apps, None)
    assert Scope.objects.get(pk=kept.pk).name == "shared"
