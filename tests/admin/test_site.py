"""The operators' site: every admin view runs under the signed-in operator's row-level-security
context, never the system one and never none. The browser isolation tests cannot tell a
bypassed context from the right one (the pages' own scope filters still hide other tenants'
rows), so the context itself is asserted here."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from ctx import operators
from ctx.models import Scope
from rls import context as rls_context
from tests.admin.conftest import Keys

pytestmark = pytest.mark.django_db


def _context_in_a_view(raw_key: str) -> rls_context.Context:
    """The RLS context an admin view of the site sees, signed in with `raw_key`."""
    seen: list[rls_context.Context] = []

    def view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        seen.append(rls_context.current())
        return HttpResponse("ok")

    request = RequestFactory().get("/admin/ctx/block/")
    user = operators.sign_in(raw_key)
    assert isinstance(user, User)
    request.user = user
    request.session = {}  # type: ignore[assignment]
    response = admin.site.admin_view(view)(request)
    assert response.status_code == 200 and len(seen) == 1
    return seen[0]


def _ids(*names: str) -> set[int]:
    return set(Scope.objects.filter(name__in=names).values_list("pk", flat=True))


def test_it_runs_a_tenant_owners_view_under_its_keys_scopes(keys: Keys) -> None:
    before = rls_context.current()
    seen = _context_in_a_view(keys.owner)
    assert not seen.system
    assert set(seen.read) == set(seen.write) == _ids("acme:main", "acme:team")
    assert rls_context.current() == before  # left again after the view


def test_it_runs_a_server_admins_view_under_every_scope_not_the_system_context(
    keys: Keys,
) -> None:
    seen = _context_in_a_view(keys.root)
    assert not seen.system
    assert set(seen.read) == set(Scope.objects.values_list("pk", flat=True))
