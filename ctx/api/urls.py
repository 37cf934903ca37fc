"""Every /api route (docs/api.md), each bound to one endpoint of ctx/api."""

from __future__ import annotations

from django.urls import path

from ctx.api import briefing, dream, memory, profiles, secrets, sessions, settings, tenancy, views

urlpatterns = [
    path("api/store", views.store),
    path("api/store/batch", views.store_batch),
    path("api/search", views.search_),
    path("api/query", views.query),
    path("api/manage", views.ManageView.as_view()),
    path("api/blocks", views.blocks_list),
    path("api/blocks/<str:id>/history", views.block_history),
    path("api/blocks/<str:id>/history/<str:version>/restore", views.version_restore),
    path("api/whoami", views.whoami),
    path("api/context", briefing.context),
    path("api/changes", briefing.changes),
    path("api/admin/scopes", views.scope_create),
    path("api/admin/tenants", tenancy.tenants),
    path("api/admin/tenants/<str:name>", tenancy.tenant),
    path("api/admin/tenants/<str:name>/suspend", tenancy.tenant_suspend),
    path("api/admin/tenants/<str:name>/resume", tenancy.tenant_resume),
    path("api/keys", tenancy.keys),
    path("api/keys/<str:prefix>", tenancy.key),
    path("api/oauth/clients", tenancy.clients),
    path("api/oauth/clients/<str:client_id>", tenancy.client),
    path("api/secrets", secrets.secrets_list),
    path("api/secrets/<str:name>", secrets.secret),
    path("api/settings", settings.settings_list),
    path("api/settings/audit", settings.audit),  # before {key}
    path("api/settings/<str:key>", settings.setting),
    path("api/dream/mode", dream.mode),
    path("api/dream/stats", dream.stats),
    path("api/dream/review", dream.review),
    path("api/dream/resolve", dream.resolve),
    path("api/guard", dream.guard),
    path("api/guard/stats", dream.guard_stats),
    path("api/guard/resolve", dream.guard_resolve),
    path("api/digest", dream.digest),
    path("api/graph/ego", dream.ego_graph),
    path("api/signals", profiles.signals),
    path("api/signals/batch", profiles.signals_batch),
    path("api/signals/inbox", profiles.signals_inbox),
    path("api/preferences/active", profiles.preferences_active),
    path("api/profiles", profiles.profiles),
    path("api/profiles/export", profiles.export),  # before {slug}
    path("api/profiles/import", profiles.folder_import),
    path("api/profiles/<str:slug>", profiles.profile),
    path("api/profiles/<str:slug>/activate", profiles.activate),
    path("api/profiles/<str:slug>/versions", profiles.versions),
    path("api/profiles/<str:slug>/diff", profiles.diff),
    path("api/profiles/<str:slug>/publish", profiles.publish),
    path("api/raw/<str:hash>", profiles.raw),
    path("api/sessions", sessions.sessions),
    path("api/sessions/import", sessions.import_),  # before {id}
    path("api/sessions/search", sessions.search),
    path("api/sessions/<str:id>", sessions.session),
    path("api/jobs/<str:id>", sessions.job),
    path("api/facts", memory.facts),
    path("api/facts/<str:id>", memory.fact),
    path("api/knowledge/decisions", sessions.decision),
    path("api/knowledge/error-solutions", sessions.error_solution),
    path("api/knowledge/insights", sessions.insight),
]
