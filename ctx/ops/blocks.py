"""Block operations: store, store a batch, get, update, delete (archive), recent, categories,
stats. Each takes the caller's principal and a validated input and returns its wire payload."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from ctx import hooks, selectors, services
from ctx.errors import CtxError, TooLarge, ValidationFailed
from ctx.ops import payloads as p
from ctx.ops.inputs import (
    BlockId,
    BoolParam,
    CategoryFilter,
    CategoryName,
    ChoiceParam,
    Content,
    Input,
    IntParam,
    Limit,
    Metadata,
    OptionalContent,
    ScopeList,
    ScopeName,
    SensitivityName,
    Since,
    Source,
    TagFilter,
    Tags,
    Text,
    Title,
    TypeFilter,
    TypeName,
    When,
)
from ctx.principal import Principal
from ctx.services import BlockInput, UpsertResult

MAX_BATCH = 500
PAGE_SIZE = 50  # blocks a page of GET /api/blocks by default
MAX_PAGE = 500


class StoreInput(Input):
    category: CategoryName
    title: Title
    content: Content
    scope: ScopeName = None
    tags: Tags = []
    type: TypeName = "knowledge"
    metadata: Metadata = {}
    valid_from: When = None
    valid_to: When = None
    source: Source = None
    source_time: When = None
    sensitivity: SensitivityName = None

    def block(self) -> BlockInput:
        return BlockInput(
            category=self.category,
            title=self.title,
            content=self.content,
            tags=list(self.tags),
            metadata=dict(self.metadata),
            type=self.type,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            source=self.source or "",
            source_time=self.source_time,
            sensitivity=self.sensitivity,
        )


def _block_list(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ValidationFailed("'blocks' must be a non-empty list.")
    if len(value) > MAX_BATCH:
        raise TooLarge(f"'blocks' has more than {MAX_BATCH} items.")
    return value


class StoreBatchInput(Input):
    # Items are parsed one by one in store_batch so that an error names its item.
    blocks: Annotated[list[Any], BeforeValidator(_block_list), Field(validate_default=True)] = []
    scope: ScopeName = None


def _sensitivity(result: UpsertResult) -> dict[str, Any]:
    """The stored level and the detectors that fired (names only, never the matched text)."""
    return {
        "sensitivity": result.block.sensitivity,
        "sensitivity_reasons": list(result.sensitivity_reasons),
    }


def store(principal: Principal, data: StoreInput) -> p.StorePayload:
    result = services.block_upsert(principal=principal, scope=data.scope, data=data.block())
    block = result.block
    payload: dict[str, Any] = {
        "action": result.action,
        "id": str(block.pk),
        "scope": block.scope.name,
        **_sensitivity(result),
    }
    for hint in hooks.STORE_HINTS:  # dream's near-duplicate hints
        payload.update(hint(principal, block))
    return payload  # type: ignore[return-value]


def _item(index: int, raw: Any) -> tuple[str | None, BlockInput]:
    """Parse one batch item and the scope it names, if any; an error names the item so
    nothing is silently dropped."""
    try:
        item = StoreInput.parse(raw)
        return item.scope, item.block()
    except CtxError as exc:
        exc.message = f"blocks[{index}]: {exc.message}"
        exc.details = {**(exc.details or {}), "index": index}
        raise


def store_batch(principal: Principal, data: StoreBatchInput) -> p.StoreBatchPayload:
    items = [_item(i, raw) for i, raw in enumerate(data.blocks)]
    results = services.block_upsert_scoped(principal=principal, scope=data.scope, items=items)
    rows = [{"id": str(r.block.pk), "action": r.action, **_sensitivity(r)} for r in results]
    return {"results": rows}  # type: ignore[typeddict-item]


class GetInput(Input):
    id: BlockId


def get(principal: Principal, data: GetInput) -> p.BlockPayload:
    return {"block": p.full(principal, selectors.get_block_for(principal, data.id))}


def dates(principal: Principal, data: GetInput) -> dict[str, list[str]]:
    """The dates found in the block's text (its temporal anchors' source), ISO, in order."""
    block = selectors.get_block_for(principal, data.id)
    return {"dates": [t.date().isoformat() for t in sorted(block.content_times)]}


def chain(principal: Principal, data: GetInput) -> p.ChainPayload:
    """The block's supersession chain both ways (readable blocks only)."""
    block = selectors.get_block_for(principal, data.id)
    newer, older = selectors.supersession_chain(principal, block)
    return {"newer": [p.chain_link(b) for b in newer], "older": [p.chain_link(b) for b in older]}


class UpdateFields(Input):
    """The fields an update may change; only those given are changed."""

    content: OptionalContent = None
    title: Annotated[Title | None, Field(description="New title.")] = None
    category: Annotated[CategoryName | None, Field(description="New category.")] = None
    tags: Annotated[Tags | None, Field(description="Replaces all tags.")] = None
    type: Annotated[TypeName | None, Field(description="New type.")] = None
    metadata: Annotated[Metadata | None, Field(description="Replaces the metadata (≤ 16 KB).")] = (
        None
    )
    valid_from: When = None
    valid_to: When = None
    sensitivity: SensitivityName = None

    def given(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.model_fields_set}


