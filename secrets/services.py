"""Writes of sealed secrets: seal, rotate, delete, re-seal under a new key, break-glass.

Every interface calls these. A value is in clear only between the request and the seal (or the
open and the operator's terminal); it never reaches a log line, an error message or the audit.
"""

from __future__ import annotations

import getpass
import logging
import re
import socket
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from ctx.errors import (
    Conflict,
    TooLarge,
    Unavailable,
    ValidationFailed,
)
from ctx.models import Scope
from ctx.permissions import require_tier
from ctx.principal import Principal
from ctx.services import writable_scope
from rls import context as rls_context

from . import crypto
from .models import NAME_PATTERN, AuditAction, Secret, SecretAudit
from .selectors import (
    find_secret,
    get_secret_for,
    qualified_scope,
    references,
    sealed_of,
)

log = logging.getLogger("ctx.secrets")

MAX_VALUE_BYTES = 65_536
NAME_MESSAGE = "A secret name is 1-100 characters of A-Z, a-z, 0-9, '_', '.', '-'."
NO_KEY_MESSAGE = (
    "Sealed secrets need a master key: set CTX_SECRETS_KEY or CTX_SECRETS_KEY_FILE "
    "(see docs/secrets.md)."
)
_NAME = re.compile(NAME_PATTERN)


# --- keys ----------------------------------------------------------------------------------------


def current_keyring() -> crypto.Keyring:
    """The keys from the settings; a malformed key file is a 503, never a silent fallback."""
    try:
        return crypto.keyring_from(settings.CTX)
    except crypto.KeyConfigError as exc:
        raise Unavailable(str(exc)) from None


def sealing_key(keyring: crypto.Keyring) -> crypto.MasterKey:
    if keyring.current is None:
        raise Unavailable(NO_KEY_MESSAGE)
    return keyring.current


# --- validation ----------------------------------------------------------------------------------


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise ValidationFailed(NAME_MESSAGE, details={"field": "name"})
    return name


