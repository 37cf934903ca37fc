from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ctx import tenancy
from ctx.errors import CtxError


class Command(BaseCommand):
    help = (
        "Create a tenant with its '<name>:main' scope, any extra scopes and a first owner key "
        "(printed once, as the API's POST /api/admin/tenants does)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--display-name", default="")
        parser.add_argument("--scope", action="append", default=[], help="extra scope (repeat)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            new = tenancy.new_tenant(
                name=opts["name"], display_name=opts["display_name"], scopes=opts["scope"]
            )
        except CtxError as exc:
            raise CommandError(exc.message) from None
        scopes = ", ".join(s.name for s in new.tenant.scopes.order_by("name"))
        self.stdout.write(f"created tenant {new.tenant.name} with scopes: {scopes}")
        # The key alone on the last line of stdout, as `keys create` prints it: scripts take it.
        self.stderr.write(
            f"its owner key ctx_{new.owner.prefix}_… (role owner, home {new.tenant.name}:main, "
            "writes every scope) is shown once; store it now:"
        )
        self.stdout.write(new.raw_key)
