from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

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
        embeddings = not opts["no_embeddings"]
        with progress.command_errors(path, "write"), progress.rows("exported") as tell:
            counts = transfer.export_file(opts["name"], path, embeddings=embeddings, progress=tell)
        progress.report(self.stdout, f"exported tenant {opts['name']} to {path}", counts)
