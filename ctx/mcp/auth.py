"""Who calls /mcp: a ctx API key or an OAuth access token issued for exactly this endpoint."""

from __future__ import annotations

import hashlib
from contextvars import ContextVar, Token

from oauth2_provider.models import get_access_token_model

from ctx import keys, selectors
from ctx.oauth import identity
from ctx.oauth.config import SCOPE
from ctx.principal import Principal
from rls import context as rls_context

# Set by the ASGI guard for the duration of one /mcp request; the tools read it.
_current: ContextVar[Principal | None] = ContextVar("ctx_mcp_principal", default=None)


def bearer(authorization: str | None) -> str | None:
    scheme, _, value = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def principal_for_bearer(raw: str, resource: str) -> Principal | None:
    """The principal behind an API key or an access token bound to `resource`; else None."""
    if keys.split(raw) is not None:
        return selectors.principal_for_key(raw)
    return principal_for_token(raw, resource)


def bearer_refusal(raw: str | None) -> str:
    """Why /mcp refused a bearer (ctx.selectors.key_refusal for what looks like an API key)."""
    if raw is None:
        return "No API key or access token was sent: pass it as `Authorization: Bearer <it>`."
    if raw.startswith("ctx_"):
        return selectors.key_refusal(raw)
    return "The access token was not accepted: it is unknown, expired, or for another resource."


def principal_for_token(raw: str, resource: str) -> Principal | None:
    checksum = hashlib.sha256(raw.encode("utf-8")).hexdigest()  # tokens are hashed at rest
    token = get_access_token_model().objects.filter(token_checksum=checksum).first()
    if token is None or token.user_id is None or not token.is_valid([SCOPE]):
        return None
    # Strict audience (RFC 8707): the toolkit's allows_audience() accepts a token without any
    # resource and matches by prefix; /mcp accepts only a token bound to exactly itself.
    if list(token.resource or []) != [resource]:
        return None
    return identity.principal_for_user(token.user_id)


Handle = tuple[Token[Principal | None], Token[rls_context.Context | None]]


def bind(principal: Principal) -> Handle:
    # The ORM threads of this request copy both: the principal and its database scopes.
    return _current.set(principal), rls_context.enter(principal)


def unbind(handle: Handle) -> None:
    current, scopes = handle
    rls_context.leave(scopes)
    _current.reset(current)


def current_principal() -> Principal:
    principal = _current.get()
    if principal is None:  # the guard authenticates every request before any tool runs
        raise RuntimeError("MCP tool called outside an authenticated request")
    return principal
