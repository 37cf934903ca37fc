"""Settings overrides through the settings operations (the same validation and audit as the
API; the actor is the signed-in key), and the read-only audit trail."""

from __future__ import annotations

import json
from typing import Any, cast

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from ctx.admin.base import OperationForm, OperatorAdmin
from ctx.admin.site import operator
from ctx.models import Tenant
from ctx.overrides import operations as ops
from ctx.overrides import selectors as override_selectors
from ctx.overrides.models import SettingAudit, SettingOverride
from ctx.permissions import is_server_admin
from ctx.principal import Principal

SERVER_WIDE = ""
VALUE_HELP = (
    'JSON: 0.5, true, ["graph", "rerank"]; a credential takes {"secret": "NAME", '
    '"scope": "SCOPE"}, never the value.'
)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise forms.ValidationError("Not valid JSON.") from None


class OverrideForm(OperationForm):
    value_json = forms.CharField(
        label="Value", widget=forms.Textarea(attrs={"rows": 2}), help_text=VALUE_HELP
    )

    class Meta:
        model = SettingOverride
        fields = ()

    def clean_value_json(self) -> Any:
        return _json(self.cleaned_data["value_json"])

    def target(self) -> tuple[str, str | None]:
        """(knob, tenant name or None for server-wide)."""
        row = self.instance
        return row.key, row.tenant.name if row.tenant_id else None

    def operate(self, principal: Principal) -> Any:
        key, tenant = self.target()
        raw = {"key": key, "value": self.cleaned_data["value_json"], "tenant": tenant}
        return ops.setting_set(principal, ops.SetOneInput.parse(raw))

    def saved(self) -> SettingOverride:
        key, tenant = self.target()
        row: SettingOverride = SettingOverride.objects.get(key=key, tenant__name=tenant)
        return row


class OverrideAddForm(OverrideForm):
    key = forms.ChoiceField(choices=())
    tenant_name = forms.ChoiceField(label="Tenant", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.principal
        live = [k.name for k in override_selectors.visible_knobs(p) if k.live]
        cast(forms.ChoiceField, self.fields["key"]).choices = [(k, k) for k in live]
        tenants = Tenant.objects.order_by("name").values_list("name", flat=True)
        if is_server_admin(p):
            choices = [(SERVER_WIDE, "(server-wide)")] + [(n, n) for n in tenants]
        else:
            choices = [(p.tenant_name, p.tenant_name)]
        cast(forms.ChoiceField, self.fields["tenant_name"]).choices = choices

    def target(self) -> tuple[str, str | None]:
        return self.cleaned_data["key"], self.cleaned_data.get("tenant_name") or None

    def saved(self) -> SettingOverride:
        key, tenant = self.target()
        qs = SettingOverride.objects.filter(key=key)
        row: SettingOverride = (
            qs.filter(tenant__name=tenant) if tenant else qs.filter(tenant=None)
        ).get()
        return row


@admin.register(SettingOverride)
class SettingOverrideAdmin(OperatorAdmin):
    add_form = OverrideAddForm
    change_form = OverrideForm
    list_display = ("key", "tenant", "value", "updated_by", "updated_at")
    list_filter = ("key",)
    search_fields = ("key",)
    list_select_related = ("tenant",)
    info_fields = ("key", "tenant", "value", "updated_by", "updated_at")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return override_selectors.visible_overrides(principal, queryset)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return (
            ("key", "tenant_name", "value_json")
            if obj is None
            else (*self.info_fields, "value_json")
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.info_fields

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        return {
            "tenant_name": ""
            if is_server_admin(operator(request))
            else operator(request).tenant_name
        }

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._reach(request)

    def delete_model(self, request: HttpRequest, obj: SettingOverride) -> None:
        raw = {"key": obj.key, "tenant": obj.tenant.name if obj.tenant else None}
        ops.setting_unset(operator(request), ops.KeyInput.parse(raw))

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None and "value_json" in form.base_fields:
            form.base_fields["value_json"].initial = json.dumps(obj.value)
        return form


@admin.register(SettingAudit)
class SettingAuditAdmin(OperatorAdmin):
    list_display = ("at", "action", "key", "tenant", "actor", "old", "new")
    list_filter = ("action", "key")
    search_fields = ("key", "tenant", "actor")
    readonly_fields = ("at", "action", "key", "tenant", "actor", "old", "new")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return override_selectors.visible_audit(principal, queryset)
