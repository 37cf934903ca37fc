"""Dream's kept link sets (revert) are policed by their own scope column, like links."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0009_refindex_policies"),
        ("dream", "0006_linkset"),
    ]

    operations = [
        migrations.RunSQL(_first.by_own_scope("dream_linkset"), _first._drop("dream_linkset"))
    ]
