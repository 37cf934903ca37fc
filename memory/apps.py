from __future__ import annotations

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    label = "memory"
    verbose_name = "Memory formation"

    def ready(self) -> None:
        # Web processes never import ctx.celery otherwise, and `apply_async` would then use
        # Celery's default app (amqp://localhost) instead of the configured Redis broker.
        import ctx.celery  # noqa: F401
        from ctx import hooks
        from memory import hooks as memory_hooks  # app modules load once the registry is ready

        hooks.BLOCKS_WRITTEN.register(memory_hooks.on_blocks_written, order=40)
        hooks.SESSIONS_WRITTEN.register(memory_hooks.on_sessions_written, order=40)
        hooks.BLOCKS_REMOVED.register(memory_hooks.on_blocks_removed, order=40)
        hooks.SESSIONS_REMOVED.register(memory_hooks.on_sessions_removed, order=40)
