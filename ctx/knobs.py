"""The one way to read a knob: `knobs.value("CTX_…", tenant_id)`.

Every knob resolves the same way: a value set in the environment is pinned; otherwise a live
knob takes the server-wide database override, then the tenant's (ctx/overrides/resolver.py);
any other knob keeps the value parsed from the environment at start-up. Callers need not know
which knobs are live.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from ctx.config import KNOBS_BY_NAME


def value(name: str, tenant_id: int | None = None) -> Any:
    """The knob's effective value for the tenant (server-wide when None)."""
    if not KNOBS_BY_NAME[name].live:
        return settings.CTX[name]
    # Imported here: the settings module itself loads modules that read knobs (ctx.oauth), and
    # the resolver's models cannot load before the app registry is ready.
    from ctx.overrides import resolver

    return resolver.value(name, tenant_id)


def configured(name: str) -> Any:
    """The value from the environment (or the default), ignoring overrides: what start-up
    checks validate, before any database exists."""
    return settings.CTX[name]


def values(tenant_id: int | None = None) -> dict[str, Any]:
    """Every knob's effective value for the tenant, like settings.CTX with overrides applied."""
    from ctx.overrides import resolver  # see value()

    return resolver.values(tenant_id)
