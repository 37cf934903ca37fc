"""Read-only admin: metadata and the audit trail. Values and ciphertexts are never shown, and
nothing is added, changed or deleted here: writes go through the API (tier, scope, references,
audit) and break-glass."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Secret, SecretAudit


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Secret)
class SecretAdmin(ReadOnlyAdmin):
    list_display = ("name", "scope", "key_version", "created_by", "created_at", "rotated_at")
    list_filter = ("key_version", "scope__tenant")
    search_fields = ("name",)
    # An explicit field list, so a new column is hidden until someone decides to show it.
    fields = (
        "name",
        "scope",
        "key_version",
        "created_by",
        "created_at",
        "rotated_by",
        "rotated_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> Any:
        return (
            super()
            .get_queryset(request)
            .select_related("scope__tenant")
            .defer("ciphertext", "nonce")
        )


@admin.register(SecretAudit)
class SecretAuditAdmin(ReadOnlyAdmin):
    list_display = ("at", "action", "name", "scope", "actor", "host")
    list_filter = ("action",)
    search_fields = ("name", "scope", "actor")
