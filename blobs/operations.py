"""Blob operations (docs/api.md, "Blobs"): store, get, search, update, delete. HTTP, MCP and
the CLI (through HTTP) call these; the bytes reach only HTTP's download, never MCP.

Masking (ctx/masking.py): a blob whose sensitivity is above the key's read ceiling keeps its
name, type, size and tags, but its text and hash are the marker and its bytes are refused.
"""

from __future__ import annotations

from typing import IO, Annotated, Any, Literal, NotRequired, cast

from pydantic import Field
from typing_extensions import TypedDict

from ctx import masking
from ctx.errors import Forbidden
from ctx.ops.inputs import BoolParam, Input, IntParam, ScopeList, ScopeName, Tags, Text
from ctx.principal import Principal
from ctx.selectors import get_block_for, readable_scope_ids

from . import config, selectors, services
from .models import Blob

MAX_RESULTS = 100
SNIPPET_CHARS = 300
TEXT_DEFAULT, TEXT_MOST = 20_000, 200_000

BlobId = Annotated[str, Text(64, description="A blob id from blob_search or a store.")]
BlobName = Annotated[str | None, Text(255, required=False, description="The file's name.")]
BlockRef = Annotated[
    str | None,
    Text(64, required=False, description="Id of a block the blob is attached to."),
]


class BlobPayload(TypedDict):
    id: str
    scope: str
    name: str
    content_type: str
    size: int
    sha256: str
    tags: list[str]
    block: str | None
    sensitivity: str
    redacted: bool
    has_text: bool
    created_by: str
    created_at: str


def payload(p: Principal, blob: Blob) -> BlobPayload:
    hidden = masking.masked(p, blob.sensitivity)
    return {
        "id": str(blob.id),
        "scope": blob.scope.name,
        "name": blob.name,
        "content_type": blob.content_type,
        "size": blob.size,
        "sha256": masking.marker(blob.sensitivity) if hidden else blob.sha256,
        "tags": list(blob.tags),
        "block": str(blob.block_id) if blob.block_id else None,
        "sensitivity": blob.sensitivity,
        "redacted": hidden,
        "has_text": bool(blob.text),
        "created_by": blob.created_by,
        "created_at": blob.created_at.isoformat(),
    }


def _block(p: Principal, block_id: str | None) -> Any:
    """The readable live block named, or None; a foreign id is the block's own 404."""
    return get_block_for(p, block_id) if block_id else None


# --- store -------------------------------------------------------------------------------------


class StoreInput(Input):
    data: Annotated[bytes, Field(description="The file's bytes.")]
    name: BlobName = None
    scope: ScopeName = None
    tags: Tags = []
    block: BlockRef = None


class StorePayload(TypedDict):
    action: Literal["created", "existing"]
    blob: BlobPayload


def blob_store(p: Principal, data: StoreInput) -> StorePayload:
    """`action` created, or existing when the scope holds these bytes already (the blob as it
    is: the name, tags and block given now are not applied)."""
    result = services.blob_store(
        principal=p,
        data=data.data,
        name=data.name or "blob",
        scope=data.scope,
        tags=data.tags,
        block=_block(p, data.block),
    )
    return {"action": result.action, "blob": payload(p, result.blob)}  # type: ignore[typeddict-item]


# --- get ---------------------------------------------------------------------------------------


class GetInput(Input):
    id: BlobId
    max_chars: Annotated[
        int | None,
        IntParam(0, TEXT_MOST, description="Most characters of the extracted text (20000)."),
    ] = None

    def chars(self) -> int:
        return TEXT_DEFAULT if self.max_chars is None else self.max_chars


class DownloadInput(GetInput):
    download: Annotated[bool, BoolParam(description="true: the bytes as an attachment.")] = False


class GetPayload(TypedDict):
    blob: BlobPayload
    text: str
    text_truncated: bool
    hint: NotRequired[str]


