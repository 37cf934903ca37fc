"""Dream test helpers: blocks with hand-made embeddings, so similarities are exact."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ctx.models import EMBED_DIM, Block, Scope
from ctx.services import BlockInput, block_upsert
from dream import hooks
from dream.digest import system_principal
from tests.conftest import Cast

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # a Monday


def unit(**axes: float) -> list[float]:
    """A unit vector from named axes a0..a383: unit(a0=1, a1=0.2)."""
    vec = [0.0] * EMBED_DIM
    for name, weight in axes.items():
        vec[int(name[1:])] = weight
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


def cos_mix(cos: float, base: int = 0, other: int = 1) -> list[float]:
    """A unit vector whose cosine with axis `base` is exactly `cos`."""
    return unit(**{f"a{base}": cos, f"a{other}": math.sqrt(max(0.0, 1 - cos * cos))})


def scope(name: str) -> Scope:
    return Scope.objects.select_related("tenant").get(name=name)


def put(
    scope_name: str,
    title: str,
    content: str,
    vec: list[float],
    *,
    category: str = "notes",
    tags: list[str] | None = None,
    when: datetime | None = None,
    embed: bool = True,
    kind: str = "knowledge",
) -> Block:
    """Store through the one write path, then 'embed' with the given vector and run the
    embedding hooks exactly as retrieval.indexing does."""
    sc = scope(scope_name)
    data = BlockInput(
        category=category,
        title=title,
        content=content,
        tags=tags or [],
        source_time=when,
        type=kind,
    )
    block = block_upsert(principal=system_principal(sc), scope=None, data=data).block
    if embed:
        embed_as(block, vec)
    return Block.objects.get(pk=block.pk)


def embed_as(block: Block, vec: list[float]) -> None:
    Block.objects.filter(pk=block.pk).update(embedding=vec, embed_model="test")
    hooks.on_embedded([str(block.pk)])


def days(n: float) -> timedelta:
    return timedelta(days=n)


@pytest.fixture
def acme(cast: Cast) -> Cast:
    return cast


def settings_ctx(settings: Any, **values: Any) -> None:
    settings.CTX = {**settings.CTX, **values}
