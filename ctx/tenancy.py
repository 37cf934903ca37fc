"""Tenant lifecycle and key management by tier (docs/api.md "Permissions").

Writes are named `noun_verb` like ctx.services; each takes the calling principal and checks its
tier before anything else, so every interface (HTTP, CLI over HTTP) gets the same rules.
Targets outside the caller's reach answer exactly like missing ones (404, same body).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.db.models.deletion import ProtectedError, RestrictedError
from django.utils import timezone

from ctx import services
from ctx.errors import Conflict, NotFound, ValidationFailed
from ctx.models import ApiKey, Block, Scope, Tenant
from ctx.oauth.models import ApiKeyUser
from ctx.permissions import (
    ceiling_for_new_key,
    is_server_admin,
    require_can_manage_role,
    require_server_admin,
    require_tier,
)
from ctx.principal import Principal
from ctx.shared import (
    RESERVED_PREFIX,
    SHARED_SCOPE,
    SHARED_TENANT,
    is_reserved_tenant,
    refuse_reserved_tenant,
)
from rls import context as rls_context

log = logging.getLogger("ctx.tenancy")

TENANT_NOT_FOUND = "Tenant not found."
KEY_NOT_FOUND = "Key not found."
TENANT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")  # a slug that makes valid scope names
DELETE_BATCH = 1000  # blocks (with their dependants) per transaction: bounded locks and WAL


# --- tenants (server admins only) ------------------------------------------------------------


@dataclass(frozen=True)
class NewTenant:
    tenant: Tenant
    owner: ApiKey
    raw_key: str  # shown once


def _tenant(name: str) -> Tenant:
    """A tenant by name; the internal `_shared` tenant answers like a missing one (its scope
    is managed through key grants, never suspended, deleted or given keys)."""
    if is_reserved_tenant(name):
        raise NotFound(TENANT_NOT_FOUND)
    tenant = Tenant.objects.filter(name=name).first()
    if tenant is None:
        raise NotFound(TENANT_NOT_FOUND)
    return tenant


@transaction.atomic
def tenant_create_with_owner(
    *, principal: Principal, name: str, display_name: str = "", scopes: Iterable[str] = ()
) -> NewTenant:
    """A tenant, its scopes and a first owner key (home `<name>:main`, writes every scope)."""
    require_server_admin(principal)
    new = new_tenant(name=name, display_name=display_name, scopes=scopes)
    log.info("tenant %s created by key %s", name, principal.key.prefix)
    return new


@transaction.atomic
def new_tenant(*, name: str, display_name: str = "", scopes: Iterable[str] = ()) -> NewTenant:
    """A tenant, its scopes and its first owner key, for whoever may make one (the API's server
    admins, `manage.py tenant_create` on the server itself)."""
    refuse_reserved_tenant(name, "name")  # `shared`, `_…`: the server's (ctx/shared.py)
    if not TENANT_NAME_RE.match(name):
        raise ValidationFailed(
            "A tenant name is 1-64 characters of a-z, 0-9 and '-'.", details={"field": "name"}
        )
    tenant = services.tenant_create(name=name, display_name=display_name, scopes=scopes)
    every = list(tenant.scopes.order_by("name").values_list("name", flat=True))
    key, raw = services.key_create(
        tenant=tenant, name="owner", home=f"{name}:main", write=every, role=ApiKey.Role.OWNER
    )
    return NewTenant(tenant, key, raw)


def tenants_list(*, principal: Principal) -> list[dict[str, Any]]:
    require_server_admin(principal)
    rows = (
        Tenant.objects.exclude(name__startswith=RESERVED_PREFIX)
        .annotate(
            scope_count=Count("scopes", distinct=True),
            active_keys=Count("keys", filter=Q(keys__active=True), distinct=True),
        )
        .order_by("name")
    )
    return [
        {
            "name": t.name,
            "display_name": t.display_name,
            "status": t.status,
            "scopes": t.scope_count,
            "active_keys": t.active_keys,
            "created_at": t.created_at.isoformat(),
        }
        for t in rows
    ]


def _not_own(principal: Principal, tenant: Tenant) -> None:
    # A server admin locking out its own tenant would lock itself out of the server.
    if tenant.pk == principal.tenant_id:
        raise Conflict("A server admin cannot suspend or delete its own tenant.")


def tenant_set_status(*, principal: Principal, name: str, status: str) -> Tenant:
    """Suspend or resume. Keys and OAuth tokens check the status on every request: at once."""
    require_server_admin(principal)
    tenant = _tenant(name)
    if status == Tenant.Status.SUSPENDED:
        _not_own(principal, tenant)
    Tenant.objects.filter(pk=tenant.pk).update(status=status)
    tenant.status = status
    log.info("tenant %s %s by key %s", name, status, principal.key.prefix)
    return tenant


def tenant_delete(*, principal: Principal, name: str, batch: int = DELETE_BATCH) -> dict[str, int]:
    require_server_admin(principal)
    tenant = _tenant(name)
    _not_own(principal, tenant)

    # A server admin removes another tenant's rows: the one request-driven use of the system
    # context, after the tier check (docs/rls.md).
    with rls_context.using(rls_context.SYSTEM):
        return tenant_purge(tenant, batch=batch)


def tenant_purge(tenant: Tenant, *, batch: int = DELETE_BATCH) -> dict[str, int]:
    """Delete a tenant and everything it owns, in order, in bounded transactions.

    Suspended first (committed), so its keys stop before anything is removed and a crash
    leaves a suspended, partly emptied tenant that a re-run finishes. Then blocks with their
    dependants (links, anchors, chunks, dream rows) in batches, then keys with their OAuth users
    (tokens, grants, the clients they created), then scopes (secrets, scope rows of other apps),
    then the tenant. Keys go before scopes because a key's home scope is protected.
    """
    Tenant.objects.filter(pk=tenant.pk).update(status=Tenant.Status.SUSPENDED)
    counts = {"blocks": _purge_blocks(tenant, batch)}
    with transaction.atomic():
        counts["keys"] = _purge_keys(tenant)
    with transaction.atomic():
        counts["scopes"] = Scope.objects.filter(tenant=tenant).count()
        _purge_rest(tenant)
    log.info("tenant %s deleted: %s", tenant.name, counts)
    return counts


def _purge_rest(tenant: Tenant) -> None:
    """Scopes and the tenant in one ORM delete: rows that RESTRICT each other (a tenant's
    setting override naming one of its secrets) must go in the same collector run."""
    try:
        Tenant.objects.filter(pk=tenant.pk).delete()
    except (RestrictedError, ProtectedError):
        # Something outside the tenant still names one of its rows (a server-wide setting
        # naming one of its secrets): keep the tenant suspended and say so.
        raise Conflict(
            f"Tenant '{tenant.name}' is still referenced from outside it (a server-wide setting "
            "naming one of its secrets?); remove the reference and delete again."
        ) from None


def _purge_blocks(tenant: Tenant, batch: int) -> int:
    done = 0
    while True:
        with transaction.atomic():
            ids = list(
                Block.objects.filter(scope__tenant=tenant).values_list("pk", flat=True)[:batch]
            )
            if not ids:
                return done
            # The ORM collector follows every CASCADE, so dependants added by later apps go too.
            Block.objects.filter(pk__in=ids).delete()
        done += len(ids)
        log.info("tenant %s: %d blocks deleted so far", tenant.name, done)


def _purge_keys(tenant: Tenant) -> int:

    user_ids = ApiKeyUser.objects.filter(api_key__tenant=tenant).values_list("user_id", flat=True)
    get_user_model().objects.filter(pk__in=list(user_ids)).delete()
    keys = ApiKey.objects.filter(tenant=tenant)
    count = keys.count()
    keys.delete()
    return count


# --- keys (tenant admins and up) ------------------------------------------------------------


def _target_tenant(principal: Principal, name: str | None) -> Tenant:
    """The caller's tenant, or another one for a server admin; 404 for anything else."""
    if not name or name == principal.tenant_name:
        return Tenant.objects.get(pk=principal.tenant_id)
    if not is_server_admin(principal):
        raise NotFound(TENANT_NOT_FOUND)
    return _tenant(name)


