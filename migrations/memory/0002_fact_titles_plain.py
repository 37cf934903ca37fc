"""Fact blocks made before 0002 were titled "<statement> [<key head>]"; a fact is now titled by
its statement alone (memory.materialize numbers the rare second fact of one sentence). This
drops the suffix where the plain title is free: the first of several facts of one sentence
(by id) takes it, the others keep theirs. Content, embeddings and versions are untouched."""

from django.db import migrations

STRIP = r"""
WITH hashed AS (
    SELECT b.id, b.scope_id, b.category, left(b.title, length(b.title) - 11) AS plain
    FROM ctx_block b JOIN memory_fact f ON f.block_id = b.id
    WHERE b.title ~ ' \[[0-9a-f]{8}\]$' AND right(b.title, 9) = left(f.key, 8) || ']'
), first AS (
    SELECT h.*, row_number() OVER (PARTITION BY scope_id, category, plain ORDER BY id) AS n
    FROM hashed h
)
UPDATE ctx_block b SET title = first.plain
FROM first
WHERE b.id = first.id AND first.n = 1 AND first.plain <> ''
  AND NOT EXISTS (
    SELECT 1 FROM ctx_block o
    WHERE o.scope_id = first.scope_id AND o.category = first.category AND o.title = first.plain
  );
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]

    operations = [migrations.RunSQL(STRIP, migrations.RunSQL.noop)]
