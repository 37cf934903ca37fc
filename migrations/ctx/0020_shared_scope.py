"""One server-wide `shared` scope (ctx/shared.py): the name is reserved from now on.

A tenant could name a scope `shared` before (names without a prefix were allowed). Such a
scope is renamed `<tenant>:shared` (`<tenant>:shared-<id>` if that is taken) before the
constraint that keeps the name for the one server-wide scope, owned by the internal tenant
`_shared` and created on its first grant.
"""

from django.db import migrations, models

SHARED_TENANT = "_shared"


def rename_tenant_scopes(apps, schema_editor):
    Scope = apps.get_model("ctx", "Scope")
    owned = Scope.objects.filter(name="shared").exclude(tenant__name=SHARED_TENANT)
    for scope in owned.select_related("tenant"):
        name = f"{scope.tenant.name}:shared"
        if Scope.objects.filter(tenant=scope.tenant, name=name).exists():
            name = f"{name}-{scope.pk}"
        scope.name = name
        scope.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [("ctx", "0019_schema_qualified_fold")]

    operations = [
        migrations.RunPython(rename_tenant_scopes, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="scope",
            constraint=models.UniqueConstraint(
                condition=models.Q(name="shared"), fields=("name",), name="scope_shared_single"
            ),
        ),
    ]