@dataclass(frozen=True)
class KeySpec:
    name: str
    role: str = ApiKey.Role.MEMBER
    home: str | None = None
    read: tuple[str, ...] = ()
    write: tuple[str, ...] | None = None
    is_admin: bool = False
    max_sensitivity: str | None = None  # None: personal, or the minter's ceiling when lower


def key_issue(
    *, principal: Principal, spec: KeySpec, tenant: str | None = None
) -> tuple[ApiKey, str]:
    """Mint a key in the caller's tenant (or any, for a server admin); never above one's tier."""
    require_tier(principal)
    target = _target_tenant(principal, tenant)
    require_can_manage_role(principal, spec.role, is_admin=spec.is_admin)
    ceiling = ceiling_for_new_key(principal, spec.max_sensitivity)
    require_can_grant_shared_write(principal, had=False, write=spec.write)
    own = [w for w in spec.write or () if w != SHARED_SCOPE]
    home = spec.home or (own[0] if own else f"{target.name}:main")
    key, raw = services.key_create(
        tenant=target,
        name=spec.name,
        home=home,
        read=spec.read,
        write=spec.write,
        is_admin=spec.is_admin,
        role=spec.role,
        max_sensitivity=ceiling,
    )
    log.info(
        "key %s (%s, reads up to %s) created in %s by %s",
        key.prefix,
        key.role,
        ceiling,
        target.name,
        principal.key.prefix,
    )
    return key, raw


