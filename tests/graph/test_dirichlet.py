"""Dirichlet domains: notes test T20, nearest-seed quantization against scipy, exact
adjacency against the Delaunay triangulation, weighted domains and raster adjacency."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import Delaunay, cKDTree

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import DirichletDomains

pytest.importorskip("shapely")


def test_t20_unweighted_ties_to_lowest_index():
    d = DirichletDomains([(0, 0), (10, 0)])
    assert d.quantize([(4, 0), (6, 0), (5, 0), (5, 7)]).tolist() == [0, 1, 0, 0]
    assert d.localize([1]).tolist() == [[10, 0]]
    assert d.edges.tolist() == [[0, 1]]


def test_t20_weighted_peaks_back_out():
    d = DirichletDomains([(0, 0), (10, 0)], weights=[0.5, 1.0], bounds=(-5, -5, 40, 5))
    assert d.quantize([(6, 0), (15, 0), (30, 0)]).tolist() == [0, 1, 0]
    xs = np.linspace(-4.9, 39.9, 4491)
    on_axis = d.quantize(np.stack([xs, np.zeros_like(xs)], axis=1))
    inside = xs[on_axis == 1]
    # node 1's region on the axis is x in (20/3, 20)
    assert inside.min() == pytest.approx(20 / 3, abs=0.011)
    assert inside.max() == pytest.approx(20, abs=0.011)
    assert d.adjacency == "raster" and d.edges.tolist() == [[0, 1]]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 60))
def test_quantize_and_exact_adjacency_match_scipy(seed, n):
    rng = np.random.default_rng(seed)
    seeds = rng.uniform(0, 50, (n, 2))
    d = DirichletDomains(seeds)
    q = rng.uniform(-10, 60, (500, 2))
    dist, _ = cKDTree(seeds).query(q)
    assert np.allclose(np.hypot(*(seeds[d.quantize(q)] - q).T), dist, atol=1e-12)
    tri = Delaunay(seeds)
    want = set()
    for simplex in tri.simplices:
        for i in range(3):
            a, b = sorted((int(simplex[i]), int(simplex[(i + 1) % 3])))
            want.add((a, b))
    assert set(map(tuple, d.edges.tolist())) == want


def test_cocircular_seeds_do_not_link_across_a_point():
    d = DirichletDomains([(0, 0), (1, 0), (0, 1), (1, 1)])
    assert d.edges.tolist() == [[0, 1], [0, 2], [1, 3], [2, 3]]


def _brute_force_pairs(seeds):
    """Pairs whose Voronoi cells share a border longer than 1e-9 × the seeds' extent, in
    exact arithmetic: the perpendicular bisector of i and j, clipped by every other seed's
    half-plane."""
    pts = [(Fraction(x), Fraction(y)) for x, y in seeds]
    extent = max(max(p[a] for p in pts) - min(p[a] for p in pts) for a in (0, 1))
    pairs = set()
    for i, j in itertools.combinations(range(len(pts)), 2):
        (xi, yi), (xj, yj) = pts[i], pts[j]
        mx, my = (xi + xj) / 2, (yi + yj) / 2
        dx, dy = yi - yj, xj - xi  # along the bisector
        lo, hi = None, None  # parameter interval, None = unbounded
        empty = False
        for k, (xk, yk) in enumerate(pts):
            if k in (i, j):
                continue
            # closer to i than to k: 2 p·(k - i) <= |k|² - |i|², with p = m + t d
            a = 2 * (dx * (xk - xi) + dy * (yk - yi))
            b = xk * xk + yk * yk - xi * xi - yi * yi - 2 * (mx * (xk - xi) + my * (yk - yi))
            if a > 0:
                hi = b / a if hi is None else min(hi, b / a)
            elif a < 0:
                lo = b / a if lo is None else max(lo, b / a)
            elif b < 0:
                empty = True
        if not empty and (lo is None or hi is None
                          or (hi > lo and (hi - lo) ** 2 * (dx * dx + dy * dy)
                              > (extent / 10**9) ** 2)):
            pairs.add((i, j))
    return pairs


@pytest.mark.parametrize("seeds", [
    [(4.3, 7.0), (4.7, 2.4), (4.9, 0.1), (8.2, 6.6)],  # 0, 1, 2 almost on one line
    [(0.1, 0.1), (0.2, 0.2), (0.3, 0.3), (0.7, 0.1), (0.1, 0.7)],
])
def test_exact_adjacency_of_near_collinear_seeds(seeds):
    d = DirichletDomains(seeds, adjacency="exact")
    assert set(map(tuple, d.edges.tolist())) == _brute_force_pairs(seeds)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=2, max_size=9,
                unique=True))
def test_exact_adjacency_matches_brute_force_on_rounded_seeds(cells):
    seeds = [(x / 10 + 4, y / 10) for x, y in cells]  # one decimal: many near-degenerate sets
    d = DirichletDomains(seeds, adjacency="exact")
    assert set(map(tuple, d.edges.tolist())) == _brute_force_pairs(seeds)


def test_collinear_seeds():
    d = DirichletDomains([(0, 0), (1, 0), (2, 0), (3, 0)])
    assert d.edges.tolist() == [[0, 1], [1, 2], [2, 3]]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_weighted_quantize_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    seeds = rng.uniform(0, 20, (12, 2))
    w = rng.uniform(0.3, 3.0, 12)
    d = DirichletDomains(seeds, weights=w, bounds=(0, 0, 20, 20), cell_size=0.5)
    q = rng.uniform(-5, 25, (300, 2))
    cost = w[None] * np.hypot(*(q[:, None, :] - seeds[None]).transpose(2, 0, 1))
    assert np.array_equal(d.quantize(q), np.argmin(cost, axis=1))
    # raster links join labels that meet between neighbouring samples
    labels, xs, ys = d.label_raster()
    assert labels.shape == (40, 40)
    for a, b in d.edges.tolist():
        meet = ((labels[:, :-1] == a) & (labels[:, 1:] == b)) | (
            (labels[:, :-1] == b) & (labels[:, 1:] == a))
        meet_v = ((labels[:-1] == a) & (labels[1:] == b)) | (
            (labels[:-1] == b) & (labels[1:] == a))
        assert meet.any() or meet_v.any()


def test_raster_adjacency_is_within_the_exact_one():
    rng = np.random.default_rng(3)
    seeds = rng.uniform(0, 30, (40, 2))
    exact = set(map(tuple, DirichletDomains(seeds).edges.tolist()))
    raster = DirichletDomains(seeds, adjacency="raster", bounds=(0, 0, 30, 30),
                              cell_size=0.1)
    got = set(map(tuple, raster.edges.tolist()))
    # a raster-only link joins domains less than one step apart (across a short border)
    import shapely

    cells = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(seeds),
                                                       extend_to=shapely.box(-30, -30, 60, 60),
                                                       ordered=True))
    for a, b in got - exact:
        assert cells[a].distance(cells[b]) <= 0.1 * np.sqrt(2)
    # every border at least a few steps long inside the bounds is found
    box = shapely.box(0, 0, 30, 30)
    for a, b in exact:
        border = cells[a].boundary.intersection(cells[b].boundary).intersection(box)
        if border.length > 0.4:
            assert (a, b) in got
    equal_weights = DirichletDomains(seeds, weights=np.full(40, 2.0), bounds=(0, 0, 30, 30),
                                     cell_size=0.1)
    assert set(map(tuple, equal_weights.edges.tolist())) == got


def test_links_through_walls_are_dropped_and_paths_are_legal():
    wall = Obstacles([[(4, -10), (6, -10), (6, 8), (4, 8)]])
    seeds = [(0, 0), (10, 0), (0, 10), (10, 10)]
    d = DirichletDomains(seeds, obstacles=wall, radius=0.5)
    assert [0, 1] not in d.edges.tolist()
    open_d = DirichletDomains(seeds)
    assert [0, 1] in open_d.edges.tolist()
    r = d.find_path((1, 0), (9, 0))
    assert r.found and wall.segments_clear(r.path[:-1], r.path[1:], radius=0.5).all()
    assert r.path.tolist() == [[1, 0], [0, 0], [0, 10], [10, 10], [10, 0], [9, 0]]


@pytest.mark.parametrize("kwargs, text", [
    ({"seeds": [(0, 0), (1, 1), (0, 0)]}, "seeds 0 and 2 coincide"),
    ({"seeds": [(0, 0), (1, np.nan)]}, "not finite"),
    ({"seeds": [(0, 0), (1, 1)], "weights": [1, 0]}, "weights"),
    ({"seeds": [(0, 0), (1, 1)], "weights": [1]}, "weights"),
    ({"seeds": [(0, 0), (1, 1)], "weights": [1, 2], "adjacency": "exact"}, "unweighted"),
    ({"seeds": [(0, 0), (1, 1)], "adjacency": "delaunay"}, "unknown adjacency"),
    ({"seeds": [(0, 0), (1, 1)], "adjacency": "raster", "cell_size": -1}, "cell_size"),
    ({"seeds": np.empty((0, 2))}, "at least one"),
    ({"seeds": [(0, 0), (5.5, 4.5)], "obstacles": Obstacles([[(4, 4), (6, 4), (6, 6)]])},
     "seed 1"),
])
def test_bad_inputs(kwargs, text):
    with pytest.raises(InvalidQueryError, match=text):
        DirichletDomains(**kwargs)
