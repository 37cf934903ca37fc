"""The blobs app (binary attachments)."""

from __future__ import annotations

from django.apps import AppConfig


class BlobsConfig(AppConfig):
    name = "blobs"
    label = "blobs"
    verbose_name = "Blobs"
    default_auto_field = "django.db.models.BigAutoField"
