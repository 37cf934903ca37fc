"""Gravity: literal goldens for the cyclic Gaussian and the linear power law.

Clock: Wednesday 2025-03-12 14:00 Berlin. Every expected number is worked out in a comment.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from retrieval.temporal import DIMENSIONS, DateRange, TemporalIntent, apply_gravity, parse
from retrieval.temporal.gravity import cyclic_match, linear_match, phase_distance

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2025, 3, 12, 14, 0, tzinfo=BERLIN)
TODAY = NOW.date()


def intent(
    weights: dict[str, float],
    targets: dict[str, float] | None = None,
    ranges: tuple[DateRange, ...] = (),
) -> TemporalIntent:
    return TemporalIntent(
        ranges=ranges,
        weights=dict.fromkeys(DIMENSIONS, 0.0) | weights,
        targets=targets or {},
        matchers=("test",),
        spans=((0, 1),),
    )


def at(day: str, hour: int = 10) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=BERLIN)


EVERY_TUESDAY = intent({"weekday": 1.0}, {"weekday": 1.0})
YESTERDAY = intent({"linear": 1.0}, ranges=(DateRange.day(date(2025, 3, 11)),))
LAST_MONTH = intent({"linear": 1.0}, ranges=(DateRange(date(2025, 2, 1), date(2025, 2, 28)),))


def test_it_measures_phase_distance_around_the_cycle() -> None:
    assert phase_distance(1, 2, 7) == pytest.approx(1 / 7)
    assert phase_distance(0, 6, 7) == pytest.approx(1 / 7)  # Monday and Sunday are neighbours
    assert phase_distance(1, 12, 12) == pytest.approx(1 / 12)  # so are January and December


def test_it_scores_a_weekday_one_day_off_by_the_gaussian() -> None:
    # d = 1/7 = 0.142857; z = d / 0.07 = 2.040816; z^2 = 4.164931; g = exp(-4.164931 / 2)
    #   = exp(-2.082466) = 0.124623
    assert cyclic_match("weekday", 1.0, 2.0, 7.0) == pytest.approx(0.124623, abs=1e-6)


def test_it_scores_the_month_daily_and_seasonal_cycles() -> None:
    # month: d = 2/12 = 0.166667; z = 1.666667; g = exp(-2.777778 / 2) = 0.249352
    assert cyclic_match("month", 3.0, 5.0, 12.0) == pytest.approx(0.249352, abs=1e-6)
    # daily: 08:00 vs 10:00, d = 2/24 = 0.083333; z = 1.041667; g = exp(-1.085069 / 2) = 0.581273
    assert cyclic_match("daily", 8.0, 10.0, 24.0) == pytest.approx(0.581273, abs=1e-6)
    # seasonal: day 360 vs day 2 wraps: 365.25 - 358 = 7.25 days, d = 0.019849; z = 0.248118;
    #   g = exp(-0.061562 / 2) = 0.969688
    assert cyclic_match("seasonal", 360.0, 2.0, 365.25) == pytest.approx(0.969688, abs=1e-6)


def test_it_lifts_a_block_by_one_plus_the_weighted_cyclic_match() -> None:
    # A Wednesday block for "every Tuesday": 1 + 1.0 * 0.124623 = 1.124623; 0.5 * that = 0.562311
    score, explain = apply_gravity(0.5, EVERY_TUESDAY, [at("2025-03-05")], NOW)

    assert explain["cyclic"] == pytest.approx(1.124623, abs=1e-6)
    assert explain["linear"] == 1.0
    assert score == pytest.approx(0.562311, abs=1e-6)


def test_it_takes_the_best_of_all_block_dates() -> None:
    # The second date is a Tuesday: g = 1, factor 1 + 1.0 = 2.0, right at the cap.
    score, explain = apply_gravity(0.5, EVERY_TUESDAY, [at("2025-03-05"), at("2025-03-04")], NOW)

    assert explain["best_dims"] == {"weekday": 1.0}
    assert score == pytest.approx(1.0)


def test_it_decays_past_dates_with_forward_telescoping() -> None:
    # Block 2025-03-09, range 03-11: d = 2, age = 3.
    # p = 1.5 / (1 + 0.3 * ln(1 + 3/30)) = 1.5 / (1 + 0.3 * 0.095310) = 1.5 / 1.028593 = 1.458303
    # f = 3 ** -1.458303 = exp(-1.458303 * 1.098612) = exp(-1.602109) = 0.201471
    assert linear_match(YESTERDAY.ranges[0], date(2025, 3, 9), TODAY) == pytest.approx(
        0.201471, abs=1e-6
    )
    _, explain = apply_gravity(1.0, YESTERDAY, [at("2025-03-09")], NOW)
    assert explain["linear"] == pytest.approx(1.201471, abs=1e-6)


def test_it_decays_future_dates_more_sharply() -> None:
    # Block 2025-03-13 (ahead of today), range 03-11: d = 2, p = 1.2 * 1.5 = 1.8.
    # f = 3 ** -1.8 = exp(-1.8 * 1.098612) = exp(-1.977502) = 0.138415
    assert linear_match(YESTERDAY.ranges[0], date(2025, 3, 13), TODAY) == pytest.approx(
        0.138415, abs=1e-6
    )


def test_it_gives_full_linear_boost_inside_the_range() -> None:
    _, explain = apply_gravity(1.0, LAST_MONTH, [at("2025-02-15")], NOW)

    assert explain["linear"] == 2.0


def test_it_cuts_a_single_day_off_after_14_days_and_a_range_after_60() -> None:
    # 2025-02-24 is 15 days before 03-11: past the 14-day cutoff of a single day.
    assert linear_match(YESTERDAY.ranges[0], date(2025, 2, 24), TODAY) == 0.0
    assert linear_match(YESTERDAY.ranges[0], date(2025, 2, 25), TODAY) > 0.0
    # 2025-01-01 is 31 days before 02-01, within the 60 days of a range; age = 70.
    # p = 1.5 / (1 + 0.3 * ln(1 + 70/30)) = 1.5 / (1 + 0.3 * 1.203973) = 1.5 / 1.361192 = 1.101975
    # f = 32 ** -1.101975 = exp(-1.101975 * 3.465736) = exp(-3.819156) = 0.021946
    assert linear_match(LAST_MONTH.ranges[0], date(2025, 1, 1), TODAY) == pytest.approx(
        0.021946, abs=1e-6
    )
    assert linear_match(LAST_MONTH.ranges[0], date(2024, 12, 2), TODAY) == 0.0  # 61 days


def test_it_multiplies_both_factors_within_the_cap() -> None:
    # "letzte Weihnachten": linear 0.8, seasonal 0.5 around day 360. A block on 2024-12-25 is
    # inside the range (1 + 0.8 = 1.8) and on the target day (1 + 0.5 = 1.5): 2.7, capped.
    christmas = parse("letzte Weihnachten", NOW)
    block = [at("2024-12-25")]

    capped, explain = apply_gravity(1.0, christmas, block, NOW)
    wide, _ = apply_gravity(1.0, christmas, block, NOW, cap=3.0)

    assert (explain["linear"], explain["cyclic"]) == pytest.approx((1.8, 1.5))
    assert capped == 2.0
    assert wide == pytest.approx(2.7)


def test_it_leaves_blocks_without_dates_or_queries_without_intent_alone() -> None:
    assert apply_gravity(0.7, YESTERDAY, [], NOW)[0] == 0.7
    assert apply_gravity(0.7, parse("how do I rotate keys", NOW), [at("2025-03-11")], NOW)[0] == 0.7


def test_it_never_pushes_a_score_down() -> None:
    far = [at("2020-06-01")]

    assert apply_gravity(0.7, YESTERDAY, far, NOW)[0] == 0.7
    assert apply_gravity(-0.5, EVERY_TUESDAY, [at("2025-03-04")], NOW)[0] == pytest.approx(-0.25)


def test_it_ignores_the_hour_of_a_date_without_a_time() -> None:
    nights = intent({"daily": 1.0}, {"daily": 1.0})

    midnight = apply_gravity(1.0, nights, [at("2025-03-04", hour=0)], NOW)[1]
    one_am = apply_gravity(1.0, nights, [at("2025-03-04", hour=1)], NOW)[1]

    assert midnight["best_dims"] == {"daily": 0.0}
    assert one_am["best_dims"] == {"daily": 1.0}


def test_it_reads_block_dates_in_the_time_zone_of_now() -> None:
    # 23:30 UTC on Monday 03-10 is 00:30 on Tuesday 03-11 in Berlin.
    utc_monday_night = datetime(2025, 3, 10, 23, 30, tzinfo=ZoneInfo("UTC"))

    assert apply_gravity(1.0, EVERY_TUESDAY, [utc_monday_night], NOW)[0] == 2.0
