"""Per-key token buckets in Redis: 429 with Retry-After, per key, per kind, refill, fail open."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings

from ctx import ratelimit
from ctx.selectors import principal_for_key
from tests.conftest import Cast


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: Any) -> Clock:
    clock = Clock()
    monkeypatch.setattr(ratelimit, "now", clock)
    return clock


@pytest.fixture
def limits(settings: Any) -> None:
    """3 requests at once, then one a second (60 a minute), for reads and for writes."""
    settings.CTX = {
        **settings.CTX,
        "CTX_RATE_BURST": 3,
        "CTX_RATE_READ_PER_MIN": 60,
        "CTX_RATE_WRITE_PER_MIN": 60,
        "CTX_GUARD_HINTS": False,  # no embedding model in these requests
    }
    client = ratelimit._script(django_settings.REDIS_URL).registered_client
    for key in client.scan_iter("ctx:rl:*"):
        client.delete(key)


def _search(api: Any) -> Any:
    return api.client.post(
        "/api/search",
        data=json.dumps({"query": "x"}),
        content_type="application/json",
        headers=api._headers(),
    )


def test_it_answers_429_with_retry_after_once_the_burst_is_spent(
    cast: Cast, limits: None, clock: Clock
) -> None:
    assert [_search(cast.reader).status_code for _ in range(3)] == [200, 200, 200]
    resp = _search(cast.reader)
    assert resp.status_code == 429
    body = json.loads(resp.content)
    assert body["error"]["code"] == "rate_limited"
    assert body["error"]["details"] == {"retry_after": 1, "bucket": "read"}
    assert resp["Retry-After"] == "1"
    assert resp["X-RateLimit-Limit"] == "60" and resp["X-RateLimit-Remaining"] == "0"


def test_it_leaves_other_keys_alone(cast: Cast, limits: None, clock: Clock) -> None:
    for _ in range(4):
        _search(cast.reader)
    assert _search(cast.reader).status_code == 429
    assert _search(cast.writer).status_code == 200


def test_it_lets_the_key_in_again_after_the_refill(cast: Cast, limits: None, clock: Clock) -> None:
    for _ in range(3):
        _search(cast.reader)
    assert _search(cast.reader).status_code == 429
    clock.t += 0.5
    assert _search(cast.reader)["Retry-After"] == "1"  # 0.5 s left, rounded up, never 0
    clock.t += 1.0
    assert _search(cast.reader).status_code == 200


def test_it_counts_reads_and_writes_in_separate_buckets(
    cast: Cast, limits: None, clock: Clock
) -> None:
    for _ in range(3):
        _search(cast.writer)
    assert _search(cast.writer).status_code == 429
    status, _ = cast.writer.post("/api/store", {"category": "c", "title": "t", "content": "x"})
    assert status == 201
    get = {"action": "stats"}  # a read through /api/manage
    assert cast.writer.post("/api/manage", get)[0] == 429


def test_it_charges_a_batch_one_token_per_block(cast: Cast, limits: None, clock: Clock) -> None:
    blocks = [{"category": "c", "title": f"t{i}", "content": "x"} for i in range(10)]
    status, data = cast.writer.post("/api/store/batch", {"blocks": blocks})
    assert status == 200, data  # a full bucket lets a larger batch through, into debt
    status, data = cast.writer.post("/api/store", {"category": "c", "title": "u", "content": "x"})
    assert status == 429
    assert data["error"]["details"]["retry_after"] == 8  # 7 blocks of debt + 1 for this one
    clock.t += 8
    assert cast.writer.post("/api/store", {"category": "c", "title": "u", "content": "x"})[0] == 201


def test_it_is_off_with_a_zero_burst(cast: Cast, limits: None, clock: Clock, settings: Any) -> None:
    settings.CTX = {**settings.CTX, "CTX_RATE_BURST": 0}
    assert all(_search(cast.reader).status_code == 200 for _ in range(6))


def test_it_fails_open_when_redis_is_down(
    cast: Cast, limits: None, settings: Any, caplog: Any
) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    ratelimit._last_warning = 0.0
    with caplog.at_level("WARNING", logger="ctx.ratelimit"):
        assert all(_search(cast.reader).status_code == 200 for _ in range(5))
    warnings = [r for r in caplog.records if "failing open" in r.getMessage()]
    assert len(warnings) == 1  # once, not per request


def test_concurrent_takers_cannot_overspend(cast: Cast, limits: None, clock: Clock) -> None:
    principal = principal_for_key(cast.reader.key or "")
    assert principal is not None
    granted: list[bool] = []

    def take() -> None:
        try:
            ratelimit.take(principal, ratelimit.READ)
            granted.append(True)
        except ratelimit.RateLimited:
            granted.append(False)

    threads = [threading.Thread(target=take) for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert granted.count(True) == 3  # the burst, exactly, with the clock standing still


def test_the_script_refills_and_takes_atomically_in_redis(limits: None) -> None:
    script = ratelimit._script(django_settings.REDIS_URL)
    assert isinstance(script.registered_client, redis.Redis)
    allowed, left, wait = script(keys=["ctx:rl:test"], args=[2, 1.0, 1, 100.0])
    assert (int(allowed), float(left), float(wait)) == (1, 1.0, 0.0)
    script(keys=["ctx:rl:test"], args=[2, 1.0, 1, 100.0])
    allowed, left, wait = script(keys=["ctx:rl:test"], args=[2, 1.0, 1, 100.25])
    assert (int(allowed), float(left), float(wait)) == (0, 0.25, 0.75)


def test_whoami_shows_the_headroom_left_without_spending_it(
    cast: Cast, limits: None, clock: Clock
) -> None:
    def headroom() -> dict[str, Any]:
        status, body = cast.reader.get("/api/whoami")  # whoami itself spends one read
        assert status == 200, body
        return body["rate_limit"]

    assert headroom()["read"] == {"remaining": 2, "burst": 3, "per_minute": 60}
    assert headroom()["write"] == {"remaining": 3, "burst": 3, "per_minute": 60}
    assert headroom()["read"]["remaining"] == 0  # three spent, nothing refilled yet
    clock.t += 2  # two tokens back
    assert headroom()["read"]["remaining"] == 1
    assert _search(cast.reader).status_code == 200  # the headroom said one was left


def test_whoami_says_nothing_of_rate_limits_when_they_are_off(cast: Cast) -> None:
    assert cast.reader.get("/api/whoami")[1]["rate_limit"] is None
