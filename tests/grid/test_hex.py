"""Hex grids: hex distance and neighbours (brute force), world <-> hex (nearest centre),
A* against Dijkstra and scipy on the CSR graph, ASCII pictures and bad input."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra
from scipy.spatial import cKDTree

from wayfinding.errors import InvalidGridError, InvalidQueryError, MapFormatError
from wayfinding.grid import HexGrid, hex_distance
from wayfinding.grid.hex import HEX_DIRECTIONS


def bfs_steps(w, h, source):
    """Steps from source on an open w x h axial parallelogram... extended by a margin so
    that shortest hex routes never need to leave it."""
    dist = {source: 0}
    todo = deque([source])
    while todo:
        q, r = todo.popleft()
        for dq, dr in HEX_DIRECTIONS:
            n = (q + dq, r + dr)
            if -w <= n[0] < 2 * w and -h <= n[1] < 2 * h and n not in dist:
                dist[n] = dist[(q, r)] + 1
                todo.append(n)
    return dist


def test_hex_distance_matches_breadth_first_search():
    dist = bfs_steps(5, 5, (2, 2))
    cells = [(q, r) for q in range(5) for r in range(5)]
    got = hex_distance(np.array([(2, 2)] * len(cells)), np.array(cells))
    assert got.tolist() == [dist[c] for c in cells]


def test_six_neighbours_at_distance_one():
    h = HexGrid(np.ones((3, 3)))
    nb = h.neighbours((1, 1))
    assert len(nb) == 6 and all(c == 1.0 for _, c in nb)
    assert all(hex_distance((1, 1), cell)[0] == 1 for cell, _ in nb)
    assert len({cell for cell, _ in nb}) == 6
    assert len(h.neighbours((0, 0))) == 2  # a corner of the parallelogram


@pytest.mark.parametrize("layout", ["pointy", "flat"])
def test_world_round_trip_and_nearest_centre(layout):
    h = HexGrid(np.ones((9, 11)), layout=layout, size=1.7, origin=(3.0, -2.0))
    rr, qq = np.mgrid[-3:12, -3:14]
    cells = np.stack([qq.ravel(), rr.ravel()], axis=1)
    centres = h.localize(cells)
    assert np.array_equal(h.quantize(centres), cells)
    # neighbour centres are sqrt(3) * size apart
    step = np.hypot(*(h.localize([(1, 0)]) - h.localize([(0, 0)]))[0])
    assert step == pytest.approx(np.sqrt(3) * 1.7)
    rng = np.random.default_rng(0)
    inner = rng.integers(2, 9, (3000, 2))
    pts = h.localize(inner) + rng.uniform(-2 * 1.7, 2 * 1.7, (3000, 2))
    _, idx = cKDTree(centres).query(pts)
    assert np.array_equal(h.quantize(pts), cells[idx])


def test_pointy_and_flat_centres():
    p = HexGrid(np.ones((2, 2)), layout="pointy")
    f = HexGrid(np.ones((2, 2)), layout="flat")
    s3 = np.sqrt(3)
    assert np.allclose(p.localize([(1, 0), (0, 1)]), [(s3, 0), (s3 / 2, 1.5)])
    assert np.allclose(f.localize([(1, 0), (0, 1)]), [(1.5, s3 / 2), (0, s3)])


costs = st.lists(st.lists(st.sampled_from([1.0, 1.0, 2.0, 3.5, np.inf]), min_size=6,
                          max_size=6), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(costs, st.data())
def test_astar_matches_dijkstra_and_scipy(rows, data):
    c = np.array(rows)
    h = HexGrid(c)
    free = np.argwhere(np.isfinite(c))[:, ::-1]
    if not len(free):
        return
    s = tuple(free[data.draw(st.integers(0, len(free) - 1))].tolist())
    g = tuple(free[data.draw(st.integers(0, len(free) - 1))].tolist())
    ref = dijkstra(h.to_csr().to_scipy(), indices=int(h.node_ids(s)[0]))
    want = ref[int(h.node_ids(g)[0])]
    a = h.find_path(s, g)
    d = h.find_path(s, g, method="dijkstra")
    if np.isinf(want):
        assert not a.found and not d.found and a.path.shape == (0, 2)
        return
    assert a.found and a.cost == pytest.approx(want) and d.cost == pytest.approx(want)
    path = a.path
    assert path[0].tolist() == list(s) and path[-1].tolist() == list(g)
    assert (hex_distance(path[:-1], path[1:]) == 1).all()
    assert np.isfinite(c[path[:, 1], path[:, 0]]).all()
    steps = 0.5 * (c[path[:-1, 1], path[:-1, 0]] + c[path[1:, 1], path[1:, 0]])
    assert steps.sum() == pytest.approx(a.cost)
    # the heuristic never overestimates
    nodes = np.flatnonzero(np.isfinite(ref))
    cells = np.stack([nodes % c.shape[1], nodes // c.shape[1]], axis=1)
    hv = hex_distance(cells, np.array([s] * len(cells))) * h.min_cost
    assert (hv <= ref[nodes] + 1e-9).all()
    assert a.stats.expanded <= d.stats.expanded


@pytest.mark.parametrize("layout", ["pointy", "flat"])
@pytest.mark.parametrize("size", [0.5, 3.0])
def test_the_two_heuristics_are_as_documented(layout, size):
    # the graph protocol's heuristic() is hex distance x cheapest tile; find_path's compiled
    # A* uses the CSR graph's scaled Euclidean distance, within 2/sqrt(3) below it
    rng = np.random.default_rng(5)
    c = rng.choice([2.0, 3.0, 7.0], (6, 7))
    h = HexGrid(c, layout=layout, size=size)
    csr = h.to_csr()
    cells = np.argwhere(np.ones(c.shape, dtype=bool))[:, ::-1]
    for a in cells[::5]:
        for b in cells[::3]:
            hexd = float(hex_distance(a, b)[0]) * 2.0
            assert h.heuristic(tuple(a), tuple(b)) == pytest.approx(hexd)
            euclid = csr.heuristic(int(h.node_ids(a)[0]), int(h.node_ids(b)[0]))
            assert np.sqrt(3) / 2 * hexd - 1e-9 <= euclid <= hexd + 1e-9


def test_ascii_picture():
    h = HexGrid.from_ascii("""
        . 2 .
         # . 9
    """, layout="flat", size=2.0)
    assert h.shape == (2, 3) and h.layout == "flat" and h.size == 2.0
    assert h.costs.tolist() == [[1, 2, 1], [np.inf, 1, 9]]
    # (0, 0) only reaches (1, 0) (cost (1+2)/2); then (2, 0) or (1, 1) at 1.5; the last
    # step enters the cost-9 tile at (1+9)/2
    r = h.find_path((0, 0), (2, 1))
    assert r.cost == 1.5 + 1.5 + 5.0 and len(r.path) == 4


@pytest.mark.parametrize("text, reason", [
    ("", "empty"), (". .\n. . .", "3 tiles where the first row has 2"),
    (". x", "unknown hex tile 'x'"),
    (". .\n\n. .", "blank line"),
])
def test_bad_pictures(text, reason):
    with pytest.raises(MapFormatError, match=reason):
        HexGrid.from_ascii(text)


def test_bad_file(tmp_path):
    bad = tmp_path / "h.txt"
    bad.write_text(". .\n. ?\n")
    with pytest.raises(MapFormatError, match=r"h.txt, line 2: unknown hex tile"):
        HexGrid.from_file(bad)
    with pytest.raises(MapFormatError, match="cannot read"):
        HexGrid.from_file(tmp_path / "missing.txt")


@pytest.mark.parametrize("call, err, text", [
    (lambda: HexGrid(np.ones((2, 2)), layout="square"), InvalidGridError, "layout"),
    (lambda: HexGrid(np.ones((2, 2)), size=0), InvalidGridError, "size"),
    (lambda: HexGrid(np.zeros((2, 2))), InvalidGridError, "at least 2.2250738585072014e-308"),
    (lambda: HexGrid(np.full((2, 2), 1e-320)), InvalidGridError, "is 1e-320; costs"),
    (lambda: HexGrid(np.ones(3)), InvalidGridError, "2D"),
    (lambda: HexGrid(np.ones((2, 2))).find_path((0, 0), (5, 0)), InvalidQueryError,
     "outside"),
    (lambda: HexGrid(np.array([[1, np.inf]])).find_path((0, 0), (1, 0)), InvalidQueryError,
     "blocked"),
    (lambda: HexGrid(np.ones((2, 2))).find_path((0, 0), (1, 0), method="bfs"),
     InvalidQueryError, "unknown method .bfs. for HexGrid"),
    (lambda: HexGrid(np.ones((2, 2))).quantize([(np.nan, 0)]), InvalidQueryError,
     "not finite"),
    (lambda: hex_distance((0.5, 0), (1, 1)), InvalidQueryError, "integer"),
    (lambda: HexGrid(np.ones((2, 2))).find_path((True, 0), (1, 1)), InvalidQueryError,
     "integer"),
    (lambda: hex_distance([(0, 0), (1, False)], [(1, 1), (0, 0)]), InvalidQueryError,
     "integer"),
    (lambda: hex_distance((0, 0), (2**61, 0)), InvalidQueryError, "magnitude 2..61"),
    (lambda: hex_distance((-2**63, 0), (0, 0)), InvalidQueryError, "magnitude 2..61"),
    (lambda: HexGrid(np.full((1, 3), 1e300)), InvalidGridError, r"at most 1e\+250"),
    (lambda: HexGrid(np.array([[1.0, np.nan]])), InvalidGridError, "q=1, r=0.* nan"),
    (lambda: HexGrid(np.array([[1 + 1j, 1]])), InvalidGridError, "not real numbers"),
    (lambda: HexGrid([[1, 1], [1]]), InvalidGridError, "not real numbers"),
    (lambda: HexGrid(np.ones((2, 2)), size=None), InvalidGridError, "size"),
    (lambda: HexGrid(np.ones((2, 2)), size="2"), InvalidGridError, "size"),
    (lambda: HexGrid(np.ones((2, 2)), origin=(1,)), InvalidGridError, "origin"),
    (lambda: HexGrid(np.ones((2, 2)), origin="ab"), InvalidGridError, "origin"),
    # cells whose number passes int64 (the cast gave garbage) or centres beyond any float
    (lambda: HexGrid(np.ones((2, 2)), size=1e-300).quantize([(0, 0), (1e5, 0)]),
     InvalidQueryError, r"points\[1\] = \[100000.0, 0.0\] lies too far"),
    (lambda: HexGrid(np.ones((2, 2))).quantize([(1e149, 0)]), InvalidQueryError, "too far"),
    (lambda: HexGrid(np.ones((2, 2)), layout="flat").quantize([(0, 7e18)]),
     InvalidQueryError, "too far"),
    (lambda: HexGrid(np.ones((2, 2)), size=1e300).localize([(1, 1), (2**62, 0)]),
     InvalidQueryError, r"cells\[1\] = \(4611686018427387904, 0\) has its centre beyond"),
])
def test_bad_inputs(call, err, text):
    with pytest.raises(err, match=text):
        call()


def test_start_equals_goal_and_csr():
    h = HexGrid(np.ones((3, 4)))
    r = h.find_path((1, 1), (1, 1))
    assert r.found and r.cost == 0.0 and r.path.tolist() == [[1, 1]]
    csr = h.to_csr()
    assert csr.num_nodes == 12 and csr.is_symmetric
    assert np.allclose(csr.coords, h.localize(np.stack([np.tile(np.arange(4), 3),
                                                        np.repeat(np.arange(3), 4)], 1)))


def test_hex_distance_of_far_cells_against_python_integers():
    """Coordinates up to just below 2**61, where int64 sums of the textbook formula wrap:
    the distance matches the formula in Python's unbounded integers."""
    rng = np.random.default_rng(5)
    top = 2**61 - 1
    a = rng.integers(-top, top, (500, 2), endpoint=True)
    b = rng.integers(-top, top, (500, 2), endpoint=True)
    a[:4] = [(-top, -top), (top, top), (-top, top), (0, 0)]
    b[:4] = [(top, top), (-top, -top), (top, -top), (top, top)]
    want = [(abs(int(q1) - int(q0)) + abs(int(r1) - int(r0))
             + abs(int(q1) - int(q0) + int(r1) - int(r0))) // 2
            for (q0, r0), (q1, r1) in zip(a.tolist(), b.tolist())]
    assert hex_distance(a, b).tolist() == want


def test_hex_search_on_costs_up_to_the_largest_accepted():
    h = HexGrid(np.array([[1e250, 1e250, 1.0], [1.0, 1e250, 1e250]]))
    r = h.find_path((0, 0), (2, 1))
    assert r.found and r.cost == pytest.approx(2e250)
