"""A blob: one file's bytes in the blob storage and its metadata row, in one scope."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

from ctx.models import Block, Scope, ScopedQuerySet, Sensitivity


class Blob(models.Model):
    """The bytes live in the storage under `storage_name`; the row is what the tenant check,
    search and masking read. One row per (scope, sha256): the same bytes stored again in the
    scope are the same blob."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="blobs")
    # SET_NULL: a blob is a file of its own, in its scope; the block it was attached to going
    # away (a purge, a tenant import replacing blocks) must not destroy the user's file.
    block = models.ForeignKey(
        Block, on_delete=models.SET_NULL, null=True, blank=True, related_name="blobs"
    )
    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)  # sniffed from the bytes (blobs/sniff.py)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    text = models.TextField(blank=True)  # extracted from text-like blobs, bounded
    sensitivity = models.CharField(
        max_length=16, choices=Sensitivity.choices, default=Sensitivity.INTERNAL
    )
    storage_name = models.CharField(max_length=255)
    created_by = models.CharField(max_length=32)  # an ApiKey prefix
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "sha256"], name="blob_scope_sha256_uniq"),
            models.CheckConstraint(
                condition=Q(sensitivity__in=Sensitivity.values), name="blob_sensitivity_valid"
            ),
            models.CheckConstraint(condition=Q(size__gte=0), name="blob_size_not_negative"),
            models.CheckConstraint(
                condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="blob_sha256_hex"
            ),
        ]
        indexes = [
            GinIndex(fields=["tags"], name="blob_tags_gin"),
            GinIndex(fields=["name"], name="blob_name_trgm", opclasses=["gin_trgm_ops"]),
        ]

    def __str__(self) -> str:
        return self.name
