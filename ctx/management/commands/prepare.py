"""What `make run` does before it starts its servers, in one process: migrate, bootstrap, and one
log record of the settings.

Three `manage.py` processes paid Django's start-up and the system checks three times: 4-6 s of
a restart's 20 s on two cores. The checks run once, with migrate's database checks (ctx.E020: a
secret exists but no master key), exactly as `manage.py migrate` ran them.
"""

from __future__ import annotations

import io
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "migrate, bootstrap (prints the first admin key once) and log the config record."
    requires_system_checks: list[str] = []  # migrate runs them, with the database ones

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0, skip_checks=False)
        key = io.StringIO()
        call_command("bootstrap", stdout=key)
        call_command("config", record=True)
        self.stdout.write(key.getvalue(), ending="")
