"""Each scope's measured storage (ctx.tasks.measure_storage): three nullable columns, no
table rewrite."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ctx", "0020_shared_scope")]

    operations = [
        migrations.AddField(
            model_name="scope",
            name="storage_blocks_bytes",
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="scope",
            name="storage_vectors_bytes",
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="scope",
            name="storage_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
