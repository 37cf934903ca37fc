"""Embedding windows are policed by their own scope column instead of through their block.

The policy `EXISTS (SELECT 1 FROM ctx_block b WHERE b.id = block_id)` is correct but
PostgreSQL plans it as a hashed subplan over every visible block: each semantic search read the
whole ctx_block table (94 ms of a 150 ms search at 92k blocks). A block never changes scope,
so the copy in ctx_blockchunk.scope_id cannot drift.
"""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "ctx_blockchunk"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0001_policies"),
        ("ctx", "0008_blockchunk_scope"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first.by_block(TABLE))]
