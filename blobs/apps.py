"""The blobs app (binary attachments)."""

from __future__ import annotations

from django.apps import AppConfig


class BlobsConfig(AppConfig):
    name = "blobs"
    label = "blobs"
    verbose_name = "Blobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from ctx import hooks

        from . import services  # app modules load once the registry is ready
        from .models import Blob

        post_delete.connect(services.file_follows_row, sender=Blob, dispatch_uid="blob-file")
        hooks.ARCHIVE_FILES.register("blobs.blob", services.ArchiveFiles())
