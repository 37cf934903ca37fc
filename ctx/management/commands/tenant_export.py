from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ctx.errors import CtxError
from ctx.management import progress
from ctx.ops import transfer


class Command(BaseCommand):
    help = (
        "Write everything a tenant owns to FILE (gzip-compressed JSON lines): blocks with "
        "their versions, links, anchors, settings overrides, sealed secrets still sealed, "
        "sessions, profiles, extracted memory. API keys are left out. docs/operations.md."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the tenant")
        parser.add_argument("file", help="where to write the archive (.jsonl.gz)")
        parser.add_argument(
            "--no-embeddings",
            action="store_true",
            help="leave the vectors out (a smaller file; a restore embeds the blocks again)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["file"])
        try:
            with progress.rows("exported") as tell:
                embeddings = not opts["no_embeddings"]
                counts = transfer.export_file(
                    opts["name"], path, embeddings=embeddings, progress=tell
                )
        except CtxError as exc:
            raise CommandError(exc.message) from None
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror}") from None
        rows = sum(counts.values())
        self.stdout.write(f"exported tenant {opts['name']} to {path}: {rows} rows")
        for label, n in sorted(counts.items()):
            self.stdout.write(f"  {label}: {n}")
        sys.stdout.flush()
