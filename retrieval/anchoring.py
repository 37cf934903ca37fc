"""Write-time temporal anchoring: content dates become `content_times` and anchor rows.

Extraction is pure and bounded (≤ 64 dates per block, regexes compiled at import), so it runs
inside the write's transaction instead of a task: a stored block is anchored when it commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, time
from typing import Any

from django.utils import timezone

from ctx import bulk
from ctx.models import Block
from retrieval.models import TemporalAnchor
from retrieval.temporal import anchor_dimensions, extract_dates


def content_times(block: Block) -> list[datetime]:
    """Dates mentioned in the block's text, as midnight UTC (a date has no time of day)."""
    reference = (block.source_time or timezone.now()).date()
    dates = extract_dates(f"{block.title}\n{block.content}", reference=reference)
    return [datetime.combine(d, time(0, 0), tzinfo=UTC) for d in dates]


def meta_time(block: Block) -> datetime:
    """When the block was said: the source's own timestamp, else when it was stored."""
    return block.source_time or block.created_at or timezone.now()


def derive(block: Block) -> None:
    """Set the derived temporal fields before the block is saved."""
    block.content_times = content_times(block)


ANCHOR_COLUMNS = ("block", "scope", "dimension", "value", "source_date", "kind")


def _rows(block: Block, moment: datetime, kind: str) -> Iterable[tuple[Any, ...]]:
    """One row (ANCHOR_COLUMNS) per dimension of `moment`."""
    local = timezone.localtime(moment) if kind == "meta" else moment
    day = local.date()
    for dim, value in anchor_dimensions(local).items():
        yield (block.pk, block.scope_id, dim, value, day, kind)


def write_anchors(blocks: list[Block]) -> None:
    """Replace the blocks' anchor rows (content dates plus one meta date each).

    Rows are tuples, not TemporalAnchor instances: a batch of 500 blocks has 4,000+ of them
    and building the instances cost more than inserting them (ctx.bulk)."""
    TemporalAnchor.objects.filter(block__in=blocks).delete()
    rows: list[tuple[Any, ...]] = []
    for block in blocks:
        rows.extend(_rows(block, meta_time(block), "meta"))
        for moment in block.content_times:
            rows.extend(_rows(block, moment, "content"))
    bulk.insert_columns(TemporalAnchor, ANCHOR_COLUMNS, rows)


def block_dates(block: Block) -> list[datetime]:
    """Every date gravity weighs for a block: its meta date and each content date."""
    return [meta_time(block), *block.content_times]
