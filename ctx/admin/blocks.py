"""Blocks: browse by scope, category, type, lifecycle and sensitivity; add, edit, archive and
restore through the block operations, so content hash, sensitivity, content dates, anchors and
the embedding are derived again exactly as for an API write."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.contrib.postgres.search import SearchQuery
from django.db.models import Func, Q, QuerySet, TextField, Value
from django.db.models.functions import Left
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from ctx import selectors
from ctx.admin.base import (
    OperationForm,
    OperatorAdmin,
    ScopeChoice,
    ScopeFilter,
    offer_scopes,
    scope_label,
    scope_name_for,
)
from ctx.admin.site import operator
from ctx.models import Block, Sensitivity
from ctx.ops import blocks as ops
from ctx.permissions import is_server_admin
from ctx.principal import Principal
from ctx.selectors import int_pk
from dream.models import Link

EDITABLE = (
    "category",
    "title",
    "content",
    "tags",
    "type",
    "sensitivity",
    "valid_from",
    "valid_to",
    "metadata",
)
PREVIEW_CHARS = 120
MASKED = "credentials-level content hidden"
CHAIN_HOPS = 10  # how far the "superseded by" chain is followed on a change page


def _wire(name: str, value: Any) -> Any:
    """A form value as the operations' input models take it (text dates, plain lists)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if name == "tags":
        return [t.strip() for t in value or [] if t.strip()]
    return value


