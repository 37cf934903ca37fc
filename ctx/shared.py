"""The server-wide `shared` scope and the names reserved for it (docs/architecture.md, "Shared").

One scope named exactly `shared` holds knowledge every tenant may be let read. It belongs to
an internal tenant, `_shared`, that no request can name (tenant names start with a-z or 0-9),
so every foreign key (`Scope.tenant`, a key's scope sets) and every row-level-security policy
(`scope_id = ANY(readable ids)`) stays as it is: the shared scope is one more scope id, in a
key's readable set only when the key holds the grant (`ApiKey.read_scopes` names it), in its
writable set only when a server admin gave it (`ApiKey.write_scopes`).

The scope is created the first time a key is granted it, not by a migration: a fresh test
database, a restored server and an upgraded one all get it the same way.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from ctx.errors import ValidationFailed
from ctx.models import Scope, Tenant

SHARED_SCOPE = "shared"
SHARED_TENANT = "_shared"  # internal: a request can never name it (TENANT_NAME_RE)
RESERVED_PREFIX = "_"


def is_reserved_scope(name: str) -> bool:
    """`shared` and names starting with `_` are the server's, never a tenant's."""
    return name == SHARED_SCOPE or name.startswith(RESERVED_PREFIX)


def is_reserved_tenant(name: str) -> bool:
    return name == SHARED_SCOPE or name.startswith(RESERVED_PREFIX)


def refuse_reserved_scope(name: str, field: str) -> None:
    if is_reserved_scope(name):
        raise ValidationFailed(
            f"'{name}' is reserved: `shared` is the server-wide shared scope and names "
            "starting with '_' are the server's; name the scope '<tenant>:…'.",
            details={"field": field},
        )


def refuse_reserved_tenant(name: str, field: str) -> None:
    if is_reserved_tenant(name):
        raise ValidationFailed(
            f"'{name}' is reserved: a tenant cannot be called `shared` or start with '_'.",
            details={"field": field},
        )


def shared_scope() -> Scope:
    """The `shared` scope, created with its internal tenant on first use (idempotent; two
    concurrent first uses meet on the unique names)."""
    found = Scope.objects.filter(name=SHARED_SCOPE, tenant__name=SHARED_TENANT).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            tenant, _ = Tenant.objects.get_or_create(
                name=SHARED_TENANT, defaults={"display_name": "Shared (server-wide)"}
            )
            scope, _ = Scope.objects.get_or_create(
                tenant=tenant,
                name=SHARED_SCOPE,
                defaults={"description": "Server-wide knowledge, readable by granted keys."},
            )
            return scope
    except IntegrityError:  # created meanwhile by another request
        return Scope.objects.get(name=SHARED_SCOPE, tenant__name=SHARED_TENANT)
