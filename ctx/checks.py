"""Cross-setting rules as Django system checks with stable ids (conventions §12)."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from ctx import knobs


@register()
def check_secret_key(app_configs: Any, **kwargs: Any) -> list[Error]:
    """ctx.E001: production (DEBUG off, a real DATABASE_URL) needs an explicit secret key."""

    embedded = not os.environ.get("CTX_EXTERNAL_SERVICES")
    if knobs.configured("CTX_SECRET_KEY") or settings.DEBUG or embedded:
        return []
    return [
        Error(
            "CTX_SECRET_KEY is not set.",
            hint="Set CTX_SECRET_KEY to a long random value; it also peppers API-key hashes.",
            id="ctx.E001",
        )
    ]
