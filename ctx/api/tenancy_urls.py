"""Routes of the management API (included at the root by ctx.urls; docs/api.md)."""

from __future__ import annotations

from django.urls import path

from ctx.api import tenancy as views

urlpatterns = [
    path("api/admin/tenants", views.TenantListView.as_view()),
    path("api/admin/tenants/<str:name>", views.TenantView.as_view()),
    path("api/admin/tenants/<str:name>/suspend", views.TenantSuspendView.as_view()),
    path("api/admin/tenants/<str:name>/resume", views.TenantResumeView.as_view()),
    path("api/keys", views.KeyListView.as_view()),
    path("api/keys/<str:prefix>", views.KeyView.as_view()),
    path("api/oauth/clients", views.ClientListView.as_view()),
    path("api/oauth/clients/<str:client_id>", views.ClientView.as_view()),
]
