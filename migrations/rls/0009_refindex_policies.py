"""Indexed references (the refindex app): every table is policed by its own scope column.

Chunks and terms carry a copy of their source's scope (a source never changes scope), so their
policies need no join, as for the conversations' messages and windows (0006).
"""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLES = ["refindex_source", "refindex_chunk", "refindex_term"]


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0008_memory_policies"),
        ("refindex", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            "".join(_first.by_own_scope(t) for t in TABLES),
            "".join(_first._drop(t) for t in TABLES),
        )
    ]
