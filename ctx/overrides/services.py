"""Writes of the settings registry: set, unset and reset overrides, each audited.

Every interface (API, Django admin, break-glass) goes through these; a value is validated with
the knob's own parser and bounds, and every finding of a request is listed in one 400.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from ctx import config, hooks
from ctx.config import Knob, _check_bounds
from ctx.errors import NotFound, ValidationFailed
from ctx.models import Tenant
from ctx.permissions import is_server_admin, require_tier
from ctx.principal import Principal
from secrets.selectors import get_secret_for

from . import resolver
from .models import SettingAction, SettingAudit, SettingOverride
from .selectors import UNKNOWN_MESSAGE

log = logging.getLogger("ctx.settings")

TENANT_NOT_FOUND = "Tenant not found."
NO_OVERRIDE_MESSAGE = "No override of that setting here."

# (name, scope) -> the Secret row, or LookupError; each interface passes its own lookup.
SecretLookup = Callable[[str, str | None], Any]


@dataclass(frozen=True)
class Change:
    knob: Knob
    value: Any  # JSON-ready: the parsed value, or {"secret": "tenant/scope/name"}
    secret: Any = None  # the Secret row a secret knob refers to


# --- who may change what -------------------------------------------------------------------------


def target_tenant(principal: Principal, tenant: str | None) -> Tenant | None:
    """The tenant a request changes (None = server-wide). Server admins name any tenant or
    none; tenant owners and admins only their own (another tenant answers like a missing one)."""
    require_tier(principal)
    if is_server_admin(principal):
        if tenant is None:
            return None
        found = Tenant.objects.filter(name=tenant).first()
        if found is None:
            raise NotFound(TENANT_NOT_FOUND)
        return found
    if tenant is not None and tenant != principal.tenant_name:
        raise NotFound(TENANT_NOT_FOUND)
    return Tenant.objects.get(pk=principal.tenant_id)


def knob_named(key: str) -> Knob:
    knob = config.lookup(key)
    if knob is None:
        raise NotFound(UNKNOWN_MESSAGE)
    return knob


# --- validation ----------------------------------------------------------------------------------


def _as_text(knob: Knob, raw: Any) -> str:
    """JSON input as the environment's text form, so the knob's own parser decides."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int | float | str):
        return str(raw)
    if isinstance(raw, list) and knob.type_name == "list" and all(isinstance(i, str) for i in raw):
        return ",".join(raw)
    raise ValueError(f"expected a {knob.type_name} value")


def _known_stages(value: list[str]) -> list[str]:
    known = hooks.QUERY_STAGES.as_dict()
    return [f"CTX_QUERY_STAGES: unknown stage '{n}'" for n in value if n not in known]


# Rules beyond type and bounds, per knob; each returns findings.
EXTRA_CHECKS: dict[str, Callable[[Any], list[str]]] = {"CTX_QUERY_STAGES": _known_stages}


def _plain(knob: Knob, raw: Any, key: str) -> tuple[Any, list[str]]:
    """`key` is the name the caller used (a renamed knob's old name is still accepted)."""
    try:
        value = knob.parse(_as_text(knob, raw))
    except ValueError as exc:
        return None, [f"{key}={raw!r}: {exc}"]
    problem = _check_bounds(knob, value)
    findings = [problem] if problem else []
    return value, findings + EXTRA_CHECKS.get(knob.name, lambda _v: [])(value)


def _secret_ref(knob: Knob, raw: Any, lookup: SecretLookup) -> tuple[Change | None, list[str]]:
    """A credential knob takes a secret's name, never its value (which is not echoed)."""
    if not (isinstance(raw, dict) and isinstance(raw.get("secret"), str) and raw["secret"]):
        return None, [
            f'{knob.name} holds a credential: give a sealed secret\'s name, {{"secret": "NAME"}} '
            '(optionally with "scope"), never the value.'
        ]
    scope = raw.get("scope")
    try:
        secret = lookup(raw["secret"], scope if isinstance(scope, str) else None)
    except (LookupError, NotFound):
        return None, [f"{knob.name}: no secret '{raw['secret']}' that this caller can read."]
    ref = f"{secret.scope.tenant.name}/{secret.scope.name}/{secret.name}"
    return Change(knob, {"secret": ref}, secret), []


