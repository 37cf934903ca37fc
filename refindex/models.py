"""Indexed documents: the source (what was sent under a label), its chunks (each a `reference`
block) and its vocabulary (the words of its chunks, for query suggestions and typo
correction). Every row lives in one scope."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

from ctx.models import Block, Scope, ScopedQuerySet

KINDS = ("markdown", "json", "text", "html")


class Source(models.Model):
    """One indexed document, named by its label within its scope."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=200)
    kind = models.CharField(max_length=16)  # the type it was chunked as (auto resolved)
    bytes = models.PositiveIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    terms = models.JSONField(default=list, blank=True)  # its distinctive terms, best first
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "label"], name="refsource_scope_label_uniq"),
            models.CheckConstraint(condition=Q(kind__in=KINDS), name="refsource_kind_valid"),
            models.CheckConstraint(condition=~Q(label=""), name="refsource_label_nonempty"),
        ]

    def __str__(self) -> str:
        return self.label


class Chunk(models.Model):
    """One chunk of a source, stored as a `reference` block (deleting the block deletes the
    link; deleting the source deletes its blocks through services.source_delete)."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="chunks")
    # The source's scope, copied (a source never changes scope) so the policy tests it directly.
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    block = models.OneToOneField(Block, on_delete=models.CASCADE, related_name="ref_chunk")
    position = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "position"], name="refchunk_position_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id}#{self.position}"


class Term(models.Model):
    """A word of a source and in how many of its chunks it occurs (distinctive terms, and the
    source filter of the partial-word and typo rungs)."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="vocabulary")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    word = models.CharField(max_length=64)
    chunks = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "word"], name="refterm_source_word_uniq"),
        ]

    def __str__(self) -> str:
        return self.word


class Word(models.Model):
    """A word of the scope's sources, once per scope, and how many of its sources hold it.

    Its trigram index serves the partial-word and typo rungs of snippet search: searched per
    source, 78 documents sharing a vocabulary of 6,000 words were 470,000 rows to match (80 ms
    a lookup at 100k chunks); the scope's words are then checked against the searched sources'
    vocabularies (Term). A word leaves when its last source does (refindex.services)."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    word = models.CharField(max_length=64)
    sources = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "word"], name="refword_scope_word_uniq"),
        ]
        indexes = [GinIndex(fields=["word"], name="refword_word_trgm", opclasses=["gin_trgm_ops"])]

    def __str__(self) -> str:
        return self.word
