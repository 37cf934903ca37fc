"""Block versions are policed by their own scope column (a copy of their block's)."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0006_ingest_policies"),
        ("ctx", "0015_block_versions"),
    ]

    operations = [
        migrations.RunSQL(
            _first.by_own_scope("ctx_blockversion"), _first._drop("ctx_blockversion")
        )
    ]
