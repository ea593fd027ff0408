"""The shared argument checks: what each accepts (numpy scalars included) and what it
refuses (bools, integers beyond int64, NaN, infinities, strings, None, objects), with the
value quoted and cut short in the message."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import _validate as checks
from wayfinding.errors import InvalidGeometryError, InvalidQueryError


@pytest.mark.parametrize("value, expected", [
    (2, 2.0), (0.5, 0.5), (np.int32(3), 3.0), (np.float32(0.25), 0.25), (2**63 - 1, 2.0**63),
])
def test_positive_float_accepts_numbers(value, expected):
    got = checks.positive_float("radius", value)
    assert type(got) is float and got == expected


@pytest.mark.parametrize("value", [
    0, -1, True, np.bool_(True), 2**63, -(2**63) - 1, 10**400, math.nan, math.inf, -math.inf,
    "1", None, [], [1.0], object(), np.array([1.0]), 1j,
])
def test_positive_float_refuses(value):
    with pytest.raises(InvalidQueryError, match=r"^radius .* must be a finite number > 0$"):
        checks.positive_float("radius", value)


@pytest.mark.parametrize("kwargs, value, ok", [
    ({"allow_zero": True}, 0.0, True), ({"allow_zero": True}, -1e-300, False),
    ({"allow_inf": True}, math.inf, True), ({"allow_inf": True}, math.nan, False),
    ({"max": 10}, 10, True), ({"max": 10}, 10.5, False),
])
def test_positive_float_options(kwargs, value, ok):
    if ok:
        assert checks.positive_float("x", value, **kwargs) == value
    else:
        with pytest.raises(InvalidQueryError, match="^x "):
            checks.positive_float("x", value, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"min": 0, "max": 1, "max_open": True}, r"in \[0, 1\)"),
    ({"max": 3}, "<= 3"), ({"min": 1, "min_open": True}, "> 1"), ({}, "finite number$"),
])
def test_number_states_its_interval(kwargs, message):
    with pytest.raises(InvalidQueryError, match=message):
        checks.number("keep", math.nan, **kwargs)


@pytest.mark.parametrize("value", [1, 7, np.int64(7), np.uint8(1), 2**63 - 1])
def test_count_accepts_integers(value):
    got = checks.count("levels", value)
    assert type(got) is int and got == value


@pytest.mark.parametrize("value", [
    0, -3, 2**63, 10**30, True, False, 1.0, 2.5, math.nan, "1", None, [], object(),
])
def test_count_refuses(value):
    with pytest.raises(InvalidQueryError, match=r"^levels .* must be an integer >= 1"):
        checks.count("levels", value)


def test_count_in_a_range_names_it():
    with pytest.raises(InvalidQueryError, match=r"must be an integer in \[1, 100\]"):
        checks.count("levels", 101, max=100)


@pytest.mark.parametrize("value, ok", [
    ("a", True), ("b", True), ("c", False), (None, False), ([], False), (1, False),
    (True, False), (np.array(["a", "b"]), False),
])
def test_choice(value, ok):
    if ok:
        assert checks.choice("method", value, ("a", "b")) == value
    else:
        with pytest.raises(InvalidQueryError, match=r"^unknown method .*expected one of 'a', 'b'"):
            checks.choice("method", value, ("a", "b"))


@pytest.mark.parametrize("value, ok", [
    (1, True), (np.int64(2), True), (True, False), (2.0, False), ("1", False), (None, False),
])
def test_choice_of_ints_takes_only_integers(value, ok):
    if ok:
        assert checks.choice("order", value, (1, 2)) == value
    else:
        with pytest.raises(InvalidQueryError, match="unknown order"):
            checks.choice("order", value, (1, 2))


@pytest.mark.parametrize("value", [(1, 2), [1.5, -2], np.array([3.0, 4.0]), (np.int8(1), 0)])
def test_finite_point_accepts_pairs(value):
    p = checks.finite_point("start", value)
    assert p.dtype == np.float64 and p.tolist() == [float(v) for v in value]


@pytest.mark.parametrize("value", [
    (True, 1.0), ("1", "2"), (None, 1), (math.nan, 0), (0, math.inf), (1, 2, 3), [], 5,
    None, object(), (10**400, 0), np.array([True, False]),
])
def test_finite_point_refuses(value):
    with pytest.raises(InvalidGeometryError, match=r"^start .* must be a finite \(x, y\) point"):
        checks.finite_point("start", value, error=InvalidGeometryError)


def test_a_long_value_is_cut_short_in_the_message():
    with pytest.raises(InvalidQueryError) as info:
        checks.positive_float("radius", "x" * 10_000)
    assert len(str(info.value)) < 150


@pytest.mark.parametrize("size, ok", [
    (checks.MAX_CELLS, True), (checks.MAX_CELLS + 1, False), (math.inf, False),
    (math.nan, False),
])
def test_allocation_limit(size, ok):
    if ok:
        checks.allocation("the field", size)
    else:
        with pytest.raises(InvalidQueryError, match="the field would need .*MAX_CELLS"):
            checks.allocation("the field", size)


@pytest.mark.parametrize("value, expected", [
    (None, None), (0, 0), (7, 7), (np.int64(3), 3), (10**30, 10**30),
])
def test_budget_accepts_none_and_integers_of_any_size(value, expected):
    got = checks.budget("max_expansions", value)
    assert got == expected and (got is None or type(got) is int)


@pytest.mark.parametrize("value", [-1, 1.5, True, np.bool_(False), "3", math.nan, [], 2.0])
def test_budget_refuses(value):
    with pytest.raises(InvalidQueryError,
                       match=r"^max_expansions .* must be an integer >= 0 or None$"):
        checks.budget("max_expansions", value)


@pytest.mark.parametrize("value, expected", [
    (None, None), (0, 0.0), (0.5, 0.5), (np.float32(0.25), 0.25), (math.inf, math.inf),
])
def test_seconds_accepts_none_and_numbers_from_zero(value, expected):
    got = checks.seconds("max_seconds", value)
    assert got == expected and (got is None or type(got) is float)


@pytest.mark.parametrize("value", [-0.1, math.nan, "1", False, 1j, -math.inf])
def test_seconds_refuses(value):
    with pytest.raises(InvalidQueryError, match=r"^max_seconds .* must be a number >= 0"):
        checks.seconds("max_seconds", value)


def test_step_budget_checks_both_parts():
    assert checks.step_budget(np.int32(4), np.float64(0.5)) == (4, 0.5)
    with pytest.raises(InvalidQueryError, match="max_seconds"):
        checks.step_budget(4, -1)
    with pytest.raises(InvalidQueryError, match="max_expansions"):
        checks.step_budget(-4, 1)
