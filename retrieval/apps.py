from __future__ import annotations

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    label = "retrieval"

    def ready(self) -> None:
        from ctx import services
        from retrieval import checks  # noqa: F401 - registers the system checks
        from retrieval.tasks import enqueue_embedding

        if enqueue_embedding not in services.AFTER_WRITE:
            services.AFTER_WRITE.append(enqueue_embedding)
