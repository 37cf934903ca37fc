"""A queued import batch is kept without compression (migration ingest 0003)."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_it_keeps_the_payload_out_of_line_and_uncompressed() -> None:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT attstorage FROM pg_attribute"
            " WHERE attrelid = 'ingest_importjob'::regclass AND attname = 'payload'"
        )
        assert cur.fetchone() == ("e",)  # EXTERNAL: the batch is read once and then cleared
