from __future__ import annotations

from django.apps import AppConfig


class CtxConfig(AppConfig):
    name = "ctx"
    label = "ctx"
    verbose_name = "ctx"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ctx import checks  # noqa: F401 - registers the system checks

        # Create the Celery app in every Django process (web too), not only in workers:
        # otherwise shared tasks enqueue through Celery's default broker (amqp://localhost).
        from ctx.celery import app  # noqa: F401

        # A secret named by a settings override may not be deleted (409, secrets/selectors.py).
        from ctx.registry.selectors import secret_references
        from secrets.selectors import REFERENCE_FINDERS

        if secret_references not in REFERENCE_FINDERS:
            REFERENCE_FINDERS.append(secret_references)