class IsoDateTime(forms.CharField):
    """A date or datetime typed as ISO text (2025-03-01, 2025-03-01T09:00+01:00); the
    operation parses it, with its own message for a bad one."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, max_length=40, **kwargs)
        self.widget.attrs.update(placeholder="2025-03-01 or 2025-03-01T09:00+01:00")

    def prepare_value(self, value: Any) -> Any:
        return value.isoformat() if isinstance(value, datetime) else value

    def has_changed(self, initial: Any, data: Any) -> bool:
        return (self.prepare_value(initial) or "") != (data or "").strip()


class BlockForm(OperationForm):
    valid_from = IsoDateTime(help_text="From when the fact holds (optional).")
    valid_to = IsoDateTime(help_text="Until when it holds (optional).")

    class Meta:
        model = Block
        fields = EDITABLE

    def given(self, names: Any) -> dict[str, Any]:
        return {n: _wire(n, self.cleaned_data.get(n)) for n in names if n in self.cleaned_data}


class BlockAddForm(BlockForm):
    scope = ScopeChoice(queryset=Block.objects.none(), help_text="A scope your key may write.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offer_scopes(self, self.principal, self.principal.write_scope_ids)

    def operate(self, principal: Principal) -> Any:
        raw = {k: v for k, v in self.given(EDITABLE).items() if v not in (None, "")}
        raw["scope"] = scope_name_for(principal, self.cleaned_data["scope"])
        return ops.store(principal, ops.StoreInput.parse(raw))

    def saved(self) -> Block:
        block: Block = Block.objects.get(pk=self.result["id"])
        return block


class BlockChangeForm(BlockForm):
    def operate(self, principal: Principal) -> Any:
        changed = self.given(f for f in self.changed_data if f in EDITABLE)
        if not changed:
            return None  # nothing to write
        raw = {"id": str(self.instance.pk), "fields": changed}
        return ops.update(principal, ops.UpdateInput.parse(raw))

    def saved(self) -> Block:
        block: Block = Block.objects.select_related("scope").get(pk=self.instance.pk)
        return block


class CategoryFilter(admin.SimpleListFilter):
    """Categories of the chosen scope, or of every readable scope while they are few (one
    index probe per scope and category: a server of many scopes lists them per scope)."""

    title = "category"
    parameter_name = "category"
    shown = 100
    scopes_at_most = 50

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        p = operator(request)
        chosen = int_pk(request.GET.get(ScopeFilter.parameter_name))
        scope_ids = [chosen] if chosen in p.read_scope_ids else sorted(p.read_scope_ids)
        if len(scope_ids) > self.scopes_at_most:
            return []
        return [(c, c) for c in selectors.category_names(p, scope_ids, limit=self.shown)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(category=self.value()) if self.value() else queryset


class BlockChangeList(ChangeList):
    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> Any:
        # A page of 100 rows needs neither the texts (up to 50 KB each) nor the vectors.
        qs = super().get_queryset(request, exclude_parameters)
        return qs.defer("content", "embedding", "metadata", "source_quote").annotate(
            head=Left("content", PREVIEW_CHARS)
        )


@admin.register(Block)
class BlockAdmin(OperatorAdmin):
    add_form = BlockAddForm
    change_form = BlockChangeForm
    list_display = (
        "title",
        "category",
        "scope_name",
        "type",
        "lifecycle",
        "sensitivity",
        "preview",
        "archived",
        "updated_at",
    )
    list_filter = (ScopeFilter, CategoryFilter, "type", "lifecycle", "sensitivity", "archived")
    search_fields = ("title",)  # shows the box; get_search_results decides what matches
    search_help_text = "Words of the title or content (English full text), or a block id."
    ordering = ("-updated_at",)
    list_per_page = 50
    show_facets = admin.ShowFacets.NEVER  # a count per filter choice over every visible block
    derived = (
        "id",
        "tenant",
        "scope_name",
        "lifecycle",
        "content_hash",
        "embedded",
        "embed_model",
        "quality",
        "content_times",
        "superseded_by_link",
        "source",
        "source_time",
        "archived",
        "created_at",
        "updated_at",
    )
    related = ("supersession", "links")
    object_actions = {"archive": ("Archive", "archive"), "restore": ("Restore", "restore")}
    actions = ["archive_selected", "restore_selected"]

    def visible(self, principal: Principal, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return selectors.in_readable_scopes(principal, queryset).select_related("scope__tenant")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        return BlockChangeList

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("scope", *EDITABLE)
        return (*EDITABLE, *self.derived, *self.related)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        readonly = (*self.derived, *self.related)
        return readonly if self.has_change_permission(request, obj) else (*EDITABLE, *readonly)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # An archived block is read-only until restored (the update operation reads live ones).
        return super().has_change_permission(request, obj) and not (obj and obj.archived)

    def offers(self, verb: str, obj: Any) -> bool:
        return bool(obj.archived) == (verb == "restore")

    # search

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        try:
            return queryset.filter(pk=uuid.UUID(term)), False
        except ValueError:
            pass
        # Both served by indexes, also under row-level security (docs/rls.md, LEAKPROOF).
        # English stems, and the accent-folded simple column ("Bjorn" finds "Björn"; its text
        # and the term both go through ctx_simple_text, migration ctx 0018).
        words = SearchQuery(term, config="english", search_type="websearch")
        folded = Func(Value(term), function="ctx_simple_text", output_field=TextField())
        plain = SearchQuery(folded, config="simple", search_type="websearch")
        matches = Q(tsv_en=words) | Q(tsv_simple=plain) | Q(title__trigram_word_similar=term)
        return queryset.filter(matches), False

    # columns

    @admin.display(description="scope", ordering="scope__name")
    def scope_name(self, obj: Block) -> str:
        return obj.scope.name

    @admin.display(description="tenant")
    def tenant(self, obj: Block) -> str:
        return obj.scope.tenant.name

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = list(self.list_display)
        if is_server_admin(operator(request)):  # every tenant's blocks: say whose
            shown.insert(shown.index("scope_name"), "tenant")
        return shown

    @admin.display(description="content")
    def preview(self, obj: Block) -> str | SafeString:
        if obj.sensitivity == Sensitivity.CREDENTIALS:
            return format_html('<span class="ctx-masked">{}</span>', MASKED)
        head = getattr(obj, "head", None)
        text = " ".join((head if head is not None else obj.content[:PREVIEW_CHARS]).split())
        return text + ("…" if len(text) >= PREVIEW_CHARS - 5 else "")

    @admin.display(description="embedded", boolean=True)
    def embedded(self, obj: Block) -> bool:
        return obj.embedding is not None

    @admin.display(description="superseded by")
    def superseded_by_link(self, obj: Block) -> str | SafeString:
        return _block_link(obj.superseded_by) if obj.superseded_by else "-"

    @admin.display(description="supersession chain")
    def supersession(self, obj: Block) -> SafeString:
        """Newer versions (following `superseded_by`) and the blocks this one superseded.
        Supersession stays within a scope, which the operator reads (this block is shown)."""
        newer: list[Block] = []
        seen, current = {obj.pk}, obj
        while current.superseded_by_id and len(newer) < CHAIN_HOPS:
            nxt = Block.objects.filter(pk=current.superseded_by_id, scope_id=obj.scope_id).first()
            if nxt is None or nxt.pk in seen:
                break
            newer.append(nxt)
            seen.add(nxt.pk)
            current = nxt
        older = list(Block.objects.filter(superseded_by=obj, scope_id=obj.scope_id)[:20])
        rows = [("newer", b) for b in newer] + [("superseded", b) for b in older]
        if not rows:
            return format_html("{}", "-")
        return _table(
            ("", "block", "lifecycle"), ((k, _block_link(b), b.lifecycle) for k, b in rows)
        )

    @admin.display(description="links")
    def links(self, obj: Block) -> SafeString:
        found = (
            Link.objects.filter(Q(source=obj) | Q(target=obj), scope_id=obj.scope_id)
            .select_related("source", "target")
            .order_by("link_class", "-confidence")[:50]
        )
        rows = [
            (
                _link_link(x),
                "→" if x.source_id == obj.pk else "←",
                _block_link(x.target if x.source_id == obj.pk else x.source),
                f"{x.confidence:.2f}",
                x.origin + (" (pinned)" if x.pinned else ""),
            )
            for x in found
        ]
        if not rows:
            return format_html("{}", "-")
        return _table(("class", "", "other block", "confidence", "origin"), rows)

    # archive and restore

    def archive(self, principal: Principal, block: Block) -> str:
        ops.delete(principal, ops.GetInput.parse({"id": str(block.pk)}))
        return f"Block {block.title} archived: search no longer finds it."

    def restore(self, principal: Principal, block: Block) -> str:
        ops.restore(principal, ops.GetInput.parse({"id": str(block.pk)}))
        return f"Block {block.title} restored; it is embedded again."

    @admin.action(description="Archive selected blocks")
    def archive_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset.filter(archived=False), self.archive, "Archived")

    @admin.action(description="Restore selected blocks")
    def restore_selected(self, request: HttpRequest, queryset: Any) -> None:
        self.run_each(request, queryset.filter(archived=True), self.restore, "Restored")


def _block_link(block: Block) -> SafeString:
    url = reverse("admin:ctx_block_change", args=[block.pk])
    return format_html('<a href="{}">{}</a>', url, f"{block.category}/{block.title}")


def _link_link(link: Link) -> SafeString:
    url = reverse("admin:dream_link_change", args=[link.pk])
    return format_html('<a href="{}">{}</a>', url, link.link_class)


def _table(head: tuple[str, ...], rows: Any) -> SafeString:
    header = format_html_join("", "<th>{}</th>", ((h,) for h in head))
    body = format_html_join("", "<tr>" + "<td>{}</td>" * len(head) + "</tr>", rows)
    return format_html('<table class="ctx-table"><tr>{}</tr>{}</table>', header, body)


__all__ = ["BlockAdmin", "scope_label"]
