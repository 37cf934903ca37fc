from __future__ import annotations

from django.apps import AppConfig


class DreamConfig(AppConfig):
    name = "dream"
    label = "dream"
