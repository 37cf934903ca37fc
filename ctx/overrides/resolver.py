"""Effective values of the knobs: environment pin, then database override, then tenant override.

Later layers refine earlier ones (tenant beats server-wide database beats default), except that
a knob set in the environment is pinned: operators keep control, and no override applies.
Only live knobs have overrides at all; the others are read once at start-up.

Every process caches the override rows. The highest SettingAudit id is the registry's version
(each change writes an audit row); a process compares it at most once per RELOAD_SECONDS and
reloads when it moved, and the process that made a change drops its cache at once. So a change
is seen by the next request in the same process and within a second in every other process
(web workers, Celery), with one indexed query per second per process at most.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from ctx import hooks
from ctx.config import KNOBS_BY_NAME, RENAMED, Knob
from ctx.errors import Unavailable

from .models import SettingAudit, SettingOverride

RELOAD_SECONDS = 1.0
# Knobs that ctx fills itself when they are left unset, with the Django setting holding the
# value it made: ctx/settings.py generates the secret key into the data directory.
GENERATED = {"CTX_SECRET_KEY": "SECRET_KEY"}
clock = time.monotonic  # replaced in tests (the clock is one of the two things tests may mock)


@dataclass(frozen=True)
class Row:
    value: Any
    secret_id: int | None


@dataclass(frozen=True)
class Resolved:
    value: Any
    source: str  # env | generated | default | database | tenant
    secret_ref: str | None = None  # "tenant/scope/name" when the value comes from a secret


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[tuple[str, int | None], Row] | None = None
        self.version: int | None = None
        self.checked_at = 0.0
        self.opened: dict[int, str] = {}  # secret id -> plaintext, for one interval


_cache = _Cache()


def invalidate() -> None:
    """Forget the cached rows; the next read reloads them (after a change in this process)."""
    with _cache.lock:
        _cache.rows = None
        _cache.opened = {}


def invalidate_on_commit() -> None:
    """Drop the cache now (reads later in this transaction see the change) and after commit
    (so nothing read inside the transaction outlives it)."""
    invalidate()
    transaction.on_commit(invalidate)


def _version() -> int:
    return int(SettingAudit.objects.aggregate(v=Max("id"))["v"] or 0)


def _load() -> dict[tuple[str, int | None], Row]:
    rows = SettingOverride.objects.values_list("key", "tenant_id", "value", "secret_id")
    return {(k, t): Row(v, s) for k, t, v, s in rows}


def rows() -> dict[tuple[str, int | None], Row]:
    """The override rows, reloaded when the version moved (checked once per RELOAD_SECONDS)."""
    now = clock()
    with _cache.lock:
        if _cache.rows is not None and now - _cache.checked_at < RELOAD_SECONDS:
            return _cache.rows
    version = _version()
    with _cache.lock:
        if _cache.rows is None or version != _cache.version:
            _cache.rows, _cache.version = _load(), version
        _cache.opened = {}  # referenced secrets are re-opened once per interval (rotation)
        _cache.checked_at = now
        return _cache.rows


def pinned(name: str) -> bool:
    """Set in the process environment (under its name or a former one): that value wins over
    every override."""
    former = [old for old, new in RENAMED.items() if new == name]
    return any(os.environ.get(n, "") for n in (name, *former))


def _base(knob: Knob) -> Resolved:
    value = settings.CTX[knob.name]
    if pinned(knob.name):
        return Resolved(value, "env")
    made_in = GENERATED.get(knob.name)
    made = getattr(settings, made_in, None) if made_in and not value else None
    return Resolved(made, "generated") if made else Resolved(value, "default")


def _layer(row: Row, source: str, open_secrets: bool) -> Resolved:
    if row.secret_id is None:
        return Resolved(row.value, source)
    ref = str((row.value or {}).get("secret", ""))
    plain = _opened(row.secret_id) if open_secrets else None
    return Resolved(plain, source, secret_ref=ref)


def resolve(name: str, tenant_id: int | None = None, *, open_secrets: bool = True) -> Resolved:
    """One knob's effective value and where it comes from; KeyError for an unknown name.
    With open_secrets=False a secret reference is named but not opened (value None)."""
    knob = KNOBS_BY_NAME[name]
    base = _base(knob)
    if base.source == "env" or not knob.live:
        return base
    found = rows()
    result = base
    if (name, None) in found:
        result = _layer(found[(name, None)], "database", open_secrets)
    if knob.tenant and tenant_id is not None and (name, tenant_id) in found:
        result = _layer(found[(name, tenant_id)], "tenant", open_secrets)
    return result


def values(tenant_id: int | None = None) -> dict[str, Any]:
    """Every knob's effective value for a tenant (server-wide when None), like settings.CTX."""
    found = rows()
    out = dict(settings.CTX)  # a fresh copy: callers and tests may swap settings.CTX
    for name in {key for key, _tenant in found}:
        if name in KNOBS_BY_NAME:  # a row of a knob removed since is ignored
            out[name] = resolve(name, tenant_id).value
    return out


def value(name: str, tenant_id: int | None = None) -> Any:
    return resolve(name, tenant_id).value


def _opened(secret_id: int) -> str:
    with _cache.lock:
        plain = _cache.opened.get(secret_id)
    if plain is None:
        plain = open_secret(secret_id)
        with _cache.lock:
            _cache.opened[secret_id] = plain
    return plain


def open_secret(secret_id: int) -> str:
    """The plaintext of a referenced secret, opened at use time (never stored in a row) by
    the sealed-secrets app (ctx.hooks.SECRET_OPENER: the settings never import it)."""
    opener = next(iter(hooks.SECRET_OPENER), None)
    if opener is None:
        raise Unavailable("No sealed-secrets app is installed to open a referenced secret.")
    return opener(secret_id)
