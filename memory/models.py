"""Memory formation's rows: what was extracted (facts, entities) and where each came from.

A fact or entity is a block (types fact / preference / decision / task / entity) in its
source's scope; the rows here are its identity (the key two sources share), its standing
(confidence, the time it was said) and its provenance: one row per source that states it.
The sources themselves are never modified.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from ctx.models import Block, Scope, ScopedQuerySet

KINDS = ("fact", "preference", "decision", "task")


class Fact(models.Model):
    """One extracted statement. (scope, key) is its identity: the same kind, subject,
    attribute, value and polarity from any source is this one row (and block)."""

    block = models.OneToOneField(
        Block, on_delete=models.CASCADE, primary_key=True, related_name="memory_fact"
    )
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    kind = models.CharField(max_length=16)
    subject = models.CharField(max_length=200)
    attribute = models.CharField(max_length=200)
    value = models.TextField()
    negated = models.BooleanField(default=False)
    single = models.BooleanField(default=False)  # single-valued: a newer value supersedes
    # The most confident source's; `confidence` is that, lowered once a correction
    # superseded the fact (memory.slots).
    base_confidence = models.FloatField()
    confidence = models.FloatField()
    corrects = models.BooleanField(default=False)  # said as a correction ("no, it's …")
    said_at = models.DateTimeField(null=True, blank=True)  # the latest source's time
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="fact_scope_key_uniq"),
            models.CheckConstraint(condition=Q(kind__in=KINDS), name="fact_kind_valid"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="fact_confidence_range"
            ),
        ]
        indexes = [
            # Conflicts: the other facts on the same subject and attribute in the scope.
            models.Index(fields=["scope", "subject", "attribute"], name="fact_scope_subject_attr"),
        ]

    def __str__(self) -> str:
        return f"{self.subject}.{self.attribute} = {self.value}"


class Entity(models.Model):
    """A named thing, one per name per scope; `keys` are its name's and aliases' keys."""

    block = models.OneToOneField(
        Block, on_delete=models.CASCADE, primary_key=True, related_name="memory_entity"
    )
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=16)
    keys = ArrayField(models.CharField(max_length=200), default=list)
    aliases = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    confidence = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["scope", "name"], name="entity_scope_name"),
        ]

    def __str__(self) -> str:
        return f"{self.type}: {self.name}"


class Provenance(models.Model):
    """One source of a fact or entity: a stored block, or a message of a session.

    `source` is the source's key (`block:<uuid>` or `session:<id>`), what forgetting and
    re-extraction look up; `ref` names the exact place (the message index for a session)."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="+")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=64)
    ref = models.CharField(max_length=100)
    source_block = models.ForeignKey(
        Block, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    session_id = models.BigIntegerField(null=True, blank=True)  # ingest.Session, tombstoned
    message_index = models.PositiveIntegerField(null=True, blank=True)
    message_id = models.CharField(max_length=200, blank=True)
    quote = models.TextField()
    start = models.PositiveIntegerField(default=0)
    end = models.PositiveIntegerField(default=0)
    said_at = models.DateTimeField(null=True, blank=True)
    confidence = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["block", "ref"], name="provenance_block_ref_uniq"),
            models.CheckConstraint(
                condition=Q(source_block__isnull=False) | Q(session_id__isnull=False),
                name="provenance_has_source",
            ),
        ]
        indexes = [models.Index(fields=["source"], name="provenance_source")]

    def __str__(self) -> str:
        return f"{self.block_id} <- {self.ref}"


class Extraction(models.Model):
    """The last extraction of one source: re-running it on the same content is a no-op."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=64, unique=True)
    content_hash = models.CharField(max_length=64)
    extractor = models.CharField(max_length=32)
    counts = models.JSONField(default=dict, blank=True)
    ran_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.source} ({self.extractor})"
