"""Signing in to the web UI with an API key: the key is checked once, then the session holds
its id (never the key itself). Every request loads the key again, so a revoked key or a
suspended tenant ends the session at its next page, and the principal is exactly the key's:
the pages see what the key would see through the API (no server-admin widening as in the
Django admin)."""

from __future__ import annotations

from django.http import HttpRequest

from ctx import selectors
from ctx.models import ApiKey, Tenant
from ctx.principal import Principal

SESSION_KEY = "ctx_ui_key"
BAD_KEY = "That is not an active ctx API key."
_CACHE = "_ctx_ui_principal"


def sign_in(request: HttpRequest, raw_key: str) -> Principal | None:
    """Check the key; on success start a fresh session (a new id: no fixation) holding it."""
    principal = selectors.principal_for_key(raw_key.strip())
    if principal is None:
        return None
    request.session.cycle_key()
    request.session[SESSION_KEY] = principal.key.pk
    setattr(request, _CACHE, principal)
    return principal


def sign_out(request: HttpRequest) -> None:
    """The whole session ends (the admin's too, if the same browser had signed in there)."""
    request.session.flush()
    setattr(request, _CACHE, None)


def principal_of(request: HttpRequest) -> Principal | None:
    """The signed-in key's principal (loaded once per request), or None."""
    if not hasattr(request, _CACHE):
        setattr(request, _CACHE, _load(request.session.get(SESSION_KEY)))
    found: Principal | None = getattr(request, _CACHE)
    return found


def _load(key_id: object) -> Principal | None:
    if not isinstance(key_id, int):
        return None
    key = (
        ApiKey.objects.select_related("tenant")
        .filter(pk=key_id, active=True, tenant__status=Tenant.Status.ACTIVE)
        .first()
    )
    return None if key is None else selectors.principal_from_key(key)
