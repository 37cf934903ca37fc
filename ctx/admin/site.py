"""The operators' admin site: signed in with an API key, every request under its principal.

Each admin view runs inside the signed-in operator's row-level-security context (the key's
scopes; a server admin's: every scope), including the rendering of its template, which is
where inline rows and read-only fields are read. Nothing here enters the system context.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import update_wrapper
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import SimpleTemplateResponse

from ctx import operators
from ctx.principal import Principal
from rls import context as rls_context

_CACHE = "_ctx_operator"


def principal_of(request: HttpRequest) -> Principal | None:
    """The signed-in operator of this request (resolved once per request), or None."""
    if not hasattr(request, _CACHE):
        user = getattr(request, "user", None)
        found = None
        if user is not None and user.is_authenticated:
            found = operators.operator_for_user(int(user.pk))
        setattr(request, _CACHE, found)
    cached: Principal | None = getattr(request, _CACHE)
    return cached


def operator(request: HttpRequest) -> Principal:
    """The operator of a request that passed the site's permission check."""
    principal = principal_of(request)
    assert principal is not None, "admin views run only for a signed-in operator"
    return principal


class OperatorSite(admin.AdminSite):
    site_header = "ctx administration"
    site_title = "ctx admin"
    index_title = "Operators"
    site_url = None  # there is no public page to go back to (it was a JSON 404)
    login_template = "ctx_admin/login.html"

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
        # Bulk deletes bypass the operations (a key is revoked, a block archived): each admin
        # offers its own actions instead.
        self.disable_action("delete_selected")

    @property
    def login_form(self) -> Any:  # type: ignore[override]
        from ctx.admin.auth import KeyLoginForm

        return KeyLoginForm

    def has_permission(self, request: HttpRequest) -> bool:
        return principal_of(request) is not None

    def admin_view(self, view: Callable[..., Any], cacheable: bool = False) -> Any:
        checked = super().admin_view(view, cacheable)

        def scoped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            principal = principal_of(request)
            if principal is None:
                response: HttpResponse = checked(request, *args, **kwargs)  # to the login page
                return response
            with rls_context.using(rls_context.for_principal(principal)):
                response = checked(request, *args, **kwargs)
                if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
                    response.render()  # templates read rows too: under the same context
            return response

        return update_wrapper(scoped, checked)
