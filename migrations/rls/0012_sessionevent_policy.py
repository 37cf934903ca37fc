"""Session events (ingest_sessionevent, the hook log) are policed by their own scope column,
a copy of their session's, like messages (0006_ingest_policies)."""

from __future__ import annotations

import importlib

from django.db import migrations

_first = importlib.import_module("migrations.rls.0001_policies")
TABLE = "ingest_sessionevent"


class Migration(migrations.Migration):
    dependencies = [
        ("rls", "0011_blob_policy"),
        ("ingest", "0002_session_events"),
    ]

    operations = [migrations.RunSQL(_first.by_own_scope(TABLE), _first._drop(TABLE))]
