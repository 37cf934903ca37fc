from __future__ import annotations

from django.apps import AppConfig


class CtxConfig(AppConfig):
    name = "ctx"
    label = "ctx"
    verbose_name = "ctx"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A secret named by a settings override may not be deleted (409, secrets/selectors.py).
        from ctx import (
            checks,  # noqa: F401 - registers the system checks
            hooks,
        )

        # Create the Celery app in every Django process (web too), not only in workers:
        # otherwise shared tasks enqueue through Celery's default broker (amqp://localhost).
        from ctx.celery import app  # noqa: F401

        # app modules load once the registry is ready
        from ctx.overrides.selectors import secret_references

        hooks.SECRET_REFERENCES.register(secret_references)
