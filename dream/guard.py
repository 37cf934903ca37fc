"""Near-duplicate guard: hints with the store response, a background check after embedding,
and the review list.

Store hints embed the new text synchronously (its first windows, as the worker would; a short
text costs ~10 ms once the model is loaded) and ask the block HNSW index for the closest live
block of the same scope. Embedding rather than lexical similarity: the hint then uses the very
cosine and thresholds of the background check, so a hint and a later flag never disagree.
Blocks still awaiting their embedding are only found when their content is identical
(content hash). The hint fails open: any embedding error answers `checked: false`.

The background check runs where the embedding is written: the block just embedded is compared
with its nearest same-scope neighbours. A pair whose texts differ in a number, an identifier,
an amount or a name is never a duplicate, whatever its cosine (dream/distinct.py), and the
next neighbour is tried; one that differs only in its dates is a `recurrent` series, recorded
as such and kept. Otherwise cosine ≥ CTX_GUARD_ARCHIVE_AT is a near-copy, CTX_GUARD_REVIEW_AT
and above similar: both are flagged for review (open). The guard archives a near-copy only
when the tenant turned that rule on (CTX_GUARD_ACTION=archive), and records the rule as the
reason on the flag, which `keep` undoes. The block whose write made the pair is the one flagged.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from ctx import knobs
from ctx.errors import ValidationFailed
from ctx.models import Block
from ctx.principal import Principal
from ctx.selectors import get_scoped_for
from ctx.services import content_hash
from dream import engines
from dream.distinct import Difference, compare
from dream.models import GuardFlag
from dream.services import states_ensure
from retrieval.chunking import windows

log = logging.getLogger("ctx.dream.guard")

HINT_WINDOWS = 4  # long texts are compared by their first windows only (bounded latency)
HINT_K = 5  # neighbours a hint looks through for one that is not another record
ARCHIVE_RULE = "rule: CTX_GUARD_ACTION=archive"  # the reason recorded on an automatic archive
FLAG_NOT_FOUND = "Guard flag not found."


# --- store hints ---------------------------------------------------------------------------------


def _vector_literal(vec: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vec) + "]"


def _mean(vectors: list[list[float]]) -> list[float]:
    summed = [sum(col) for col in zip(*vectors, strict=True)]
    norm = sum(x * x for x in summed) ** 0.5 or 1.0
    return [x / norm for x in summed]


def _exact_twin(block: Block) -> dict[str, Any] | None:
    twin = (
        Block.objects.filter(
            scope_id=block.scope_id, content_hash=content_hash(block.content), archived=False
        )
        .exclude(pk=block.pk)
        .exclude(type="digest")
        .values("id", "title", "category")
        .first()
    )
    return None if twin is None else {**twin, "id": str(twin["id"]), "similarity": 1.0}


def _closest(block: Block, vector: list[float]) -> dict[str, Any] | None:
    """The closest live same-scope block that could be a copy: neighbours whose text tells
    another record (other numbers, names or dates) are passed over."""
    with connection.cursor() as cur:
        cur.execute(
            """SELECT id::text, title, category, 1 - (embedding <=> %(v)s::vector) FROM ctx_block
               WHERE scope_id = %(scope)s AND NOT archived AND id <> %(id)s
                 AND type <> 'digest' AND embedding IS NOT NULL
               ORDER BY embedding <=> %(v)s::vector LIMIT %(k)s""",
            {"v": _vector_literal(vector), "scope": block.scope_id, "id": block.pk, "k": HINT_K},
        )
        rows = cur.fetchall()
    texts = _texts([block.pk, *(row[0] for row in rows)])
    for row in rows:
        if _difference(texts, str(block.pk), row[0]) == "same":
            return {
                "id": row[0],
                "title": row[1],
                "category": row[2],
                "similarity": round(row[3], 4),
            }
    return None


def _texts(block_ids: list[Any]) -> dict[str, tuple[str, tuple[Any, ...]]]:
    """Each block's title and content, and its own validity dates."""
    rows = Block.objects.filter(pk__in=block_ids).values_list(
        "id", "title", "content", "valid_from", "valid_to"
    )
    return {
        str(pk): (f"{title}\n{content}", tuple(d.date() for d in (vf, vt) if d is not None))
        for pk, title, content, vf, vt in rows
    }


