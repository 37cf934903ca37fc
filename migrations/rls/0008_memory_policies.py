"""Memory formation (the memory app): every table is policed by its own scope column."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLES = ["memory_fact", "memory_entity", "memory_provenance", "memory_extraction"]


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0007_blockversion_policy"),
        ("memory", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            "".join(_first.by_own_scope(t) for t in TABLES),
            "".join(_first._drop(t) for t in TABLES),
        )
    ]
