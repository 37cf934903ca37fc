"""Reads. `get_<thing>_for(principal, …)` are the only ways to reach a tenant's objects."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Count, Exists, Model, OuterRef, Q, QuerySet
from django.utils import timezone

from ctx import keys
from ctx.errors import (
    FORBIDDEN_READ_MESSAGE,
    FORBIDDEN_SCOPE_MESSAGE,
    CtxError,
    Forbidden,
    NotFound,
    ValidationFailed,
)
from ctx.models import TOOL_OUTPUT_CATEGORIES, ApiKey, Block, BlockType, Scope, Tenant
from ctx.permissions import can_operate, is_server_admin
from ctx.principal import Principal
from ctx.trust import allowed_levels

M = TypeVar("M", bound=Model)

LAST_USED_RESOLUTION = timedelta(minutes=1)  # bounds write load from busy keys


@dataclass(frozen=True)
class BlockFilters:
    """What a listing of blocks keeps: one category, all of `tags`, any of `types`, changed
    at or after `since`."""

    category: str | None = None
    tags: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    since: datetime | None = None
    archived: bool = False  # the archived blocks instead of the live ones


def principal_for_key(raw: str) -> Principal | None:
    """The principal of an active key of an active tenant, or None (never says which failed)."""
    parts = keys.split(raw)
    if parts is None:
        return None
    prefix, secret = parts
    key = (
        ApiKey.objects.select_related("tenant")
        .filter(prefix=prefix, active=True, tenant__status=Tenant.Status.ACTIVE)
        .first()
    )
    if key is None or not keys.matches(secret, key.secret_hmac):
        return None
    _touch(key)
    return principal_from_key(key)


NO_KEY = "No API key was sent: pass it as `Authorization: Bearer <key>` or `X-Context-Key: <key>`."
MALFORMED_KEY = "The API key is malformed: a ctx key reads ctx_<8 characters>_<40 characters>."
KEY_NOT_ACCEPTED = "The API key was not accepted: it is unknown or wrong."


def key_refusal(raw: str | None) -> str:
    """Why a key was refused, in words that tell a stranger nothing: whether a key with that
    prefix exists is said only to whoever holds its secret (revoked, tenant suspended)."""
    if raw is None:
        return NO_KEY
    parts = keys.split(raw)
    if parts is None:
        return MALFORMED_KEY
    prefix, secret = parts
    key = ApiKey.objects.select_related("tenant").filter(prefix=prefix).first()
    if key is None or not keys.matches(secret, key.secret_hmac):
        return KEY_NOT_ACCEPTED
    if not key.active:
        return "This API key was revoked; ask an owner of the tenant for a new one."
    if key.tenant.status != Tenant.Status.ACTIVE:
        return f"The tenant of this API key is {key.tenant.status}; ask the server's administrator."
    return KEY_NOT_ACCEPTED


def _touch(key: ApiKey) -> None:
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now


def principal_from_key(key: ApiKey) -> Principal:
    """One query for every scope the key reaches, flagged writable or not."""
    writable = ApiKey.write_scopes.through.objects.filter(apikey_id=key.pk, scope_id=OuterRef("pk"))
    rows = list(
        Scope.objects.filter(
            Q(pk=key.home_scope_id) | Q(reader_keys=key.pk) | Q(writer_keys=key.pk)
        )
        .annotate(can_write=Exists(writable))
        .values_list("id", "name", "can_write")
        .distinct()
    )
    names = {name: sid for sid, name, _ in rows}
    write_ids = frozenset(sid for sid, _, w in rows if w)
    return Principal(
        key=key,
        tenant_id=key.tenant_id,
        tenant_name=key.tenant.name,
        home_scope_id=key.home_scope_id,
        read_scope_ids=frozenset(names.values()),
        write_scope_ids=write_ids,
        scope_names=names,
        read_ceiling=key.max_sensitivity,
    )


def readable_scope_ids(principal: Principal, names: list[str] | None) -> list[int]:
    """The ids of the named readable scopes. A name the key cannot read is a 403 with one fixed
    body, whether the scope exists or not (answering 200 with nothing read as "no match")."""
    if not names:
        return sorted(principal.read_scope_ids)
    if any(n not in principal.scope_names for n in names):
        raise Forbidden(FORBIDDEN_READ_MESSAGE)
    return sorted({principal.scope_names[n] for n in names})


def _parse_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


ID_PREFIX = re.compile(r"[0-9a-f]{4,31}")  # hex digits of an id's start; dashes dropped


def _pk_by_prefix(principal: Principal, text: str) -> uuid.UUID | None:
    """The one readable live block whose id starts with `text` (`ctx get 0fb53340`), None when
    none does. The ids of one prefix form a range of the primary key's index; blocks outside the
    caller's scopes are never counted, so the answer says nothing about them."""
    digits = text.strip().lower().replace("-", "")
    if not ID_PREFIX.fullmatch(digits):
        return None
    low, high = uuid.UUID(digits.ljust(32, "0")), uuid.UUID(digits.ljust(32, "f"))
    found = list(
        Block.objects.live()
        .in_scopes(principal.read_scope_ids)
        .filter(pk__gte=low, pk__lte=high)
        .values_list("pk", flat=True)[:2]
    )
    if len(found) > 1:
        raise ValidationFailed(
            f"More than one block's id starts with '{text.strip()}'; give more of the id.",
            details={"field": "id"},
        )
    return found[0] if found else None


