"""`ctx_simple_text` returns text as it is when every character is ASCII or a symbol the
folding leaves alone (punctuation such as … — “ ”, arrows, box drawing, emoji).

0022's fast path took ASCII text only. Every transcript window ends a cut message with " […]",
and conversations are full of dashes, curly quotes and emoji, so windows always ran the CJK
expression, `normalize(t, NFD)` and the mark expression: on 5 MB of an import's windows the
function took 337 ms where the check below takes ~18 ms, on every window written (the `simple`
column was 0.62 of the 1.66 s its 1,000 rows cost PostgreSQL; docs/benchmarks.md, session 41).

The characters of SAFE have no canonical decomposition, are no combining mark, no CJK, kana,
Hangul or Thai, and are not in the ø/ł/æ table, so each step of the slow path leaves them
unchanged and the result is identical. tests/retrieval/test_simple_text.py runs every one of
them, and text mixing them, through the slow path in PostgreSQL (its own Unicode tables). The
stored column stays valid.
"""

from django.db import migrations

# A regular expression class (PostgreSQL's \u and \U escapes). Arrows with a stroke (U+219A
# and five more) and the angle brackets U+2329/U+232A decompose, and are left out.
SAFE = (
    r"\x01-\x7f\u00a0-\u00bf\u00d7\u00f7\u2002-\u205e\u20a0-\u20c0"
    r"\u2190-\u2199\u219c-\u21ad\u21af-\u21cc\u21d0-\u21ff\u2500-\u27bf"
    r"\U0001f300-\U0001f64f"
)

FAST = r"""
CREATE OR REPLACE FUNCTION {schema}.ctx_simple_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN t !~ '[^{safe}]' THEN t
  ELSE {schema}.ctx_fold(regexp_replace(t,
    '([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])',
    ' \1 ', 'g')) END
$$;
"""

ASCII_ONLY = r"""
CREATE OR REPLACE FUNCTION {schema}.ctx_simple_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(t) = char_length(t) THEN t
  ELSE {schema}.ctx_fold(regexp_replace(t,
    '([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])',
    ' \1 ', 'g')) END
$$;
"""


def _define(schema_editor, body: str) -> None:
    with schema_editor.connection.cursor() as cur:
        cur.execute("SELECT current_schema()")
        schema = cur.fetchone()[0]
        cur.execute(body.replace("{safe}", SAFE).replace("{schema}", schema))


def forwards(apps, schema_editor):
    _define(schema_editor, FAST)


def backwards(apps, schema_editor):
    _define(schema_editor, ASCII_ONLY)


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0023_block_scope_hash_live"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
