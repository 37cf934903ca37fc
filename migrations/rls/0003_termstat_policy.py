"""Full-text document frequencies are tenant data (their lexemes are the scope's words):
policed by their scope like every other scoped table."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "ctx_termstat"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0002_chunk_scope_policy"),
        ("ctx", "0009_term_stats"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first._drop(TABLE))]
