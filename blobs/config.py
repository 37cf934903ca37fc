"""The blob storage's entry in Django's STORAGES, from the knobs (read by ctx/settings.py).

Pure: no Django import, so the settings module can call it before Django is configured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILESYSTEM = "django.core.files.storage.FileSystemStorage"


def blob_storage(ctx: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    """`{"BACKEND": …, "OPTIONS": …}`: the filesystem under CTX_BLOB_DIR (default
    CTX_DATA_DIR/blobs) with no URL, or CTX_BLOB_STORAGE with CTX_BLOB_STORAGE_OPTIONS."""
    backend = ctx["CTX_BLOB_STORAGE"] or FILESYSTEM
    options: dict[str, Any] = json.loads(ctx["CTX_BLOB_STORAGE_OPTIONS"] or "{}")
    if backend == FILESYSTEM:
        folder = Path(ctx["CTX_BLOB_DIR"]) if ctx["CTX_BLOB_DIR"] else data_dir / "blobs"
        # base_url None: the storage has no public URL; files are 0600 under a 0700 folder.
        options = {
            "location": str(folder.resolve()),
            "base_url": None,
            "file_permissions_mode": 0o600,
            "directory_permissions_mode": 0o700,
            **options,
        }
    return {"BACKEND": backend, "OPTIONS": options}


UPLOAD_PATH = "/api/blob/store"  # ctx/api/urls.py
FORM_OVERHEAD = 64 * 1024  # a multipart form's boundaries and fields around the file


def body_allowances() -> dict[str, int]:
    """The body limits of the blob upload for ctx.guards.BodyLimit (read at start)."""
    from ctx import knobs  # Django is configured by the time the ASGI app is built

    return {UPLOAD_PATH: int(knobs.configured("CTX_BLOB_MAX_BYTES")) + FORM_OVERHEAD}
