"""What every signed-in page shares: the principal, its row-level-security context, and one
error page (a foreign block answers exactly like a missing one: the operations raise the same
`not_found` for both, and this renders it the same way)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.response import TemplateResponse

from ctx.errors import CtxError
from ctx.permissions import can_operate
from ctx.principal import Principal
from frontend.session import principal_of
from rls import context as rls_context

View = Callable[..., HttpResponse]


def signed_in(view: View) -> View:
    """`view(request, principal, ...)`, run under the key's scopes; signed out: to sign-in."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        principal = principal_of(request)
        if principal is None:
            query = urlencode({"next": request.get_full_path()})
            return HttpResponseRedirect(f"/sign-in?{query}")
        with rls_context.using(rls_context.for_principal(principal)):
            try:
                response = view(request, principal, *args, **kwargs)
            except CtxError as err:
                response = error_page(request, principal, err)
            if isinstance(response, TemplateResponse) and not response.is_rendered:
                response.render()  # templates read rows too: under the same context
        return response

    return wrapper


def page(
    request: HttpRequest, principal: Principal, template: str, context: dict[str, Any]
) -> HttpResponse:
    """A page of the UI: its template with the header's facts about the signed-in key."""
    header = {
        "me": {
            "key": principal.key.name,
            "tenant": principal.tenant_name,
            "operator": can_operate(principal),
        }
    }
    return render(request, f"frontend/ui/{template}", {**header, **context})


def error_page(request: HttpRequest, principal: Principal, err: CtxError) -> HttpResponse:
    response = page(request, principal, "error.html", {"status": err.status, "error": err})
    response.status_code = err.status
    return response


def writable_names(principal: Principal) -> set[str]:
    """The names of the scopes the key may write (pages offer writes only there)."""
    return {name for name, sid in principal.scope_names.items() if principal.can_write(sid)}
