from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from ctx import config, knobs
from ctx.overrides.resolver import GENERATED

log = logging.getLogger("ctx.config")
# The resolver's sources in words an operator reads in a log.
ORIGINS = {
    "env": "environment",
    "database": "database",
    "tenant": "database",
    "default": "default",
    "generated": "generated",
}


class Command(BaseCommand):
    help = "Print the effective settings, secrets masked."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--record",
            action="store_true",
            help="log one record of every setting with its origin, secrets as fingerprints, "
            "and a warning per doubtful URL setting (the launcher does this at every start)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["record"]:
            self._record()
            return
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

    def _record(self) -> None:
        from ctx.overrides import resolver  # needs the app registry (and the database)

        record: dict[str, dict[str, Any]] = {}
        for knob in config.KNOBS:
            found = resolver.resolve(knob.name, None, open_secrets=False)
            shown: Any = found.value
            if found.secret_ref:
                shown = f"secret:{found.secret_ref}"  # a sealed secret's name, never its value
            elif knob.secret:
                shown = config.fingerprint(found.value)
            record[knob.name] = {"value": shown, "origin": ORIGINS[found.source]}
        findings = config.url_findings(knobs.values())  # database overrides included
        log.info("config record %s", json.dumps(record, default=str, separators=(",", ":")))
        for finding in findings:
            log.warning("config: %s", finding)