def block_pk(principal: Principal, text: str) -> uuid.UUID | None:
    """The id a caller wrote, whole or its start (`ctx get 0fb53340`); None when none fits."""
    return _parse_uuid(text) or _pk_by_prefix(principal, text)


def get_block_for(
    principal: Principal, block_id: str, *, write: bool = False, archived: bool = False
) -> Block:
    """The live (or, with `archived`, the archived) block if the principal can read it;
    NotFound otherwise (same for missing). With `write` the row is locked and a block the
    principal may only read is Forbidden. `block_id` may be the start of an id when it names
    one readable live block."""
    pk = block_pk(principal, block_id)
    if pk is None:
        raise NotFound()
    qs = (
        Block.objects.select_related("scope")
        .filter(pk=pk, archived=archived)
        .in_scopes(principal.read_scope_ids)
    )
    return row_for(principal, qs, write=write, missing=NotFound())


def row_for(principal: Principal, qs: QuerySet[M], *, write: bool, missing: CtxError) -> M:
    """The one tenant-access path of every `get_<thing>_for`: the query's first row (already
    restricted to readable scopes), `missing` when there is none, and with `write` the row
    locked and the same fixed 403 when the principal may only read its scope."""
    row = first_for(qs, for_update=write)
    if row is None:
        raise missing
    if write and not principal.can_write(row.scope_id):  # type: ignore[attr-defined]
        raise Forbidden(FORBIDDEN_SCOPE_MESSAGE)
    return row


def first_for(qs: QuerySet[M], *, for_update: bool) -> M | None:
    """The first row, locked when `for_update`.

    Under row-level security `FOR UPDATE` sees only rows in the caller's writable scopes
    (docs/rls.md), so a row the caller may only read is then read again, unlocked: the caller
    answers its 403, not the 404 of a missing row. Callers refuse to write such a row, and the
    database would refuse the write too. As the owner (no RLS) the first read finds it."""
    if not for_update:
        return qs.first()
    return qs.select_for_update(of=("self",)).first() or qs.first()


def block_stats(principal: Principal, scope_ids: list[int]) -> dict[str, Any]:
    """Counts of the live blocks people and imports wrote; the generated digests (topic maps,
    rebuilt by dream) are counted apart, as `recent` and search leave them out.

    Each count is shaped so an index answers it alone (block_counts, block_unembedded): COUNT(*)
    grouped by indexed columns, the embedding tested only as those partial indexes' predicate."""
    live = Block.objects.in_scopes(scope_ids).filter(archived=False)
    grouped = live.values_list("scope_id", "type").annotate(n=Count("*")).order_by()
    per_scope: dict[str, int] = {}
    per_type: dict[str, int] = {}
    digests = 0
    names = dict(Scope.objects.filter(id__in=scope_ids).values_list("id", "name"))
    for scope_id, block_type, n in grouped:
        if block_type == BlockType.DIGEST:
            digests += n
            continue
        name = names[scope_id]
        per_scope[name] = per_scope.get(name, 0) + n
        per_type[block_type] = per_type.get(block_type, 0) + n
    unembedded = (
        live.filter(embedding__isnull=True)
        .exclude(type=BlockType.DIGEST)
        .values_list("sensitivity")
        .annotate(n=Count("*"))
        .order_by()
    )
    sendable = set(allowed_levels("embed"))
    totals = {
        "blocks": sum(per_type.values()),
        "awaiting_embedding": sum(n for level, n in unembedded if level in sendable),
        # Above the embedder's trust: never sent, so lexical-only (docs/security.md).
        "not_embedded_sensitivity": sum(n for level, n in unembedded if level not in sendable),
        "digests": digests,
    }
    archived = Block.objects.in_scopes(scope_ids).filter(archived=True).count()
    # Large scopes' full-text document frequencies: when and over how many blocks counted.
    counted = Scope.objects.filter(id__in=scope_ids, term_stats_at__isnull=False)
    term_stats = {
        s.name: {"blocks": s.term_stats_blocks, "counted_at": s.term_stats_at.isoformat()}
        for s in counted
        if s.term_stats_at
    }
    return {
        **totals,
        "archived": archived,
        "scopes": per_scope,
        "types": per_type,
        "term_stats": term_stats,
        "storage": storage_per_scope(scope_ids),
    }


