from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ctx.management import progress
from ctx.ops import transfer


class Command(BaseCommand):
    help = (
        "Restore a tenant from an archive of `tenant_export` as a new tenant (its old name, or "
        "--as NAME) with a new owner key, printed once. Rows keep their ids: restore after the "
        "tenant was deleted, or on another server. Nothing is written if anything fails."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="an archive written by tenant_export")
        parser.add_argument("--as", dest="as_name", default=None, help="the new tenant's name")

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["file"])
        with progress.command_errors(path, "read"), progress.rows("restored") as tell:
            restored, new = transfer.import_file(path, as_name=opts["as_name"], progress=tell)
        progress.report(
            self.stdout, f"restored tenant {new.tenant.name} from {path}", restored.counts
        )
        for finding in restored.skipped:
            self.stderr.write(f"  a settings override was not restored: {finding}")
        if restored.to_embed:
            self.stdout.write(f"  {len(restored.to_embed)} blocks are queued for embedding")
        self.stderr.write(
            f"its owner key ctx_{new.owner.prefix}_… (role owner, home {new.tenant.name}:main) "
            "is shown once; store it now:"
        )
        self.stdout.write(new.raw_key)
