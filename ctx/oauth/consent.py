"""The sign-in and consent page: a person types a ctx API key and approves or denies a client.

The key is the sign-in (there are no passwords in ctx); the grant then belongs to that key's
principal through ctx.oauth.identity. Nothing is kept in a session: the page re-validates the
whole authorization request on every step, as the toolkit does.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.generic import View
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.forms import AllowForm
from oauth2_provider.models import get_application_model
from oauth2_provider.scopes import get_scopes_backend
from oauth2_provider.views import AuthorizationView
from oauthlib.oauth2.rfc6749 import errors

from ctx import selectors
from ctx.oauth import identity, public
from ctx.oauth.validators import foreign_resources, invalid_target

BAD_KEY = "That is not an active ctx API key."
# The authorization request fields carried through the form (RFC 6749 §4.1.1, PKCE, RFC 8707).
CARRIED = ("client_id", "redirect_uri", "response_type", "state")
PKCE = ("code_challenge", "code_challenge_method")


class ConsentForm(AllowForm):
    api_key = forms.CharField(required=False, max_length=200, widget=forms.PasswordInput)


@method_decorator(never_cache, name="dispatch")
@method_decorator(sensitive_post_parameters("api_key"), name="dispatch")
class ConsentView(AuthorizationView):
    template_name = "ctx_oauth/consent.html"
    form_class = ConsentForm

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The API key on this page is the sign-in, so the toolkit's LoginRequiredMixin (which
        # would send the person to a Django login form) is skipped on purpose.
        self.oauth2_data: dict[str, Any] = {}
        return View.dispatch(self, request, *args, **kwargs)  # type: ignore[return-value]

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        resources = request.GET.getlist("resource")
        refusal = self._refusal(resources, credentials)
        if refusal is not None:
            return refusal
        self.oauth2_data = {k: credentials.get(k) for k in (*CARRIED, *PKCE)}
        self.oauth2_data.update(scopes=scopes, resource=" ".join(resources))
        return self.render_to_response(self.get_context_data(form=self.get_form()))

    def form_valid(self, form: forms.Form) -> HttpResponse:
        data = form.cleaned_data
        refusal = self._refusal((data.get("resource") or "").split(), data)
        if refusal is not None:
            return refusal
        if data.get("allow"):
            principal = selectors.principal_for_key(data.get("api_key") or "")
            if principal is None:
                form.add_error("api_key", BAD_KEY)
                return self.form_invalid(form)
            self.request.user = identity.user_for_key(principal.key)
        response: HttpResponse = super().form_valid(form)
        return response

    def _refusal(self, resources: list[str], fields: Any) -> HttpResponse | None:
        """Refuse early what the toolkit would refuse only after approval, or not at all."""
        state = fields.get("state")
        if fields.get("code_challenge_method") != "S256":  # OAuth 2.1: PKCE, S256 only
            pkce = 'PKCE with code_challenge_method "S256" is required.'
            return self._refuse(errors.InvalidRequestError(description=pkce, state=state), fields)
        expected = public.mcp_resource(public.request_origin(self.request))
        foreign = foreign_resources(resources, expected)
        if foreign:
            return self._refuse(invalid_target(foreign[0], state=state), fields)
        return None

    def _refuse(self, error: errors.OAuth2Error, fields: Any) -> HttpResponse:
        """Redirect the error to the client, or show it if the redirect URI is not registered."""
        redirect_uri = fields.get("redirect_uri") or ""
        application = (
            get_application_model().objects.filter(client_id=fields.get("client_id")).first()
        )
        if application is None or not application.redirect_uri_allowed(redirect_uri):
            # Never redirect to a URI the client did not register (the form may be forged).
            return self.render_to_response({"error": error}, status=400)
        response: HttpResponse = self.error_response(
            OAuthToolkitError(error=error, redirect_uri=redirect_uri), application
        )
        return response

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        form = context.get("form")
        if form is not None:
            context.update(_describe(form.data if form.is_bound else form.initial))
        return context


def _describe(values: Any) -> dict[str, Any]:
    """What the person must see before approving: who asks, where the code goes, for what."""
    application = get_application_model().objects.filter(client_id=values.get("client_id")).first()
    all_scopes = get_scopes_backend().get_all_scopes()
    scope = values.get("scope") or ""
    return {
        "application": application,
        "client_name": (application.name if application else "") or "An unnamed client",
        "redirect_host": urlsplit(values.get("redirect_uri") or "").netloc,
        "scope_descriptions": [all_scopes.get(s, s) for s in scope.split()],
        "resource": values.get("resource") or "",
    }
