"""Each embedding window carries its block's scope, for the row-level security policy
(migrations/rls/0002_chunk_scope_policy.py)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0007_settings_registry"),
    ]

    operations = [
        migrations.AddField(
            model_name="blockchunk",
            name="scope",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="ctx.scope",
            ),
        ),
        migrations.RunSQL(
            "UPDATE ctx_blockchunk c SET scope_id = b.scope_id FROM ctx_block b"
            " WHERE b.id = c.block_id",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="blockchunk",
            name="scope",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="ctx.scope",
            ),
        ),
    ]
