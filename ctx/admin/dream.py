"""Dream: links (manual links within one scope; deleting a supersedes link restores its
target), the review queue, guard flags, per-block bookkeeping and the central mode."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from ctx import knobs, selectors
from ctx.admin.base import OperationForm, OperatorAdmin, ScopeFilter
from ctx.admin.site import operator
from ctx.principal import Principal
from dream import operations as ops
from dream.models import DreamMode, DreamState, GuardFlag, Link, LinkClass, LinkOrigin


class LinkAddForm(OperationForm):
    source = forms.CharField(max_length=64, help_text="The id of the block the link starts at.")
    target = forms.CharField(max_length=64, help_text="The id of a block in the same scope.")
    link_class = forms.ChoiceField(choices=LinkClass.choices)
    confidence = forms.FloatField(min_value=0.0, max_value=1.0, initial=1.0)

    class Meta:
        model = Link
        fields = ()

    def operate(self, principal: Principal) -> Any:
        data = {k: self.cleaned_data[k] for k in ("source", "target", "link_class", "confidence")}
        return ops.link_create(principal, ops.LinkCreateInput.parse(data))

    def saved(self) -> Link:
        link: Link = Link.objects.get(pk=self.result["link"]["id"])
        return link


class ReviewFilter(admin.SimpleListFilter):
    """What dream's review queue shows: unpinned dream links that are supersedes links or
    less confident than CTX_DREAM_REVIEW_BELOW."""

    title = "review"
    parameter_name = "review"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("wanted", "needs review")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() != "wanted":
            return queryset
        below = knobs.value("CTX_DREAM_REVIEW_BELOW")  # as dream.operations.review
        return queryset.filter(origin=LinkOrigin.DREAM, pinned=False).filter(
            Q(link_class=LinkClass.SUPERSEDES) | Q(confidence__lt=below)
        )


def _resolve(principal: Principal, link: Link, action: str) -> dict[str, Any]:
    return ops.link_resolve(
        principal, ops.LinkResolveInput.parse({"link": link.pk, "action": action})
    )


@admin.register(Link)
class LinkAdmin(OperatorAdmin):
    add_form = LinkAddForm
    list_display = ("source", "link_class", "target", "confidence", "origin", "pinned", "scope")
    list_filter = (ReviewFilter, "link_class", "origin", "pinned", ScopeFilter)
    list_select_related = ("source", "target", "scope")
    readonly_fields = (
        "source",
        "link_class",
        "target",
        "scope",
        "confidence",
        "raw_confidence",
        "origin",
        "pinned",
        "evidence",
        "found_by",
        "created_at",
        "updated_at",
    )
    object_actions = {"confirm": ("Confirm (pin)", "confirm")}
    actions = ["confirm_selected", "delete_selected_links"]

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.in_readable_scopes(principal, queryset)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return (
            ("source", "target", "link_class", "confidence")
            if obj is None
            else self.readonly_fields
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or operator(request).can_write(obj.scope_id)

    def offers(self, verb: str, obj: Any) -> bool:
        return not obj.pinned

    def delete_model(self, request: HttpRequest, obj: Link) -> None:
        self.delete(operator(request), obj)

    def confirm(self, principal: Principal, link: Link) -> str:
        _resolve(principal, link, "confirm")
        return f"Link {link.pk} confirmed: dream cycles never change or remove it."

    def delete(self, principal: Principal, link: Link) -> str:
        restored = _resolve(principal, link, "delete")["restored"]
        return f"Link {link.pk} deleted" + (
            f"; restored {len(restored)} block(s)." if restored else "."
        )

    @admin.action(description="Confirm (pin) selected links")
    def confirm_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset, self.confirm, "Confirmed")

    @admin.action(description="Delete selected links (restores superseded blocks)")
    def delete_selected_links(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, list(queryset), self.delete, "Deleted")


def _flag(principal: Principal, flag: GuardFlag, action: str) -> None:
    ops.flag_resolve(principal, ops.FlagResolveInput.parse({"id": flag.pk, "action": action}))


@admin.register(GuardFlag)
class GuardFlagAdmin(OperatorAdmin):
    list_display = ("block", "twin", "similarity", "kind", "status", "auto", "scope")
    list_filter = ("status", "kind", ScopeFilter)
    list_select_related = ("block", "twin", "scope")
    readonly_fields = (
        "block",
        "twin",
        "scope",
        "similarity",
        "kind",
        "status",
        "auto",
        "created_at",
        "resolved_at",
        "resolved_by",
    )
    object_actions = {"archive": ("Archive the block", "archive"), "keep": ("Keep both", "keep")}
    actions = ["archive_selected", "keep_selected"]

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.in_readable_scopes(principal, queryset)

    def offers(self, verb: str, obj: Any) -> bool:
        return bool(obj.status == GuardFlag.Status.OPEN)

    def archive(self, principal: Principal, flag: GuardFlag) -> str:
        _flag(principal, flag, "archive")
        return f"Flag {flag.pk}: the block is archived."

    def keep(self, principal: Principal, flag: GuardFlag) -> str:
        _flag(principal, flag, "keep")
        return f"Flag {flag.pk}: both blocks kept."

    @admin.action(description="Archive the flagged blocks")
    def archive_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset, self.archive, "Archived")

    @admin.action(description="Keep both blocks")
    def keep_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset, self.keep, "Kept")


@admin.register(DreamState)
class DreamStateAdmin(OperatorAdmin):
    """Read-only bookkeeping: when each block is dreamed next, its back-off and claim."""

    list_display = ("block", "scope", "next_at", "level", "failures", "cycles", "last_outcome")
    list_filter = ("last_outcome", ScopeFilter)
    list_select_related = ("block", "scope")
    readonly_fields = (
        "block",
        "scope",
        "next_at",
        "level",
        "failures",
        "cycles",
        "last_cycle_at",
        "last_outcome",
        "claimed_by",
        "claimed_at",
        "claim_until",
    )

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.in_readable_scopes(principal, queryset)


class ModeForm(OperationForm):
    class Meta:
        model = DreamMode
        fields = ("mode",)

    def operate(self, principal: Principal) -> Any:
        return ops.mode_set(principal, ops.ModeInput.parse({"mode": self.cleaned_data["mode"]}))

    def saved(self) -> DreamMode:
        return DreamMode.objects.get(pk=1)


@admin.register(DreamMode)
class DreamModeAdmin(OperatorAdmin):
    """The one switch for every worker (read on every cycle): server admins only."""

    server_admins_only = True
    add_form = ModeForm
    change_form = ModeForm
    list_display = ("mode", "updated_at", "updated_by")
    readonly_fields = ("updated_at", "updated_by")

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not DreamMode.objects.exists()
