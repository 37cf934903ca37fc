"""Operators of the Django admin: who may sign in, and what a signed-in operator reaches.

ctx has no passwords. An operator signs in with an API key of the tenant-admin tier or above
(a tenant's owner or admin, or a server-admin key such as the bootstrap key). The key has one
Django user (`ctx.oauth.identity`, the same link its OAuth grants use), so the session stays
tied to the key: a revoked key or a suspended tenant ends the session at its next request.

A tenant's staff reach exactly what their key reaches through the API. A server admin's reach
in the admin is every scope of every tenant: operators manage the whole server. Both are
applied as the row-level-security context of each admin request (docs/admin.md).
"""

from __future__ import annotations

from dataclasses import replace

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User

from ctx import selectors
from ctx.errors import CtxError, ErrorCode, Forbidden
from ctx.models import ApiKey, Scope
from ctx.oauth import identity
from ctx.permissions import can_operate
from ctx.principal import Principal

BAD_KEY = "That is not an active ctx API key."
NOT_AN_OPERATOR = (
    "This key cannot sign in to the admin: it needs the owner or admin role of its tenant, "
    "or the server-admin flag."
)


def operator_principal(key: ApiKey) -> Principal:
    """The key's principal; for a server admin, widened to every scope of every tenant.

    Scope names repeat across tenants, so a server admin names a foreign scope `tenant/scope`
    (a scope name never holds '/'); its own tenant's scopes keep their plain names too."""
    principal = selectors.principal_from_key(key)
    if not key.is_admin:
        return principal
    rows = Scope.objects.values_list("id", "name", "tenant__name")
    every = frozenset(sid for sid, _, _ in rows)
    names = {f"{tenant}/{name}": sid for sid, name, tenant in rows}
    names.update(principal.scope_names)
    return replace(principal, read_scope_ids=every, write_scope_ids=every, scope_names=names)


def sign_in(raw_key: str) -> AbstractBaseUser:
    """The Django user of an operator's key. An inactive key raises the `unauthorized` error,
    a key below the tenant-admin tier Forbidden."""
    principal = selectors.principal_for_key(raw_key.strip())
    if principal is None:
        raise CtxError(BAD_KEY, code=ErrorCode.UNAUTHORIZED)
    if not can_operate(principal):
        raise Forbidden(NOT_AN_OPERATOR)
    user = identity.user_for_key(principal.key)
    # What the admin's header greets: the key's name and tenant rather than `ctx-key-<prefix>`.
    label = f"{principal.key.name} @ {principal.tenant_name}"[:150]
    if isinstance(user, User) and user.first_name != label:
        user.first_name = label
        user.save(update_fields=["first_name"])
    return user


def operator_for_user(user_id: int) -> Principal | None:
    """The operator behind a signed-in admin user, or None when its key was revoked, its
    tenant suspended or its role lowered since (the session then ends)."""
    link = identity.active_link(user_id)
    if link is None:
        return None
    principal = operator_principal(link.api_key)
    return principal if can_operate(principal) else None
