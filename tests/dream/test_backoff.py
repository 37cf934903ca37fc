"""Back-off goldens: literal levels in, literal cooldowns out (dream.backoff)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dream.backoff import Policy, cooldown, next_level, retry_delay

DEFAULT = Policy()  # exp, MIN 12 h, FACTOR 1.6, GRACE 0, CAP 45 d, INERT_OFFSET 7


def hours(level: int, policy: Policy = DEFAULT) -> float:
    return round(cooldown(level, policy) / timedelta(hours=1), 4)


@pytest.mark.parametrize(
    ("level", "expected"),
    [(0, 12.0), (1, 19.2), (2, 30.72), (3, 49.152), (7, 322.1225), (9, 824.6337), (10, 1080.0)],
)
def test_it_grows_exponentially_up_to_the_cap(level: int, expected: float) -> None:
    assert hours(level) == expected


@pytest.mark.parametrize(("level", "expected"), [(0, 12.0), (1, 25.3084), (7, 51.9253)])
def test_it_grows_logarithmically(level: int, expected: float) -> None:
    assert hours(level, Policy(curve="log")) == expected


@pytest.mark.parametrize(("level", "expected"), [(0, 12.0), (1, 31.2), (7, 146.4), (100, 1080.0)])
def test_it_grows_linearly(level: int, expected: float) -> None:
    assert hours(level, Policy(curve="linear")) == expected


def test_it_stays_at_the_minimum_when_off() -> None:
    assert {hours(level, Policy(curve="off")) for level in (0, 1, 7, 500)} == {12.0}


def test_it_waits_out_the_grace_before_growing() -> None:
    graced = Policy(grace=2)
    assert [hours(level, graced) for level in range(5)] == [12.0, 12.0, 12.0, 19.2, 30.72]


def test_it_never_waits_less_than_the_minimum_even_with_a_smaller_cap() -> None:
    assert hours(5, Policy(cap_days=0.1)) == 12.0


def test_it_resets_on_change_and_jumps_when_inert() -> None:
    assert next_level(9, "changed", DEFAULT) == 0
    assert next_level(3, "unchanged", DEFAULT) == 4
    assert next_level(3, "inert", DEFAULT) == 10
    assert hours(next_level(0, "inert", DEFAULT)) == 322.1225  # straight to about 13 days


def test_it_retries_transient_failures_after_five_minutes() -> None:
    assert retry_delay(DEFAULT) == timedelta(minutes=5)


def test_it_reads_the_policy_from_settings() -> None:
    cfg = {
        "CTX_DREAM_BACKOFF": "log",
        "CTX_DREAM_BACKOFF_MIN_HOURS": 1.0,
        "CTX_DREAM_BACKOFF_FACTOR": 2.0,
        "CTX_DREAM_BACKOFF_GRACE": 1,
        "CTX_DREAM_BACKOFF_CAP_DAYS": 3.0,
        "CTX_DREAM_INERT_OFFSET": 4,
        "CTX_DREAM_RETRY_MINUTES": 2.0,
    }
    assert Policy.from_settings(cfg) == Policy("log", 1.0, 2.0, 1, 3.0, 4, 2.0)
