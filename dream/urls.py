"""Routes of the dream API (included at the root by ctx.urls)."""

from __future__ import annotations

from django.urls import path

from dream import views

urlpatterns = [
    path("api/dream/mode", views.DreamModeView.as_view()),
    path("api/dream/stats", views.DreamStatsView.as_view()),
    path("api/dream/review", views.DreamReviewView.as_view()),
    path("api/dream/resolve", views.DreamResolveView.as_view()),
    path("api/guard", views.GuardListView.as_view()),
    path("api/guard/stats", views.GuardStatsView.as_view()),
    path("api/guard/resolve", views.GuardResolveView.as_view()),
    path("api/digest", views.DigestView.as_view()),
    path("api/graph/ego", views.EgoGraphView.as_view()),
]
