"""Reads. `get_<thing>_for(principal, …)` are the only ways to reach a tenant's objects."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any, TypeVar

from django.db.models import Count, Exists, Model, OuterRef, Q, QuerySet
from django.utils import timezone

from ctx import keys
from ctx.errors import FORBIDDEN_SCOPE_MESSAGE, CtxError, Forbidden, NotFound
from ctx.models import ApiKey, Block, BlockType, Scope, Tenant
from ctx.principal import Principal
from ctx.trust import allowed_levels

M = TypeVar("M", bound=Model)

LAST_USED_RESOLUTION = timedelta(minutes=1)  # bounds write load from busy keys


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
    )


def readable_scope_ids(principal: Principal, names: list[str] | None) -> list[int]:
    """The ids of the named readable scopes (unknown names are ignored: they leak nothing)."""
    if not names:
        return sorted(principal.read_scope_ids)
    return sorted({principal.scope_names[n] for n in names if n in principal.scope_names})


def _parse_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def get_block_for(principal: Principal, block_id: str, *, write: bool = False) -> Block:
    """The live block if the principal can read it; NotFound otherwise (same for missing).
    With `write` the row is locked and a block the principal may only read is Forbidden."""
    pk = _parse_uuid(block_id)
    if pk is None:
        raise NotFound()
    qs = (
        Block.objects.select_related("scope")
        .filter(pk=pk, archived=False)
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
    live = Block.objects.in_scopes(scope_ids).filter(archived=False)
    sendable = Q(sensitivity__in=allowed_levels("embed"))
    totals = live.aggregate(
        blocks=Count("id"),
        awaiting_embedding=Count("id", filter=Q(embedding__isnull=True) & sendable),
        # Above the embedder's trust: never sent, so lexical-only (docs/security.md).
        not_embedded_sensitivity=Count("id", filter=Q(embedding__isnull=True) & ~sendable),
    )
    per_scope = dict(
        live.values_list("scope__name").annotate(n=Count("id")).values_list("scope__name", "n")
    )
    per_type = dict(live.values_list("type").annotate(n=Count("id")).values_list("type", "n"))
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
    }


def categories(principal: Principal, scope_ids: list[int]) -> list[dict[str, Any]]:
    rows = (
        Block.objects.in_scopes(scope_ids)
        .filter(archived=False)
        .values("category")
        .annotate(count=Count("id"))
        .order_by("-count", "category")
    )
    return [{"category": r["category"], "count": r["count"]} for r in rows]


def recent_blocks(principal: Principal, scope_ids: list[int], limit: int) -> list[Block]:
    """The most recently updated live blocks in the given scopes the principal can read.

    Digests are left out, as search leaves them out by default: they are regenerated
    summaries and would crowd out the changes people made.
    """
    return list(
        Block.objects.live()
        .readable_by(principal, scope_ids)
        .exclude(type=BlockType.DIGEST)
        .select_related("scope")
        .order_by("-updated_at", "-id")[:limit]  # block_scope_updated serves this per scope
    )


def int_pk(value: Any) -> int | None:
    """An integer id from request input (an int or a string of digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 19:
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
