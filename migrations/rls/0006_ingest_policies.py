"""Conversations (the ingest app): every table is policed by its own scope column.

Messages and windows carry a copy of their session's scope (a session never changes scope),
so their policies need no join, as for the blocks' embedding windows (0002).
"""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLES = [
    "ingest_source",
    "ingest_session",
    "ingest_message",
    "ingest_window",
    "ingest_importjob",
]


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0005_profiles_policies"),
        ("ingest", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            "".join(_first.by_own_scope(t) for t in TABLES),
            "".join(_first._drop(t) for t in TABLES),
        )
    ]
