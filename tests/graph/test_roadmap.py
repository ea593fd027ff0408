"""Probabilistic roadmaps: determinism, clear samples, k-nearest links (scipy oracle),
components (scipy) and legal paths."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components, dijkstra
from scipy.spatial import cKDTree

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import Roadmap
from wayfinding.graph.roadmap import k_nearest

BOX = (0, 0, 20, 20)
WALLS = Obstacles([[(5, 0), (6, 0), (6, 15), (5, 15)], [(12, 5), (13, 5), (13, 20), (12, 20)]])


def test_same_seed_same_roadmap():
    a = Roadmap.build(WALLS, BOX, n=150, k=6, radius=0.3, seed=7)
    b = Roadmap.build(WALLS, BOX, n=150, k=6, radius=0.3, seed=7)
    c = Roadmap.build(WALLS, BOX, n=150, k=6, radius=0.3, seed=8)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.edges, b.edges)
    assert not np.array_equal(a.positions, c.positions)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10), st.sampled_from([0.0, 0.3]))
def test_links_are_clear_k_nearest_pairs(seed, k, radius):
    rm = Roadmap.build(WALLS, BOX, n=120, k=k, radius=radius, seed=seed)
    pos = rm.positions
    assert rm.num_nodes == 120
    assert WALLS.points_clear(pos, radius=radius).all()
    assert ((pos >= 0) & (pos <= 20)).all()
    e = rm.edges
    assert WALLS.segments_clear(pos[e[:, 0]], pos[e[:, 1]], radius=radius).all()
    # each link joins a point to one of its k nearest (scipy), and every clear k-nearest
    # pair is linked
    _, near = cKDTree(pos).query(pos, k=k + 1)
    knn = {(i, int(j)) for i in range(len(pos)) for j in near[i, 1:]}
    candidates = {tuple(sorted(p)) for p in knn}
    got = set(map(tuple, e.tolist()))
    assert got <= candidates
    cand = np.array(sorted(candidates))
    clear = WALLS.segments_clear(pos[cand[:, 0]], pos[cand[:, 1]], radius=radius)
    assert set(map(tuple, cand[clear].tolist())) == got
    n_comp, labels = connected_components(rm.csr.to_scipy(), directed=False)
    assert rm.num_components == n_comp
    assert np.array_equal(rm.components, labels) or len(set(zip(rm.components, labels))) \
        == n_comp


def test_paths_are_legal_and_optimal_on_the_roadmap():
    rm = Roadmap.build(WALLS, BOX, n=300, k=8, radius=0.3, seed=1)
    start, goal = (1.0, 1.0), (19.0, 1.0)
    r = rm.find_path(start, goal)
    assert r.found
    assert WALLS.segments_clear(r.path[:-1], r.path[1:], radius=0.3).all()
    a, b = rm.quantize([start, goal])
    d = dijkstra(rm.csr.to_scipy(), indices=int(a))[int(b)]
    legs = np.hypot(*(rm.positions[a] - start)) + np.hypot(*(rm.positions[b] - goal))
    assert r.cost == pytest.approx(d + legs)


def test_k_nearest_ties_to_lowest_index():
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    assert k_nearest(pts, 2)[:2].tolist() == [[0, 1], [0, 2]]
    assert k_nearest(pts[:1], 3).shape == (0, 2)


@pytest.mark.parametrize("kwargs, text", [
    ({"n": 0}, "n 0"), ({"k": 0}, "k 0"), ({"k": 2.5}, "k 2.5"), ({"radius": -1}, "radius"),
    ({"bounds": (0, 0, 0, 5)}, "bounds"),
    ({"obstacles": Obstacles([[(-1, -1), (21, -1), (21, 21), (-1, 21)]])}, "too small"),
])
def test_bad_inputs(kwargs, text):
    args = {"obstacles": WALLS, "bounds": BOX, "n": 10, "k": 3} | kwargs
    with pytest.raises(InvalidQueryError, match=text):
        Roadmap.build(**args)