def check_change(
    key: str, raw: Any, tenant: Tenant | None, lookup: SecretLookup
) -> tuple[Change | None, list[str]]:
    """The validated change, or None and every finding about it."""
    knob = config.lookup(key)
    if knob is None:
        return None, [f"{key}: unknown setting."]
    if not knob.live:
        return None, [f"{key} needs a restart: set it in the environment."]
    findings = []
    if resolver.pinned(knob.name):
        findings.append(f"{key} is set in the environment, which wins over overrides.")
    if tenant is not None and not knob.tenant:
        findings.append(f"{key} cannot be overridden per tenant.")
    if knob.secret:
        change, more = _secret_ref(knob, raw, lookup)
    else:
        value, more = _plain(knob, raw, key)
        change = Change(knob, value)
    findings += more
    return (None, findings) if findings else (change, [])


def _validated(
    changes: dict[str, Any], tenant: Tenant | None, lookup: SecretLookup
) -> list[Change]:
    if not changes:
        raise ValidationFailed("Name at least one setting.", details={"findings": []})
    checked, findings = [], []
    for key, raw in changes.items():
        change, found = check_change(key, raw, tenant, lookup)
        findings += found
        if change is not None:
            checked.append(change)
    if findings:
        raise ValidationFailed(
            f"{len(findings)} problem(s) with the settings: " + " ".join(findings),
            details={"findings": findings},
        )
    return checked


# --- writes --------------------------------------------------------------------------------------


def _audit(action: str, key: str, tenant: Tenant | None, old: Any, new: Any, actor: str) -> None:
    SettingAudit.objects.create(
        action=action,
        key=key,
        tenant=tenant.name if tenant else "",
        old=old,
        new=new,
        actor=actor[:100],
    )


def override_write(*, change: Change, tenant: Tenant | None, actor: str) -> SettingOverride:
    """Create or replace one override and audit it (old and new value, references only)."""
    key = change.knob.name
    row = SettingOverride.objects.select_for_update().filter(key=key, tenant=tenant).first()
    old = row.value if row else None
    if row is None:
        row = SettingOverride(key=key, tenant=tenant)
    row.value, row.secret, row.updated_by = change.value, change.secret, actor[:100]
    row.save()
    _audit(SettingAction.SET, key, tenant, old, change.value, actor)
    log.info("setting %s set for %s by %s", key, tenant.name if tenant else "server", actor)
    resolver.invalidate_on_commit()
    return row


@transaction.atomic
def settings_set(
    *, principal: Principal, changes: dict[str, Any], tenant: str | None
) -> list[SettingOverride]:
    """Set one or more overrides at once: all of them, or none with every finding listed."""
    target = target_tenant(principal, tenant)
    checked = _validated(changes, target, lambda n, s: get_secret_for(principal, n, s))
    actor = principal.key.prefix
    return [override_write(change=c, tenant=target, actor=actor) for c in checked]


def override_delete(*, key: str, tenant: Tenant | None, actor: str, action: str) -> bool:
    """Delete one override if it exists; audited. Returns whether there was one."""
    row = SettingOverride.objects.select_for_update().filter(key=key, tenant=tenant).first()
    if row is None:
        return False
    row.delete()
    _audit(action, key, tenant, row.value, None, actor)
    resolver.invalidate_on_commit()
    return True


@transaction.atomic
def settings_unset(*, principal: Principal, key: str, tenant: str | None) -> None:
    """Remove an override: the knob falls back to the next layer."""
    target = target_tenant(principal, tenant)
    knob_named(key)
    removed = override_delete(
        key=key, tenant=target, actor=principal.key.prefix, action=SettingAction.UNSET
    )
    if not removed:
        raise NotFound(NO_OVERRIDE_MESSAGE)


@transaction.atomic
def settings_reset(*, key: str | None, actor: str) -> int:
    """Break-glass: delete every override (of one key, or all), one audit row each."""
    if key is not None:
        knob_named(key)
    rows = SettingOverride.objects.select_related("tenant").order_by("key", "pk")
    if key is not None:
        rows = rows.filter(key=key)
    count = 0
    for row in rows:
        count += override_delete(
            key=row.key, tenant=row.tenant, actor=actor, action=SettingAction.RESET
        )
    log.warning("break-glass: reset-settings %s by %s: %d override(s)", key or "*", actor, count)
    return count
