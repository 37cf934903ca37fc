"""OAuth views: metadata documents, gated client registration, sign-in + consent."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.views import (
    DynamicClientRegistrationManagementView,
    DynamicClientRegistrationView,
    OAuthProtectedResourceMetadataView,
    OAuthServerMetadataView,
)

from ctx.oauth import dcr, public

# Grant types a registered client may ask for: the code flow and its refresh tokens only.
DCR_GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})
# The toolkit ignores `response_types`; a client asking for the implicit flow's "token" (an
# access token in the redirect) is refused rather than registered for something else.
DCR_RESPONSE_TYPES = frozenset({"code"})


def _json(data: dict[str, Any], status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status)
    response["Access-Control-Allow-Origin"] = "*"  # public metadata, as the toolkit serves it
    response["Cache-Control"] = "no-store"
    return response


class ServerMetadataView(OAuthServerMetadataView):
    """RFC 8414 metadata; the registration endpoint is advertised only when DCR is on."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        data = json.loads(super().get(request, *args, **kwargs).content)
        if dcr.mode() == "off":
            data.pop("registration_endpoint", None)
        return _json(data)


class ResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 metadata of /mcp, served at the root and at the /mcp path variant."""

    def get_resource(self, request: HttpRequest) -> str:
        return public.mcp_resource(public.request_origin(request))

    def get_authorization_servers(self, request: HttpRequest) -> list[str]:
        return [public.request_origin(request)]


def _error(error: str, description: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=status)


def _metadata(request: HttpRequest) -> dict[str, Any] | None:
    """The registration body if it is a JSON object; the toolkit reports anything else."""
    try:
        data = json.loads(request.body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _metadata_refusal(
    data: dict[str, Any], *, admin: bool, kept: frozenset[str] = frozenset()
) -> JsonResponse | None:
    """The refusal of a registration (or an update) the policy does not allow, else None.
    `kept`: redirect URIs the client already has (an update may keep what an admin added)."""
    grants = data.get("grant_types", ["authorization_code"])
    if isinstance(grants, list) and not set(map(str, grants)) <= DCR_GRANT_TYPES:
        return _error("invalid_client_metadata", "Only authorization_code and refresh_token.")
    responses = data.get("response_types", ["code"])
    if not isinstance(responses, list) or not set(map(str, responses)) <= DCR_RESPONSE_TYPES:
        return _error("invalid_client_metadata", "Only the code response type.")
    uris = data.get("redirect_uris", [])
    if isinstance(uris, list):
        bad = [u for u in uris if not _redirect_ok(u, admin=admin, kept=kept)]
        if bad:
            return _error(
                "invalid_redirect_uri",
                "Redirect URIs must be Claude's connector callback or a loopback http URI.",
            )
    return None


def _redirect_ok(uri: object, *, admin: bool, kept: frozenset[str]) -> bool:
    return isinstance(uri, str) and (uri in kept or dcr.redirect_allowed(uri, admin=admin))


def _access_refusal(request: HttpRequest) -> tuple[JsonResponse | None, bool]:
    """(refusal, caller is an admin) for the mode and the per-IP rate limit."""
    current = dcr.mode()
    if current == "off":
        return _error("not_found", "Client registration is switched off.", 404), False
    admin = dcr.admin_principal(request) is not None
    if current == "admin" and not admin:
        refusal = _error("access_denied", "Registration needs a ctx admin API key as Bearer.", 401)
        refusal["WWW-Authenticate"] = "Bearer"
        return refusal, False
    if not admin and dcr.rate_limited(dcr.client_ip(request)):
        refusal = _error("rate_limited", "Too many registrations from this address.", 429)
        refusal["Retry-After"] = str(dcr.RATE_WINDOW)
        return refusal, False
    return None, admin


class RegistrationView(DynamicClientRegistrationView):
    """RFC 7591 registration behind CTX_OAUTH_DCR_MODE, a rate limit, a cap and a redirect rule."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal, admin = _access_refusal(request)
        if refusal is not None:
            return refusal
        data = _metadata(request)
        if data is not None:
            refusal = _metadata_refusal(data, admin=admin)
            if refusal is not None:
                return refusal
        if dcr.at_capacity():
            return _error("access_denied", "This server has reached its limit of clients.", 403)
        response: HttpResponse = super().post(request, *args, **kwargs)
        return response


@method_decorator(csrf_exempt, name="dispatch")  # as the toolkit's: a Bearer API, no cookies
class RegistrationManagementView(DynamicClientRegistrationManagementView):
    """RFC 7592 read/update/delete with the registration access token, under the same rules as
    registration: off when DCR is off, and an update may not add a redirect URI or grant that
    registration would refuse (the toolkit applied neither, so an update could point a client's
    codes at any host)."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if dcr.mode() == "off":
            return _error("not_found", "Client registration is switched off.", 404)
        response: HttpResponse = super().dispatch(request, *args, **kwargs)
        return response

    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        data = _metadata(request)
        if data is not None:
            kept = frozenset(auth.application.redirect_uris.split())
            refusal = _metadata_refusal(data, admin=False, kept=kept)
            if refusal is not None:
                return refusal
        response: HttpResponse = super().put(request, client_id, *args, **kwargs)
        return response
