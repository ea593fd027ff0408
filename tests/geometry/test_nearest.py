"""PointIndex: exact nearest point, ties to the lowest index, against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry.nearest import PointIndex


def brute(points, queries):
    d2 = ((queries[:, None, :] - points[None]) ** 2).sum(axis=2)
    return np.argmin(d2, axis=1)  # first index among equal distances


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6)), min_size=1, max_size=40),
       st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9)), min_size=1, max_size=40))
def test_nearest_with_ties_matches_brute_force(points, queries):
    # integer coordinates make many exact ties and duplicate points
    p = np.array(points, dtype=float)
    q = np.array(queries, dtype=float) / 2
    assert np.array_equal(PointIndex(p).nearest(q), brute(p, q))


@pytest.mark.parametrize("n", [1, 2, 100, 5000])
def test_nearest_matches_kdtree(n):
    rng = np.random.default_rng(n)
    p = rng.uniform(0, 100, (n, 2)) * [1.0, 0.3]
    q = rng.uniform(-10, 110, (3000, 2))
    got = PointIndex(p).nearest(q)
    d, _ = cKDTree(p).query(q)
    assert np.allclose(np.hypot(*(p[got] - q).T), d, rtol=0, atol=1e-12)


def test_collinear_and_single_point_sets():
    p = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    assert PointIndex(p).nearest([[1.4, 5.0], [-3, 0], [9, 9]]).tolist() == [1, 0, 2]
    assert PointIndex([[3.0, 3.0]]).nearest([[0, 0], [5, 5]]).tolist() == [0, 0]


def test_bad_input():
    with pytest.raises(InvalidQueryError, match="at least one"):
        PointIndex(np.empty((0, 2)))
    with pytest.raises(InvalidQueryError, match="not finite"):
        PointIndex([[0, 0]]).nearest([[np.nan, 0]])
