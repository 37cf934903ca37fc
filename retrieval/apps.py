from __future__ import annotations

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    label = "retrieval"

    def ready(self) -> None:
        # Imported here, not at module level: app modules may not import models before the
        # registry is ready.
        from ctx import hooks
        from retrieval import checks  # noqa: F401 - registers the system checks

        # app modules load once the registry is ready
        from retrieval.anchoring import derive, write_anchors
        from retrieval.feedback import QueryFeedback  # app modules load once the registry is ready

        # app modules load once the registry is ready
        from retrieval.gravity_stages import CyclicGravity, LinearGravity
        from retrieval.rerank import Rerank  # app modules load once the registry is ready
        from retrieval.stages import SupersededFilter  # app modules load once the registry is ready
        from retrieval.tasks import enqueue_embedding  # app modules load once the registry is ready

        hooks.BLOCKS_WRITTEN.register(enqueue_embedding, order=10)
        hooks.BLOCK_DERIVE.register(derive, order=10)
        hooks.BLOCK_SAVED.register(write_anchors, order=10)
        for stage in (CyclicGravity, LinearGravity, QueryFeedback, Rerank, SupersededFilter):
            hooks.QUERY_STAGES.register(stage.name, stage)
