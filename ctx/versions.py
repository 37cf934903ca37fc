"""Block versions: every change of a block keeps the content it replaced.

`_apply` in ctx.services (the one place every write path changes a block: upsert, batch,
update, restore) takes a `snapshot` of an existing block before it changes it; `record` then
writes one `BlockVersion` per block whose versioned fields actually differ, numbered after the
block's last version, in the write's transaction (the block rows are locked by then, so two
writers cannot take the same number). A created block has no earlier content and costs
nothing here: a batch of new transcript windows writes no version rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Max

from ctx import channel
from ctx.errors import NotFound
from ctx.models import Block, BlockVersion
from ctx.principal import Principal

# What a version keeps, and what a restore puts back (the fields an update may change).
FIELDS = (
    "category",
    "title",
    "content",
    "tags",
    "metadata",
    "type",
    "valid_from",
    "valid_to",
    "sensitivity",
)
_ATTR = "_ctx_before"  # the snapshot rides on the instance between _apply and record


@dataclass(frozen=True)
class Snapshot:
    values: dict[str, Any]
    written_at: datetime


def snapshot(block: Block) -> None:
    """Remember an existing block's versioned fields before a write changes them."""
    if block._state.adding or hasattr(block, _ATTR):
        return  # new, or already remembered earlier in the same write
    values = {name: _copy(getattr(block, name)) for name in FIELDS}
    setattr(block, _ATTR, Snapshot(values, block.updated_at))


def _copy(value: Any) -> Any:
    return (
        list(value)
        if isinstance(value, list)
        else dict(value)
        if isinstance(value, dict)
        else value
    )


def _changed(block: Block) -> Snapshot | None:
    before: Snapshot | None = getattr(block, _ATTR, None)
    if before is None:
        return None
    delattr(block, _ATTR)
    now = {name: getattr(block, name) for name in FIELDS}
    return before if now != before.values else None


def record(principal: Principal, blocks: Sequence[Block]) -> int:
    """Write the replaced content of every changed block; return how many versions."""
    changed = [(b, s) for b in blocks if (s := _changed(b)) is not None]
    if not changed:
        return 0
    ids = [b.pk for b, _ in changed]
    last = dict(
        BlockVersion.objects.filter(block_id__in=ids)
        .values_list("block_id")
        .annotate(n=Max("version"))
    )
    who, via = principal.key.name[:100], channel.current()
    rows = [
        BlockVersion(
            block_id=b.pk,
            scope_id=b.scope_id,
            version=last.get(b.pk, 0) + 1,
            written_at=s.written_at,
            replaced_by=who,
            replaced_via=via,
            **s.values,
        )
        for b, s in changed
    ]
    BlockVersion.objects.bulk_create(rows)
    return len(rows)


# --- reads ---------------------------------------------------------------------------------------


def versions_of(block: Block, *, limit: int, before: int | None = None) -> list[BlockVersion]:
    """A block's earlier versions, newest first; `before`: only versions below that number."""
    qs = BlockVersion.objects.filter(block=block)
    if before is not None:
        qs = qs.filter(version__lt=before)
    return list(qs.order_by("-version")[:limit])


def count_of(block: Block) -> int:
    return BlockVersion.objects.filter(block=block).count()


def version_of(block: Block, number: int) -> BlockVersion:
    """One earlier version of a block the caller already reached; NotFound when there is none
    (the same answer as for a block the caller cannot see)."""
    row = BlockVersion.objects.filter(block=block, version=number).first()
    if row is None:
        raise NotFound()
    return row


def restore_fields(row: BlockVersion) -> dict[str, Any]:
    """The fields of a block update that bring this version's content back."""
    return {name: _copy(getattr(row, name)) for name in FIELDS}