def _difference(texts: dict[str, tuple[str, tuple[Any, ...]]], a: str, b: str) -> Difference:
    (text_a, dates_a), (text_b, dates_b) = texts[a], texts[b]
    return compare(text_a, text_b, dates=(dates_a, dates_b))


def store_hints(principal: Principal, block: Block) -> dict[str, Any]:
    """`{"guard": {"checked", "near_duplicate"}}` for a store response: the closest live block
    of the same scope at or above CTX_GUARD_REVIEW_AT, or null."""
    cfg = settings.CTX
    if not cfg["CTX_GUARD_HINTS"] or block.type == "digest":
        return {"guard": {"checked": False, "near_duplicate": None}}
    found = _exact_twin(block)
    if found is None:
        try:
            texts = windows(block.title, block.content)[:HINT_WINDOWS]
            # Above the embedder's trust this raises SensitivityBlocked: no hint, nothing sent.
            vector = _mean(engines.embed_texts(texts, kind="probe", level=block.sensitivity))
            found = _closest(block, vector)
        except Exception:  # fail open: a hint is advice, the write has committed
            log.warning("guard hint skipped: embedding failed", exc_info=True)
            return {"guard": {"checked": False, "near_duplicate": None}}
    if found is not None and found["similarity"] < cfg["CTX_GUARD_REVIEW_AT"]:
        found = None
    if found is not None:
        found["scope"] = block.scope.name
    return {"guard": {"checked": True, "near_duplicate": found}}


# --- background check ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Neighbour:
    block_id: str
    neighbour_id: str
    cos: float
    newer: bool = True  # the block is newer than the neighbour (created later)
    # Either side is a conversation window: a record of what was said, never a copy to flag
    # (overlapping windows share half their text by design; a fact extracted from a
    # conversation says what its window says).
    record: bool = False


_NEIGHBOURS = """
SELECT src.id::text, n.id::text, 1 - n.dist, (src.created_at, src.id) > (n.created_at, n.id),
       'transcript' IN (src.type, n.type)
FROM ctx_block src
CROSS JOIN LATERAL (
    SELECT b.id, b.created_at, b.type, b.embedding <=> src.embedding AS dist FROM ctx_block b
    WHERE b.scope_id = src.scope_id AND NOT b.archived AND b.id <> src.id
      AND b.type <> 'digest' AND b.embedding IS NOT NULL
    ORDER BY b.embedding <=> src.embedding
    LIMIT %(k)s) n
WHERE src.id = ANY(%(ids)s::uuid[]) AND NOT src.archived AND src.type <> 'digest'
  AND src.embedding IS NOT NULL
ORDER BY src.created_at, src.id, n.dist
"""


def nearest(block_ids: list[str], *, k: int) -> list[Neighbour]:
    """Each block's k nearest live same-scope neighbours (block HNSW), closest first."""
    if not block_ids:
        return []
    with connection.cursor() as cur:
        cur.execute(_NEIGHBOURS, {"ids": block_ids, "k": k})
        rows = cur.fetchall()
    return [Neighbour(r[0], r[1], float(r[2]), bool(r[3]), bool(r[4])) for r in rows]


def check(neighbours: list[Neighbour]) -> dict[str, int]:
    """Flag each block against its closest neighbour that is not another record (and archive
    a near-copy where the tenant's rule says so); returns counts."""
    cfg = settings.CTX
    review_at, archive_at = cfg["CTX_GUARD_REVIEW_AT"], cfg["CTX_GUARD_ARCHIVE_AT"]
    counts = {"near_copy": 0, "similar": 0, "recurrent": 0, "archived": 0}
    archived: set[str] = set()
    done: set[str] = set()
    batch = {n.block_id for n in neighbours}
    close = [n for n in neighbours if n.cos >= review_at and not n.record]
    texts = _texts(list({i for n in close for i in (n.block_id, n.neighbour_id)}))
    for n in close:  # closest first per block, blocks oldest first
        if n.block_id in done or n.block_id in archived or n.neighbour_id in archived:
            continue
        if n.neighbour_id in batch and not n.newer:
            continue  # both written in this batch: the newer one is the copy
        difference = _difference(texts, n.block_id, n.neighbour_id)
        if difference == "distinct":
            continue  # another record: the next neighbour may still be a copy
        done.add(n.block_id)
        if _flagged_pair(n):
            continue
        kind = _kind(n.cos, archive_at, difference)
        auto = kind == "near_copy" and _archive_rule_on(n.block_id)
        _flag(n, kind, auto)
        counts[kind] += 1
        if auto:
            Block.objects.filter(pk=n.block_id).update(archived=True)
            archived.add(n.block_id)
            counts["archived"] += 1
    return counts


