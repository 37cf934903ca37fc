# Claims rewrite a dream state row several times per cycle without touching an indexed
# column; free room on each page lets PostgreSQL do these as HOT updates (no index writes).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("dream", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE dream_dreamstate SET (fillfactor = 70)",
            reverse_sql="ALTER TABLE dream_dreamstate RESET (fillfactor)",
        ),
    ]
