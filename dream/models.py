"""Dream's own rows: links between blocks, per-block dream bookkeeping, the central mode,
guard findings and digest schedules. Blocks themselves get no dream columns."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from ctx.models import Block, Scope, ScopedQuerySet, Tenant


class LinkClass(models.TextChoices):
    TOPICAL = "topical"
    FACTUAL = "factual"
    CAUSAL = "causal"
    RECURRENT = "recurrent"
    SUPERSEDES = "supersedes"


# Undirected classes are stored once per pair, source < target (a check constraint keeps it).
SYMMETRIC = (LinkClass.TOPICAL.value, LinkClass.FACTUAL.value)


class LinkOrigin(models.TextChoices):
    DREAM = "dream"
    STRUCTURAL = "structural"
    MANUAL = "manual"
    EXTRACTION = "extraction"


def _in(field: str, choices: type[models.TextChoices]) -> Q:
    return Q(**{f"{field}__in": [c.value for c in choices]})


class Link(models.Model):
    """A typed relation. Several classes per pair may coexist; both ends share one scope
    (enforced by dream.services.link_write, the only writer)."""

    source = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="links_out")
    target = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="links_in")
    link_class = models.CharField(max_length=16, choices=LinkClass.choices)
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="links")
    confidence = models.FloatField()
    raw_confidence = models.FloatField()
    origin = models.CharField(max_length=16, choices=LinkOrigin.choices)
    evidence = models.JSONField(default=dict, blank=True)
    pinned = models.BooleanField(default=False)
    # The block whose dream cycle last proposed this link: replace semantics act on these.
    found_by = models.ForeignKey(
        Block, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "link_class"], name="link_source_target_class_uniq"
            ),
            models.CheckConstraint(condition=_in("link_class", LinkClass), name="link_class_valid"),
            models.CheckConstraint(condition=_in("origin", LinkOrigin), name="link_origin_valid"),
            models.CheckConstraint(condition=~Q(source=F("target")), name="link_not_self"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1)
                & Q(raw_confidence__gte=0, raw_confidence__lte=1),
                name="link_confidence_range",
            ),
            models.CheckConstraint(
                condition=~Q(link_class__in=SYMMETRIC) | Q(source__lt=F("target")),
                name="link_symmetric_ordered",
            ),
        ]
        indexes = [
            # The ego graph and graph expansion walk both directions from a set of blocks.
            models.Index(fields=["target", "link_class"], name="link_target_class"),
            # The ego graph's legs: a node's links in both directions, strongest raw
            # confidence first, so a hub's leg stops after its per-node cap (dream/ego.py).
            models.Index(fields=["source", "-raw_confidence", "id"], name="link_source_raw"),
            models.Index(fields=["target", "-raw_confidence", "id"], name="link_target_raw"),
            models.Index(fields=["found_by"], name="link_found_by"),
            models.Index(fields=["scope", "pinned", "origin"], name="link_scope_review"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.link_class}-> {self.target_id}"


class LinkSet(models.Model):
    """A block's replaceable links (dream's, unpinned) as they were before a cycle replaced
    them; `POST /api/dream/revert` puts the newest back. The row is the audit: who reverted
    it and when. A few are kept per block (dream.links.KEEP_SETS)."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="+")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    # [{source, target, link_class, confidence, raw, evidence, found_by}, ...]
    links = models.JSONField(default=list)
    replaced_at = models.DateTimeField()
    reverted_at = models.DateTimeField(null=True, blank=True)
    reverted_by = models.CharField(max_length=32, blank=True)  # an ApiKey prefix

    objects = ScopedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["block", "-replaced_at"], name="linkset_block_recent")]

    def __str__(self) -> str:
        return f"{self.block_id} before {self.replaced_at:%Y-%m-%d %H:%M}"


class DreamState(models.Model):
    """One block's dream bookkeeping: claim, schedule and back-off level.

    `next_at` NULL means "not pickable" (awaiting embedding, archived or a digest); the claim
    statement serves rows by (tenant, next_at) through `dreamstate_pick`.
    """

    block = models.OneToOneField(
        Block, on_delete=models.CASCADE, primary_key=True, related_name="dream"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    next_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    claim_until = models.DateTimeField(null=True, blank=True)
    level = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    cycles = models.PositiveIntegerField(default=0)
    last_cycle_at = models.DateTimeField(null=True, blank=True)
    last_outcome = models.CharField(max_length=16, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["tenant", "next_at"],
                condition=Q(next_at__isnull=False),
                name="dreamstate_pick",
            ),
            models.Index(fields=["scope", "next_at"], name="dreamstate_scope_next"),
        ]

    def __str__(self) -> str:
        return f"dream {self.block_id} level {self.level}"


class DreamTenant(models.Model):
    """Round robin: the tenant whose last cycle is oldest is served first."""

    tenant = models.OneToOneField(
        Tenant, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    last_cycle_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"dream tenant {self.tenant_id}"


class Mode(models.TextChoices):
    ON = "on"
    THROTTLED = "throttled"
    OFF = "off"


class DreamMode(models.Model):
    """The one central switch, read on every cycle (no restart needed)."""

    Mode = Mode

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.ON)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="dreammode_singleton"),
            models.CheckConstraint(condition=_in("mode", Mode), name="dreammode_mode_valid"),
        ]

    def __str__(self) -> str:
        return f"dream mode: {self.mode}"


class GuardKind(models.TextChoices):
    NEAR_COPY = "near_copy"  # cosine ≥ CTX_GUARD_ARCHIVE_AT
    SIMILAR = "similar"  # between CTX_GUARD_REVIEW_AT and the archive threshold
    RECURRENT = "recurrent"  # the same text with other dates: a series, never a copy


class GuardStatus(models.TextChoices):
    OPEN = "open"
    ARCHIVED = "archived"
    KEPT = "kept"


class GuardFlag(models.Model):
    """A near-duplicate found by the background guard: `block` is the block whose write made
    the pair, `twin` the existing one it resembles."""

    Kind = GuardKind
    Status = GuardStatus

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="+")
    twin = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="+")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    similarity = models.FloatField()
    kind = models.CharField(max_length=16, choices=GuardKind.choices)
    status = models.CharField(max_length=16, choices=GuardStatus.choices, default=GuardStatus.OPEN)
    auto = models.BooleanField(default=False)  # archived by the guard itself
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=200, blank=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["block", "twin"], name="guardflag_pair_uniq"),
            models.CheckConstraint(condition=_in("kind", GuardKind), name="guardflag_kind_valid"),
            models.CheckConstraint(
                condition=_in("status", GuardStatus), name="guardflag_status_valid"
            ),
            models.CheckConstraint(condition=~Q(block=F("twin")), name="guardflag_not_self"),
        ]
        indexes = [models.Index(fields=["scope", "status"], name="guardflag_scope_status")]

    def __str__(self) -> str:
        return f"{self.kind} {self.block_id}~{self.twin_id} ({self.status})"


class DigestState(models.Model):
    """Debounce of one scope's topic map: rebuilt once `due_at` has passed."""

    scope = models.OneToOneField(
        Scope, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    due_at = models.DateTimeField(null=True, blank=True)
    built_at = models.DateTimeField(null=True, blank=True)
    block = models.ForeignKey(
        Block, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"digest {self.scope_id}"