def _kind(cos: float, archive_at: float, difference: Difference) -> str:
    if difference == "recurrent":
        return GuardFlag.Kind.RECURRENT
    return GuardFlag.Kind.NEAR_COPY if cos >= archive_at else GuardFlag.Kind.SIMILAR


def _archive_rule_on(block_id: str) -> bool:
    """The block's tenant turned automatic archiving of near-copies on."""
    tenant_id = Block.objects.filter(pk=block_id).values_list("scope__tenant_id", flat=True).get()
    return bool(knobs.value("CTX_GUARD_ACTION", tenant_id) == "archive")


def _flagged_pair(n: Neighbour) -> bool:
    """The reverse pair was flagged already (the twin's own write found this block)."""
    pair = {"block_id": uuid.UUID(n.neighbour_id), "twin_id": uuid.UUID(n.block_id)}
    return GuardFlag.objects.filter(**pair).exists()


def _flag(n: Neighbour, kind: str, auto: bool) -> None:
    """Record the pair. An automatic archive names its rule, and a recurrent series is kept
    with the guard's reason: both are visible in the review list and undoable."""
    scope_id = Block.objects.filter(pk=n.block_id).values_list("scope_id", flat=True).get()
    status, reason = GuardFlag.Status.OPEN, ""
    if auto:
        status, reason = GuardFlag.Status.ARCHIVED, ARCHIVE_RULE
    elif kind == GuardFlag.Kind.RECURRENT:
        status, reason = GuardFlag.Status.KEPT, "guard: a dated series, not a copy"
    values = {
        "similarity": round(n.cos, 4),
        "kind": kind,
        "status": status,
        "auto": auto,
        "resolved_by": reason,
        "resolved_at": timezone.now() if reason else None,
    }
    flag, created = GuardFlag.objects.get_or_create(
        block_id=uuid.UUID(n.block_id),
        twin_id=uuid.UUID(n.neighbour_id),
        defaults={"scope_id": scope_id, **values},
    )
    if not created and flag.status != GuardFlag.Status.KEPT:
        for field, value in values.items():  # a human's "keep" stands
            setattr(flag, field, value)
        flag.save(update_fields=list(values))


# --- review --------------------------------------------------------------------------------------


def get_flag_for(principal: Principal, flag_id: Any, *, write: bool = False) -> GuardFlag:
    return get_scoped_for(GuardFlag, principal, flag_id, missing=FLAG_NOT_FOUND, write=write)


def flags_list(
    principal: Principal, scope_ids: list[int], *, status: str, limit: int
) -> list[GuardFlag]:
    return list(
        GuardFlag.objects.readable_by(principal, scope_ids)
        .filter(status=status)
        .select_related("block", "twin", "scope")
        .order_by("-similarity", "-id")[:limit]
    )


def flags_stats(principal: Principal, scope_ids: list[int]) -> dict[str, Any]:
    rows = (
        GuardFlag.objects.readable_by(principal, scope_ids)
        .values("kind", "status")
        .annotate(n=Count("id"))
        .order_by("kind", "status")
    )
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        out.setdefault(r["kind"], {})[r["status"]] = r["n"]
    open_total = sum(v.get("open", 0) for v in out.values())
    return {"open": open_total, "by_kind": out}


@transaction.atomic
def flag_resolve(*, principal: Principal, flag_id: Any, action: str) -> GuardFlag:
    """archive: archive the flagged block; keep: keep both (and undo an automatic archive)."""
    if action not in ("archive", "keep"):
        raise ValidationFailed("'action' must be archive or keep.", details={"field": "action"})
    flag = get_flag_for(principal, flag_id, write=True)
    archived = action == "archive"
    if archived:
        Block.objects.filter(pk=flag.block_id).update(archived=True)
    elif flag.status == GuardFlag.Status.ARCHIVED:  # undo the guard's (or a reviewer's) archive
        Block.objects.filter(pk=flag.block_id).update(archived=False)
        states_ensure([str(flag.block_id)], now=timezone.now())
    flag.status = GuardFlag.Status.ARCHIVED if archived else GuardFlag.Status.KEPT
    flag.resolved_at = timezone.now()
    flag.resolved_by = principal.key.name
    flag.save(update_fields=["status", "resolved_at", "resolved_by"])
    return flag