_STORAGE_SQL = """
SELECT
  (SELECT coalesce(sum(pg_column_size(b.*)), 0) FROM ctx_block b WHERE b.scope_id = %(id)s),
  (SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM ctx_blockchunk c WHERE c.scope_id = %(id)s)
"""


def measure_storage(scope_ids: list[int] | None = None) -> int:
    """Measure what each scope's blocks (archived ones too) and their embedding windows take
    in the tables, compressed as stored; one statement per scope, so no long transaction.
    Returns how many scopes were measured."""
    ids = scope_ids if scope_ids is not None else list(Scope.objects.values_list("id", flat=True))
    for scope_id in ids:
        with connection.cursor() as cur:
            cur.execute(_STORAGE_SQL, {"id": scope_id})
            blocks, vectors = cur.fetchone()
        Scope.objects.filter(pk=scope_id).update(
            storage_blocks_bytes=blocks, storage_vectors_bytes=vectors, storage_at=timezone.now()
        )
    return len(ids)


def storage_per_scope(scope_ids: list[int]) -> dict[str, dict[str, Any]]:
    """The last measure of each scope (absent until the first one, within the hour)."""
    rows = Scope.objects.filter(id__in=scope_ids, storage_at__isnull=False).values_list(
        "name", "storage_blocks_bytes", "storage_vectors_bytes", "storage_at"
    )
    return {
        name: {
            "bytes": int(blocks or 0) + int(vectors or 0),
            "blocks_bytes": int(blocks or 0),
            "vectors_bytes": int(vectors or 0),
            "measured_at": at.isoformat(),
        }
        for name, blocks, vectors, at in rows
        if at is not None  # filtered above; for the type checker
    }


CHAIN_MAX = 20  # blocks each way: a chain longer than this is an anomaly, not a history


def supersession_chain(principal: Principal, block: Block) -> tuple[list[Block], list[Block]]:
    """The readable blocks that replaced `block` (newest last) and those it replaced (nearest
    first), archived ones included; a foreign block ends the walk as if it were not there."""
    readable = Block.objects.readable_by(principal).select_related("scope")
    newer: list[Block] = []
    seen = {block.pk}
    following = block.superseded_by_id
    while following is not None and following not in seen and len(newer) < CHAIN_MAX:
        found = readable.filter(pk=following).first()
        if found is None:
            break
        newer.append(found)
        seen.add(found.pk)
        following = found.superseded_by_id
    older: list[Block] = []
    frontier = [block.pk]
    while frontier and len(older) < CHAIN_MAX:
        rows = list(readable.filter(superseded_by_id__in=frontier).exclude(pk__in=seen))
        rows = rows[: CHAIN_MAX - len(older)]
        older.extend(rows)
        seen.update(r.pk for r in rows)
        frontier = [r.pk for r in rows]
    return newer, older


def categories(principal: Principal, scope_ids: list[int]) -> list[dict[str, Any]]:
    rows = (
        Block.objects.in_scopes(scope_ids)
        .filter(archived=False)
        .values("category")
        .annotate(count=Count("*"))  # COUNT(*): block_counts answers it alone
        .order_by("-count", "category")
    )
    return [{"category": r["category"], "count": r["count"]} for r in rows]


# One index probe per (scope, category) on block_scope_category, never a count over the
# scopes' blocks: counting every category of 100k blocks took 70-370 ms, this 2 ms.
_CATEGORY_NAMES = """
SELECT DISTINCT c.category FROM unnest(%(scopes)s::bigint[]) AS s(id)
CROSS JOIN LATERAL (
    WITH RECURSIVE r(category) AS (
        (SELECT b.category FROM ctx_block b WHERE b.scope_id = s.id ORDER BY b.category LIMIT 1)
        UNION ALL
        SELECT (SELECT b.category FROM ctx_block b
                WHERE b.scope_id = s.id AND b.category > r.category
                ORDER BY b.category LIMIT 1)
        FROM r WHERE r.category IS NOT NULL
    )
    SELECT r.category FROM r WHERE r.category IS NOT NULL LIMIT %(limit)s
) c
ORDER BY 1 LIMIT %(limit)s
"""


def category_names(principal: Principal, scope_ids: list[int], *, limit: int) -> list[str]:
    """The first `limit` distinct categories (alphabetical) of the given readable scopes,
    archived blocks included."""
    readable = [s for s in scope_ids if principal.can_read(s)]
    with connection.cursor() as cur:
        cur.execute(_CATEGORY_NAMES, {"scopes": readable, "limit": limit})
        return [row[0] for row in cur.fetchall()]


