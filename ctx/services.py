"""Writes. Every interface (HTTP, MCP, CLI, tasks) calls these; they hold the rules."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from ctx import bulk, hooks, keys, validation, versions
from ctx.errors import FORBIDDEN_SCOPE_MESSAGE, Conflict, Forbidden, ValidationFailed
from ctx.models import ApiKey, Block, Scope, Sensitivity, Tenant
from ctx.principal import Principal
from ctx.selectors import get_block_for
from ctx.sensitivity import Detection, detect_block, highest
from ctx.shared import SHARED_SCOPE, refuse_reserved_scope, refuse_reserved_tenant, shared_scope

log = logging.getLogger("ctx.services")


def _after_commit(block_ids: list[str]) -> None:
    def run() -> None:
        for hook in hooks.BLOCKS_WRITTEN:
            try:
                hook(block_ids)
            except Exception:  # a broker outage must not fail a committed write
                log.warning(
                    "after-write hook %s failed; the backfill will catch up",
                    getattr(hook, "__name__", hook),
                    exc_info=True,
                )

    transaction.on_commit(run)


# --- tenants, scopes, keys -------------------------------------------------------------------


@transaction.atomic
def tenant_create(*, name: str, display_name: str = "", scopes: Iterable[str] = ()) -> Tenant:
    """Create a tenant with its `<name>:main` scope and any extra scopes named."""
    refuse_reserved_tenant(name, "name")
    if Tenant.objects.filter(name=name).exists():
        raise Conflict(f"Tenant '{name}' already exists.")
    tenant = Tenant.objects.create(name=name, display_name=display_name or name)
    for scope in dict.fromkeys([f"{name}:main", *scopes]):
        scope_create(tenant=tenant, name=scope, field="scopes")
    return tenant


def scope_create(*, tenant: Tenant, name: str, description: str = "", field: str = "name") -> Scope:
    """A name with a prefix carries its own tenant's (`acme:team`); `globex:x` in acme would
    read, in every list and answer, as another tenant's scope. `shared` and `_…` are reserved
    (ctx/shared.py); `field` is the input field a refusal names."""
    refuse_reserved_scope(name, field)
    prefix, colon, _ = name.partition(":")
    if colon and prefix != tenant.name:
        raise ValidationFailed(
            f"A scope name's prefix is its tenant's: '{tenant.name}:…' (or no prefix), "
            f"not '{prefix}:'.",
            details={"field": field},
        )
    try:
        with transaction.atomic():
            return Scope.objects.create(tenant=tenant, name=name, description=description)
    except IntegrityError:
        if Scope.objects.filter(tenant=tenant, name=name).exists():
            raise Conflict(f"Scope '{name}' already exists.") from None
        raise ValidationFailed(
            "A scope name is 1-100 characters of a-z, 0-9, ':', '_', '.', '-'."
        ) from None


def _tenant_scopes(tenant: Tenant, names: Iterable[str]) -> list[Scope]:
    """The named scopes of `tenant`; `shared` is the server-wide shared scope (created on its
    first grant). Who may grant it is ctx.tenancy's rule."""
    names = list(dict.fromkeys(names))
    found = {s.name: s for s in Scope.objects.filter(tenant=tenant, name__in=names)}
    if SHARED_SCOPE in names:
        found[SHARED_SCOPE] = shared_scope()
    missing = [n for n in names if n not in found]
    if missing:
        raise ValidationFailed(f"Unknown scopes for tenant '{tenant.name}': {', '.join(missing)}.")
    return [found[n] for n in names]


def _home_scope(tenant: Tenant, home: str) -> list[Scope]:
    """A key's home is one of its tenant's own scopes, never the shared one."""
    if home == SHARED_SCOPE:
        raise ValidationFailed(
            "A key's home scope is one of its tenant's scopes; `shared` can be read "
            "(read_scopes) or written (write_scopes, given by a server admin), not be home.",
            details={"field": "home_scope"},
        )
    return _tenant_scopes(tenant, [home])


