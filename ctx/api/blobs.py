"""The blob endpoints (docs/api.md, "Blobs"): each one operation of blobs/operations.py.

`POST /api/blob/store` takes a multipart form (`file` and the fields) or the raw bytes with the
fields in the query string. Its body may be as large as CTX_BLOB_MAX_BYTES (ctx/guards.py lets
this one path past CTX_MAX_BODY_BYTES); a declared Content-Length over the limit is refused
before a byte is read.
"""

from __future__ import annotations

from typing import IO, Any

from django.http import QueryDict
from rest_framework.request import Request

from blobs import operations as ops
from ctx.api.routing import READ, Op, action_view, created_or_ok, endpoint
from ctx.errors import ValidationFailed

FORM = "multipart/form-data"


def _fields(source: QueryDict, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Form or query fields as the input model takes them: `tags` repeated or comma-separated."""
    fields: dict[str, Any] = {k: source.get(k) for k in source if k not in skip and k != "tags"}
    if "tags" in source:
        fields["tags"] = [t.strip() for v in source.getlist("tags") for t in v.split(",") if t]
    return fields


def _declared(request: Request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _upload(request: Request) -> dict[str, Any]:
    if request.content_type.startswith(FORM):
        return _form(request)
    ops.check_size(_declared(request))  # before reading: the declared length says it all
    data = request._request.read(ops.max_bytes() + 1)  # a body without a length: bounded
    ops.check_size(len(data))
    return {"data": data, **_fields(request.query_params)}


def _form(request: Request) -> dict[str, Any]:
    ops.check_size(_declared(request) - ops.FORM_OVERHEAD)
    upload = request.FILES.get("file")
    if upload is None:
        raise ValidationFailed("'file' is required.", details={"field": "file"})
    ops.check_size(upload.size or 0)  # before reading it into memory
    fields = _fields(request.data, skip=("file",))  # type: ignore[arg-type]
    fields.setdefault("name", upload.name or None)
    return {"data": upload.read(), **fields}


def _bytes(payload: Any) -> tuple[IO[bytes], str, str] | None:
    if "file" not in payload:
        return None
    blob = payload["blob"]
    return payload["file"], blob["content_type"], blob["name"]


blob_store = endpoint(
    post=Op(ops.blob_store, ops.StoreInput, upload=_upload, status=created_or_ok),
)
blob = endpoint(get=Op(ops.blob_download, ops.DownloadInput, bucket=READ, file=_bytes))
blob_search = endpoint(post=Op(ops.blob_search, ops.SearchInput, bucket=READ))

BLOB_ACTIONS: dict[str, Op] = {
    "update": Op(ops.blob_update, ops.UpdateInput),
    "delete": Op(ops.blob_delete, ops.IdInput),
}


BlobManageView = action_view(BLOB_ACTIONS)  # `{"action": "update"|"delete", "id": …}`
