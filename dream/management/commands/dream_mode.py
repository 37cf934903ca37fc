from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from dream import services


class Command(BaseCommand):
    help = "Show or set the central dream mode (on, throttled, off); workers follow at once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("mode", nargs="?", choices=list(services.MODES))

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["mode"]:
            services.mode_set(mode=opts["mode"], by="manage.py")
        self.stdout.write(f"dream mode: {services.mode_get()}")
