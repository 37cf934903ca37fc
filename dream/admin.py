"""Django admin: the dream mode switch (one row), links, dream state and guard flags."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from dream.models import DreamMode, DreamState, GuardFlag, Link


@admin.register(DreamMode)
class DreamModeAdmin(admin.ModelAdmin):
    """Change `mode` here: workers read it on every cycle, no restart needed."""

    list_display = ("mode", "updated_at", "updated_by")
    fields = ("mode", "updated_by", "updated_at")
    readonly_fields = ("updated_at",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not DreamMode.objects.exists()  # a singleton: one row, id 1

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Link)
class LinkAdmin(admin.ModelAdmin):
    list_display = ("source", "link_class", "target", "confidence", "origin", "pinned", "scope")
    list_filter = ("link_class", "origin", "pinned", "scope")
    raw_id_fields = ("source", "target", "found_by")
    readonly_fields = ("created_at", "updated_at")


@admin.register(DreamState)
class DreamStateAdmin(admin.ModelAdmin):
    list_display = ("block", "scope", "next_at", "level", "failures", "cycles", "claimed_by")
    list_filter = ("scope", "last_outcome")
    raw_id_fields = ("block",)
    readonly_fields = ("claim_token", "claimed_at", "claim_until", "last_cycle_at")


@admin.register(GuardFlag)
class GuardFlagAdmin(admin.ModelAdmin):
    list_display = ("block", "twin", "similarity", "kind", "status", "auto", "scope")
    list_filter = ("kind", "status", "scope")
    raw_id_fields = ("block", "twin")
