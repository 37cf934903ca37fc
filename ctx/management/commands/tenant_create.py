from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ctx import services
from ctx.errors import CtxError


class Command(BaseCommand):
    help = "Create a tenant with its '<name>:main' scope and any extra scopes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--display-name", default="")
        parser.add_argument("--scope", action="append", default=[], help="extra scope (repeat)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            tenant = services.tenant_create(
                name=opts["name"], display_name=opts["display_name"], scopes=opts["scope"]
            )
        except CtxError as exc:
            raise CommandError(exc.message) from None
        scopes = ", ".join(s.name for s in tenant.scopes.order_by("name"))
        self.stdout.write(f"created tenant {tenant.name} with scopes: {scopes}")
