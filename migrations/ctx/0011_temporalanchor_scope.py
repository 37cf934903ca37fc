"""Each temporal anchor carries its block's scope, for the row-level security policy
(migrations/rls/0004_anchor_scope_policy.py)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ctx", "0010_anchor_day_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="temporalanchor",
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
            "UPDATE ctx_temporalanchor a SET scope_id = b.scope_id FROM ctx_block b"
            " WHERE b.id = a.block_id",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="temporalanchor",
            name="scope",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="ctx.scope",
            ),
        ),
    ]
