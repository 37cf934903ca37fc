from __future__ import annotations

from django.apps import AppConfig


class DreamConfig(AppConfig):
    name = "dream"
    label = "dream"

    def ready(self) -> None:
        # Web processes never import ctx.celery otherwise, and `apply_async` would then use
        # Celery's default app (amqp://localhost) instead of the configured Redis broker.
        # (Imports here, not at module level: app modules may not import models before the
        # registry is ready.)
        import ctx.celery  # noqa: F401
        from ctx import hooks  # app modules load once the registry is ready
        from dream import checks  # noqa: F401 - registers the system checks
        from dream import hooks as dream_hooks  # app modules load once the registry is ready
        from dream.graph import GraphExpansion  # app modules load once the registry is ready

        hooks.BLOCKS_EMBEDDED.register(dream_hooks.on_embedded, order=20)
        hooks.BLOCK_SAVED.register(dream_hooks.on_saved, order=20)
        hooks.BLOCKS_WRITTEN.register(dream_hooks.on_written, order=20)
        hooks.STORE_HINTS.register(dream_hooks.store_hints, order=20)
        hooks.STATS_SECTIONS.register(dream_hooks.stats_section, order=20)
        hooks.QUERY_STAGES.register(GraphExpansion.name, GraphExpansion)
