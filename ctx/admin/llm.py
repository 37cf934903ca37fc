"""The LLM call log: read-only, server admins only, filtered by pipeline, provider, outcome
and day. Bodies are shown only on a call's own page (and exist only with CTX_LLM_LOG_BODIES)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet

from ctx.admin.base import OperatorAdmin
from ctx.principal import Principal
from retrieval.models import LLMCall
from retrieval.selectors import visible_llm_calls


@admin.register(LLMCall)
class LLMCallAdmin(OperatorAdmin):
    server_admins_only = True
    list_display = (
        "created_at",
        "pipeline",
        "provider",
        "model",
        "duration_ms",
        "tokens_in",
        "tokens_out",
        "ok",
        "error",
    )
    list_filter = ("ok", "provider", "pipeline")
    date_hierarchy = "created_at"
    search_fields = ("model", "error")
    readonly_fields = (*list_display, "prompt", "response")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return visible_llm_calls(principal, queryset)

    def get_queryset(self, request: Any) -> QuerySet[Any]:
        # A list page needs no bodies (prompts can be long).
        qs = super().get_queryset(request)
        return (
            qs
            if request.resolver_match.url_name.endswith("_change")
            else qs.defer("prompt", "response")
        )
