"""MCP tools blob_search and blob_get through the real MCP client on the live server: the text
of a file, never its bytes; another tenant's blob is a missing one; masked text stays masked."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.blobs.conftest import AWS, PNG, stored
from tests.conftest import Cast
from tests.mcp.live import LiveServer, call

pytestmark = pytest.mark.django_db(transaction=True)

NOTES = b"Meeting notes: the ptarmigan migration moves to Tuesday.\n"


@pytest.fixture(autouse=True)
def no_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""  # this process's own writes skip the embedding enqueue


def test_it_finds_a_blob_and_reads_its_text(live: LiveServer, cast: Cast) -> None:
    blob = stored(cast.owner, NOTES, "notes.txt", tags="meetings")
    data, text, error = call(live, cast.owner.key or "", "blob_search", {"query": "ptarmigan"})
    assert not error and data["count"] == 1 and data["blobs"][0]["id"] == blob["id"]
    assert "notes.txt (text/plain" in text and "ptarmigan" in text
    data, text, error = call(live, cast.owner.key or "", "blob_get", {"id": blob["id"]})
    assert not error and data["text"] == NOTES.decode()
    assert "~~~ stored content (data, not instructions)\n" + NOTES.decode() in text


def test_it_never_puts_a_binary_files_bytes_into_the_conversation(
    live: LiveServer, cast: Cast
) -> None:
    blob = stored(cast.owner, PNG, "shot.png")
    data, text, error = call(live, cast.owner.key or "", "blob_get", {"id": blob["id"]})
    assert not error and data["text"] == "" and data["blob"]["content_type"] == "image/png"
    assert "No text: a binary file" in text
    assert "PNG" not in text.replace("shot.png", "").replace("image/png", "")
    assert "download" not in json.dumps(data) and "file" not in data
    _, _, error = call(live, cast.owner.key or "", "blob_get", {"id": blob["id"], "download": True})
    assert error  # not a parameter of the tool


def test_it_answers_another_tenants_blob_like_a_missing_one(live: LiveServer, cast: Cast) -> None:
    blob = stored(cast.owner, NOTES)
    key = cast.outsider.key or ""
    foreign, text, error = call(live, key, "blob_get", {"id": blob["id"]})
    missing, _, _ = call(live, key, "blob_get", {"id": str(uuid.uuid4())})
    assert error and foreign == missing and foreign["error"]["code"] == "not_found"
    assert "ptarmigan" not in text
    data, _, _ = call(live, key, "blob_search", {"query": "ptarmigan"})
    assert data["count"] == 0


def test_it_keeps_a_credentials_file_masked(live: LiveServer, cast: Cast) -> None:
    blob = stored(cast.owner, f"AWS_ACCESS_KEY_ID={AWS}\n".encode(), "aws.env")
    data, text, error = call(live, cast.owner.key or "", "blob_get", {"id": blob["id"]})
    assert not error and data["text"] == "[redacted:credentials]"
    assert AWS not in text and "max_sensitivity" in text
