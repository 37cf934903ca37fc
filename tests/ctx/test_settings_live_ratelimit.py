"""A live knob read by another feature: a rate-limit override through the settings API
applies to the very next request, without a restart."""

from __future__ import annotations

from tests.api.settings_support import put, server_admin
from tests.conftest import Cast
from tests.tenancy.test_ratelimit import Clock, _search, clock, limits  # noqa: F401 - fixtures


def test_switching_rate_limits_off_through_the_api_applies_at_once(
    cast: Cast,
    limits: None,  # noqa: F811 - burst 3, then one a second
    clock: Clock,  # noqa: F811
) -> None:
    assert [_search(cast.reader).status_code for _ in range(4)] == [200, 200, 200, 429]
    status, body = put(server_admin(), "CTX_RATE_BURST", 0)
    assert status == 200, body
    assert [_search(cast.reader).status_code for _ in range(5)] == [200] * 5


def test_raising_the_burst_through_the_api_applies_at_once(
    cast: Cast,
    limits: None,  # noqa: F811
    clock: Clock,  # noqa: F811
) -> None:
    put(server_admin(), "CTX_RATE_BURST", 6)
    assert [_search(cast.reader).status_code for _ in range(7)] == [200] * 6 + [429]
