"""Rows the UI tests share: blocks with a link waiting for review and an open guard flag."""

from __future__ import annotations

from dataclasses import dataclass

from ctx.models import Block
from dream.models import GuardFlag, Link
from tests.conftest import Cast


@dataclass
class Seeded:
    plan: str  # block ids
    notes: str
    twin: str
    link: int
    flag: int


def seed(cast: Cast) -> Seeded:
    plan = cast.owner.store(category="ops", title="Deploy plan", content="Deploys on Tuesdays.")
    notes = cast.owner.store(category="ops", title="Deploy notes", content="Rollbacks are rare.")
    twin = cast.owner.store(category="ops", title="Deploy plan copy", content="Deploys Tuesday.")
    scope = Block.objects.get(pk=plan["id"]).scope
    low, high = sorted([plan["id"], notes["id"]])  # a symmetric class is stored in id order
    link = Link.objects.create(
        scope=scope, source_id=low, target_id=high, link_class="topical",
        confidence=0.4, raw_confidence=0.4, origin="dream",
    )  # fmt: skip
    flag = GuardFlag.objects.create(
        scope=scope, block_id=twin["id"], twin_id=plan["id"], similarity=0.97, kind="near_copy"
    )
    return Seeded(plan["id"], notes["id"], twin["id"], link.pk, flag.pk)
