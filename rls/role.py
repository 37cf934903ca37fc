"""The runtime role: web processes and workers log in as it; migrations run as the owner."""

from __future__ import annotations

from urllib.parse import quote, urlsplit, urlunsplit

ROLE = "ctx_app"


def runtime_database_url(owner_url: str, role: str = ROLE) -> str:
    """The same database as `owner_url`, logged in as `role` without a password: for the
    embedded server, whose unix socket trusts local roles (pgserver runs initdb with trust)."""
    parts = urlsplit(owner_url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(role)}@{host}"))
