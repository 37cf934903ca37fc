from __future__ import annotations

from django.apps import AppConfig


class RefindexConfig(AppConfig):
    name = "refindex"
    label = "refindex"
    verbose_name = "Indexed references"
