"""Sealed secrets: set, rotate and delete through the secret operations. A value is typed into
a password field, sealed, and never rendered back; ciphertexts are never shown either."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from ctx import selectors
from ctx.admin.base import (
    OperationForm,
    OperatorAdmin,
    ScopeChoice,
    ScopeFilter,
    offer_scopes,
    scope_name_for,
)
from ctx.admin.site import operator
from ctx.errors import CtxError
from ctx.principal import Principal
from secrets import operations as ops
from secrets import selectors as secret_selectors
from secrets.models import Secret, SecretAudit


def _value_field(label: str) -> forms.CharField:
    # render_value=False: a re-shown form (after an error) never carries the value back.
    return forms.CharField(
        label=label,
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Sealed with AES-256-GCM at once; it is never shown again, here or anywhere.",
    )


class SecretAddForm(OperationForm):
    scope = ScopeChoice(queryset=Secret.objects.none(), help_text="A scope your key may write.")
    value = _value_field("Value")

    class Meta:
        model = Secret
        fields = ("name",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offer_scopes(self, self.principal, self.principal.write_scope_ids)

    def operate(self, principal: Principal) -> Any:
        data = self.cleaned_data
        raw = {
            "name": data["name"],
            "scope": scope_name_for(principal, data["scope"]),
            "value": data["value"],
        }
        return ops.secret_put(principal, ops.SecretPutInput.parse(raw))

    def saved(self) -> Secret:
        secret: Secret = Secret.objects.get(
            scope=self.cleaned_data["scope"], name=self.result["secret"]["name"]
        )
        return secret


class SecretRotateForm(OperationForm):
    value = _value_field("New value")

    class Meta:
        model = Secret
        fields = ()

    def operate(self, principal: Principal) -> Any:
        secret = self.instance
        raw = {
            "name": secret.name,
            "scope": scope_name_for(principal, secret.scope),
            "value": self.cleaned_data["value"],
        }
        return ops.secret_put(principal, ops.SecretPutInput.parse(raw))


@admin.register(Secret)
class SecretAdmin(OperatorAdmin):
    add_form = SecretAddForm
    change_form = SecretRotateForm
    list_display = ("name", "scope", "key_version", "created_by", "created_at", "rotated_at")
    list_filter = (ScopeFilter, "key_version")
    search_fields = ("name",)
    # An explicit list, so a new column stays hidden until someone decides to show it.
    info_fields = (
        "name",
        "scope",
        "key_version",
        "created_by",
        "created_at",
        "rotated_by",
        "rotated_at",
        "referenced_by",
    )

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return (
            selectors.in_readable_scopes(principal, queryset)
            .select_related("scope__tenant")
            .defer("ciphertext", "nonce")
        )

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("scope", "name", "value")
        return (
            (*self.info_fields, "value")
            if self.has_change_permission(request, obj)
            else self.info_fields
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.info_fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        p = operator(request)
        return super().has_change_permission(request, obj) and (
            obj is None or p.can_write(obj.scope_id)
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_change_permission(request, obj)

    @admin.display(description="referenced by")
    def referenced_by(self, obj: Secret) -> str:
        return ", ".join(secret_selectors.references(obj)) or "-"

    def response_change(self, request: HttpRequest, obj: Any) -> HttpResponse:
        self.message_user(request, f"Secret {obj.name} rotated: sealed again with the new value.")
        return HttpResponseRedirect(self.after_action_url("rotated", obj))

    def delete_model(self, request: HttpRequest, obj: Secret) -> None:
        raw = {"name": obj.name, "scope": scope_name_for(operator(request), obj.scope)}
        ops.secret_delete(operator(request), ops.SecretInput.parse(raw))

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Django's confirmation page; the operation's refusal (a setting still names the
        secret: 409) comes back as a message on the secret's page."""
        try:
            return super().delete_view(request, object_id, extra_context)
        except CtxError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(self.change_url(object_id))


@admin.register(SecretAudit)
class SecretAuditAdmin(OperatorAdmin):
    list_display = ("at", "action", "name", "scope", "actor", "host")
    list_filter = ("action",)
    search_fields = ("name", "scope", "actor")
    readonly_fields = ("at", "action", "name", "scope", "actor", "host")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return secret_selectors.visible_audit(principal, queryset)
