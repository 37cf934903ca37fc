"""The web UI's pages."""

from __future__ import annotations

from django.urls import path

from frontend import views

urlpatterns = [
    path("p/<str:content_hash>", views.published_profile),
]
