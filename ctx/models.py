"""Core domain: tenants own scopes; API keys act within scopes; blocks live in one scope."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Self

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from pgvector.django import HnswIndex, VectorField

if TYPE_CHECKING:
    from ctx.principal import Principal

EMBED_DIM = 384  # all-MiniLM-L6-v2; a mismatching provider is a start-up error (issue 3)

SCOPE_NAME_RE = r"^[a-z0-9][a-z0-9:_.-]{0,99}$"


class Tenant(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"

    name = models.SlugField(max_length=64, unique=True)
    display_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["active", "suspended"]), name="tenant_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Scope(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="scopes")
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the full-text document frequencies (TermStat) were last counted, and over how many
    # live blocks; null for a scope too small to need them (retrieval/termstats.py).
    term_stats_at = models.DateTimeField(null=True, blank=True, editable=False)
    term_stats_blocks = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # What its blocks and their embedding windows take in the tables, measured in the
    # background (ctx.tasks.measure_storage): reading every row is too slow for `stats`.
    storage_blocks_bytes = models.BigIntegerField(null=True, blank=True, editable=False)
    storage_vectors_bytes = models.BigIntegerField(null=True, blank=True, editable=False)
    storage_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="scope_tenant_name_uniq"),
            # One server-wide `shared` scope (ctx/shared.py); a tenant's scope never takes the name.
            models.UniqueConstraint(
                fields=["name"], condition=Q(name="shared"), name="scope_shared_single"
            ),
            models.CheckConstraint(condition=Q(name__regex=SCOPE_NAME_RE), name="scope_name_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.tenant.name}/{self.name}"


class Sensitivity(models.TextChoices):
    PUBLIC = "public"
    INTERNAL = "internal"
    PERSONAL = "personal"
    CREDENTIALS = "credentials"


def _choices_q(field: str, choices: type[models.TextChoices]) -> Q:
    return Q(**{f"{field}__in": [c.value for c in choices]})


class ApiKey(models.Model):
    """A key is `ctx_<prefix>_<secret>`; only the prefix and an HMAC of the secret are kept."""

    class Role(models.TextChoices):
        OWNER = "owner"
        ADMIN = "admin"
        MEMBER = "member"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hmac = models.CharField(max_length=64)
    home_scope = models.ForeignKey(Scope, on_delete=models.PROTECT, related_name="home_keys")
    read_scopes = models.ManyToManyField(Scope, related_name="reader_keys", blank=True)
    write_scopes = models.ManyToManyField(Scope, related_name="writer_keys", blank=True)
    is_admin = models.BooleanField(default=False)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    # The highest block sensitivity this key reads in clear; above it content, previews and
    # snippets come back as `[redacted:<level>]` (ctx/masking.py). The default masks
    # credentials: an agent's MCP client is itself a remote LLM.
    max_sensitivity = models.CharField(
        max_length=16, choices=Sensitivity.choices, default=Sensitivity.PERSONAL
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"  # the admin's "Api keys" otherwise
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=["owner", "admin", "member"]), name="apikey_role_valid"
            ),
            models.CheckConstraint(
                condition=_choices_q("max_sensitivity", Sensitivity),
                name="apikey_max_sensitivity_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (ctx_{self.prefix}_…)"


class BlockType(models.TextChoices):
    KNOWLEDGE = "knowledge"
    REFERENCE = "reference"
    AUDIT_TRAIL = "audit-trail"
    SYSTEM_META = "system-meta"
    TRANSCRIPT = "transcript"
    DIGEST = "digest"
    PREFERENCE = "preference"
    DECISION = "decision"
    NOTE = "note"
    FACT = "fact"
    TASK = "task"
    ENTITY = "entity"


# Categories of the chunks of tool output the sandbox indexed (`ctx exec`, the bridge's
# `execute` and `batch_execute` label their output `exec:<hash>` / `batch:<hash>`; refindex
# files a source's chunks under `index/<label>`). Scratch that snippet search serves: search,
# query and the listings leave it out unless a caller names its category.
TOOL_OUTPUT_CATEGORIES = ("index/exec:", "index/batch:")


def is_tool_output(category: str) -> bool:
    return category.startswith(TOOL_OUTPUT_CATEGORIES)


class Lifecycle(models.TextChoices):
    KNOWLEDGE = "knowledge"
    CANONICAL = "canonical"
    SNAPSHOT = "snapshot"
    CHUNK = "chunk"
    SYNTHESIS = "synthesis"


class ScopedQuerySet(models.QuerySet[Any]):
    """Every tenant row lives in exactly one scope: the one way to filter rows by scopes."""

    def in_scopes(self, scope_ids: Iterable[int]) -> Self:
        return self.filter(scope_id__in=scope_ids)

    def readable_by(self, principal: Principal, scope_ids: Iterable[int] | None = None) -> Self:
        """Rows in the principal's readable scopes; only those among `scope_ids` when given (a
        stray id never widens what the principal sees)."""
        if scope_ids is None:
            return self.in_scopes(principal.read_scope_ids)
        return self.in_scopes([s for s in scope_ids if principal.can_read(s)])


class BlockQuerySet(ScopedQuerySet):
    def live(self) -> Self:
        return self.filter(archived=False)


def _tsv(config: str, normalizer: str) -> models.Expression:
    """Title (weight A) and content (B) under `config`, each through the SQL `normalizer`."""
    return SearchVector(
        models.Func("title", function=normalizer, output_field=models.TextField()),
        weight="A",
        config=config,
    ) + SearchVector(
        models.Func("content", function=normalizer, output_field=models.TextField()),
        weight="B",
        config=config,
    )


class Block(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="blocks")
    category = models.CharField(max_length=100)
    title = models.CharField(max_length=500)
    content = models.TextField()
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    type = models.CharField(max_length=32, choices=BlockType.choices, default=BlockType.KNOWLEDGE)
    lifecycle = models.CharField(
        max_length=16, choices=Lifecycle.choices, default=Lifecycle.KNOWLEDGE
    )
    content_hash = models.CharField(max_length=64)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    archived = models.BooleanField(default=False)
    embedding = VectorField(dimensions=EMBED_DIM, null=True, blank=True)
    embed_model = models.CharField(max_length=200, blank=True)
    # Generated so they can never drift from the text; title weighs more than content. The
    # `simple` column folds accents (ctx_fold, migration ctx 0018: "Zoe" finds "Zoë") and serves
    # text that is neither English nor German, CJK split into single characters that a phrase
    # query joins again ("日本語" → '日' <-> '本' <-> '語'). The language columns are left as
    # they were: folding before their stemmers changed German search (docs/benchmarks.md).
    tsv_en = models.GeneratedField(
        expression=SearchVector("title", weight="A", config="english")
        + SearchVector("content", weight="B", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    tsv_de = models.GeneratedField(
        expression=SearchVector("title", weight="A", config="german")
        + SearchVector("content", weight="B", config="german"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    tsv_simple = models.GeneratedField(
        expression=_tsv("simple", "ctx_simple_text"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    content_times = ArrayField(models.DateTimeField(), default=list, blank=True)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    quality = models.FloatField(default=0.5)
    sensitivity = models.CharField(
        max_length=16, choices=Sensitivity.choices, default=Sensitivity.INTERNAL
    )
    source = models.CharField(max_length=200, blank=True)
    source_session = models.CharField(max_length=200, blank=True)
    source_quote = models.TextField(blank=True)
    source_time = models.DateTimeField(null=True, blank=True)  # when the source said it
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = BlockQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "category", "title"], name="block_scope_category_title_uniq"
            ),
            models.CheckConstraint(
                condition=_choices_q("type", BlockType), name="block_type_valid"
            ),
            models.CheckConstraint(
                condition=_choices_q("lifecycle", Lifecycle), name="block_lifecycle_valid"
            ),
            models.CheckConstraint(
                condition=_choices_q("sensitivity", Sensitivity), name="block_sensitivity_valid"
            ),
            models.CheckConstraint(condition=~Q(category=""), name="block_category_nonempty"),
            models.CheckConstraint(condition=~Q(title=""), name="block_title_nonempty"),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True)
                | Q(valid_from__isnull=True)
                | Q(valid_to__gte=models.F("valid_from")),
                name="block_validity_ordered",
            ),
            models.CheckConstraint(
                condition=Q(quality__gte=0) & Q(quality__lte=1), name="block_quality_range"
            ),
            models.CheckConstraint(
                condition=~Q(superseded_by=models.F("id")), name="block_not_self_superseded"
            ),
        ]
        indexes = [
            GinIndex(fields=["tsv_en"], name="block_tsv_en_gin"),
            GinIndex(fields=["tsv_de"], name="block_tsv_de_gin"),
            GinIndex(fields=["tsv_simple"], name="block_tsv_simple_gin"),
            GinIndex(fields=["title"], name="block_title_trgm", opclasses=["gin_trgm_ops"]),
            GinIndex(fields=["tags"], name="block_tags_gin"),
            HnswIndex(
                name="block_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            models.Index(fields=["scope", "category"], name="block_scope_category"),
            models.Index(
                fields=["scope", "updated_at"],
                name="block_scope_updated",
            ),
            # The admin's block list across several scopes, newest first (ties by id): without
            # it every page sorted all of the operator's rows (330-580 ms at 100k blocks).
            models.Index(fields=["updated_at", "id"], name="block_updated_id"),
            # The context briefing's sections (facts, decisions, tasks, entities) newest first
            # per type: without it each section walked the scope's transcript windows too.
            models.Index(fields=["scope", "type", "updated_at"], name="block_scope_type_updated"),
            # Counts for stats and the web UI's home page (per scope, type, category, archived,
            # sensitivity; embedded or not) read these indexes alone (index-only scans): the
            # same counts over the table's rows took 100-400 ms each at 100k blocks, ~20 ms here.
            models.Index(
                fields=["scope", "archived", "type", "category", "sensitivity"],
                name="block_counts",
            ),
            models.Index(
                fields=["scope", "type", "sensitivity"],
                condition=Q(embedding__isnull=True, archived=False),
                name="block_unembedded",
            ),
            models.Index(
                fields=["scope", "type", "id"],
                condition=Q(embedding__isnull=False, archived=False),
                name="block_embedded",
            ),
            # The guard's exact-twin lookup on every store (dream/guard.py): without it each
            # store read its whole scope, 646 ms at 300k blocks in one scope (bench/scale.py).
            models.Index(
                fields=["scope", "content_hash"],
                condition=Q(archived=False),
                name="block_scope_hash_live",
            ),
            # Its corrections of the last 7 days (metadata.corrects): few rows, always included.
            models.Index(
                fields=["scope", "updated_at"],
                condition=Q(metadata__corrects=True),
                name="block_corrections",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.category}/{self.title}"


class BlockVersion(models.Model):
    """A block's content as it was before one change, with who changed it, when, and through
    which interface (ctx/channel.py). Version n is the n-th content the block had; the block
    itself holds version `count + 1`. Written by ctx.versions inside the change's transaction."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="versions")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")  # the policy's
    version = models.PositiveIntegerField()
    category = models.CharField(max_length=100)
    title = models.CharField(max_length=500)
    content = models.TextField()
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    type = models.CharField(max_length=32)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    sensitivity = models.CharField(max_length=16)
    written_at = models.DateTimeField()  # when this content was written (the block's updated_at)
    replaced_at = models.DateTimeField(auto_now_add=True)
    replaced_by = models.CharField(max_length=100)  # the key's name: it outlives the key
    replaced_via = models.CharField(max_length=16)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["block", "version"], name="blockversion_block_uniq"),
            models.CheckConstraint(
                condition=Q(
                    replaced_via__in=["http", "cli", "mcp", "admin", "web", "task", "system"]
                ),
                name="blockversion_via_valid",
            ),
        ]
        indexes = [
            # "What changed since": the updates of a scope in a time window.
            models.Index(fields=["scope", "replaced_at"], name="blockversion_scope_at"),
        ]

    def __str__(self) -> str:
        return f"{self.block_id} v{self.version}"


# The settings overrides' models live in their own module (app label `ctx`).
from ctx.overrides.models import SettingAudit, SettingOverride  # noqa: E402, F401
