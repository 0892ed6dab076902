"""Properties of the unknown-aware arithmetic (reslint/values.py) that wait bounds rely on:
unknown is contagious, unbounded stays unbounded, caps are honoured, schedules are monotone."""

from __future__ import annotations

import math

import libcst as cst
from hypothesis import given, strategies as st

from reslint.values import (
    UNKNOWN, add, arithmetic, clamp, is_number, largest, looser_cap, mul, power, scaled_power, tighter_cap, total,
)

seconds = st.floats(min_value=0, max_value=1e6, allow_nan=False)
factors = st.floats(min_value=1, max_value=10, allow_nan=False)
maybe = st.one_of(seconds, st.none(), st.just(UNKNOWN))
attempt = st.integers(min_value=1, max_value=400)


@given(maybe, maybe)
def test_unknown_is_contagious_and_unbounded_absorbs(a, b):
    for op in (add, mul):
        result = op(a, b)
        if a is UNKNOWN or b is UNKNOWN:
            assert result is UNKNOWN
        elif a is None or b is None:
            assert result is None
        else:
            assert is_number(result)


@given(maybe, st.one_of(seconds, st.none()), st.one_of(seconds, st.none()))
def test_clamp_honours_its_cap(value, low, high):
    result = clamp(value, low, high)
    if value is UNKNOWN:
        assert result is UNKNOWN
    elif value is None:
        assert result == high  # an unbounded wait under a cap is the cap
    else:
        if high is not None:
            assert result <= high
        if low is not None and (high is None or low <= high):
            assert result >= low


@given(seconds, factors, st.one_of(seconds, st.none()), attempt)
def test_capped_exponential_schedules_are_monotone_and_capped(initial, base, cap, k):
    def bound(n):
        return clamp(mul(initial, scaled_power(base, n - 1)), None, cap)

    assert bound(k) <= bound(k + 1)
    if cap is not None:
        assert bound(k) <= cap
    assert not math.isnan(bound(k))


@given(factors, st.integers(min_value=0, max_value=10_000))
def test_scaled_power_is_finite_under_its_exponent_cap(base, exponent):
    value = scaled_power(base, exponent)
    assert value >= 1.0 and value <= scaled_power(base, exponent + 1)


@given(maybe, maybe)
def test_tighter_and_looser_caps(a, b):
    tight, loose = tighter_cap(a, b), looser_cap(a, b)
    known = [v for v in (a, b) if is_number(v)]
    if known:
        assert tight == min(known)  # a known cap wins over none or an unknown one
    if is_number(a) and is_number(b):
        assert loose == max(a, b)
    if a is None or b is None:
        assert loose is None  # both must hold to stop: no cap on one side is no cap


@given(st.lists(maybe, max_size=6))
def test_largest_and_total_bound_every_part(values):
    if not values:
        assert total(values) == 0.0
        return
    big, whole_sum = largest(*values), total(values)
    if any(v is UNKNOWN for v in values):
        assert big is UNKNOWN and whole_sum is UNKNOWN
    elif any(v is None for v in values):
        assert big is None and whole_sum is None
    else:
        assert all(big >= v for v in values) and whole_sum >= big


@given(st.integers(min_value=-50, max_value=50), st.integers(min_value=0, max_value=20))
def test_power_is_exact_for_small_integers(base, exponent):
    assert power(base, exponent) == base ** exponent
    assert arithmetic(cst.Power(), base, exponent) == base ** exponent


@given(st.integers(min_value=2, max_value=10 ** 6), st.integers(min_value=10 ** 4, max_value=10 ** 100))
def test_power_of_huge_integers_is_infinite_not_computed(base, exponent):
    assert power(base, exponent) == float("inf")


def test_arithmetic_on_non_numbers_is_unknown():
    assert arithmetic(cst.Add(), 1, "s") is UNKNOWN
    assert arithmetic(cst.Divide(), 1, 0) is UNKNOWN
    assert arithmetic(cst.Add(), True, 1) is UNKNOWN
