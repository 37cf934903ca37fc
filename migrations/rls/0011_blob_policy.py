"""Blobs (blobs_blob) are policed by their own scope, like blocks (docs/rls.md)."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "blobs_blob"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0010_linkset_policy"),
        ("blobs", "0001_initial"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first._drop(TABLE))]
