"""A queued import batch is stored without compression (`STORAGE EXTERNAL`: out of line, as
before, but not through pglz).

The payload lives from the upload until its job has run, about a second, and is then
cleared; compressing it cost PostgreSQL 12 of the 20 ms its INSERT took per 1,000 messages
(0.86 MB of JSON; reading it back 1.3 → 0.8 ms), on every batch an import uploads
(docs/benchmarks.md, session 41). Rows already stored keep their compressed values.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ingest", "0002_session_events"),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE ingest_importjob ALTER COLUMN payload SET STORAGE EXTERNAL",
            "ALTER TABLE ingest_importjob ALTER COLUMN payload SET STORAGE EXTENDED",
        ),
    ]
