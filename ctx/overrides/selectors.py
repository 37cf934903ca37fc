"""Reads of the settings registry: what the API and the CLI show, and who refers to a secret."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict

from ctx.config import KNOBS, Knob, lookup, mask
from ctx.errors import NotFound
from ctx.models import Tenant
from ctx.permissions import is_server_admin
from ctx.principal import Principal

from . import resolver
from .models import SettingAudit, SettingOverride

UNKNOWN_MESSAGE = "Unknown setting."


class SettingView(TypedDict):
    name: str
    type: str
    default: Any
    value: Any
    source: str
    live: bool
    tenant: bool
    secret: bool
    help: str
    secret_ref: str | None


def _shown(knob: Knob, value: Any) -> Any:
    return mask(value) if knob.secret else value


def describe(knob: Knob, tenant_id: int | None) -> SettingView:
    """A knob as the API shows it: secrets masked, references named, never opened."""
    found = resolver.resolve(knob.name, tenant_id, open_secrets=False)
    value = "***" if found.secret_ref else _shown(knob, found.value)
    return {
        "name": knob.name,
        "type": knob.type_name,
        "default": _shown(knob, knob.default),
        "value": value,
        "source": found.source,
        "live": knob.live,
        "tenant": knob.tenant,
        "secret": knob.secret,
        "help": knob.help,
        "secret_ref": found.secret_ref,
    }


def visible_knobs(principal: Principal) -> list[Knob]:
    """Server admins see every knob; tenant admins only what they may tune: the server's own
    configuration (hosts, paths, providers) is none of a tenant's business."""
    return [k for k in KNOBS if is_server_admin(principal) or k.tenant]


def knob_for(principal: Principal, key: str) -> Knob:
    """The knob if the caller may see it; the same 404 as an unknown name otherwise."""
    knob = lookup(key)
    if knob is None or not (is_server_admin(principal) or knob.tenant):
        raise NotFound(UNKNOWN_MESSAGE)
    return knob


def settings_for(principal: Principal, tenant: Tenant | None) -> list[SettingView]:
    tenant_id = tenant.pk if tenant else None
    return [describe(k, tenant_id) for k in visible_knobs(principal)]


class AuditView(TypedDict):
    at: str
    key: str
    tenant: str | None
    action: str
    old: Any
    new: Any
    actor: str


def audit_for(principal: Principal, tenant: Tenant | None, limit: int) -> list[AuditView]:
    """Newest first. Server admins see every row (or one tenant's); tenant admins their own."""
    rows = SettingAudit.objects.order_by("-id")
    if not is_server_admin(principal) or tenant is not None:
        rows = rows.filter(tenant=tenant.name if tenant else principal.tenant_name)
    return [
        {
            "at": r.at.isoformat(),
            "key": r.key,
            "tenant": r.tenant or None,
            "action": r.action,
            "old": r.old,
            "new": r.new,
            "actor": r.actor,
        }
        for r in rows[:limit]
    ]


def secret_references(secret: Any) -> Iterable[str]:
    """For secrets.selectors.REFERENCE_FINDERS: `setting:KEY` (`@tenant` for a tenant's)."""
    rows = SettingOverride.objects.filter(secret=secret).select_related("tenant")
    for row in rows:
        yield f"setting:{row.key}" + (f"@{row.tenant.name}" if row.tenant else "")
