from __future__ import annotations

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    label = "retrieval"
