"""Tenants, scopes and API keys. A key's secret is shown once, on the page after its creation;
only its prefix exists afterwards."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from ctx import selectors
from ctx.admin.base import (
    OperationForm,
    OperatorAdmin,
    ScopeChoice,
    ScopesChoice,
    is_shared,
    offer_scopes,
    result_of,
    show_once,
)
from ctx.admin.site import operator
from ctx.errors import CtxError
from ctx.models import ApiKey, Block, Scope, Tenant
from ctx.ops import tenancy as ops
from ctx.permissions import is_server_admin
from ctx.principal import Principal
from ctx.shared import shared_scope

# --- tenants -----------------------------------------------------------------------------------


class TenantAddForm(OperationForm):
    scopes = forms.CharField(
        required=False,
        help_text="More scopes besides <name>:main, separated by spaces or commas.",
    )

    class Meta:
        model = Tenant
        fields = ("name", "display_name")

    def operate(self, principal: Principal) -> Any:
        data = self.cleaned_data
        extra = data.get("scopes", "").replace(",", " ").split()
        raw = {"name": data["name"], "display_name": data.get("display_name"), "scopes": extra}
        return ops.tenant_create(principal, ops.TenantCreateInput.parse(raw))

    def saved(self) -> Tenant:
        tenant: Tenant = Tenant.objects.get(name=self.result["tenant"])
        return tenant


class ScopeInline(admin.TabularInline):
    model = Scope
    extra = 0
    fields = ("name", "description", "created_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tenant)
class TenantAdmin(OperatorAdmin):
    add_form = TenantAddForm
    list_display = ("name", "display_name", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "display_name")
    readonly_fields = ("name", "display_name", "status", "created_at")
    inlines = [ScopeInline]
    object_actions = {"suspend": ("Suspend", "suspend"), "resume": ("Resume", "resume")}
    actions = ["suspend_selected", "resume_selected"]
    delete_confirmation_template = "ctx_admin/tenant_delete.html"

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.visible_tenants(principal, queryset)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("name", "display_name", "scopes") if obj is None else self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and is_server_admin(operator(request))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        p = operator(request)
        return is_server_admin(p) and (obj is None or obj.pk != p.tenant_id)

    def offers(self, verb: str, obj: Any) -> bool:
        wanted = Tenant.Status.ACTIVE if verb == "suspend" else Tenant.Status.SUSPENDED
        return bool(obj.status == wanted)

    def offered_actions(self, request: HttpRequest, object_id: str) -> list[tuple[str, str]]:
        return (
            super().offered_actions(request, object_id)
            if is_server_admin(operator(request))
            else []
        )

    def get_actions(self, request: HttpRequest) -> Any:
        return super().get_actions(request) if is_server_admin(operator(request)) else {}

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None) -> Any:
        owner_key = result_of(request)["owner_key"]
        show_once(request, obj, f"The owner key of tenant {obj.name}:", owner_key)
        self.message_user(request, f"Tenant {obj.name} created with an owner key.")
        return HttpResponseRedirect(self.after_action_url("created", obj))

    def suspend(self, principal: Principal, tenant: Tenant) -> str:
        ops.tenant_suspend(principal, ops.TenantInput.parse({"name": tenant.name}))
        return f"Tenant {tenant.name} suspended: its keys and tokens stop at once."

    def resume(self, principal: Principal, tenant: Tenant) -> str:
        ops.tenant_resume(principal, ops.TenantInput.parse({"name": tenant.name}))
        return f"Tenant {tenant.name} resumed."

    @admin.action(description="Suspend selected tenants")
    def suspend_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset, self.suspend, "Suspended")

    @admin.action(description="Resume selected tenants")
    def resume_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset, self.resume, "Resumed")

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """What the deletion removes (counts, not a list of every row), then the operation:
        suspended first, blocks in batches, keys, scopes, the tenant (ctx.tenancy)."""
        tenant = self.get_object(request, object_id)
        if tenant is None:
            return self.missing(request, object_id)
        if not self.has_delete_permission(request, tenant):
            self.message_user(request, "You cannot delete this tenant.", messages.ERROR)
            return HttpResponseRedirect(self.after_action_url("delete", tenant))
        if request.method == "POST":
            return self._delete(request, tenant)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Delete tenant {tenant.name}?",
            "opts": self.opts,
            "object": tenant,
            "counts": _tenant_counts(tenant),
        }
        return TemplateResponse(request, self.delete_confirmation_template, context)

    def _delete(self, request: HttpRequest, tenant: Tenant) -> HttpResponse:
        try:
            payload = ops.tenant_delete(
                operator(request), ops.TenantInput.parse({"name": tenant.name})
            )
        except CtxError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(self.after_action_url("delete", tenant))
        counts = ", ".join(f"{n} {what}" for what, n in payload["deleted"].items())
        self.message_user(request, f"Tenant {tenant.name} deleted ({counts}).")
        return HttpResponseRedirect(self.changelist_url())


def _tenant_counts(tenant: Tenant) -> dict[str, int]:
    keys = ApiKey.objects.filter(tenant=tenant).aggregate(
        n=Count("id"), live=Count("id", Q(active=True))
    )
    return {
        "blocks": Block.objects.filter(scope__tenant=tenant).count(),
        "scopes": Scope.objects.filter(tenant=tenant).count(),
        "keys": keys["n"],
        "active keys": keys["live"],
    }


# --- scopes ------------------------------------------------------------------------------------


class ScopeAddForm(OperationForm):
    class Meta:
        model = Scope
        fields = ("name", "description")
        help_texts = {"name": "Created in your own tenant; your key may read and write it."}

    def operate(self, principal: Principal) -> Any:
        raw = {"name": self.cleaned_data["name"], "description": self.cleaned_data["description"]}
        return ops.scope_create(principal, ops.ScopeCreateInput.parse(raw))

    def saved(self) -> Scope:
        scope: Scope = Scope.objects.get(
            tenant_id=self.principal.tenant_id, name=self.result["name"]
        )
        return scope


@admin.register(Scope)
class ScopeAdmin(OperatorAdmin):
    add_form = ScopeAddForm
    list_display = ("name", "tenant", "description", "created_at")
    search_fields = ("name",)
    readonly_fields = ("tenant", "name", "description", "created_at", "term_stats_at")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.visible_scopes(principal, queryset).select_related("tenant")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("name", "description") if obj is None else self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields


# --- keys --------------------------------------------------------------------------------------


def _names(principal: Principal, tenant: Tenant, scopes: Any) -> list[str]:
    """Scope names within the key's tenant; another tenant's scope keeps its tenant in front,
    so the operation refuses it (no other tenant's scope of the same name is picked)."""
    return [
        s.name if s.tenant_id == tenant.pk or is_shared(s) else f"{s.tenant.name}/{s.name}"
        for s in scopes
    ]


class KeyScopesForm(OperationForm):
    home_scope = ScopeChoice(queryset=Scope.objects.none(), required=False)
    read_scopes = ScopesChoice(
        queryset=Scope.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )
    write_scopes = ScopesChoice(
        queryset=Scope.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Write implies read.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.principal
        ids = (
            p.read_scope_ids
            if is_server_admin(p)
            else [
                *Scope.objects.filter(tenant_id=p.tenant_id).values_list("pk", flat=True),
                shared_scope().pk,  # readable by grant; writing it is a server admin's to give
            ]
        )
        offer_scopes(self, p, ids)
        if not is_server_admin(p):  # not offered what saving would refuse
            for name in ("write_scopes", "home_scope"):
                field = cast(ScopesChoice | ScopeChoice, self.fields[name])
                offered = Scope.objects.filter(pk__in=ids).exclude(pk=shared_scope().pk)
                field.queryset = offered.select_related("tenant").order_by("tenant__name", "name")


class KeyAddForm(KeyScopesForm):
    tenant_name = forms.ChoiceField(label="Tenant", required=False)
    read_only = forms.BooleanField(
        required=False, help_text="Writes nothing (otherwise it writes its home scope by default)."
    )

    class Meta:
        model = ApiKey
        fields = ("name", "role", "is_admin", "max_sensitivity")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = Tenant.objects.order_by("name").values_list("name", flat=True)
        if not is_server_admin(self.principal):
            names = names.filter(pk=self.principal.tenant_id)
            self.fields.pop("is_admin", None)
        cast(forms.ChoiceField, self.fields["tenant_name"]).choices = [(n, n) for n in names]
        self.fields["tenant_name"].initial = self.principal.tenant_name
        self.fields[
            "home_scope"
        ].help_text = "Default: the first writable scope, else <tenant>:main."
        # Left out, the key gets the model's default ceiling (personal), as over the API.
        self.fields["max_sensitivity"].required = False

    def operate(self, principal: Principal) -> Any:
        data = self.cleaned_data
        tenant = Tenant.objects.filter(
            name=data.get("tenant_name") or principal.tenant_name
        ).first()
        target = tenant or Tenant.objects.get(pk=principal.tenant_id)
        write = [] if data.get("read_only") else _names(principal, target, data["write_scopes"])
        home = data.get("home_scope")
        raw = {
            "name": data["name"],
            "role": data["role"],
            "is_admin": bool(data.get("is_admin")),
            "tenant": target.name,
            "home_scope": _names(principal, target, [home])[0] if home else None,
            "read_scopes": _names(principal, target, data["read_scopes"]),
            "write_scopes": write if (write or data.get("read_only")) else None,
            "max_sensitivity": data.get("max_sensitivity") or None,
        }
        return ops.key_create(principal, ops.KeyCreateInput.parse(raw))

    def saved(self) -> ApiKey:
        key: ApiKey = ApiKey.objects.get(prefix=self.result["prefix"])
        return key


class KeyChangeForm(KeyScopesForm):
    class Meta:
        model = ApiKey
        fields = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        key = self.instance
        self.initial.update(
            home_scope=key.home_scope_id,
            read_scopes=list(key.read_scopes.values_list("pk", flat=True)),
            write_scopes=list(key.write_scopes.values_list("pk", flat=True)),
        )

    def operate(self, principal: Principal) -> Any:
        key, data = self.instance, self.cleaned_data
        home = data.get("home_scope")
        raw = {
            "prefix": key.prefix,
            "home_scope": _names(principal, key.tenant, [home])[0] if home else None,
            "read_scopes": _names(principal, key.tenant, data["read_scopes"]),
            "write_scopes": _names(principal, key.tenant, data["write_scopes"]),
        }
        return ops.key_update(principal, ops.KeyUpdateInput.parse(raw))


class TenantFilter(admin.SimpleListFilter):
    """Server admins: keys of one tenant."""

    title = "tenant"
    parameter_name = "tenant"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        if not is_server_admin(operator(request)):
            return []
        return [(n, n) for n in Tenant.objects.order_by("name").values_list("name", flat=True)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(tenant__name=self.value()) if self.value() else queryset


@admin.register(ApiKey)
class ApiKeyAdmin(OperatorAdmin):
    add_form = KeyAddForm
    change_form = KeyChangeForm
    list_display = (
        "name",
        "masked",
        "tenant",
        "home_scope",
        "role",
        "is_admin",
        "max_sensitivity",
        "active",
        "last_used_at",
    )
    list_filter = ("active", "role", "is_admin", TenantFilter)
    search_fields = ("name", "prefix")
    list_select_related = ("tenant", "home_scope")
    info_fields = (
        "name",
        "masked",
        "tenant",
        "role",
        "is_admin",
        "max_sensitivity",
        "active",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    object_actions = {"revoke": ("Revoke", "revoke")}
    actions = ["revoke_selected"]

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.visible_keys(principal, queryset)

    @admin.display(description="key")
    def masked(self, obj: ApiKey) -> str:
        return f"ctx_{obj.prefix}_…"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            fields = [
                "name",
                "tenant_name",
                "role",
                "is_admin",
                "home_scope",
                "read_scopes",
                "write_scopes",
                "read_only",
                "max_sensitivity",
            ]
            return (
                fields
                if is_server_admin(operator(request))
                else [f for f in fields if f != "is_admin"]
            )
        return (*self.info_fields, "home_scope", "read_scopes", "write_scopes")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.info_fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_change_permission(request, obj) and (obj is None or obj.active)

    def offers(self, verb: str, obj: Any) -> bool:
        return bool(obj.active)

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None) -> Any:
        show_once(request, obj, f"The new key {obj.name}:", result_of(request)["key"])
        self.message_user(request, f"Key {obj} created.")
        return HttpResponseRedirect(self.after_action_url("created", obj))

    def revoke(self, principal: Principal, key: ApiKey) -> str:
        ops.key_revoke(principal, ops.KeyInput.parse({"prefix": key.prefix}))
        return f"Key {key} revoked: it stops working at its next request."

    @admin.action(description="Revoke selected keys")
    def revoke_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset.filter(active=True), self.revoke, "Revoked")
