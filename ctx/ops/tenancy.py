"""Tenancy operations: who am I, scopes, tenants (server admins), keys, OAuth clients.

The rules (tiers, reach, what a role may mint) live in ctx.tenancy and ctx.oauth.clients; these
operations parse nothing themselves, call one rule function and shape its answer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict

from ctx import ratelimit, services, tenancy
from ctx.models import ApiKey, Sensitivity, Tenant
from ctx.oauth import clients
from ctx.ops.inputs import Flag, Input, OneOf, OptionalTenant, ScopeList, TenantName, Text
from ctx.permissions import require_tier
from ctx.principal import Principal


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


class NoInput(Input):
    """An operation without input (the caller is all it needs)."""


class WhoAmIPayload(TypedDict):
    key: dict[str, str]
    tenant: str
    home_scope: str | None
    read_scopes: list[str]
    write_scopes: list[str]
    is_admin: bool
    role: str
    # Per bucket (read, write): tokens left now, the burst and the refill per minute; None
    # when rate limits are off or Redis cannot say.
    rate_limit: dict[str, dict[str, int]] | None


def whoami(p: Principal, data: NoInput) -> WhoAmIPayload:
    names = {i: n for n, i in p.scope_names.items()}
    return {
        "key": {"name": p.key.name, "prefix": p.key.prefix},
        "tenant": p.tenant_name,
        "home_scope": names.get(p.home_scope_id),
        "read_scopes": sorted(names[i] for i in p.read_scope_ids if i in names),
        "write_scopes": sorted(names[i] for i in p.write_scope_ids if i in names),
        "is_admin": p.is_admin,
        "role": p.role,
        "rate_limit": ratelimit.headroom(p),
    }


class ScopeCreateInput(Input):
    name: Annotated[str, Text(100)]
    description: Annotated[str | None, Text(500, required=False)] = None


def scope_create(p: Principal, data: ScopeCreateInput) -> dict[str, str]:
    require_tier(p)
    scope = services.scope_grant_new(
        principal=p, name=data.name, description=data.description or ""
    )
    return {"name": scope.name}


# --- tenants ------------------------------------------------------------------------------------


def tenants_list(p: Principal, data: NoInput) -> dict[str, Any]:
    return {"tenants": tenancy.tenants_list(principal=p)}


class TenantCreateInput(Input):
    name: Annotated[str, Text(64)]
    display_name: Annotated[str | None, Text(200, required=False)] = None
    scopes: ScopeList = []


def tenant_create(p: Principal, data: TenantCreateInput) -> dict[str, Any]:
    new = tenancy.tenant_create_with_owner(
        principal=p, name=data.name, display_name=data.display_name or "", scopes=data.scopes
    )
    return {
        "tenant": new.tenant.name,
        "scopes": sorted(new.tenant.scopes.values_list("name", flat=True)),
        "owner_key": new.raw_key,  # shown once
        "owner_prefix": new.owner.prefix,
    }


class TenantInput(Input):
    name: TenantName


def tenant_delete(p: Principal, data: TenantInput) -> dict[str, Any]:
    counts = tenancy.tenant_delete(principal=p, name=data.name)
    return {"tenant": data.name, "action": "deleted", "deleted": counts}


def _status(p: Principal, name: str, status: str) -> dict[str, str]:
    tenant = tenancy.tenant_set_status(principal=p, name=name, status=status)
    return {"tenant": tenant.name, "status": tenant.status}


def tenant_suspend(p: Principal, data: TenantInput) -> dict[str, str]:
    return _status(p, data.name, Tenant.Status.SUSPENDED)


def tenant_resume(p: Principal, data: TenantInput) -> dict[str, str]:
    return _status(p, data.name, Tenant.Status.ACTIVE)


# --- keys ---------------------------------------------------------------------------------------


class KeySummary(TypedDict):
    prefix: str
    name: str
    tenant: str
    role: str
    is_admin: bool
    home_scope: str
    read_scopes: list[str]
    write_scopes: list[str]
    max_sensitivity: str  # the highest block level the key reads in clear
    active: bool
    created_at: str | None
    last_used_at: str | None
    revoked_at: str | None


def key_summary(key: ApiKey) -> KeySummary:
    """What a key listing shows: never the secret or its HMAC."""
    return {
        "prefix": key.prefix,
        "name": key.name,
        "tenant": key.tenant.name,
        "role": key.role,
        "is_admin": key.is_admin,
        "home_scope": key.home_scope.name,
        "read_scopes": sorted(s.name for s in key.read_scopes.all()),
        "write_scopes": sorted(s.name for s in key.write_scopes.all()),
        "max_sensitivity": key.max_sensitivity,
        "active": key.active,
        "created_at": _iso(key.created_at),
        "last_used_at": _iso(key.last_used_at),
        "revoked_at": _iso(key.revoked_at),
    }


class TenantFilter(Input):
    tenant: OptionalTenant = None


def keys_list(p: Principal, data: TenantFilter) -> dict[str, list[KeySummary]]:
    keys = tenancy.keys_list(principal=p, tenant=data.tenant or None)
    return {"keys": [key_summary(k) for k in keys]}


# The old message ("'role' must be owner, admin or member.") is kept by a validator of its own.
Role = Annotated[str, OneOf(("owner", "admin", "member"), description="owner, admin or member.")]


class KeyCreateInput(Input):
    name: Annotated[str, Text(100)]
    role: Role = "member"
    home_scope: Annotated[str | None, Text(100, required=False)] = None
    read_scopes: ScopeList = []
    # Absent: the key writes its home scope; [] : a read-only key.
    write_scopes: ScopeList | None = None
    is_admin: Flag = False
    tenant: OptionalTenant = None
    max_sensitivity: Annotated[
        str | None,
        OneOf(
            tuple(Sensitivity.values),
            description="The highest block sensitivity the key reads in clear; above it "
            "content comes back as [redacted:<level>]. Default personal (never above the "
            "caller's own).",
        ),
    ] = None

    def spec(self) -> tenancy.KeySpec:
        write = None if self.write_scopes is None else tuple(self.write_scopes)
        return tenancy.KeySpec(
            name=self.name,
            role=self.role,
            home=self.home_scope or None,
            read=tuple(self.read_scopes),
            write=write,
            is_admin=self.is_admin,
            max_sensitivity=self.max_sensitivity,
        )


def key_create(p: Principal, data: KeyCreateInput) -> dict[str, Any]:
    key, raw = tenancy.key_issue(principal=p, spec=data.spec(), tenant=data.tenant or None)
    return {"key": raw, **key_summary(key)}  # the full key: shown once


class KeyInput(Input):
    prefix: Annotated[str, Text(100)]


def key_revoke(p: Principal, data: KeyInput) -> dict[str, Any]:
    key = tenancy.key_withdraw(principal=p, prefix=data.prefix)
    return {"action": "revoked", "prefix": key.prefix, "revoked_at": _iso(key.revoked_at)}


class KeyUpdateInput(KeyInput):
    """New scopes of a key; a part left out (None) is kept, an empty list empties it."""

    home_scope: Annotated[str | None, Text(100, required=False)] = None
    read_scopes: ScopeList | None = None
    write_scopes: ScopeList | None = None


def key_update(p: Principal, data: KeyUpdateInput) -> KeySummary:
    key = tenancy.key_rescope(
        principal=p,
        prefix=data.prefix,
        home=data.home_scope or None,
        read=None if data.read_scopes is None else list(data.read_scopes),
        write=None if data.write_scopes is None else list(data.write_scopes),
    )
    return key_summary(key)


# --- OAuth clients ------------------------------------------------------------------------------


def client_summary(app: Any) -> dict[str, Any]:
    return {
        "client_id": app.client_id,
        "name": app.name,
        "tenant": clients.tenant_of(app),
        "client_type": app.client_type,
        "redirect_uris": app.redirect_uris.split(),
        "registration": app.registration_source,
        "created_at": _iso(app.created),
    }


def clients_list(p: Principal, data: NoInput) -> dict[str, Any]:
    return {"clients": [client_summary(a) for a in clients.clients_list(principal=p)]}


class ClientCreateInput(Input):
    name: Annotated[str, Text(255)]
    redirect_uris: Annotated[
        list[Annotated[str, Field(max_length=2000)]], Field(max_length=50)
    ] = []
    confidential: Flag = False


def client_create(p: Principal, data: ClientCreateInput) -> dict[str, Any]:
    new = clients.client_create(
        principal=p,
        name=data.name,
        redirect_uris=list(data.redirect_uris),
        confidential=data.confidential,
    )
    payload = client_summary(new.app)
    if new.client_secret:
        payload["client_secret"] = new.client_secret  # shown once
    return payload


class ClientInput(Input):
    client_id: Annotated[str, Text(255)]


def client_delete(p: Principal, data: ClientInput) -> dict[str, str]:
    clients.client_delete(principal=p, client_id=data.client_id)
    return {"action": "deleted", "client_id": data.client_id}