def _check_value(value: str) -> None:
    # The messages say how large, never what: the value must not reach a response or a log.
    if not value:
        raise ValidationFailed("'value' must be a non-empty string.", details={"field": "value"})
    size = len(value.encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        raise TooLarge(
            f"'value' is {size} bytes; the limit is {MAX_VALUE_BYTES} bytes.",
            details={"field": "value", "limit": MAX_VALUE_BYTES, "size": size},
        )


# --- audit ---------------------------------------------------------------------------------------


def operator() -> str:
    """Who runs a management command: the OS user, for the audit trail."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no passwd entry (containers)
        return "cli"


def audit(action: str, *, name: str, scope: str, actor: str) -> SecretAudit:
    return SecretAudit.objects.create(
        action=action, name=name, scope=scope, actor=actor[:100], host=socket.gethostname()[:255]
    )


# --- the HTTP API's writes -----------------------------------------------------------------------


@dataclass(frozen=True)
class PutResult:
    secret: Secret
    action: str  # created | rotated


def _seal_into(secret: Secret, key: crypto.MasterKey, value: str) -> None:
    sealed = crypto.seal(key, scope=qualified_scope(secret.scope), name=secret.name, value=value)
    secret.ciphertext, secret.nonce = sealed.ciphertext, sealed.nonce
    secret.key_version = sealed.key_version


def _rotate(secret: Secret, key: crypto.MasterKey, value: str, actor: str) -> PutResult:
    _seal_into(secret, key, value)
    secret.rotated_by, secret.rotated_at = actor, timezone.now()
    secret.save()
    return PutResult(secret, "rotated")


def _locked(**lookup: Any) -> Secret | None:
    """The row, locked until the transaction ends (its scope and tenant rows are not)."""
    qs = Secret.objects.select_for_update(of=("self",)).select_related("scope__tenant")
    return qs.filter(**lookup).first()


def _put_one(scope_id: int, name: str, key: crypto.MasterKey, value: str, actor: str) -> PutResult:
    existing = _locked(scope_id=scope_id, name=name)
    if existing is not None:
        return _rotate(existing, key, value, actor)
    scope = Scope.objects.select_related("tenant").get(pk=scope_id)
    secret = Secret(scope=scope, name=name, created_by=actor)
    _seal_into(secret, key, value)
    try:
        with transaction.atomic():  # a concurrent create of the same name loses the race here
            secret.save(force_insert=True)
    except IntegrityError:
        winner = _locked(scope_id=scope_id, name=name)
        if winner is None:  # not the unique key after all: a real integrity problem
            raise
        return _rotate(winner, key, value, actor)
    return PutResult(secret, "created")


@transaction.atomic
def secret_put(*, principal: Principal, name: str, scope: str | None, value: str) -> PutResult:
    """Seal `value` as (scope, name): created when new, rotated (re-sealed) when it exists."""
    require_tier(principal)
    check_name(name)
    _check_value(value)
    scope_id = writable_scope(principal, scope)  # the same 403 whether it exists or not
    key = sealing_key(current_keyring())
    actor = principal.key.prefix
    result = _put_one(scope_id, name, key, value, actor)
    where = qualified_scope(result.secret.scope)
    audit(result.action, name=name, scope=where, actor=actor)
    log.info("secret %s %s in %s by %s", name, result.action, where, actor)
    return result


@transaction.atomic
def secret_delete(*, principal: Principal, name: str, scope: str | None) -> Secret:
    """Delete a secret nothing refers to; Conflict names the referrers otherwise."""
    require_tier(principal)
    check_name(name)
    secret = get_secret_for(principal, name, scope, write=True)
    refs = references(secret)
    if refs:
        raise Conflict(
            f"Secret '{name}' is still referenced by: {', '.join(refs)}.",
            details={"referenced_by": refs},
        )
    where = qualified_scope(secret.scope)
    secret.delete()
    audit(AuditAction.DELETED, name=name, scope=where, actor=principal.key.prefix)
    log.info("secret %s deleted in %s by %s", name, where, principal.key.prefix)
    return secret


# --- rotation of the master key ------------------------------------------------------------------


@dataclass
class SweepReport:
    key_version: str
    resealed: list[str] = field(default_factory=list)
    unopenable: list[str] = field(default_factory=list)


def secrets_reseal(*, actor: str, keyring: crypto.Keyring | None = None) -> SweepReport:
    """Re-seal under the current key every secret the previous key opens, one row per
    transaction (a crash loses nothing); rows neither key opens are left untouched."""
    keyring = keyring or current_keyring()
    key = sealing_key(keyring)
    report = SweepReport(key_version=key.version)
    stale = Secret.objects.not_under(key.version).order_by("pk").values_list("pk", flat=True)
    for pk in list(stale):
        _reseal_one(pk, keyring, key, actor, report)
    return report


@transaction.atomic
def _reseal_one(
    pk: int, keyring: crypto.Keyring, key: crypto.MasterKey, actor: str, report: SweepReport
) -> None:
    secret = _locked(pk=pk)
    if secret is None or secret.key_version == key.version:
        return  # deleted meanwhile, or a concurrent sweep (another worker) got there first
    where = qualified_scope(secret.scope)
    label = f"{where}/{secret.name}"
    try:
        value, _ = crypto.unseal(
            keyring.openers(secret.key_version),
            scope=where,
            name=secret.name,
            sealed=sealed_of(secret),
        )
    except crypto.OpenFailed:
        log.warning(
            "secret %s (key %s) opens with neither the current nor the previous key; "
            "left untouched",
            label,
            secret.key_version,
        )
        report.unopenable.append(label)
        return
    _seal_into(secret, key, value)
    secret.save(update_fields=["ciphertext", "nonce", "key_version"])
    audit(AuditAction.RESEALED, name=secret.name, scope=where, actor=actor)
    log.info("secret %s re-sealed under key %s", label, key.version)
    report.resealed.append(label)


# --- break-glass (operators on the server's machine) ---------------------------------------------


def secret_reveal(*, name: str, scope_ref: str | None, actor: str) -> str:
    """The plaintext, for an operator; audited before it is returned."""
    secret = find_secret(name, scope_ref)
    where = qualified_scope(secret.scope)
    value, _ = crypto.unseal(
        current_keyring_or_raise().openers(secret.key_version),
        scope=where,
        name=name,
        sealed=sealed_of(secret),
    )
    audit(AuditAction.REVEALED, name=name, scope=where, actor=actor)
    log.warning("break-glass: secret %s in %s revealed to %s", name, where, actor)
    return value


def current_keyring_or_raise() -> crypto.Keyring:
    """For commands: KeyConfigError (not a 503) when the keys are unusable."""
    keyring = crypto.keyring_from(settings.CTX)
    if keyring.current is None and keyring.previous is None:
        raise crypto.KeyConfigError(NO_KEY_MESSAGE)
    return keyring


def secret_export(*, name: str, scope_ref: str | None, actor: str) -> dict[str, Any]:
    """The sealed row as JSON-ready text, for `break_glass secret --stdin` elsewhere."""
    secret = find_secret(name, scope_ref)
    where = qualified_scope(secret.scope)
    audit(AuditAction.EXPORTED, name=name, scope=where, actor=actor)
    log.warning("break-glass: sealed secret %s in %s exported by %s", name, where, actor)
    return crypto.export_doc(scope=where, name=name, sealed=sealed_of(secret))


def secret_open_for_setting(secret_id: int) -> str:
    """The plaintext of a secret a setting names (ctx.hooks.SECRET_OPENER). The reference was
    checked when it was set (the setter could read the secret), and the setting is the server's
    configuration: a request of another tenant still uses it, so the row is read in the system
    context (docs/rls.md), past the caller's scopes."""
    with rls_context.using(rls_context.SYSTEM):
        secret = Secret.objects.select_related("scope__tenant").get(pk=secret_id)
    where = qualified_scope(secret.scope)
    try:
        plain, _ = crypto.unseal(
            current_keyring().openers(secret.key_version),
            scope=where,
            name=secret.name,
            sealed=sealed_of(secret),
        )
    except crypto.OpenFailed:
        raise Unavailable(
            f"The secret {where}/{secret.name} named by a setting cannot be opened with the "
            "configured master keys."
        ) from None
    return plain
