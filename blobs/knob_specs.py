"""Blobs' knobs: the upload limit, the storage backend, the extracted text's bound.

Pure data, read before Django starts (ctx.config collects every app's KNOBS); one line of help
per knob, shown by `manage.py config` and docs/settings.md.
"""

from __future__ import annotations

import json

from blobs.config import FILESYSTEM
from ctx.config import Knob, knob


def parse_options(raw: str) -> str:
    """A JSON object (the storage backend's keyword arguments), kept as its text."""
    text = raw.strip()
    if not text:
        return ""
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError("expected a JSON object") from None
    if not isinstance(value, dict):
        raise ValueError("expected a JSON object")
    return text


KNOBS: tuple[Knob, ...] = (
    knob(
        "CTX_BLOB_MAX_BYTES",
        "int",
        25 * 1024 * 1024,
        "Largest blob upload (bytes); bigger is 413. The upload endpoint's body limit follows it.",
        bounds=(1, 5 * 1024**3),
    ),
    knob(
        "CTX_BLOB_STORAGE",
        "str",
        FILESYSTEM,
        "Storage class of blobs (dotted path), e.g. storages.backends.s3.S3Storage.",
    ),
    knob(
        "CTX_BLOB_STORAGE_OPTIONS",
        "str",
        "",
        "JSON object of the storage class's options (bucket, endpoint, keys for S3).",
        secret=True,
        parse=parse_options,
    ),
    knob(
        "CTX_BLOB_DIR",
        "str",
        "",
        "Folder of the filesystem storage; unset = CTX_DATA_DIR/blobs.",
    ),
    knob(
        "CTX_BLOB_TEXT_MAX_CHARS",
        "int",
        200_000,
        "Most characters of text kept from a text-like blob for search and reading.",
        bounds=(0, 10_000_000),
    ),
)
