"""Overrides of live knobs (server-wide or per tenant) and their audit trail.

Registered in the `ctx` app (its migrations live with the core schema); `ctx.models` imports
this module so Django sees the models.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class SettingOverride(models.Model):
    """One knob's value set in the database; tenant NULL = server-wide."""

    key = models.CharField(max_length=64)
    tenant = models.ForeignKey(
        "ctx.Tenant",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="setting_overrides",
    )
    # The parsed value as JSON; for a secret knob only the reference {"secret": "t/s/name"}.
    value = models.JSONField(null=True, blank=True)
    # A secret knob names a sealed secret; RESTRICT keeps the database from losing the target
    # even if a caller skips the API's 409 (which the finder in secrets.selectors gives).
    secret = models.ForeignKey(
        "secrets.Secret",
        null=True,
        blank=True,
        on_delete=models.RESTRICT,
        related_name="setting_overrides",
    )
    updated_by = models.CharField(max_length=100)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "ctx"
        constraints = [
            # NULLS NOT DISTINCT: one server-wide row per key, not one per NULL.
            models.UniqueConstraint(
                fields=["key", "tenant"],
                name="settingoverride_key_tenant_uniq",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.tenant_id or 'server'})"


class SettingAction(models.TextChoices):
    SET = "set"
    UNSET = "unset"
    RESET = "reset"  # break-glass reset-settings


class SettingAudit(models.Model):
    """Who changed which knob, when, from what to what. Secret knobs log only references.

    Its growing primary key is also the registry's version: every change writes a row, so a
    process reloads its cached overrides when the highest id moved."""

    Action = SettingAction

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    key = models.CharField(max_length=64)
    tenant = models.CharField(max_length=64, blank=True)  # the tenant's name: outlives the row
    action = models.CharField(max_length=8, choices=SettingAction.choices)
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    actor = models.CharField(max_length=100)

    class Meta:
        app_label = "ctx"
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=SettingAction.values), name="settingaudit_action_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.key} {self.tenant or 'server'}"