def _fields(value: Any) -> Any:
    if not isinstance(value, dict) or not value:
        raise ValidationFailed("'fields' must be a non-empty object.")
    unknown = sorted(set(value) - set(services.UPDATABLE))
    if unknown:
        raise ValidationFailed(f"Fields that cannot be updated: {', '.join(unknown)}.")
    return UpdateFields.parse(value)


class UpdateInput(Input):
    id: BlockId
    fields: Annotated[UpdateFields, BeforeValidator(_fields), Field(validate_default=True)] = None  # type: ignore[assignment]  # absent: the same message as an empty object


def update(principal: Principal, data: UpdateInput) -> p.UpdatePayload:
    block = services.block_update(principal=principal, block_id=data.id, fields=data.fields.given())
    return {"action": "updated", "block": p.full(principal, block)}


def delete(principal: Principal, data: GetInput) -> p.DeletePayload:
    block = services.block_archive(principal=principal, block_id=data.id)
    return {"action": "archived", "id": str(block.pk)}


def restore(principal: Principal, data: GetInput) -> p.RestorePayload:
    """An archived block back in search, its derived fields recomputed, re-embedding queued."""
    block = services.block_restore(principal=principal, block_id=data.id)
    return {"action": "restored", "block": p.full(principal, block)}


class ScopesInput(Input):
    scopes: ScopeList = []
    scope: ScopeName = None

    def names(self) -> list[str]:
        return [*self.scopes, *([self.scope] if self.scope else [])]


class RecentInput(ScopesInput):
    limit: Limit = 10


def recent(principal: Principal, data: RecentInput) -> p.ListPayload:
    scope_ids = selectors.readable_scope_ids(principal, data.names())
    blocks = selectors.recent_blocks(principal, scope_ids, data.limit)
    rows = [p.summary(principal, b) for b in blocks]
    return {"count": len(rows), "results": rows}


def categories(principal: Principal, data: ScopesInput) -> p.CategoriesPayload:
    scope_ids = selectors.readable_scope_ids(principal, data.names())
    return {"categories": selectors.categories(principal, scope_ids)}  # type: ignore[typeddict-item]


class StatsInput(ScopesInput):
    counts_only: Annotated[
        bool,
        BoolParam(
            "Only the block counts, without other apps' sections such as Dream's backlog "
            "(quick on large scopes: what the status line asks)."
        ),
    ] = False


def stats(principal: Principal, data: StatsInput) -> p.StatsPayload:
    scope_ids = selectors.readable_scope_ids(principal, data.names())
    found = selectors.block_stats(principal, scope_ids)
    if not data.counts_only:
        for section in hooks.STATS_SECTIONS:  # other apps' parts (dream's backlog)
            found.update(section(scope_ids))
    return {"stats": found}


# --- listing -------------------------------------------------------------------------------------


class ListInput(Input):
    """GET /api/blocks: filters and a page position, all text in a query string."""

    scope: ScopeList = []
    category: CategoryFilter = None
    tags: TagFilter = []
    type: TypeFilter = []
    since: Annotated[
        Since, Field(description="Changed since: ISO time, '2 hours ago', 'yesterday'.")
    ] = None
    archived: Annotated[
        bool, BoolParam("The archived blocks instead of the live ones (to restore).")
    ] = False
    limit: Annotated[
        int | None, IntParam(1, MAX_PAGE, description=f"Blocks a page (default {PAGE_SIZE}).")
    ] = None
    order: Annotated[
        str | None,
        ChoiceParam(selectors.ORDERS, description="changed (newest first), oldest or title."),
    ] = None
    cursor: Annotated[
        str | None, Text(1200, required=False, description="next_cursor of the page before.")
    ] = None


def encode_cursor(block: Any, order: str = "changed") -> str:
    """The position after `block` in `order`: its sort value and id, opaque to the caller."""
    value = block.title if order == "title" else block.updated_at.isoformat()
    raw = json.dumps([order, value, str(block.pk)], ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str, order: str = "changed") -> tuple[Any, uuid.UUID]:
    """(sort value, id) of a cursor made for `order`; any other text is a 400. A cursor of
    the first format (`<updated_at>|<id>`, newest change first) still reads."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        if raw.startswith("["):
            made_for, value, pk = json.loads(raw)
        else:
            made_for, (value, _, pk) = "changed", raw.partition("|")
        if made_for != order:
            raise ValueError(made_for)
        if order != "title":
            value = datetime.fromisoformat(value)
        return value, uuid.UUID(pk)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError):
        raise ValidationFailed(
            "'cursor' is not a next_cursor this endpoint returned for this order.",
            details={"field": "cursor"},
        ) from None


def list_blocks(principal: Principal, data: ListInput) -> p.PagePayload:
    """A page of the readable blocks, newest change first, and the cursor of the next page."""
    limit = data.limit or PAGE_SIZE
    filters = selectors.BlockFilters(
        category=data.category or None,
        tags=list(data.tags),
        types=list(data.type),
        since=data.since,
        archived=data.archived,
    )
    order = data.order or "changed"
    rows = selectors.block_page(
        principal,
        selectors.readable_scope_ids(principal, list(data.scope)),
        filters,
        after=decode_cursor(data.cursor, order) if data.cursor else None,
        limit=limit + 1,  # one more tells whether a next page exists
        order=order,
    )
    page = rows[:limit]
    more = len(rows) > limit
    return {
        "count": len(page),
        "results": [p.summary(principal, b) for b in page],
        "next_cursor": encode_cursor(page[-1], order) if more else None,
    }