@transaction.atomic
def key_create(
    *,
    tenant: Tenant,
    name: str,
    home: str,
    read: Iterable[str] = (),
    write: Iterable[str] | None = None,
    is_admin: bool = False,
    role: str = ApiKey.Role.MEMBER,
    max_sensitivity: str = Sensitivity.PERSONAL,
) -> tuple[ApiKey, str]:
    """Create a key; return it and the full secret, which is never shown again.

    With `write` unset the key may write its home scope; pass an empty list for a read-only key.
    `max_sensitivity` is the highest block level it reads in clear (ctx/masking.py).
    """
    validation.sensitivity({"max_sensitivity": max_sensitivity}, "max_sensitivity")
    (home_scope,) = _home_scope(tenant, home)
    write_scopes = _tenant_scopes(tenant, [home] if write is None else write)
    read_scopes = _tenant_scopes(tenant, read)
    raw, prefix, digest = keys.generate()
    key = ApiKey.objects.create(
        tenant=tenant,
        name=name,
        prefix=prefix,
        secret_hmac=digest,
        home_scope=home_scope,
        is_admin=is_admin,
        role=role,
        max_sensitivity=max_sensitivity,
    )
    key.write_scopes.set(write_scopes)
    key.read_scopes.set(read_scopes)
    return key, raw


@transaction.atomic
def key_set_scopes(
    key: ApiKey,
    *,
    home: str | None = None,
    read: Iterable[str] | None = None,
    write: Iterable[str] | None = None,
) -> ApiKey:
    """Replace the given parts of a key's reach (None keeps a part), within its own tenant.
    Effective at the key's next request: a principal is built per request."""
    if home is not None:
        (key.home_scope,) = _home_scope(key.tenant, home)
        key.save(update_fields=["home_scope"])
    if read is not None:
        key.read_scopes.set(_tenant_scopes(key.tenant, read))
    if write is not None:
        key.write_scopes.set(_tenant_scopes(key.tenant, write))
    return key


def key_revoke(*, tenant: Tenant | None, prefix: str) -> ApiKey:
    qs = ApiKey.objects.filter(prefix=prefix, active=True)
    if tenant is not None:
        qs = qs.filter(tenant=tenant)
    key = qs.first()
    if key is None:
        raise Conflict(f"No active key with prefix '{prefix}'.")
    key.active = False
    key.revoked_at = timezone.now()
    key.save(update_fields=["active", "revoked_at"])
    return key


# --- blocks ------------------------------------------------------------------------------------


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


TITLE_ROOM = 480  # a title's room before a " (n)" suffix (Block.title holds 500)


def free_titles(scope_id: int, category: str, titles: list[str]) -> list[str]:
    """Each title, or `title (2)`, `(3)`, … when a block of the category in the scope, or an
    earlier title of the list, already holds it: a write that must not land on another block."""
    taken = set(
        Block.objects.filter(scope_id=scope_id, category=category, title__in=titles).values_list(
            "title", flat=True
        )
    )
    out: list[str] = []
    for title in titles:
        if title in taken:
            title = _numbered(scope_id, category, title[:TITLE_ROOM], taken)
        taken.add(title)
        out.append(title)
    return out


def _numbered(scope_id: int, category: str, head: str, taken: set[str]) -> str:
    taken |= set(
        Block.objects.filter(
            scope_id=scope_id, category=category, title__startswith=f"{head} ("
        ).values_list("title", flat=True)
    )
    n = 2
    while f"{head} ({n})" in taken:
        n += 1
    return f"{head} ({n})"


@dataclass
class BlockInput:
    category: str
    title: str
    content: str
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    type: str = "knowledge"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    source: str = ""
    source_time: datetime | None = None
    source_session: str = ""  # the conversation it came from (ingest: "<tool>:<external id>")
    sensitivity: str | None = None  # the caller's level; None keeps the block's (new: internal)
    _detection: Detection | None = field(default=None, init=False, repr=False, compare=False)

    def detection(self) -> Detection:
        """What the detector finds in the text (computed once per input)."""
        if self._detection is None:
            self._detection = detect_block(self.title, self.content, self.tags, self.metadata)
        return self._detection


@dataclass(frozen=True)
class UpsertResult:
    block: Block
    action: str  # created | updated | noop
    sensitivity_reasons: tuple[str, ...] = ()  # detector names that fired, never the text


def _level(block: Block, data: BlockInput) -> str:
    """The caller's level (else the block's current one), raised to what the detector finds:
    the detector only raises; lowering takes an explicit, lower level from the caller."""
    return highest(data.sensitivity or block.sensitivity, data.detection().level)


def writable_scope(principal: Principal, name: str | None) -> int:
    """The id of the named scope if the key may write it; the same 403 for every refusal."""
    scope_id = principal.home_scope_id if name is None else principal.scope_names.get(name, -1)
    if not principal.can_write(scope_id):
        raise Forbidden(FORBIDDEN_SCOPE_MESSAGE)
    return scope_id


def _validity(data: BlockInput) -> None:
    if data.valid_from and data.valid_to and data.valid_to < data.valid_from:
        raise ValidationFailed("'valid_to' must not be before 'valid_from'.")


