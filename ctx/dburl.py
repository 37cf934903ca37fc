"""DATABASE_URL → Django's DATABASES entry (postgresql:// over TCP or a unix socket)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


def parse_database_url(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql", "postgresql+psycopg"}:
        raise ValueError("DATABASE_URL must be a postgresql:// URL")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    host = query.pop("host", None) or unquote(parts.hostname or "")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "postgres",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "OPTIONS": query,
    }
