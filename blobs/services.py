"""Writes of blobs: store (deduplicated per scope), update, delete. The bytes go to the blob
storage before the row exists and leave it after the row is gone (on commit)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from ctx import knobs
from ctx.errors import TooLarge
from ctx.models import Block
from ctx.principal import Principal
from ctx.sensitivity import INTERNAL, highest, text_level
from ctx.services import writable_scope

from . import selectors, sniff
from .models import Blob


def max_bytes() -> int:
    return int(knobs.configured("CTX_BLOB_MAX_BYTES"))


def check_size(size: int) -> None:
    """413 `payload_too_large` for a blob over CTX_BLOB_MAX_BYTES."""
    limit = max_bytes()
    if size > limit:
        raise TooLarge(f"The file is larger than {limit} bytes (CTX_BLOB_MAX_BYTES).")


@dataclass(frozen=True)
class StoreResult:
    action: str  # created | existing
    blob: Blob


def storage_name(blob: Blob) -> str:
    """One file per row, named by the row's id (never the client's name): a file being
    deleted with its row is never the file of a new row with the same bytes."""
    return f"{blob.scope_id}/{blob.sha256[:2]}/{blob.id}"


def blob_store(
    *,
    principal: Principal,
    data: bytes,
    name: str,
    scope: str | None,
    tags: list[str],
    block: Block | None,
) -> StoreResult:
    """The scope's blob with these bytes, or a new one (type sniffed, text extracted and
    checked for secrets). The write check comes first: a read-only key learns nothing."""
    scope_id = writable_scope(principal, scope)
    check_size(len(data))
    digest = hashlib.sha256(data).hexdigest()
    found = selectors.existing(scope_id, digest)
    if found is not None:
        return StoreResult("existing", found)
    kind = sniff.content_type(data, name)
    text = sniff.extract_text(data, kind, int(knobs.value("CTX_BLOB_TEXT_MAX_CHARS")))
    blob = Blob(
        scope_id=scope_id,
        block=block,
        name=name,
        content_type=kind,
        size=len(data),
        sha256=digest,
        tags=tags,
        text=text,
        sensitivity=highest(INTERNAL, text_level(text), text_level(name)),
        created_by=principal.key.prefix,
    )
    store = selectors.storage()
    blob.storage_name = store.save(storage_name(blob), ContentFile(data))
    try:
        with transaction.atomic():
            blob.save(force_insert=True)
    except IntegrityError:  # the same bytes stored at the same moment: theirs is ours
        store.delete(blob.storage_name)
        raced = selectors.existing(scope_id, digest)
        if raced is None:
            raise
        return StoreResult("existing", raced)
    except BaseException:
        store.delete(blob.storage_name)  # no row, no file
        raise
    return StoreResult("created", blob)


@transaction.atomic
def blob_update(
    *,
    principal: Principal,
    blob_id: str,
    name: str | None,
    tags: list[str] | None,
    block: Block | None,
    detach: bool,
) -> Blob:
    """Metadata only: the bytes (and so the type, text and hash) never change. The row is
    locked for the write (a foreign id is the same 404, a read-only scope the fixed 403)."""
    blob = selectors.get_blob_for(principal, blob_id, write=True)
    if name is not None:
        blob.name = name
        blob.sensitivity = highest(blob.sensitivity, text_level(name))
    if tags is not None:
        blob.tags = tags
    if block is not None or detach:
        blob.block = block
    blob.save(update_fields=["name", "tags", "block", "sensitivity"])
    return blob


@transaction.atomic
def blob_delete(*, principal: Principal, blob_id: str) -> Blob:
    """The row now, the file once the deletion commits (`file_follows_row`)."""
    blob = selectors.get_blob_for(principal, blob_id, write=True)
    blob.delete()
    return blob


def file_follows_row(sender: type[Blob], instance: Blob, **kwargs: Any) -> None:
    """post_delete of every Blob row, however it goes (this service, a scope's or a tenant's
    deletion cascading to it): its file is deleted once the deletion commits; a rollback keeps
    both. Storage housekeeping, not a rule: connected in BlobsConfig.ready."""
    name = instance.storage_name
    transaction.on_commit(lambda: selectors.storage().delete(name))


class ArchiveFiles:
    """A blob's bytes in a tenant archive (ctx.hooks.ARCHIVE_FILES)."""

    def read(self, blob: Blob) -> bytes:
        with selectors.storage().open(blob.storage_name, "rb") as handle:
            data: bytes = handle.read()
        return data

    def write(self, blob: Blob, data: bytes) -> None:
        store = selectors.storage()
        if store.exists(blob.storage_name):  # a leftover under the row's own name
            store.delete(blob.storage_name)
        saved = store.save(blob.storage_name, ContentFile(data))
        if saved != blob.storage_name:  # the storage chose another name: the row follows it
            Blob.objects.filter(pk=blob.pk).update(storage_name=saved)