def _same(block: Block, data: BlockInput, digest: str) -> bool:
    return (
        not block.archived
        and block.content_hash == digest
        and block.tags == data.tags
        and block.metadata == data.metadata
        and block.type == data.type
        and block.valid_from == data.valid_from
        and block.valid_to == data.valid_to
        and block.sensitivity == _level(block, data)
    )


def _apply(block: Block, data: BlockInput, digest: str) -> None:
    versions.snapshot(block)  # an existing block's content before this write; _saved keeps it
    if block.content_hash != digest:
        block.embedding = None  # stale: the worker embeds the new text
        block.embed_model = ""
    block.sensitivity = _level(block, data)  # before the fields change: it reads the old level
    block.content = data.content
    block.content_hash = digest
    block.tags = data.tags
    block.metadata = data.metadata
    block.type = data.type
    block.valid_from = data.valid_from
    block.valid_to = data.valid_to
    block.source = data.source or block.source
    block.source_time = data.source_time or block.source_time
    block.source_session = data.source_session or block.source_session
    block.archived = False
    for hook in hooks.BLOCK_DERIVE:
        hook(block)


def _upsert_one(scope_id: int, data: BlockInput, *, retry: bool = True) -> UpsertResult:
    digest = content_hash(data.content)
    existing = (
        Block.objects.select_for_update()
        .filter(scope_id=scope_id, category=data.category, title=data.title)
        .first()
    )
    if existing is not None:
        if _same(existing, data, digest):
            return UpsertResult(existing, "noop")
        _apply(existing, data, digest)
        existing.save()
        return UpsertResult(existing, "updated")
    block = Block(scope_id=scope_id, category=data.category, title=data.title)
    _apply(block, data, digest)
    try:
        with transaction.atomic():  # a concurrent insert of the same key loses the race here
            block.save(force_insert=True)
    except IntegrityError:
        if not retry:
            raise
        return _upsert_one(scope_id, data, retry=False)
    return UpsertResult(block, "created")


def _upsert_batch(scope_id: int, items: list[BlockInput]) -> list[UpsertResult]:
    """Many blocks with a constant number of queries: one locking read, one bulk insert.

    A key repeated inside the batch, or a concurrent insert of one of its keys, falls back to
    the row-by-row path, which handles both (the updates already made re-run as no-ops).
    """
    keys = [(i.category, i.title) for i in items]
    if len(set(keys)) != len(keys):
        return [_upsert_one(scope_id, i) for i in items]
    rows = Block.objects.select_for_update().filter(
        scope_id=scope_id, title__in={t for _, t in keys}, category__in={c for c, _ in keys}
    )
    existing = {(b.category, b.title): b for b in rows}
    results: list[UpsertResult] = []
    fresh: list[Block] = []
    for item in items:
        results.append(_stage_one(scope_id, item, existing.get((item.category, item.title)), fresh))
    try:
        with transaction.atomic():
            bulk.insert_rows(fresh)
    except IntegrityError:
        return [_upsert_one(scope_id, i) for i in items]
    return results


def _stage_one(
    scope_id: int, item: BlockInput, block: Block | None, fresh: list[Block]
) -> UpsertResult:
    digest = content_hash(item.content)
    if block is None:
        block = Block(scope_id=scope_id, category=item.category, title=item.title)
        _apply(block, item, digest)
        fresh.append(block)
        return UpsertResult(block, "created")
    if _same(block, item, digest):
        return UpsertResult(block, "noop")
    _apply(block, item, digest)
    block.save()
    return UpsertResult(block, "updated")


def block_upsert(*, principal: Principal, scope: str | None, data: BlockInput) -> UpsertResult:
    """Create or update the block at (scope, category, title); identical content is a no-op."""
    return block_upsert_many(principal=principal, scope=scope, items=[data])[0]


@transaction.atomic
def block_upsert_many(
    *, principal: Principal, scope: str | None, items: list[BlockInput]
) -> list[UpsertResult]:
    scope_id = writable_scope(principal, scope)
    for item in items:
        _validity(item)
    if len(items) == 1:
        results = [_upsert_one(scope_id, items[0])]
    else:
        results = _upsert_batch(scope_id, items)
    changed = [r.block for r in results if r.action != "noop"]
    if changed:
        _saved(changed, principal)
    return [
        replace(r, sensitivity_reasons=item.detection().reasons)
        for r, item in zip(results, items, strict=True)
    ]


