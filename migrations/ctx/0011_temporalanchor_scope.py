"""Each temporal anchor carries its block's scope, for the row-level security policy
(migrations/rls/0004_anchor_scope_policy.py)."""

import importlib

from django.db import migrations

_chunks = importlib.import_module("migrations.ctx.0008_blockchunk_scope")


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0010_anchor_day_index"),
    ]

    operations = _chunks.scope_copy("temporalanchor", "ctx_temporalanchor")
