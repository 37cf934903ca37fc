from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ctx import config
from ctx.overrides.resolver import GENERATED


class Command(BaseCommand):
    help = "Print the effective settings, secrets masked."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        values = config.masked(settings.CTX)
        # Empty knobs that the server filled in itself show the value in force and where from.
        for name, attr in GENERATED.items():
            if not values.get(name) and getattr(settings, attr, None):
                values[name] = f"{config.mask(getattr(settings, attr))} (generated)"
        if not values.get("CTX_TIME_ZONE"):
            values["CTX_TIME_ZONE"] = f"{settings.TIME_ZONE} (the machine's zone)"
        if opts["json"]:
            self.stdout.write(json.dumps(values, indent=2, default=str))
            return
        width = max(len(k) for k in values)
        for name, value in values.items():
            self.stdout.write(f"{name:<{width}}  {value}")
