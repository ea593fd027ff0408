"""Exact orientation and in-circle signs against rational arithmetic (fractions), on random,
nearly degenerate, collinear, cocircular and extreme-magnitude inputs; bad input."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGeometryError
from wayfinding.geometry import incircle, orient2d
from wayfinding.geometry.predicates import MAX_COORD, MIN_COORD


def sign(v):
    return (v > 0) - (v < 0)


def orient_ref(a, b, c):
    ax, ay, bx, by, cx, cy = map(Fraction, (*a, *b, *c))
    return sign((ax - cx) * (by - cy) - (ay - cy) * (bx - cx))


def incircle_ref(a, b, c, d):
    ax, ay, bx, by, cx, cy, dx, dy = map(Fraction, (*a, *b, *c, *d))
    adx, ady, bdx, bdy, cdx, cdy = ax - dx, ay - dy, bx - dx, by - dy, cx - dx, cy - dy
    return sign((adx * adx + ady * ady) * (bdx * cdy - cdx * bdy)
                + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy)
                + (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady))


# Coordinates over the whole exact range, zero included.
coord = st.one_of(
    st.just(0.0),
    st.floats(MIN_COORD, MAX_COORD).map(lambda v: v),
    st.floats(-MAX_COORD, -MIN_COORD),
    st.floats(-10, 10).filter(lambda v: v == 0 or MIN_COORD <= abs(v)),
)
point = st.tuples(coord, coord)


@settings(max_examples=400, deadline=None)
@given(a=point, b=point, c=point)
def test_orient_matches_rationals(a, b, c):
    assert orient2d(a, b, c) == orient_ref(a, b, c)


@settings(max_examples=300, deadline=None)
@given(a=point, b=point, c=point, d=point)
def test_incircle_matches_rationals(a, b, c, d):
    assert incircle(a, b, c, d) == incircle_ref(a, b, c, d)


def test_nearly_collinear_points():
    rng = np.random.default_rng(1)
    n = 3000
    a, b = rng.random((n, 2)) * 100, rng.random((n, 2)) * 100
    c = a + rng.random((n, 1)) * (b - a)
    c += rng.integers(-2, 3, (n, 2)) * np.spacing(c)
    got = orient2d(a, b, c)
    want = [orient_ref(*p) for p in zip(a, b, c, strict=True)]
    assert got.tolist() == want
    assert {-1, 0, 1} <= set(want) | {0}   # near-degenerate cases of every kind
    # Swapping two points flips the sign; repeating one gives 0.
    assert (orient2d(b, a, c) == -got).all() and not orient2d(a, a, c).any()


def test_nearly_cocircular_points():
    rng = np.random.default_rng(2)
    n = 3000
    ang = rng.random((n, 4)) * 2 * np.pi
    pts = rng.random((n, 1, 2)) * 1e3 + rng.random((n, 1, 1)) * 10 * np.stack(
        [np.cos(ang), np.sin(ang)], axis=2)
    a, b, c, d = (pts[:, k] for k in range(4))
    got = incircle(a, b, c, d)
    assert got.tolist() == [incircle_ref(*p) for p in zip(a, b, c, d, strict=True)]
    assert (incircle(b, a, c, d) == -got).all()


def test_lattice_points_are_decided_exactly():
    # Lattice points scaled by 0.1 (not exact in binary): many exact zeros and near-zeros.
    rng = np.random.default_rng(3)
    pts = rng.integers(-4, 5, (4000, 4, 2)) * 0.1
    a, b, c, d = (pts[:, k] for k in range(4))
    want_o = [orient_ref(*p) for p in zip(a, b, c, strict=True)]
    want_i = [incircle_ref(*p) for p in zip(a, b, c, d, strict=True)]
    assert orient2d(a, b, c).tolist() == want_o
    assert incircle(a, b, c, d).tolist() == want_i
    assert want_o.count(0) > 100 and want_i.count(0) > 100
    # The plain floating-point formula gets some of them wrong: the tests can fail.
    naive = np.sign((a[:, 0] - c[:, 0]) * (b[:, 1] - c[:, 1])
                    - (a[:, 1] - c[:, 1]) * (b[:, 0] - c[:, 0]))
    assert (naive != np.array(want_o)).any()


def test_broadcasting_and_scalars():
    assert orient2d((0, 0), (1, 0), [[0, 1], [0, -1], [2, 0]]).tolist() == [1, -1, 0]
    assert isinstance(orient2d((0, 0), (1, 0), (0, 1)), int)
    assert incircle([[0, 0]], (2, 0), (0, 2), [[1, 1], [3, 3]]).tolist() == [1, -1]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 2.0**101, 2.0**-101, "x"])
def test_bad_coordinates(bad):
    with pytest.raises(InvalidGeometryError, match="c"):
        orient2d((0, 0), (1, 0), (bad, 1))


def test_bad_shapes():
    with pytest.raises(InvalidGeometryError, match="shape"):
        orient2d((0, 0, 0), (1, 0, 0), (0, 1, 0))
    with pytest.raises(InvalidGeometryError, match="incompatible"):
        orient2d(np.zeros((3, 2)), np.zeros((2, 2)), (0, 1))
