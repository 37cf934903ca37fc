"""Rules for dynamic client registration (RFC 7591): mode, rate limit, client cap, redirects.

Registration only creates a client record; a token still needs a person with a ctx API key on
the consent page. The limits keep anonymous registration from filling the database.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from functools import lru_cache
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.db.models import Exists, OuterRef
from django.http import HttpRequest
from django.utils import timezone
from oauth2_provider.models import get_application_model, get_refresh_token_model

from ctx import knobs, selectors
from ctx.permissions import is_server_admin
from ctx.principal import Principal

log = logging.getLogger("ctx.oauth")

RATE_LIMIT = 20  # registrations per client IP and window; Claude re-registers, not this often
RATE_WINDOW = 3600  # seconds
STALE_AFTER = timedelta(days=1)  # an unused client older than this may be pruned at the cap

# Claude's connector callbacks (claude.ai today, claude.com announced); exact matches only.
CLAUDE_CALLBACKS = frozenset(
    {"https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"}
)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})  # RFC 8252 §7.3, any port


def mode() -> str:
    return str(knobs.value("CTX_OAUTH_DCR_MODE"))


def admin_principal(request: HttpRequest) -> Principal | None:
    """The principal of an admin API key sent as Bearer, else None."""
    scheme, _, raw = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        return None
    principal = selectors.principal_for_key(raw.strip())
    return principal if principal is not None and is_server_admin(principal) else None


def client_ip(request: HttpRequest) -> str:
    if knobs.value("CTX_TRUST_PROXY"):
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if hops:
            return hops[-1]  # the address our one trusted proxy saw; earlier hops are claims
    return str(request.META.get("REMOTE_ADDR", ""))


@lru_cache(maxsize=1)
def _redis(url: str) -> redis.Redis:
    # Celery's `redis+socket://` (the embedded server) is redis-py's `unix://`.
    if url.startswith("redis+socket://"):
        url = "unix://" + url.removeprefix("redis+socket://")
    return redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)


def rate_limited(ip: str) -> bool:
    """Count this registration; True once the IP exceeded RATE_LIMIT in the current window."""
    if not settings.REDIS_URL:
        return False
    key = f"ctx:oauth:dcr:{ip}:{int(time.time()) // RATE_WINDOW}"
    try:
        pipe = _redis(settings.REDIS_URL).pipeline()
        pipe.incr(key)
        pipe.expire(key, RATE_WINDOW)
        count, _ = pipe.execute()
    except redis.RedisError:
        # Fail open: a Redis outage must not stop sign-ins, and the client cap still holds.
        log.warning("dcr rate limit unavailable (redis error)", exc_info=True)
        return False
    return int(count) > RATE_LIMIT


def prune_unused_clients() -> int:
    """Delete registered clients older than STALE_AFTER that never got a token; return count."""
    Application = get_application_model()
    used = get_refresh_token_model().objects.filter(application=OuterRef("pk"))
    stale = Application.objects.filter(
        registration_source=Application.RegistrationSource.DCR,
        created__lt=timezone.now() - STALE_AFTER,
    ).exclude(Exists(used))
    ids = list(stale.values_list("pk", flat=True)[:1000])  # bounded work per registration
    Application.objects.filter(pk__in=ids).delete()
    return len(ids)


def _registered_count() -> int:
    Application = get_application_model()
    return Application.objects.filter(
        registration_source=Application.RegistrationSource.DCR
    ).count()


def at_capacity() -> bool:
    limit = int(knobs.value("CTX_OAUTH_MAX_CLIENTS"))
    if _registered_count() < limit:
        return False
    pruned = prune_unused_clients()
    if pruned:
        log.info("dcr: pruned %d unused clients at the cap", pruned)
    return _registered_count() >= limit


def redirect_allowed(uri: str, *, admin: bool) -> bool:
    """Claude's callbacks or a loopback http URI; an admin may also register any https URI."""
    if uri in CLAUDE_CALLBACKS:
        return True
    parts = urlsplit(uri)
    if parts.fragment or parts.username or parts.password:
        return False
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        return True
    return admin and parts.scheme == "https" and bool(parts.hostname)
