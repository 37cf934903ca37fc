from __future__ import annotations

from django.apps import AppConfig


class RlsConfig(AppConfig):
    name = "rls"
    label = "rls"
    verbose_name = "Row-level security"

    def ready(self) -> None:
        from rls import signals  # app modules load once the registry is ready

        signals.connect()
