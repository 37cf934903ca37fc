"""Overrides of the fusion weights follow the knobs' new names (CTX_RRF_W_* -> CTX_FUSION_W_*).
The audit trail keeps the names it was written with."""

from django.db import migrations

RENAMED = {
    "CTX_RRF_W_SEMANTIC": "CTX_FUSION_W_SEMANTIC",
    "CTX_RRF_W_FTS_EN": "CTX_FUSION_W_FTS_EN",
    "CTX_RRF_W_FTS_DE": "CTX_FUSION_W_FTS_DE",
    "CTX_RRF_W_TITLE": "CTX_FUSION_W_TITLE",
}


def forward(apps, schema_editor):
    Override = apps.get_model("ctx", "SettingOverride")
    for old, new in RENAMED.items():
        Override.objects.filter(key=old).update(key=new)


def backward(apps, schema_editor):
    Override = apps.get_model("ctx", "SettingOverride")
    for old, new in RENAMED.items():
        Override.objects.filter(key=new).update(key=old)


class Migration(migrations.Migration):
    dependencies = [("ctx", "0011_temporalanchor_scope")]
    operations = [migrations.RunPython(forward, backward)]
