"""What extraction reads: a stored block, or the messages of a conversation session.

A source is named by its key, `block:<uuid>` or `session:<id>`; `load` returns its units in
the extractor's terms, or None when the source is gone or is not extracted from (a transcript
window, a digest, a block that is itself an extracted fact or entity).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from ctx import knobs
from ctx.models import Block, BlockType, Scope
from ingest.models import Message, Session
from memory.extract import Role, Unit
from memory.identity import source_hash
from memory.models import Entity, Fact
from refindex.services import CATEGORY_PREFIX as INDEXED_CATEGORY_PREFIX

EXTRACTOR = "rules-1"
# Types that are not a person's own statements, or are extraction's own output.
SKIPPED_TYPES = frozenset(
    {
        BlockType.TRANSCRIPT,
        BlockType.DIGEST,
        BlockType.SYSTEM_META,
        BlockType.FACT,
        BlockType.TASK,
        BlockType.ENTITY,
    }
)
ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "system": "system"}


@dataclass
class Source:
    key: str
    scope: Scope
    units: list[Unit]
    digest: str
    block_id: str | None = None
    session: Session | None = None
    refs: list[str] = field(default_factory=list)  # per unit: where it is (provenance ref)
    message_ids: list[str] = field(default_factory=list)  # per unit: the message's own id
    indexes: list[int | None] = field(default_factory=list)  # per unit: the message index
    first: bool = False  # never extracted before: nothing of it to replace (fewer queries)


def block_key(block_id: object) -> str:
    return f"block:{block_id}"


def session_key(session_id: int) -> str:
    return f"session:{session_id}"


def block_id(key: str) -> uuid.UUID | None:
    """The block a `block:` key names; None for another kind of key or a malformed id."""
    kind, _, raw = key.partition(":")
    if kind != "block":
        return None
    try:
        return uuid.UUID(raw)
    except ValueError:
        return None


def load(key: str) -> Source | None:
    pk = block_id(key)
    if pk is not None:
        return _block(pk)
    kind, _, raw = key.partition(":")
    if kind == "session" and raw.isdigit():
        return _session(int(raw))
    return None


# Documents and tool output indexed through /api/index (refindex) are kept as `index/<label>`
# chunks (INDEXED_CATEGORY_PREFIX, refindex's own constant): a log or a fetched page is
# nobody's statement, and "I prefer" in it is not a fact.


def eligible_blocks(block_ids: list[str]) -> list[str]:
    """The ids among these that extraction reads (one query per table)."""
    rows = (
        Block.objects.filter(pk__in=block_ids, archived=False)
        .exclude(type__in=SKIPPED_TYPES)
        .exclude(category__startswith=INDEXED_CATEGORY_PREFIX)
    )
    ids = {str(pk) for pk in rows.values_list("pk", flat=True)}
    derived = {str(pk) for pk in Fact.objects.filter(block_id__in=ids).values_list("pk", flat=True)}
    derived |= {
        str(pk) for pk in Entity.objects.filter(block_id__in=ids).values_list("pk", flat=True)
    }
    return sorted(ids - derived)


def _block(pk: uuid.UUID) -> Source | None:
    block = Block.objects.select_related("scope", "scope__tenant").filter(pk=pk).first()
    if block is None or block.archived or block.type in SKIPPED_TYPES:
        return None
    if block.category.startswith(INDEXED_CATEGORY_PREFIX):
        return None
    if Fact.objects.filter(pk=pk).exists() or Entity.objects.filter(pk=pk).exists():
        return None
    when: datetime = block.source_time or block.created_at
    key = block_key(block.pk)
    return Source(
        key=key,
        scope=block.scope,
        units=[Unit("document", block.content, when, key)],
        digest=source_hash([block.content_hash], EXTRACTOR),
        block_id=str(block.pk),
        refs=[key],
        message_ids=[""],
        indexes=[None],
    )


def _session(pk: int) -> Source | None:
    session = Session.objects.select_related("scope", "scope__tenant").filter(pk=pk).first()
    if session is None or session.deleted_at is not None:
        return None
    limit = int(knobs.value("CTX_EXTRACTION_MAX_MESSAGES"))
    rows = list(
        Message.objects.filter(session=session, role__in=list(ROLES))
        .order_by("-index")
        .values_list("index", "role", "text", "timestamp", "external_id", "content_hash")[:limit]
    )
    rows.reverse()
    key = session_key(pk)
    return Source(
        key=key,
        scope=session.scope,
        units=[Unit(ROLES[r[1]], r[2], r[3] or session.started_at, str(r[0])) for r in rows],
        digest=source_hash([f"{r[0]}:{r[5]}" for r in rows], EXTRACTOR),
        session=session,
        refs=[f"{key}#{r[0]}" for r in rows],
        message_ids=[r[4] for r in rows],
        indexes=[r[0] for r in rows],
    )
