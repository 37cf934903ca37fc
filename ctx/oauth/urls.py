"""OAuth routes at the origin root: metadata, the toolkit's endpoints under o/, root aliases.

Only the endpoints ctx uses are mounted (no application-management pages, no device flow, no
introspection). The toolkit reverses its own views by name in the `oauth2_provider` namespace.
"""

from __future__ import annotations

from django.urls import path
from oauth2_provider.views import RevokeTokenView, TokenView

from ctx.oauth.consent import ConsentView
from ctx.oauth.views import (
    RegistrationManagementView,
    RegistrationView,
    ResourceMetadataView,
    ServerMetadataView,
)

app_name = "oauth2_provider"

consent = ConsentView.as_view()
token = TokenView.as_view()
revoke = RevokeTokenView.as_view()
register = RegistrationView.as_view()

urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        ServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource",
        ResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        ResourceMetadataView.as_view(),
        name="oauth-resource-metadata-mcp",
    ),
    path("o/authorize/", consent, name="authorize"),
    path("o/token/", token, name="token"),
    path("o/revoke_token/", revoke, name="revoke-token"),
    path("o/register/", register, name="dcr-register"),
    path(
        "o/register/<str:client_id>/",
        RegistrationManagementView.as_view(),
        name="dcr-register-management",
    ),
    # APPEND_SLASH is off (a redirect turns a POST into a body-less GET), so the slash-less
    # spellings are routes of their own. At the root they are also what clients synthesise when
    # metadata discovery fails (claude.ai, anthropics/claude-ai-mcp#82).
    path("o/authorize", consent),
    path("o/token", token),
    path("o/revoke_token", revoke),
    path("o/register", register),
    path("authorize", consent),
    path("token", token),
    path("register", register),
    path("revoke", revoke),
]
