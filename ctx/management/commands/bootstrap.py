"""Create the first tenant and an admin key on an empty server; print the key once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ctx import services
from ctx.models import ApiKey, Tenant


class Command(BaseCommand):
    help = "On an empty server, create tenant 'default' and print an admin key (once)."

    def handle(self, *args: Any, **options: Any) -> None:
        if Tenant.objects.exists():
            return
        tenant = services.tenant_create(name="default")
        _, raw = services.key_create(
            tenant=tenant,
            name="bootstrap-admin",
            home="default:main",
            is_admin=True,
            role=ApiKey.Role.OWNER,
        )
        self.stdout.write(raw)