@transaction.atomic
def block_upsert_scoped(
    *, principal: Principal, scope: str | None, items: list[tuple[str | None, BlockInput]]
) -> list[UpsertResult]:
    """A batch whose items may name their own scope (else the batch's): every scope is
    checked before anything is written, all items land or none, results keep their order."""
    groups: dict[str | None, list[int]] = {}
    for index, (own, _) in enumerate(items):
        groups.setdefault(own or scope, []).append(index)
    for name in groups:
        writable_scope(principal, name)
    results: dict[int, UpsertResult] = {}
    for name, indexes in groups.items():
        batch = [items[i][1] for i in indexes]
        done = block_upsert_many(principal=principal, scope=name, items=batch)
        results.update(zip(indexes, done, strict=True))
    return [results[i] for i in range(len(items))]


def _saved(blocks: list[Block], principal: Principal) -> None:
    versions.record(principal, blocks)
    for hook in hooks.BLOCK_SAVED:
        hook(blocks)
    _after_commit([str(b.pk) for b in blocks])


UPDATABLE = versions.FIELDS  # what an update may change is what a version keeps


@transaction.atomic
def block_update(*, principal: Principal, block_id: str, fields: dict[str, Any]) -> Block:
    """Change only the given fields; the same 404 for missing and unreadable blocks."""
    block = get_block_for(principal, block_id, write=True)
    data = BlockInput(
        category=fields.get("category", block.category),
        title=fields.get("title", block.title),
        content=fields.get("content", block.content),
        tags=fields.get("tags", block.tags),
        metadata=fields.get("metadata", block.metadata),
        type=fields.get("type", block.type),
        valid_from=fields.get("valid_from", block.valid_from),
        valid_to=fields.get("valid_to", block.valid_to),
        sensitivity=fields.get("sensitivity"),
    )
    _validity(data)
    if (data.category, data.title) != (block.category, block.title):
        clash = Block.objects.filter(
            scope_id=block.scope_id, category=data.category, title=data.title
        ).exclude(pk=block.pk)
        if clash.exists():
            raise Conflict("Another block in this scope has that category and title.")
    versions.snapshot(block)  # before the key fields change below
    block.category, block.title = data.category, data.title
    _apply(block, data, content_hash(data.content))
    block.save()
    _saved([block], principal)
    return block


@transaction.atomic
def block_version_restore(*, principal: Principal, block_id: str, version: int) -> Block:
    """Bring an earlier version's content back as the block's newest version (the content it
    replaces becomes a version in turn, so nothing is lost)."""
    block = get_block_for(principal, block_id, write=True)
    row = versions.version_of(block, version)
    return block_update(
        principal=principal, block_id=str(block.pk), fields=versions.restore_fields(row)
    )


@transaction.atomic
def block_archive(*, principal: Principal, block_id: str) -> Block:
    """Archive (soft-delete) a block the principal can write."""
    block = get_block_for(principal, block_id, write=True)
    _removing(principal, [str(block.pk)])
    block.archived = True
    block.save(update_fields=["archived", "updated_at"])
    return block


@transaction.atomic
def block_restore(*, principal: Principal, block_id: str) -> Block:
    """Bring an archived block back. Its derived fields are computed again and a new embedding
    is queued (dream schedules the block once it is embedded, as after any change)."""
    block = get_block_for(principal, block_id, write=True, archived=True)
    data = BlockInput(
        category=block.category,
        title=block.title,
        content=block.content,
        tags=block.tags,
        metadata=block.metadata,
        type=block.type,
        valid_from=block.valid_from,
        valid_to=block.valid_to,
    )
    _apply(block, data, content_hash(block.content))
    block.embedding, block.embed_model = None, ""
    block.save()
    _saved([block], principal)
    return block


def block_purge(*, principal: Principal, block_ids: list[str]) -> int:
    """Delete blocks for good, with their embedding windows, anchors and links (a removed
    conversation's windows). Blocks outside the principal's writable scopes are left alone.
    Returns how many were deleted."""
    if not block_ids:
        return 0
    qs = Block.objects.filter(pk__in=block_ids, scope_id__in=principal.write_scope_ids)
    with transaction.atomic():  # what was derived from the blocks goes with them
        _removing(principal, [str(pk) for pk in qs.values_list("pk", flat=True)])
        _, per_model = qs.delete()
    return int(per_model.get(Block._meta.label, 0))


def _removing(principal: Principal, block_ids: list[str]) -> None:
    if not block_ids:
        return
    for hook in hooks.BLOCKS_REMOVED:
        hook(principal, block_ids)


@transaction.atomic
def scope_grant_new(*, principal: Principal, name: str, description: str = "") -> Scope:
    """Create a scope in the principal's tenant; the creating key may read and write it."""
    tenant = Tenant.objects.get(pk=principal.tenant_id)
    scope = scope_create(tenant=tenant, name=name, description=description)
    principal.key.write_scopes.add(scope)
    return scope
