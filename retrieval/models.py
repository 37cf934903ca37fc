"""Retrieval's own rows: the log of every LLM call (what ran, how long, what it cost)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone


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
