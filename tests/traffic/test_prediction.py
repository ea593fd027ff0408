"""Predicted trajectories queried by time against the constant-acceleration formulas, and
the cars' potential field against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.traffic.prediction import CarField, Trajectory


def test_constant_speed_positions():
    car = Trajectory([[0, 0], [10, 0], [10, 10]], [5, 5, 5], start_time=2.0)
    assert car.times.tolist() == [2.0, 4.0, 6.0]
    got = car.position_at([0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 100.0])
    assert got.tolist() == [[0, 0], [0, 0], [5, 0], [10, 0], [10, 5], [10, 10], [10, 10]]


def test_accelerating_segment_follows_s_equals_v0_t_plus_half_a_t2():
    # 0 → 20 m/s over 100 m: a = 2 m/s², 10 s.
    car = Trajectory([[0, 0], [100, 0]], [0, 20])
    assert car.duration == pytest.approx(10.0)
    ts = np.array([1.0, 2.5, 5.0, 9.0])
    np.testing.assert_allclose(car.position_at(ts)[:, 0], 0.5 * 2.0 * ts ** 2)


def test_car_stopping_at_the_end_reaches_it():
    car = Trajectory([[0, 0], [0, 50]], [10, 0])
    assert car.duration == pytest.approx(10.0)
    np.testing.assert_allclose(car.position_at([5.0, 10.0, 11.0]),
                               [[0, 37.5], [0, 50], [0, 50]])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6))
def test_positions_are_monotone_along_the_path(seed, n):
    rng = np.random.default_rng(seed)
    pts = np.cumsum(np.column_stack([rng.uniform(0.5, 5, n), np.zeros(n)]), axis=0)
    car = Trajectory(pts, rng.uniform(0.5, 10, n))
    x = car.position_at(np.linspace(-1, car.duration + 1, 50))[:, 0]
    assert np.all(np.diff(x) >= -1e-9)
    np.testing.assert_allclose(car.position_at(car.times), pts, atol=1e-9)


def test_field_against_brute_force():
    cars = [Trajectory([[0, 0], [10, 0]], [2, 2]), Trajectory([[5, 5]], [0])]
    field = CarField(cars, radius=3.0)
    pts = np.array([[1.0, 1.0], [5.0, 4.0], [9.0, -2.0]])
    t = 2.0
    centres = [np.array([4.0, 0.0]), np.array([5.0, 5.0])]
    want = [sum(math.exp(-float(((p - c) ** 2).sum()) / 9.0) for c in centres) for p in pts]
    np.testing.assert_allclose(field.potential(pts, t), want)
    np.testing.assert_allclose(field.distance(pts, t),
                               [min(np.hypot(*(p - c)) for c in centres) for p in pts])
    eps = 1e-6
    numeric = [[(field.potential(p + d, t)[0] - field.potential(p - d, t)[0]) / (2 * eps)
                for d in (np.array([eps, 0]), np.array([0, eps]))] for p in pts]
    np.testing.assert_allclose(field.gradient(pts, t), numeric, rtol=1e-5, atol=1e-8)


def test_field_without_cars():
    field = CarField([], radius=1.0)
    assert field.distance([[0, 0]], 0.0).tolist() == [math.inf]
    assert field.potential([[0, 0]], 0.0).tolist() == [0.0]


@pytest.mark.parametrize("call, message", [
    (lambda: Trajectory([[0, 0], [1, 0]], [1]), "one speed"),
    (lambda: Trajectory([[0, 0], [1, 0]], [1, -1]), ">= 0"),
    (lambda: Trajectory([[0, 0], [1, 0]], [0, 0]), "never cover"),
    # times past the largest float: the positions were inf or NaN
    (lambda: Trajectory([[0, 0], [1e300, 0]], [1e-10, 1e-10]), "largest float of time"),
    (lambda: Trajectory([[0, 0], [1e308, 0], [-1e308, 0]], [1, 1, 1]), "segment 1"),
    (lambda: Trajectory([[0, math.nan]], [1]), "finite"),
    (lambda: Trajectory([[0, 0]], [1]).position_at(math.nan), "finite"),
    (lambda: CarField([object()], radius=1), "Trajectory"),
    (lambda: CarField([], radius=0), "radius 0"),
    (lambda: CarField([], radius=1).distance([[0, 0], [1, 1]], [1, 2, 3]), "one time"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(1, 30)),
                min_size=2, max_size=6),
       st.floats(0.0, 1.0), st.sampled_from([(0, 520), (0, -520), (1000, 0), (-1000, -500)]))
def test_far_fast_or_slow_trajectories_are_the_plain_one_scaled(rows, share, powers):
    # Points times 2**a and speeds times 2**b give the plain positions times 2**a at the
    # times times 2**(a - b): speeds squared overflowed (NaN positions) or the length
    # times 2 did.
    a, b = powers
    pts = np.array([r[:2] for r in rows], dtype=float)
    speeds = np.array([r[2] for r in rows], dtype=float)
    plain = Trajectory(pts, speeds)
    far = Trajectory(np.ldexp(pts, a), np.ldexp(speeds, b))
    t = share * plain.times[-1]
    np.testing.assert_allclose(np.ldexp(far.position_at(math.ldexp(t, a - b)), -a),
                               plain.position_at(t), rtol=1e-12, atol=1e-12 * np.abs(pts).max())
