"""django-oauth-toolkit settings derived from the CTX_* knobs (ctx/settings.py reads this)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctx.oauth.public import normalize_origin

SCOPE = "mcp"
SCOPE_DESCRIPTION = "Use ctx through MCP: search, read and write what this API key can reach"
ACCESS_TOKEN_SECONDS = 3600  # short: a stolen access token is useful for an hour at most
REFRESH_TOKEN_SECONDS = 30 * 86400  # a connector stays signed in for a month of disuse
# Client ID metadata documents are fetched only from Claude's hosts (claude.ai's and Claude
# Code's documents live there); anything else would let any URL make this server fetch it.
CIMD_HOSTS = ["claude.ai", "claude.com"]


def provider_settings(ctx: Mapping[str, Any]) -> dict[str, Any]:
    public = str(ctx["CTX_PUBLIC_URL"] or "")
    return {
        # Empty = derived from each request (`make run` on any port); set behind a proxy.
        "OIDC_ISS_ENDPOINT": normalize_origin(public) if public else "",
        "SCOPES": {SCOPE: SCOPE_DESCRIPTION},
        "DEFAULT_SCOPES": [SCOPE],
        "OAUTH2_VALIDATOR_CLASS": "ctx.oauth.validators.CtxOAuth2Validator",
        "PKCE_REQUIRED": True,
        "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,  # S256 only
        "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,  # RFC 9207 `iss`
        "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
        "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
        "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,  # tokens hashed at rest
        "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
        "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
        "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
        "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
        "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
            "none",
            "client_secret_post",
            "client_secret_basic",
        ],
        "ACCESS_TOKEN_EXPIRE_SECONDS": ACCESS_TOKEN_SECONDS,
        "REFRESH_TOKEN_EXPIRE_SECONDS": REFRESH_TOKEN_SECONDS,
        "ROTATE_REFRESH_TOKEN": True,
        "REFRESH_TOKEN_REUSE_PROTECTION": True,  # a replayed refresh token revokes its family
        "ALLOW_LOCALHOST_LOOPBACK": True,  # Claude Code flips between localhost and 127.0.0.1
        "REQUEST_APPROVAL_PROMPT": "force",
        # Always on for the toolkit; ctx.oauth.views applies CTX_OAUTH_DCR_MODE per request.
        "DCR_ENABLED": True,
        "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
        "CIMD_ENABLED": bool(ctx["CTX_OAUTH_CIMD"]),
        "CIMD_REGISTRATION_PERMISSION_CLASSES": (
            "oauth2_provider.cimd.HostAllowlistCIMDPermission",
        ),
        "CIMD_ALLOWED_HOSTS": CIMD_HOSTS,
        "OAUTH2_PROTECTED_RESOURCE_NAME": "ctx",
    }
