"""Re-seal every secret under the current master key (the second half of a key rotation)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ctx.errors import CtxError

from ... import services


class Command(BaseCommand):
    help = (
        "Re-seal under CTX_SECRETS_KEY every secret that CTX_SECRETS_KEY_PREV opens; "
        "secrets neither key opens are left untouched with a warning."
    )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            report = services.secrets_reseal(actor=services.operator())
        except CtxError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"re-sealed {len(report.resealed)} secret(s) under key {report.key_version}; "
            f"{len(report.unopenable)} left untouched (neither key opens them)"
        )
