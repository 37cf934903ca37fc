"""Block history: the earlier versions of a block, and bringing one back.

Every change of a block keeps the content it replaced (ctx/versions.py), whichever interface
made it; these operations read that history and restore a version as a new change.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

from ctx import masking, selectors, services, versions
from ctx.models import Block, BlockVersion
from ctx.ops import payloads as p
from ctx.ops.inputs import BlockId, Input, IntParam
from ctx.principal import Principal

PAGE = 20  # versions a page by default
MAX_PAGE = 100
MAX_VERSION = 2**31 - 1  # the column's range: a bigger number is no version anyone has


class Version(TypedDict):
    version: int
    category: str
    title: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    type: str
    valid_from: str | None
    valid_to: str | None
    sensitivity: str
    written_at: str  # when this content was written
    replaced_at: str  # when a change replaced it
    replaced_by: str  # the name of the key that changed it
    replaced_via: str  # http | cli | mcp | admin | web | task | system
    redacted: NotRequired[bool]  # true: content and metadata masked for this key (ctx/masking.py)


class Current(TypedDict):
    version: int
    written_at: str
    written_by: str | None  # None: the block was never changed since it was created
    written_via: str | None


class HistoryPayload(TypedDict):
    id: str
    title: str
    current: Current
    count: int
    versions: list[Version]
    next_before: int | None  # pass as `before` for the next (older) page; None on the last


class RestoreVersionPayload(TypedDict):
    action: Literal["restored"]
    restored_version: int
    current_version: int
    block: p.BlockFull


class HistoryInput(Input):
    id: BlockId
    limit: Annotated[
        int | None, IntParam(1, MAX_PAGE, description=f"Versions a page (default {PAGE}).")
    ] = None
    before: Annotated[
        int | None,
        IntParam(1, MAX_VERSION, description="Only versions older than this number (paging)."),
    ] = None


class VersionInput(Input):
    id: BlockId
    version: Annotated[int, IntParam(1, MAX_VERSION, description="The version to bring back.")]


def _version(principal: Principal, row: BlockVersion) -> Version:
    """One earlier version, masked at its own level above the principal's read ceiling."""
    level = row.sensitivity
    version: Version = {
        "version": row.version,
        "category": row.category,
        "title": row.title,
        "content": masking.text(principal, level, row.content),
        "tags": list(row.tags),
        "metadata": masking.metadata(principal, level, row.metadata),
        "type": row.type,
        "valid_from": row.valid_from.isoformat() if row.valid_from else None,
        "valid_to": row.valid_to.isoformat() if row.valid_to else None,
        "sensitivity": row.sensitivity,
        "written_at": row.written_at.isoformat(),
        "replaced_at": row.replaced_at.isoformat(),
        "replaced_by": row.replaced_by,
        "replaced_via": row.replaced_via,
    }
    if masking.masked(principal, level):
        version["redacted"] = True
    return version


def _current(block: Block, total: int, latest: BlockVersion | None) -> Current:
    return {
        "version": total + 1,
        "written_at": block.updated_at.isoformat(),
        "written_by": latest.replaced_by if latest else None,
        "written_via": latest.replaced_via if latest else None,
    }


def history(principal: Principal, data: HistoryInput) -> HistoryPayload:
    """A readable block's versions, newest first; a foreign block is a plain 404."""
    block = selectors.get_block_for(principal, data.id)
    limit = data.limit or PAGE
    rows = versions.versions_of(block, limit=limit + 1, before=data.before)
    total = versions.count_of(block)
    if rows and data.before is None:
        newest: BlockVersion | None = rows[0]
    else:
        newest = next(iter(versions.versions_of(block, limit=1)), None)
    page = rows[:limit]
    return {
        "id": str(block.pk),
        "title": block.title,
        "current": _current(block, total, newest),
        "count": len(page),
        "versions": [_version(principal, r) for r in page],
        "next_before": page[-1].version if len(rows) > limit else None,
    }


def restore_version(principal: Principal, data: VersionInput) -> RestoreVersionPayload:
    """An earlier version's content as the block's newest version."""
    block = services.block_version_restore(
        principal=principal, block_id=data.id, version=data.version
    )
    return {
        "action": "restored",
        "restored_version": data.version,
        "current_version": versions.count_of(block) + 1,
        "block": p.full(principal, block),
    }
