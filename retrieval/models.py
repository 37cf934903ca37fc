"""Retrieval's own rows: embedding windows, temporal anchors, full-text document frequencies,
cached query vectors, and the log of every LLM call."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from ctx.models import EMBED_DIM, Block, Scope


class LLMCall(models.Model):
    """One request to an LLM provider. Bodies are kept only when CTX_LLM_LOG_BODIES is on,
    because prompts carry tenants' knowledge."""

    class Provider(models.TextChoices):
        OPENAI = "openai"
        OLLAMA = "ollama"
        ANTHROPIC = "anthropic"

    created_at = models.DateTimeField(default=timezone.now)
    pipeline = models.CharField(max_length=100)
    provider = models.CharField(max_length=16, choices=Provider.choices)
    model = models.CharField(max_length=200)
    duration_ms = models.PositiveIntegerField()
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    ok = models.BooleanField()
    error = models.CharField(max_length=500, blank=True)
    prompt = models.TextField(blank=True)
    response = models.TextField(blank=True)

    class Meta:
        verbose_name = "LLM call"  # the admin's "Llm calls" otherwise
        # Reads are "recent calls" and "recent calls of one pipeline" (cost, failure rate).
        indexes = [
            models.Index(fields=["created_at"], name="llmcall_created_idx"),
            models.Index(fields=["pipeline", "created_at"], name="llmcall_pipeline_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(provider__in=["openai", "ollama", "anthropic"]),
                name="llmcall_provider_valid",
            ),
        ]

    def __str__(self) -> str:
        state = "ok" if self.ok else "failed"
        return f"{self.pipeline} {self.provider}:{self.model} {state} {self.duration_ms} ms"


class EmbedCache(models.Model):
    """Query embeddings by (hash of prefix + text, model): a repeated question costs no model."""

    key = models.CharField(max_length=200, primary_key=True)
    model = models.CharField(max_length=200)
    vector = VectorField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "ctx_embedcache"  # created by the ctx app; moved here as state only

    def __str__(self) -> str:
        return self.key


ANCHOR_DIMENSIONS = ("year", "month", "quarter", "week", "weekday", "monthday", "seasonal", "daily")


class TemporalAnchor(models.Model):
    """One date of a block, one row per dimension (EAV): content dates and the meta date.

    Partial indexes per dimension keep "every block on a Tuesday" or "in week 12" cheap for
    recurrence discovery and period filters without scanning the other dimensions' rows.
    """

    class Kind(models.TextChoices):
        CONTENT = "content"
        META = "meta"

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="anchors")
    # The block's scope, copied as for BlockChunk: the policy through the block made every
    # period lookup read the whole block table (106 ms of 138 ms at 92k blocks).
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    dimension = models.CharField(max_length=16)
    value = models.FloatField()
    source_date = models.DateField()
    kind = models.CharField(max_length=8, choices=Kind.choices)

    class Meta:
        db_table = "ctx_temporalanchor"  # created by the ctx app; moved here as state only
        constraints = [
            models.CheckConstraint(
                condition=Q(dimension__in=list(ANCHOR_DIMENSIONS)), name="anchor_dimension_valid"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["content", "meta"]), name="anchor_kind_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["value", "block"], condition=Q(dimension=d), name=f"anchor_{d}")
            for d in ANCHOR_DIMENSIONS
        ] + [
            # Period filters: one `year` row per date of a block. An index over every
            # dimension's rows read eight per date (a long period at 92k blocks: 100+ ms).
            models.Index(
                fields=["source_date", "block"], condition=Q(dimension="year"), name="anchor_day"
            )
        ]

    def __str__(self) -> str:
        return f"{self.dimension}={self.value} ({self.kind})"


class BlockChunk(models.Model):
    """One embedding window of a block; the semantic arm ranks a block by its best window."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="chunks")
    # The block's scope, copied (a block never changes scope): the row-level security policy
    # tests it directly. A policy through the block made PostgreSQL read every block of the
    # table for each semantic search (a hashed subplan: 94 ms at 92k blocks, docs/rls.md).
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    idx = models.PositiveSmallIntegerField()
    embedding = VectorField(dimensions=EMBED_DIM)

    class Meta:
        db_table = "ctx_blockchunk"  # created by the ctx app; moved here as state only
        constraints = [
            models.UniqueConstraint(fields=["block", "idx"], name="chunk_block_idx_uniq"),
        ]
        indexes = [
            HnswIndex(
                name="chunk_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.block_id}#{self.idx}"


class TermStat(models.Model):
    """In how many live blocks of a large scope a lexeme occurs (BM25's df), per text search
    configuration; counted in the background (retrieval/termstats.py), read by the full-text
    arms instead of counting matches for every query."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+", db_index=False)
    config = models.CharField(max_length=16)  # 'english' | 'german'
    lexeme = models.TextField()
    df = models.PositiveIntegerField()

    class Meta:
        db_table = "ctx_termstat"  # created by the ctx app; moved here as state only
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "config", "lexeme"], name="termstat_scope_config_lexeme_uniq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.config}:{self.lexeme} ({self.df})"
