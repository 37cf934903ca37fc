"""The web UI's pages (namespace `ui`: they carry the Content-Security-Policy) and the public
page of a published profile."""

from __future__ import annotations

from django.urls import include, path

from frontend import blocks, finding, graph, review, views

ui = [
    path("", views.home, name="home"),
    path("sign-in", views.sign_in, name="sign-in"),
    path("sign-out", views.sign_out, name="sign-out"),
    path("search", finding.search, name="search"),
    path("search/suggest", finding.suggest, name="suggest"),
    path("blocks", finding.browse, name="browse"),
    path("blocks/bulk", finding.bulk, name="bulk"),
    path("blocks/<str:block_id>", blocks.block, name="block"),
    path("blocks/<str:block_id>/edit", blocks.edit, name="edit"),
    path("blocks/<str:block_id>/archive", blocks.archive, name="archive"),
    path("blocks/<str:block_id>/restore", blocks.restore, name="restore"),
    path(
        "blocks/<str:block_id>/history/<int:version>/restore",
        blocks.restore_version,
        name="restore-version",
    ),
    path("graph/<str:block_id>", graph.graph, name="graph"),
    path("graph/<str:block_id>/data", graph.graph_data, name="graph-data"),
    path("topics", graph.topics, name="topics"),
    path("topics/build", graph.topics_build, name="topics-build"),
    path("review", review.review, name="review"),
    path("review/links/<str:link_id>", review.link_resolve, name="link-resolve"),
    path("review/flags/<str:flag_id>", review.flag_resolve, name="flag-resolve"),
    path("review/mode", review.mode, name="mode"),
]

urlpatterns = [
    path("p/<str:content_hash>", views.published_profile),
    path("", include((ui, "ui"))),
]
