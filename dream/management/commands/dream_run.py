from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from dream.cycle import run_cycles


class Command(BaseCommand):
    help = "Run dream cycles in this process until nothing is due or a budget is spent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--cycles", type=int, default=None, help="most cycles")
        parser.add_argument("--seconds", type=float, default=None, help="time budget")
        parser.add_argument("--worker", default=None, help="worker name in claims")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        cpu = time.process_time()
        summary = run_cycles(
            worker=opts["worker"], max_cycles=opts["cycles"], max_seconds=opts["seconds"]
        ).as_dict()
        if opts["json"]:  # for benchmarks: this process's CPU time in the loop, start-up excluded
            summary["cpu_seconds"] = round(time.process_time() - cpu, 3)
            self.stdout.write(json.dumps(summary))
            return
        rate = summary["cycles"] / summary["seconds"] if summary["seconds"] else 0.0
        self.stdout.write(
            f"{summary['cycles']} cycles in {summary['seconds']:.1f} s ({rate:.0f}/s), "
            f"{summary['links_created']} links created, mode {summary['mode']}"
        )
