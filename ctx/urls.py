from __future__ import annotations

import sys

from django.contrib import admin
from django.http import HttpRequest, JsonResponse
from django.urls import include, path

from ctx.api import views
from ctx.errors import (
    DATABASE_RETRY_AFTER,
    CtxError,
    ErrorCode,
    database_unavailable,
    error_response,
)

urlpatterns = [
    path("health", views.health),
    path("", include("ctx.api.urls")),  # every /api route (docs/api.md)
    path("", include("frontend.urls")),  # the web UI's pages (/p/<hash>)
    path("admin/", admin.site.urls),
    path("", include("ctx.oauth.urls")),  # OAuth metadata + endpoints at the root (docs/mcp.md)
]


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response(CtxError("No such endpoint.", code=ErrorCode.NOT_FOUND))


def server_error(request: HttpRequest) -> JsonResponse:
    """Django calls this inside its `except`: a database that is away answers 503, as the
    API's exception handler does (ctx.errors.database_unavailable)."""
    away = database_unavailable(sys.exc_info()[1])
    if away is not None:
        response = error_response(away)
        response["Retry-After"] = str(DATABASE_RETRY_AFTER)
        return response
    return error_response(CtxError("Internal error.", code=ErrorCode.INTERNAL_ERROR))


handler404 = not_found
handler500 = server_error