def blob_get(p: Principal, data: GetInput) -> GetPayload:
    """The metadata and the extracted text (bounded, masked above the key's ceiling)."""
    blob = selectors.get_blob_for(p, data.id)
    text = blob.text[: data.chars()]
    out: GetPayload = {
        "blob": payload(p, blob),
        "text": masking.text(p, blob.sensitivity, text) if text else "",
        "text_truncated": len(blob.text) > data.chars(),
    }
    if masking.masked(p, blob.sensitivity):
        out["hint"] = masking.hint(p, blob.sensitivity)
    return out


def blob_download(p: Principal, data: DownloadInput) -> GetPayload:
    """blob_get; with `download` also the open bytes under `file` (for HTTP's attachment, never
    in a JSON answer), refused (403 with the hint) above the key's read ceiling."""
    out = blob_get(p, data)
    if not data.download:
        return out
    if "hint" in out:
        raise Forbidden(out["hint"])
    handle: IO[bytes] = selectors.open_bytes(selectors.get_blob_for(p, data.id))
    return cast(GetPayload, {**out, "file": handle})


# --- search ------------------------------------------------------------------------------------


class SearchInput(Input):
    query: Annotated[
        str | None,
        Text(500, required=False, description="Words of the name or the text, or a name part."),
    ] = None
    name: Annotated[str | None, Text(255, required=False, description="Part of the name.")] = None
    content_type: Annotated[
        str | None,
        Text(100, required=False, description="A type (image/png) or a family (image/)."),
    ] = None
    tags: Annotated[Tags, Field(description="Only blobs carrying all of these tags.")] = []
    scopes: ScopeList = []
    limit: Annotated[int, IntParam(1, MAX_RESULTS, description="Most results (20).")] = 20


class SearchHit(BlobPayload):
    snippet: str


class SearchPayload(TypedDict):
    count: int
    blobs: list[SearchHit]


def _snippet(p: Principal, blob: Blob) -> str:
    text = " ".join(blob.text[: SNIPPET_CHARS * 2].split())[:SNIPPET_CHARS]
    return masking.text(p, blob.sensitivity, text) if text else ""


def blob_search(p: Principal, data: SearchInput) -> SearchPayload:
    filters = selectors.Filters(
        scope_ids=readable_scope_ids(p, data.scopes),
        query=data.query,
        name=data.name,
        content_type=data.content_type,
        tags=tuple(data.tags),
    )
    rows = selectors.search(filters, data.limit)
    hits: list[SearchHit] = [{**payload(p, b), "snippet": _snippet(p, b)} for b in rows]
    return {"count": len(hits), "blobs": hits}


# --- manage ------------------------------------------------------------------------------------


class IdInput(Input):
    id: BlobId


class UpdateInput(IdInput):
    name: BlobName = None
    tags: Annotated[Tags | None, Field(description="The new tags (replace the old).")] = None
    block: Annotated[
        str | None,
        Field(max_length=64, description='Attach to this block; "" detaches.'),
    ] = None


class UpdatePayload(TypedDict):
    action: Literal["updated"]
    blob: BlobPayload


def blob_update(p: Principal, data: UpdateInput) -> UpdatePayload:
    block_id = (data.block or "").strip()
    blob = services.blob_update(
        principal=p,
        blob_id=data.id,
        name=data.name,
        tags=data.tags,
        block=_block(p, block_id) if block_id else None,
        detach=data.block is not None and not block_id,
    )
    return {"action": "updated", "blob": payload(p, blob)}


class DeletePayload(TypedDict):
    action: Literal["deleted"]
    id: str


def blob_delete(p: Principal, data: IdInput) -> DeletePayload:
    services.blob_delete(principal=p, blob_id=data.id)
    return {"action": "deleted", "id": data.id}


# --- what the upload endpoint checks before it reads a body ------------------------------------

FORM_OVERHEAD = config.FORM_OVERHEAD
check_size = services.check_size
max_bytes = services.max_bytes
