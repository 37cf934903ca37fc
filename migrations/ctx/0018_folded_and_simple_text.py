"""A language-agnostic, accent-folded full-text column for text that is neither English nor
German, and for names written with or without their accents.

`ctx_fold` strips combining marks after canonical decomposition (é → e, ë → e, ü → u) plus the
few letters that do not decompose (ø, ł, đ, æ, œ): the embedded PostgreSQL ships without the
`unaccent` extension, and `normalize` is built in and immutable. `ctx_simple_text` also puts
spaces around every CJK, kana, Hangul and Thai character: those scripts write words without
spaces, so each character becomes a token and a phrase query finds a word anywhere.

The English and German columns are left as they were: folding before their stemmers changed
stems (XQuAD-R German search got worse, docs/benchmarks.md).
"""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION ctx_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT translate(regexp_replace(normalize(t, NFD), '[\u0300-\u036f]', '', 'g'),
                   'øØłŁđĐıæÆœŒ', 'oOlLdDiaAoO')
$$;
CREATE OR REPLACE FUNCTION ctx_simple_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ctx_fold(regexp_replace(t,
    '([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])',
    ' \1 ', 'g'))
$$;
"""
DROP_FUNCTIONS = "DROP FUNCTION ctx_simple_text(text); DROP FUNCTION ctx_fold(text);"


def _simple_tsv():
    def part(field, weight):
        expr = models.Func(field, function="ctx_simple_text", output_field=models.TextField())
        return django.contrib.postgres.search.SearchVector(expr, config="simple", weight=weight)

    return part("title", "A") + part("content", "B")


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0017_block_count_indexes"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        migrations.AddField(
            model_name="block",
            name="tsv_simple",
            field=models.GeneratedField(
                db_persist=True,
                expression=_simple_tsv(),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="block",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["tsv_simple"], name="block_tsv_simple_gin"
            ),
        ),
    ]
