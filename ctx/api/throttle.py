"""The DRF throttle of every /api/ view: per-key read and write buckets (ctx.ratelimit).

Throttles run after authentication and permissions, so only a valid key spends tokens; an
anonymous or bad-key request gets its 401 without touching Redis.
"""

from __future__ import annotations

import json
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from ctx import ratelimit
from ctx.principal import Principal

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# POST endpoints that only read: search and retrieval take their query as a JSON body.
READ_POSTS = frozenset({"/api/search", "/api/query"})
READ_ACTIONS = frozenset({"get", "stats", "list-categories"})  # of /api/manage
BATCH_PATH = "/api/store/batch"


def _data(request: Request) -> dict[str, Any]:
    # The raw body, not request.data: DRF remembers a parse failure as an empty body, and the
    # view must still report `invalid_json` itself. Django keeps the body for the parser.
    try:
        data = json.loads(request._request.body)
    except Exception:  # unparsable or too large: the view's error to report, not ours
        return {}
    return data if isinstance(data, dict) else {}


def classify(request: Request) -> tuple[str, int]:
    """(bucket, cost): writes cost one token per block they write."""
    path = request.path.rstrip("/")
    if request.method in SAFE_METHODS or path in READ_POSTS:
        return ratelimit.READ, 1
    if path == "/api/manage":
        action = _data(request).get("action")
        return (ratelimit.READ if action in READ_ACTIONS else ratelimit.WRITE), 1
    if path == BATCH_PATH:
        blocks = _data(request).get("blocks")
        return ratelimit.WRITE, len(blocks) if isinstance(blocks, list) and blocks else 1
    return ratelimit.WRITE, 1


class KeyRateThrottle(BaseThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        principal = request.user
        if not isinstance(principal, Principal) or not ratelimit.enabled():
            return True  # off: no body parsed twice, no Redis round trip
        kind, cost = classify(request)
        ratelimit.take(principal, kind, cost)  # raises RateLimited: the one error envelope
        return True
