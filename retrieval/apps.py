from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    label = "retrieval"

    def ready(self) -> None:
        from ctx import services
        from retrieval import checks  # noqa: F401 - registers the system checks
        from retrieval.anchoring import derive, write_anchors
        from retrieval.tasks import enqueue_embedding

        _register(services.AFTER_WRITE, enqueue_embedding)
        _register(services.DERIVE, derive)
        _register(services.ON_SAVED, write_anchors)


def _register(hooks: list[Any], hook: Any) -> None:
    if hook not in hooks:  # ready() may run twice in tests
        hooks.append(hook)