def recent_blocks(principal: Principal, scope_ids: list[int], limit: int) -> list[Block]:
    """The most recently updated live blocks in the given scopes the principal can read.

    Digests and tool output are left out, as search leaves them out by default: regenerated
    summaries and a program's indexed output would crowd out the changes people made.
    """
    return list(
        without_tool_output(
            Block.objects.live().readable_by(principal, scope_ids).exclude(type=BlockType.DIGEST)
        )
        .select_related("scope")
        .order_by("-updated_at", "-id")[:limit]  # block_scope_updated serves this per scope
    )


Q_T = TypeVar("Q_T", bound=QuerySet[Any])


def without_tool_output(qs: Q_T) -> Q_T:
    """Blocks other than the sandbox's indexed output (ctx.models.TOOL_OUTPUT_CATEGORIES)."""
    for prefix in TOOL_OUTPUT_CATEGORIES:
        qs = qs.exclude(category__startswith=prefix)
    return qs


ORDERS = ("changed", "oldest", "title")
# Each order with its sort fields; the id breaks ties, and `after` filters on the same pair.
_ORDER_BY = {
    "changed": ("-updated_at", "-id"),
    "oldest": ("updated_at", "id"),
    "title": ("title", "id"),
}


def block_page(
    principal: Principal,
    scope_ids: list[int],
    filters: BlockFilters,
    *,
    after: tuple[Any, uuid.UUID] | None,
    limit: int,
    order: str = "changed",
) -> list[Block]:
    """Live blocks (archived ones when `filters.archived`) in `order` (newest change first by
    default), after the `after` position: up to `limit` of them. The id breaks ties, so every
    block has one place in the order and a page never repeats or skips one that did not
    change meanwhile. Digests are left out unless asked for by type, as `recent_blocks` does."""
    qs = Block.objects.filter(archived=filters.archived)
    qs = qs.readable_by(principal, scope_ids).select_related("scope")
    qs = qs.filter(category=filters.category) if filters.category else without_tool_output(qs)
    if filters.tags:
        qs = qs.filter(tags__contains=filters.tags)
    qs = qs.filter(type__in=filters.types) if filters.types else qs.exclude(type=BlockType.DIGEST)
    if filters.since is not None:
        qs = qs.filter(updated_at__gte=filters.since)
    fields = _ORDER_BY[order]
    if after is not None:
        value, pk = after
        column = fields[0].lstrip("-")
        beyond = "lt" if fields[0].startswith("-") else "gt"
        qs = qs.filter(
            Q(**{f"{column}__{beyond}": value}) | Q(**{column: value, f"id__{beyond}": pk})
        )
    return list(qs.order_by(*fields)[:limit])


def int_pk(value: Any) -> int | None:
    """An integer id from request input (an int or a string of digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # isdecimal, not isdigit: '³' is a digit that int() refuses (it was a 500)
    if isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) < 19:
        return int(value.strip())
    return None


def get_scoped_for(
    model: type[M], principal: Principal, raw_id: Any, *, missing: str, write: bool = False
) -> M:
    """A row with an integer id in a scope the principal reads; anything else, including a
    malformed id, is the same NotFound(missing). `write`: see row_for."""
    pk = int_pk(raw_id)
    if pk is None:
        raise NotFound(missing)
    qs = model._default_manager.filter(pk=pk, scope_id__in=principal.read_scope_ids)
    return row_for(principal, qs, write=write, missing=NotFound(missing))


# --- what an operator reaches in the admin (ctx.operators) ------------------------------------
# Each takes the admin's base queryset (its ordering) and keeps the rows the principal reaches;
# a server admin's principal reads every scope already (ctx.operators.operator_principal).


def in_readable_scopes(principal: Principal, qs: QuerySet[M]) -> QuerySet[M]:
    """Rows of a scope-owned model (blocks, links, secrets, …) in the readable scopes."""
    return qs.filter(scope_id__in=principal.read_scope_ids)


def visible_tenants(principal: Principal, qs: QuerySet[Tenant]) -> QuerySet[Tenant]:
    return qs if is_server_admin(principal) else qs.filter(pk=principal.tenant_id)


def visible_scopes(principal: Principal, qs: QuerySet[Scope]) -> QuerySet[Scope]:
    """Scope rows are the tenant's directory: its staff see all of them (names only)."""
    return qs if is_server_admin(principal) else qs.filter(tenant_id=principal.tenant_id)


def visible_keys(principal: Principal, qs: QuerySet[ApiKey]) -> QuerySet[ApiKey]:
    """The keys `keys_list` would show: the tenant's for its owners and admins, every key
    for a server admin, none for a member."""
    if not can_operate(principal):
        return qs.none()
    return qs if is_server_admin(principal) else qs.filter(tenant_id=principal.tenant_id)
