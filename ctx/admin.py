"""Django admin for the core models. A key's secret is never shown: only its prefix exists."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest

from ctx import services
from ctx.models import ApiKey, Block, Scope, Tenant


class ScopeInline(admin.TabularInline):
    model = Scope
    extra = 0
    fields = ("name", "description")


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ("name", "display_name", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "display_name")
    inlines = [ScopeInline]


@admin.register(Scope)
class ScopeAdmin(admin.ModelAdmin):
    list_display = ("name", "tenant", "created_at")
    list_filter = ("tenant",)
    search_fields = ("name",)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "masked",
        "tenant",
        "home_scope",
        "role",
        "is_admin",
        "active",
        "last_used_at",
    )
    list_filter = ("active", "is_admin", "role", "tenant")
    search_fields = ("name", "prefix")
    # The HMAC and prefix are never editable; the secret itself is not stored at all.
    exclude = ("secret_hmac",)
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    filter_horizontal = ("read_scopes", "write_scopes")
    actions = ["revoke"]

    @admin.display(description="key")
    def masked(self, obj: ApiKey) -> str:
        return f"ctx_{obj.prefix}_…"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # keys are created by `manage.py keys create` or the API: shown once there

    @admin.action(description="Revoke selected keys")
    def revoke(self, request: HttpRequest, queryset: Any) -> None:
        for key in queryset.filter(active=True):
            services.key_revoke(tenant=None, prefix=key.prefix)
        messages.success(request, "Revoked.")


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("title", "category", "scope", "type", "lifecycle", "archived", "updated_at")
    list_filter = ("type", "lifecycle", "archived", "scope")
    search_fields = ("title", "category")
    exclude = ("embedding",)
    readonly_fields = ("content_hash", "embed_model", "created_at", "updated_at")


from ctx.overrides import admin as _registry_admin  # noqa: E402, F401 - registers its pages
