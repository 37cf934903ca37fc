"""The scope's words of indexed sources (refindex_word) are policed by their own scope column,
like the per-source vocabulary (0009_refindex_policies)."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "refindex_word"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0012_sessionevent_policy"),
        ("refindex", "0002_scope_words"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first._drop(TABLE))]
