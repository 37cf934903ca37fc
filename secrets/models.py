"""Sealed secrets: one AES-256-GCM ciphertext per (scope, name), and an audit trail."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact

from ctx.models import Scope, ScopedQuerySet

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,100}$"
NONCE_BYTES = 12


class SecretQuerySet(ScopedQuerySet):
    def not_under(self, key_version: str) -> SecretQuerySet:
        """Rows a rotation sweep still has to re-seal."""
        return self.exclude(key_version=key_version)


class Secret(models.Model):
    """Only ciphertext is stored; the value exists in clear only inside a seal or an open."""

    scope = models.ForeignKey(Scope, on_delete=models.CASCADE, related_name="secrets")
    name = models.CharField(max_length=100)
    ciphertext = models.BinaryField()
    nonce = models.BinaryField(max_length=NONCE_BYTES)
    key_version = models.CharField(max_length=16)  # fingerprint of the sealing key
    created_by = models.CharField(max_length=32)  # an ApiKey prefix, or "cli"
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_by = models.CharField(max_length=32, blank=True)
    rotated_at = models.DateTimeField(null=True, blank=True)

    objects = SecretQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "name"], name="secret_scope_name_uniq"),
            models.CheckConstraint(condition=Q(name__regex=NAME_PATTERN), name="secret_name_valid"),
            models.CheckConstraint(
                condition=Exact(Length("nonce"), NONCE_BYTES), name="secret_nonce_12_bytes"
            ),
            models.CheckConstraint(condition=~Q(key_version=""), name="secret_key_version_set"),
        ]

    def __str__(self) -> str:
        return self.name


class AuditAction(models.TextChoices):
    CREATED = "created"
    ROTATED = "rotated"
    DELETED = "deleted"
    RESEALED = "resealed"  # re-sealed under the new master key by a rotation sweep
    REVEALED = "revealed"  # break-glass printed the plaintext
    EXPORTED = "exported"  # break-glass printed the sealed row
    RESET_SETTINGS = "reset-settings"


class SecretAudit(models.Model):
    """Who touched which secret, when and from where. Never holds a value or a ciphertext."""

    Action = AuditAction

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=16, choices=AuditAction.choices)
    name = models.CharField(max_length=100, blank=True)
    scope = models.CharField(max_length=200, blank=True)  # "tenant/scope": outlives the row
    actor = models.CharField(max_length=100)
    host = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=AuditAction.values),
                name="secretaudit_action_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.scope}/{self.name}"
