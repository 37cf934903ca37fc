"""The toolkit's validator with ctx's one extra rule: every token is bound to /mcp (RFC 8707)."""

from __future__ import annotations

from typing import Any

from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from ctx.oauth import identity, public


def invalid_target(
    resource: str, request: Any = None, state: str | None = None
) -> errors.CustomOAuth2Error:
    return errors.CustomOAuth2Error(
        error="invalid_target",
        description=f"This server issues tokens only for its MCP endpoint, not '{resource}'.",
        request=request,
        state=state,
    )


def foreign_resources(resources: list[str], expected: str) -> list[str]:
    """The requested resources this server does not serve (the MCP URI is the only one)."""
    return [r for r in resources if r.rstrip("/") != expected]


class CtxOAuth2Validator(OAuth2Validator):
    def _check_and_set_request_resource(self, request: Any) -> None:
        # The toolkit treats a token without `resource` as valid for every audience. ctx binds
        # each token to its MCP URI instead: a missing resource defaults to it (some clients
        # omit the parameter) and any other resource is refused before a token exists.
        super()._check_and_set_request_resource(request)
        headers = request.headers  # the Django request's META, as the toolkit passes it
        secure = bool(headers.get("X_DJANGO_OAUTH_TOOLKIT_SECURE"))  # set from is_secure()
        expected = public.mcp_resource(public.origin_of_meta(headers, secure))
        foreign = foreign_resources(list(request.resource or []), expected)
        if foreign:
            raise invalid_target(foreign[0], request)
        request.resource = [expected]

    def validate_refresh_token(
        self, refresh_token: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        # A token acts as its API key: once the key is revoked or its tenant suspended, the
        # family's access tokens stop working at /mcp, and its refresh tokens must not mint
        # new ones either (invalid_grant).
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        return identity.principal_for_user(request.user.pk) is not None
