"""Reads of blobs: the one tenant-access path (`get_blob_for`), search, and the bytes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import IO

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.core.files.storage import Storage, storages
from django.db.models import Q, QuerySet

from ctx.errors import NotFound
from ctx.principal import Principal
from ctx.selectors import row_for

from .models import Blob

NOT_FOUND = "No such blob."


def storage() -> Storage:
    """The blob storage (STORAGES["blobs"], docs/settings.md "Blob storage")."""
    return storages["blobs"]


def get_blob_for(principal: Principal, blob_id: str, *, write: bool = False) -> Blob:
    """The blob if the principal reads its scope; the same NotFound for a missing, foreign or
    malformed id. `write`: the row locked, and the fixed 403 for a read-only scope."""
    try:
        pk = uuid.UUID(str(blob_id).strip())
    except ValueError:
        raise NotFound(NOT_FOUND) from None
    qs = Blob.objects.select_related("scope").filter(pk=pk).in_scopes(principal.read_scope_ids)
    return row_for(principal, qs, write=write, missing=NotFound(NOT_FOUND))


def existing(scope_id: int, sha256: str) -> Blob | None:
    """The scope's blob with these bytes (dedup)."""
    return Blob.objects.select_related("scope").filter(scope_id=scope_id, sha256=sha256).first()


@dataclass(frozen=True)
class Filters:
    scope_ids: list[int]
    query: str | None = None
    name: str | None = None
    content_type: str | None = None
    tags: tuple[str, ...] = ()


def search(filters: Filters, limit: int) -> list[Blob]:
    """Blobs in the scopes matching every filter given, newest first. `query` matches the
    words of the name and the extracted text (PostgreSQL full text, `simple` configuration:
    any language) or a substring of the name; `content_type` is a type (`image/png`) or a
    family (`image/`)."""
    qs: QuerySet[Blob] = Blob.objects.select_related("scope").in_scopes(filters.scope_ids)
    if filters.name:
        qs = qs.filter(name__icontains=filters.name)
    if filters.content_type:
        kind = filters.content_type.lower()
        qs = (
            qs.filter(content_type__startswith=kind)
            if kind.endswith("/")
            else qs.filter(content_type=kind)
        )
    if filters.tags:
        qs = qs.filter(tags__contains=list(filters.tags))
    if filters.query:
        words = SearchQuery(filters.query, config="simple", search_type="websearch")
        qs = qs.annotate(document=SearchVector("name", "text", config="simple")).filter(
            Q(document=words) | Q(name__icontains=filters.query)
        )
    return list(qs.order_by("-created_at", "-id")[:limit])


def open_bytes(blob: Blob) -> IO[bytes]:
    """The blob's bytes as an open binary file (the caller closes it)."""
    return storage().open(blob.storage_name, "rb")