def keys_list(*, principal: Principal, tenant: str | None = None) -> list[ApiKey]:
    require_tier(principal)
    target = _target_tenant(principal, tenant)
    return list(
        ApiKey.objects.filter(tenant=target)
        .select_related("home_scope", "tenant")
        .prefetch_related("read_scopes", "write_scopes")
        .order_by("created_at", "pk")
    )


def require_can_grant_shared_write(
    principal: Principal, *, had: bool, write: Iterable[str] | None
) -> None:
    """Writing into the server-wide `shared` scope is given by server admins only: a write
    list naming `shared` for a key that does not write it yet is the tier's 403 for anyone
    else. Keeping it (the admin's key form sends the key's scopes back) or dropping it is the
    key's managers' to do, like any other scope."""
    if write is None or had or SHARED_SCOPE not in write:
        return
    require_server_admin(principal)


def normalize_prefix(text: str) -> str:
    """`ctx_<prefix>_<secret>`, `ctx_<prefix>_…` or the bare prefix → the prefix."""
    return text.strip().removeprefix("ctx_").split("_")[0]


def _managed_key(principal: Principal, prefix: str) -> ApiKey:
    """A key the caller may manage: in its tenant (any, for a server admin) and not above
    its tier; a key out of reach answers like a missing one."""
    require_tier(principal)
    qs = ApiKey.objects.select_related("tenant").filter(prefix=normalize_prefix(prefix))
    if not is_server_admin(principal):
        qs = qs.filter(tenant_id=principal.tenant_id)
    key = qs.first()
    if key is None:
        raise NotFound(KEY_NOT_FOUND)
    require_can_manage_role(principal, key.role, is_admin=key.is_admin)
    return key


def key_rescope(
    *,
    principal: Principal,
    prefix: str,
    home: str | None = None,
    read: Iterable[str] | None = None,
    write: Iterable[str] | None = None,
) -> ApiKey:
    """Change the scopes of a key the caller may manage (names within the key's tenant)."""
    key = _managed_key(principal, prefix)
    write = None if write is None else list(write)
    had = key.write_scopes.filter(name=SHARED_SCOPE, tenant__name=SHARED_TENANT).exists()
    require_can_grant_shared_write(principal, had=had, write=write)
    services.key_set_scopes(key, home=home, read=read, write=write)
    log.info("key %s rescoped by %s", key.prefix, principal.key.prefix)
    return key


def key_withdraw(*, principal: Principal, prefix: str) -> ApiKey:
    """Revoke a key the caller may manage; effective on the key's next request. Idempotent."""
    key = _managed_key(principal, prefix)
    if key.active:
        key.active = False
        key.revoked_at = timezone.now()
        key.save(update_fields=["active", "revoked_at"])
        log.info("key %s revoked by %s", key.prefix, principal.key.prefix)
    return key
