from __future__ import annotations

from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    label = "ingest"
    verbose_name = "Conversations"

    def ready(self) -> None:
        # Web processes never import ctx.celery otherwise, and `apply_async` would then use
        # Celery's default app (amqp://localhost) instead of the configured Redis broker.
        import ctx.celery  # noqa: F401
