from __future__ import annotations

from django.apps import AppConfig


class SecretsConfig(AppConfig):
    name = "secrets"
    label = "secrets"
    verbose_name = "Sealed secrets"
