from __future__ import annotations

from django.apps import AppConfig


class OAuthConfig(AppConfig):
    """Installed so its templates and system checks load; its one model is in the ctx app."""

    name = "ctx.oauth"
    label = "ctx_oauth"
    verbose_name = "ctx OAuth"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ctx.oauth import checks  # noqa: F401 - registers the system checks
