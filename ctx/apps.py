from __future__ import annotations

from django.apps import AppConfig
from django.contrib.admin.apps import SimpleAdminConfig


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
        from ctx.dbtypes import install  # psycopg is loaded by now: the backend imported it

        install()

        # app modules load once the registry is ready
        from ctx.overrides.selectors import secret_references

        hooks.SECRET_REFERENCES.register(secret_references)


class OperatorAdminConfig(SimpleAdminConfig):
    """django.contrib.admin with the operators' site (key sign-in, row-level security).

    No autodiscovery: only ctx's own pages are offered. Other apps' `admin` modules (the
    OAuth toolkit's, auth's users and groups) would write models directly, outside the
    operations and the operator's reach."""

    default_site = "ctx.admin.site.OperatorSite"

    def ready(self) -> None:
        super().ready()
        from ctx.admin import pages  # noqa: F401 - registers the pages
