"""Angle wrapping against an exact reference (fractions of a rational 2 pi)."""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wayfinding.geometry.angles import wrap_angle

TWO_PI = Fraction(2 * math.pi)


@pytest.mark.parametrize("angle, expected", [
    (0.0, 0.0), (math.pi, math.pi), (-math.pi, math.pi), (3 * math.pi, math.pi),
    (1.5 * math.pi, -0.5 * math.pi), (-1.5 * math.pi, 0.5 * math.pi), (-0.25, -0.25),
    (2 * math.pi, 0.0), (-2 * math.pi, 0.0),
])
def test_known_angles_wrap_into_the_half_open_turn(angle, expected):
    assert wrap_angle(angle) == pytest.approx(expected, abs=1e-12)


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_the_wrapped_angle_is_the_same_direction_of_least_magnitude(angle):
    out = wrap_angle(angle)
    assert -math.pi < out <= math.pi
    # the same direction: the difference is a whole number of turns of the float 2 pi
    turns = (Fraction(angle) - Fraction(out)) / TWO_PI
    assert abs(turns - round(turns)) < 1e-12
    assert wrap_angle(out) == out
