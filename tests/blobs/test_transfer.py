"""A tenant's archive carries its blobs, bytes included: export, delete the tenant (its files
go), restore, and the same bytes come back under the same id."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from blobs.models import Blob
from tests.blobs.conftest import PNG, download, upload
from tests.conftest import Cast
from tests.tenancy.test_transfer import delete, export, restore

pytestmark = pytest.mark.django_db(transaction=True)

NOISE = os.urandom(50_000)  # nothing a compressor or a text decoder would mistake


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_export_delete_restore_brings_the_files_back(
    cast: Cast, tmp_path: Path, blob_folder: Path
) -> None:
    ids = [
        upload(cast.owner, content, name, tags="keep")[1]["blob"]["id"]
        for content, name in ((NOISE, "noise.bin"), (PNG, "dot.png"), (b"# Runbook\n", "r.md"))
    ]
    archive = tmp_path / "acme.jsonl.gz"
    assert "blobs.blob: 3" in export("acme", archive)
    delete("acme")
    assert not Blob.objects.filter(pk__in=ids).exists() and _files(blob_folder) == []

    out, _ = restore(archive)
    owner = type(cast.owner)(out.strip().splitlines()[-1])  # the restored tenant's new key
    got = {i: b"".join(download(owner, i).streaming_content) for i in ids}
    assert got == {ids[0]: NOISE, ids[1]: PNG, ids[2]: b"# Runbook\n"}
    assert Blob.objects.get(pk=ids[1]).content_type == "image/png"
    assert len(_files(blob_folder)) == 3


def test_a_row_without_its_file_is_refused_whole(
    cast: Cast, tmp_path: Path, blob_folder: Path
) -> None:
    upload(cast.owner, NOISE, "noise.bin")
    archive = tmp_path / "acme.jsonl.gz"
    export("acme", archive)
    delete("acme")
    lines = [json.loads(x) for x in gzip.decompress(archive.read_bytes()).splitlines()]
    for doc in lines:
        if doc.get("m") == "blobs.blob":
            doc["r"].pop("_file")
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b"\n".join(json.dumps(d).encode() for d in lines) + b"\n"))
    with pytest.raises(Exception) as refused:
        restore(broken)
    assert "has no file" in str(refused.value)
    assert not Blob.objects.exists() and _files(blob_folder) == []
