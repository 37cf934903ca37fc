"""Per-key rate limits: a token bucket per (key, reads|writes) in Redis (docs/api.md).

One Lua script refills and takes atomically, so web workers on any number of processes or
machines cannot overspend a bucket between a read and a write. A write's cost is the number of
blocks it writes; a bucket with fewer tokens than the cost (but at least a full bucket's worth
for a cost above the burst) lets the request through and goes into debt, so a 500-block batch
is counted as 500 and the key then waits for the debt to refill.

Fails open: with Redis unreachable every request passes and a warning is logged (at most once
a minute): an outage of the limiter must not become an outage of the server.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import redis
from django.conf import settings

from ctx import knobs
from ctx.errors import CtxError, ErrorCode
from ctx.principal import Principal

log = logging.getLogger("ctx.ratelimit")

READ, WRITE = "read", "write"
RATE_MESSAGE = "Too many requests for this key; retry after the number of seconds in Retry-After."

# KEYS[1] the bucket; ARGV capacity, tokens per second, cost, now (seconds, float).
# An idle bucket expires a minute after it would be full again (a missing bucket is full).
# Returns {allowed 0|1, tokens left, seconds until the cost is affordable} (strings: Redis
# truncates Lua numbers to integers).
BUCKET_LUA = """
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = cap
  ts = now
end
if now > ts then
  tokens = math.min(cap, tokens + (now - ts) * rate)
  ts = now
end
local need = math.min(cost, cap)
local allowed = 0
local wait = 0
if tokens >= need then
  tokens = tokens - cost
  allowed = 1
else
  wait = (need - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], math.ceil((cap - math.min(tokens, 0)) / rate * 1000) + 60000)
return {allowed, tostring(tokens), tostring(wait)}
"""


@dataclass(frozen=True)
class Limit:
    per_minute: int
    burst: int

    @property
    def on(self) -> bool:
        return self.per_minute > 0 and self.burst > 0


def enabled() -> bool:
    return int(knobs.value("CTX_RATE_BURST")) > 0 and bool(settings.REDIS_URL)


def limit_for(kind: str) -> Limit:
    # Read on every request: these knobs are live (settings registry, docs/settings.md).
    per_minute = knobs.value("CTX_RATE_WRITE_PER_MIN" if kind == WRITE else "CTX_RATE_READ_PER_MIN")
    return Limit(int(per_minute), int(knobs.value("CTX_RATE_BURST")))


class RateLimited(CtxError):
    code = ErrorCode.RATE_LIMITED

    def __init__(self, retry_after: int, limit: Limit, kind: str) -> None:
        super().__init__(RATE_MESSAGE, details={"retry_after": retry_after, "bucket": kind})
        self.headers = {
            "X-RateLimit-Limit": str(limit.per_minute),
            "X-RateLimit-Remaining": "0",
        }


def now() -> float:
    """The limiter's clock (tests replace it)."""
    return time.time()


def redis_client(url: str) -> redis.Redis:
    """A client with short timeouts: a Redis that does not answer in half a second is down.
    Celery's `redis+socket://` (the embedded server) is redis-py's `unix://`."""
    if url.startswith("redis+socket://"):
        url = "unix://" + url.removeprefix("redis+socket://")
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis:
    return redis_client(url)


@lru_cache(maxsize=4)
def _script(url: str) -> Any:
    return _client(url).register_script(BUCKET_LUA)  # EVALSHA, loading the script when missing


def _bucket(kind: str, principal: Principal) -> str:
    return f"ctx:rl:{kind}:{principal.key.pk}"


def headroom(principal: Principal) -> dict[str, dict[str, int]] | None:
    """What the key may still spend right now, per bucket, without spending anything (the
    bucket refilled to this moment, as `take` would see it); None when limits are off or
    Redis cannot say."""
    if not enabled():
        return None
    out: dict[str, dict[str, int]] = {}
    try:
        for kind in (READ, WRITE):
            limit = limit_for(kind)
            if not limit.on:
                continue
            tokens, ts = _client(settings.REDIS_URL).hmget(_bucket(kind, principal), "tokens", "ts")
            left = float(limit.burst)
            if tokens is not None and ts is not None:
                refill = max(0.0, now() - float(ts)) * limit.per_minute / 60.0
                left = min(left, float(tokens) + refill)
            out[kind] = {
                "remaining": max(0, math.floor(left)),
                "burst": limit.burst,
                "per_minute": limit.per_minute,
            }
    except redis.RedisError:
        return None
    return out


_last_warning = 0.0


def _warn_open() -> None:
    global _last_warning
    if time.monotonic() - _last_warning >= 60:
        _last_warning = time.monotonic()
        log.warning("rate limits not enforced: redis unreachable (failing open)", exc_info=True)


def take(principal: Principal, kind: str, cost: int = 1) -> None:
    """Spend `cost` tokens of the key's `kind` bucket; raise RateLimited when it is empty."""
    limit = limit_for(kind)
    if not limit.on or not settings.REDIS_URL:
        return
    rate = limit.per_minute / 60.0
    bucket = _bucket(kind, principal)
    try:
        allowed, _left, wait = _script(settings.REDIS_URL)(
            keys=[bucket], args=[limit.burst, rate, max(1, cost), now()]
        )
    except redis.RedisError:
        _warn_open()
        return
    if not int(allowed):
        raise RateLimited(max(1, math.ceil(float(wait))), limit, kind)
