from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class DreamConfig(AppConfig):
    name = "dream"
    label = "dream"

    def ready(self) -> None:
        # Web processes never import ctx.celery otherwise, and `apply_async` would then use
        # Celery's default app (amqp://localhost) instead of the configured Redis broker.
        import ctx.celery  # noqa: F401
        from ctx import services
        from ctx.api import views
        from dream import checks, hooks  # noqa: F401 - checks registers the system checks
        from retrieval import indexing

        _register(indexing.AFTER_EMBED, hooks.on_embedded)
        _register(services.ON_SAVED, hooks.on_saved)
        _register(services.AFTER_WRITE, hooks.on_written)
        _register(views.STORE_HINTS, hooks.store_hints)


def _register(hooks: list[Any], hook: Any) -> None:
    if hook not in hooks:  # ready() may run twice in tests
        hooks.append(hook)
