from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, JsonResponse
from django.urls import path

from ctx.api import views
from ctx.errors import CtxError, ErrorCode, error_response

urlpatterns = [
    path("health", views.health),
    path("api/store", views.StoreView.as_view()),
    path("api/store/batch", views.StoreBatchView.as_view()),
    path("api/search", views.SearchView.as_view()),
    path("api/query", views.QueryView.as_view()),
    path("api/manage", views.ManageView.as_view()),
    path("api/whoami", views.WhoAmIView.as_view()),
    path("api/admin/scopes", views.ScopeCreateView.as_view()),
    path("admin/", admin.site.urls),
]


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response(CtxError("No such endpoint.", code=ErrorCode.NOT_FOUND))


def server_error(request: HttpRequest) -> JsonResponse:
    return error_response(CtxError("Internal error.", code=ErrorCode.INTERNAL_ERROR))


handler404 = not_found
handler500 = server_error
