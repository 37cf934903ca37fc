"""Django admin for the settings registry: overrides go through the same validation and audit
as the API; the audit trail is read-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db import transaction
from django.http import HttpRequest

from ctx.config import KNOBS
from secrets.selectors import find_secret

from . import services
from .models import SettingAction, SettingAudit, SettingOverride


def _actor(request: HttpRequest) -> str:
    return f"admin:{getattr(request.user, 'username', '') or '?'}"


class SettingOverrideForm(forms.ModelForm):
    key = forms.ChoiceField(choices=[(k.name, k.name) for k in KNOBS if k.live])

    class Meta:
        model = SettingOverride
        fields = ("key", "tenant", "value")
        help_texts = {
            "value": 'JSON: 0.5, true, ["graph", "rerank"]; a credential knob takes '
            '{"secret": "NAME", "scope": "tenant/scope"}, never the value.',
        }

    def clean(self) -> dict[str, Any]:

        data = super().clean() or {}
        key = data.get("key") or (self.instance.key if self.instance.pk else "")
        tenant = data.get("tenant") if "tenant" in data else self.instance.tenant
        change, findings = services.check_change(key, data.get("value"), tenant, find_secret)
        if findings:
            raise forms.ValidationError(findings)
        self.change = change
        return data


@admin.register(SettingOverride)
class SettingOverrideAdmin(admin.ModelAdmin):
    form = SettingOverrideForm
    list_display = ("key", "tenant", "value", "updated_by", "updated_at")
    list_filter = ("tenant",)
    search_fields = ("key",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("key", "tenant") if obj is not None else ()  # a new key is a new override

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        with transaction.atomic():
            saved = services.override_write(
                change=form.change, tenant=obj.tenant, actor=_actor(request)
            )
        obj.pk = saved.pk

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        with transaction.atomic():
            services.override_delete(
                key=obj.key, tenant=obj.tenant, actor=_actor(request), action=SettingAction.UNSET
            )

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(SettingAudit)
class SettingAuditAdmin(admin.ModelAdmin):
    list_display = ("at", "action", "key", "tenant", "actor", "old", "new")
    list_filter = ("action", "key")
    search_fields = ("key", "tenant", "actor")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
