"""API key format and hashing: `ctx_<prefix>_<secret>`, stored as prefix + HMAC(secret)."""

from __future__ import annotations

import hashlib
import hmac
import string

from django.conf import settings

import secrets

PREFIX_LEN = 8
SECRET_LEN = 40
_ALPHABET = string.ascii_letters + string.digits


def _random(n: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(n))


def secret_hmac(secret: str) -> str:
    # Peppered with the server secret: a leaked table alone cannot be brute-forced offline.
    return hmac.new(settings.SECRET_KEY.encode(), secret.encode(), hashlib.sha256).hexdigest()


def generate() -> tuple[str, str, str]:
    """Return (full key to show once, lookup prefix, HMAC to store)."""
    prefix = _random(PREFIX_LEN).lower()
    secret = _random(SECRET_LEN)
    return f"ctx_{prefix}_{secret}", prefix, secret_hmac(secret)


def split(raw: str) -> tuple[str, str] | None:
    """(prefix, secret) of a well-formed key, else None."""
    parts = raw.strip().split("_")
    if len(parts) != 3 or parts[0] != "ctx":
        return None
    prefix, secret = parts[1], parts[2]
    if len(prefix) != PREFIX_LEN or len(secret) != SECRET_LEN:
        return None
    return prefix, secret


def matches(secret: str, stored_hmac: str) -> bool:
    return hmac.compare_digest(secret_hmac(secret), stored_hmac)
