"""Accent-folded full text and a `simple` arm for text that is neither English nor German.

`ctx_fold` strips combining marks after canonical decomposition (é → e, ë → e, ü → u) plus the
few letters that do not decompose (ø, ł, đ): the embedded PostgreSQL ships without the
`unaccent` extension, and `normalize` is built in and immutable. `ctx_simple_text` also puts
spaces around every CJK, kana, Hangul and Thai character: those scripts write words without
spaces, so each character becomes a token and a phrase query finds a word anywhere.

The German column keeps its umlauts: the German stemmer folds them itself, and folding them
first changed stems (XQuAD-R German search got worse). PostgreSQL cannot change a stored
generated column's expression before version 17, so the English column is dropped and added
again (the table is rewritten once and its index rebuilt).
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


def _tsv(config, normalizer):
    def part(field, weight):
        expr = models.Func(field, function=normalizer, output_field=models.TextField())
        return django.contrib.postgres.search.SearchVector(expr, config=config, weight=weight)

    return part("title", "A") + part("content", "B")


def _field(config, normalizer):
    return models.GeneratedField(
        db_persist=True,
        expression=_tsv(config, normalizer),
        output_field=django.contrib.postgres.search.SearchVectorField(),
    )


def _gin(column):
    return django.contrib.postgres.indexes.GinIndex(fields=[column], name=f"block_{column}_gin")


def _replace(column, config):
    """Drop the column and its index, add both again with folded text."""
    return [
        migrations.RemoveIndex(model_name="block", name=_gin(column).name),
        migrations.RemoveField(model_name="block", name=column),
        migrations.AddField(model_name="block", name=column, field=_field(config, "ctx_fold")),
        migrations.AddIndex(model_name="block", index=_gin(column)),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0017_block_count_indexes"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        migrations.SeparateDatabaseAndState(
            database_operations=_replace("tsv_en", "english"),
            state_operations=[
                migrations.AlterField(
                    model_name="block", name="tsv_en", field=_field("english", "ctx_fold")
                ),
            ],
        ),
        migrations.AddField(
            model_name="block", name="tsv_simple", field=_field("simple", "ctx_simple_text")
        ),
        migrations.AddIndex(model_name="block", index=_gin("tsv_simple")),
    ]
