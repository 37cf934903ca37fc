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
from ctx.registry import views as setting_views
from secrets import views as secret_views  # the project app (it shadows the stdlib module)

urlpatterns = [
    path("health", views.health),
    path("api/store", views.StoreView.as_view()),
    path("api/store/batch", views.StoreBatchView.as_view()),
    path("api/search", views.SearchView.as_view()),
    path("api/query", views.QueryView.as_view()),
    path("api/manage", views.ManageView.as_view()),
    path("api/whoami", views.WhoAmIView.as_view()),
    path("api/admin/scopes", views.ScopeCreateView.as_view()),
    path("", include("ctx.api.tenancy_urls")),  # tenants, keys, OAuth clients (docs/api.md)
    path("api/secrets", secret_views.SecretListView.as_view()),
    path("api/secrets/<str:name>", secret_views.SecretView.as_view()),
    path("api/settings", setting_views.SettingListView.as_view()),
    path("api/settings/audit", setting_views.SettingAuditView.as_view()),  # before {key}
    path("api/settings/<str:key>", setting_views.SettingView.as_view()),
    path("", include("dream.urls")),  # dream/: api/dream/*, api/guard*, api/digest, api/graph
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
