"""Each embedding window carries its block's scope, for the row-level security policy
(migrations/rls/0002_chunk_scope_policy.py)."""

import django.db.models.deletion
from django.db import migrations, models


def scope_copy(model_name: str, table: str) -> list[migrations.operations.base.Operation]:
    """A non-null scope column on `table`, filled from each row's block (a block never
    changes scope, so the copy cannot drift); 0011 does the same for temporal anchors."""

    def field(**extra: bool) -> models.ForeignKey:  # type: ignore[type-arg]
        return models.ForeignKey(
            db_index=False,
            on_delete=django.db.models.deletion.CASCADE,
            related_name="+",
            to="ctx.scope",
            **extra,
        )

    return [
        migrations.AddField(model_name=model_name, name="scope", field=field(null=True)),
        migrations.RunSQL(
            f"UPDATE {table} t SET scope_id = b.scope_id FROM ctx_block b"  # noqa: S608
            " WHERE b.id = t.block_id",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(model_name=model_name, name="scope", field=field()),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0007_settings_registry"),
    ]

    operations = scope_copy("blockchunk", "ctx_blockchunk")
