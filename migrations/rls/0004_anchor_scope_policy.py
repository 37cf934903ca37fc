"""Temporal anchors are policed by their own scope column instead of through their block.

The policy `EXISTS (SELECT 1 FROM ctx_block b WHERE b.id = block_id)` is correct but
PostgreSQL plans it as a hashed subplan over every visible block: each period lookup read the
whole ctx_block table (106 ms of 138 ms for a three-month period at 92k blocks). A block never
changes scope, so the copy in ctx_temporalanchor.scope_id cannot drift (as for ctx_blockchunk,
0002).
"""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "ctx_temporalanchor"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0003_termstat_policy"),
        ("ctx", "0011_temporalanchor_scope"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first.by_block(TABLE))]
