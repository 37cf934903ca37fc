"""Preference profiles: signals, what was read from them, the facts tier, profiles and their
versions, the key's active profile, publications (docs/profiles.md).

Every row lives in a scope (the profile's); the core (`profiles.core`) holds the rules, these
tables hold its state: `Profile.state` is the core profile's JSON form (`ctx.profile/1`,
without history) and each `ProfileVersion` keeps the state, the prompt and the change record
of one synthesis.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from ctx.models import ApiKey, Scope, ScopedQuerySet, Tenant
from profiles.core.profile import MAX_CONTEXT_CHARS, MAX_NAME_CHARS
from profiles.core.signals import MAX_ID_CHARS, MAX_SOURCE_CHARS, MAX_TAG_CHARS, SIGNAL_TYPES

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"  # profiles.core.profile.SLUG: it names files


class Profile(models.Model):
    # The tenant beside the scope: a slug is unique in the tenant, so a slug names one profile
    # whichever of the tenant's scopes it lives in.
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="profiles")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="profiles")
    slug = models.CharField(max_length=63)
    name = models.CharField(max_length=MAX_NAME_CHARS)
    context = models.CharField(max_length=MAX_CONTEXT_CHARS, blank=True)
    template = models.CharField(max_length=32)
    version = models.PositiveIntegerField(default=1)
    state = models.JSONField()  # profiles.core.profile.profile_to_dict
    prompt = models.TextField()  # render_prompt(state): the active prompt is read, not rendered
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField()  # the state's updated_at (a new version, an edit)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="profile_tenant_slug_uniq"),
            models.CheckConstraint(
                condition=Q(slug__regex=SLUG_PATTERN), name="profile_slug_valid"
            ),
        ]
        indexes = [
            # The fallback when a key chose no profile: the most recently updated one.
            models.Index(fields=["scope", "-updated_at"], name="profile_scope_updated_idx"),
        ]

    def __str__(self) -> str:
        return self.slug


class ProfileVersion(models.Model):
    """One synthesis: the state and prompt it produced and what changed (with the signals
    that caused each part). A version imported from a folder's history has no state."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="versions")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    state = models.JSONField(null=True)
    prompt = models.TextField(blank=True)
    change = models.JSONField()  # profiles.core.profile.change_to_dict
    summary = models.TextField(blank=True)
    created_at = models.DateTimeField()  # the change's time

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["profile", "version"], name="profileversion_profile_version_uniq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.profile_id} v{self.version}"


class SignalStatus(models.TextChoices):
    PENDING = "pending"  # stored, not read yet
    INTERPRETED = "interpreted"  # read; waiting for the next synthesis
    APPLIED = "applied"  # synthesized (`version` says which version it went into, if any)


class Signal(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="signals")
    sid = models.CharField(max_length=MAX_ID_CHARS)  # the signal's own id (its `id` on the wire)
    type = models.CharField(max_length=8)
    note = models.TextField(blank=True)
    tags = ArrayField(models.CharField(max_length=MAX_TAG_CHARS), default=list, blank=True)
    context = models.TextField(blank=True)  # the excerpt of the answer reacted to (≤ 4 KB)
    source = models.CharField(max_length=MAX_SOURCE_CHARS, blank=True)
    session = models.CharField(max_length=MAX_ID_CHARS, blank=True)
    created_at = models.DateTimeField()  # when the user reacted
    received_at = models.DateTimeField(auto_now_add=True)
    key = models.ForeignKey(ApiKey, null=True, blank=True, on_delete=models.SET_NULL)
    status = models.CharField(max_length=12, default=SignalStatus.PENDING)
    interpreter = models.CharField(max_length=16, blank=True)  # rules, llm, rules-fallback
    reading_note = models.TextField(blank=True)  # why the LLM's reading was not used
    version = models.PositiveIntegerField(null=True, blank=True)  # the version it went into

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            # A signal sent twice (an inbox file whose deletion failed) is stored once.
            models.UniqueConstraint(fields=["profile", "sid"], name="signal_profile_sid_uniq"),
            models.CheckConstraint(
                condition=Q(type__in=list(SIGNAL_TYPES)), name="signal_type_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=SignalStatus.values), name="signal_status_valid"
            ),
        ]
        indexes = [
            # What processing and the sweep look for; applied signals are the bulk.
            models.Index(
                fields=["profile", "created_at"],
                condition=~Q(status=SignalStatus.APPLIED),
                name="signal_open_idx",
            ),
            models.Index(fields=["profile", "-created_at"], name="signal_profile_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.sid}"


class Interpretation(models.Model):
    """One style preference read from a signal (profiles.core.interpretation.Interpretation)."""

    signal = models.ForeignKey(Signal, on_delete=models.CASCADE, related_name="interpretations")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()  # most confident first
    dimension = models.CharField(max_length=32)
    aspect = models.CharField(max_length=50, blank=True)
    direction = models.CharField(max_length=3)
    preference = models.CharField(max_length=200)
    confidence = models.FloatField()
    reasoning = models.CharField(max_length=300, blank=True)
    delta = models.FloatField(null=True, blank=True)
    target = models.FloatField(null=True, blank=True)
    adjustment = models.BooleanField(default=False)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["signal", "position"], name="interpretation_signal_position_uniq"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dimension} {self.direction}"


class FactStatus(models.TextChoices):
    PROPOSED = "proposed"  # read from a signal, waiting for the next synthesis
    CURRENT = "current"  # what the profile states about the user
    SUPERSEDED = "superseded"  # replaced by a newer value
    RETRACTED = "retracted"  # the user withdrew it ("I no longer work at X")


class UserFact(models.Model):
    """A fact the user stated about themselves: a tier apart from the style rules, with its
    own lifecycle (proposed → current → superseded / retracted) and privacy."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="facts")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    signal = models.ForeignKey(Signal, null=True, blank=True, on_delete=models.SET_NULL)
    key = models.CharField(max_length=32)
    value = models.CharField(max_length=200, blank=True)  # empty: a retraction
    private = models.BooleanField(default=True)
    status = models.CharField(max_length=12, default=FactStatus.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    changed_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["profile", "key"],
                condition=Q(status=FactStatus.CURRENT),
                name="userfact_one_current_per_key",
            ),
            models.CheckConstraint(
                condition=Q(status__in=FactStatus.values), name="userfact_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key}={self.value} ({self.status})"


class ActiveProfile(models.Model):
    """The profile an API key pulls. Without a row the key gets the tenant's most recently
    updated profile. Its scope is the profile's: a key that may read the profile may choose
    it (choosing changes nothing of the tenant's data; RLS allows it on read access)."""

    key = models.OneToOneField(ApiKey, on_delete=models.CASCADE, related_name="active_profile")
    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="+")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScopedQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.key_id} → {self.profile_id}"


class Publication(models.Model):
    """A published profile: the canonical JSON of its public payload under its hash. Anyone
    may read a publication (it holds no signals, excerpts, history or private facts); the
    same content published by two tenants has the same hash and the same bytes."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="publications")
    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="+")
    hash = models.CharField(max_length=12)
    body = models.TextField()  # the bytes that were hashed (UTF-8)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScopedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["profile", "hash"], name="publication_profile_hash_uniq"
            ),
            models.CheckConstraint(
                condition=Q(hash__regex=r"^[0-9a-f]{12}$"), name="publication_hash_valid"
            ),
        ]
        indexes = [models.Index(fields=["hash"], name="publication_hash_idx")]

    def __str__(self) -> str:
        return self.hash
