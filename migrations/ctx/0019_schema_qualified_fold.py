"""`ctx_simple_text` names `ctx_fold` with its schema.

pg_restore runs with an empty search_path: the unqualified call in the function's body did
not resolve while the restore created `ctx_block.tsv_simple`, so `ctx_block` and everything
naming it failed to restore (docs/operations.md). Qualified, a dump restores as it was taken.
The function computes the same text, so the stored column stays valid.
"""

from django.db import migrations

BODY = r"""
CREATE OR REPLACE FUNCTION {schema}.ctx_simple_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT {schema}.ctx_fold(regexp_replace(t,
    '([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])',
    ' \1 ', 'g'))
$$;
"""


def _replace(schema_editor, qualified: bool) -> None:
    with schema_editor.connection.cursor() as cur:
        cur.execute("SELECT current_schema()")
        schema = cur.fetchone()[0]
        sql = BODY.replace("{schema}.ctx_fold", "{schema}.ctx_fold" if qualified else "ctx_fold")
        cur.execute(sql.format(schema=schema))


def forwards(apps, schema_editor):
    _replace(schema_editor, qualified=True)


def backwards(apps, schema_editor):
    _replace(schema_editor, qualified=False)


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0018_folded_and_simple_text"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
