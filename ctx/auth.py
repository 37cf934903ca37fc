"""DRF authentication by `X-Context-Key` or `Authorization: Bearer <key>`."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission

from ctx import selectors
from ctx.errors import CtxError, ErrorCode
from ctx.principal import Principal
from rls import context as rls_context


def raw_key(request: HttpRequest) -> str | None:
    header = request.META.get("HTTP_X_CONTEXT_KEY")
    if header:
        return header.strip()
    auth = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[Principal, str] | None:
        raw = raw_key(request)
        if raw is None:
            return None
        principal = selectors.principal_for_key(raw)
        if principal is None:
            raise CtxError(selectors.key_refusal(raw), code=ErrorCode.UNAUTHORIZED)
        rls_context.enter(principal)  # the database shows this request only its scopes
        return principal, raw

    def authenticate_header(self, request: Any) -> str:
        return 'Bearer realm="ctx"'


class HasApiKey(BasePermission):
    def has_permission(self, request: Any, view: Any) -> bool:
        if isinstance(request.user, Principal):
            return True
        raise CtxError(selectors.NO_KEY, code=ErrorCode.UNAUTHORIZED)
