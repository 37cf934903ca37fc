from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ctx import config


class Command(BaseCommand):
    help = "Print the effective settings, secrets masked."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        values = config.masked(settings.CTX)
        if opts["json"]:
            self.stdout.write(json.dumps(values, indent=2, default=str))
            return
        width = max(len(k) for k in values)
        for name, value in values.items():
            self.stdout.write(f"{name:<{width}}  {value}")
