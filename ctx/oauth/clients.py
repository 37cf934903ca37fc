"""OAuth clients (MCP connectors) managed through the API, bound to a tenant.

The toolkit's Application has an owner `user`; ctx sets it to the Django user of the creating
API key (ctx.oauth.identity), and that key belongs to one tenant: that is the binding, with no
schema change. Clients registered anonymously (DCR, CIMD) have no owner: only server admins see
and delete those. Deleting a client deletes its grants and tokens (the toolkit's cascades).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from oauth2_provider.generators import generate_client_secret
from oauth2_provider.models import get_application_model

from ctx.errors import NotFound, ValidationFailed
from ctx.oauth import dcr, identity
from ctx.permissions import is_server_admin, require_tier
from ctx.principal import Principal

log = logging.getLogger("ctx.oauth")

CLIENT_NOT_FOUND = "OAuth client not found."
MAX_REDIRECTS = 10


def _visible(principal: Principal) -> QuerySet[Any]:
    Application = get_application_model()
    qs = Application.objects.select_related("user__ctx_api_key_link__api_key__tenant")
    if is_server_admin(principal):
        return qs
    return qs.filter(user__ctx_api_key_link__api_key__tenant_id=principal.tenant_id)


def tenant_of(app: Any) -> str | None:
    link = getattr(app.user, "ctx_api_key_link", None) if app.user_id else None
    return link.api_key.tenant.name if link is not None else None


def clients_list(*, principal: Principal) -> list[Any]:
    require_tier(principal)
    return list(_visible(principal).order_by("created", "pk"))


def _redirects(uris: list[str]) -> str:
    if not uris or len(uris) > MAX_REDIRECTS:
        raise ValidationFailed(
            f"'redirect_uris' must list 1-{MAX_REDIRECTS} URIs.", details={"field": "redirect_uris"}
        )
    # DCR's rule for an admin caller: Claude's callbacks, loopback http, or any https URI.
    bad = [u for u in uris if not dcr.redirect_allowed(u, admin=True)]
    if bad:
        raise ValidationFailed(
            "Redirect URIs must be Claude's connector callback, a loopback http URI or https.",
            details={"field": "redirect_uris"},
        )
    return " ".join(uris)


@dataclass(frozen=True)
class NewClient:
    app: Any
    client_secret: str | None  # shown once, confidential clients only


@transaction.atomic
def client_create(
    *, principal: Principal, name: str, redirect_uris: list[str], confidential: bool = False
) -> NewClient:
    """An authorization-code client (PKCE S256 is required for every client by the server)."""
    require_tier(principal)
    Application = get_application_model()
    secret = generate_client_secret() if confidential else ""
    app = Application(
        name=name,
        user=identity.user_for_key(principal.key),
        redirect_uris=_redirects(redirect_uris),
        client_type=Application.CLIENT_CONFIDENTIAL if confidential else Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        client_secret=secret,  # hashed on save; the raw value exists only in this response
        registration_source=Application.RegistrationSource.MANUAL,
    )
    app.save()
    log.info("oauth client %s created by key %s", app.client_id, principal.key.prefix)
    return NewClient(app, secret or None)


@transaction.atomic
def client_delete(*, principal: Principal, client_id: str) -> None:
    """Delete the client with its grants and access/refresh tokens; 404 outside one's reach."""
    require_tier(principal)
    app = _visible(principal).filter(client_id=client_id).first()
    if app is None:
        raise NotFound(CLIENT_NOT_FOUND)
    app.delete()
    log.info("oauth client %s deleted by key %s", client_id, principal.key.prefix)
