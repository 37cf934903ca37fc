from __future__ import annotations

from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"
    label = "profiles"
    verbose_name = "Preference profiles"
