"""CSRGraph: validation, parallel edges (seed001 T32), and the compiled searches against
scipy.sparse.csgraph and against the grid searches."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra
from strategies import cellwise_grids, seeded_csr_graphs

from wayfinding import CSRGraph, Grid, InvalidGridError, InvalidQueryError, find_path
from wayfinding.grid import distance_map
from wayfinding.search import DStarLite, LPAStar, astar

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]


# ---------------------------------------------------------------------------- construction

@pytest.mark.parametrize(("indptr", "indices", "weights", "coords", "message"), [
    pytest.param([1, 1], [], [], None, "indptr", id="indptr_not_starting_at_0"),
    pytest.param([0, 2, 1], [0, 0], [1.0, 1.0], None, "indptr", id="indptr_decreasing"),
    pytest.param([[0, 1]], [0], [1.0], None, "indptr", id="indptr_2d"),
    pytest.param([], [], [], None, "indptr", id="indptr_empty"),
    pytest.param([0, 2], [0], [1.0, 1.0], None, "entries", id="indices_too_short"),
    pytest.param([0, 1], [0], [1.0, 1.0], None, "entries", id="weights_too_long"),
    pytest.param([0, 1], [1], [1.0], None, "out of range", id="target_too_large"),
    pytest.param([0, 1], [-1], [1.0], None, "out of range", id="target_negative"),
    pytest.param([0, 1], [0.0], [1.0], None, "integers", id="float_targets"),
    pytest.param([0, 1], [0], [-1.0], None, "weight", id="negative_weight"),
    pytest.param([0, 1], [0], [np.nan], None, "weight", id="nan_weight"),
    pytest.param([0, 1], [0], [np.inf], None, "weight", id="inf_weight"),
    pytest.param([0, 1], [0], [3e250], None, "at most 2e.250", id="huge_weight"),
    pytest.param([0, 1], [0], ["x"], None, "weights must be real numbers", id="str_weight"),
    pytest.param([0, 1], [0], [1 + 2j], None, "weights must be real numbers",
                 id="complex_weight"),
    pytest.param([0, 1], [0], [1.0], [["a", "b"]], "coords must be real numbers",
                 id="str_coords"),
    pytest.param([0, 2], [0, 0], [1.0, -0.5], None, "edge 1", id="second_weight_negative"),
    pytest.param([0, 1], [0], [1.0], [[0.0]], "coords", id="coords_one_column"),
    pytest.param([0, 1], [0], [1.0], [[0.0] * 4], "coords", id="coords_four_columns"),
    pytest.param([0, 1], [0], [1.0], [0.0, 0.0], "coords", id="coords_1d"),
    pytest.param([0, 1], [0], [1.0], [[0.0, 0.0]] * 2, "coords", id="coords_too_many_rows"),
    pytest.param([0, 1], [0], [1.0], [[np.nan, 0.0]], "coords", id="coords_nan"),
    pytest.param([0, 1], [0], [1.0], [[np.inf, 0.0]], "coords", id="coords_inf"),
])
def test_constructor_rejects_bad_arrays(indptr, indices, weights, coords, message):
    with pytest.raises(InvalidGridError, match=message):
        CSRGraph(indptr, indices, weights, coords=coords)


@pytest.mark.parametrize(("n", "sources", "targets", "weights", "coords", "message"), [
    pytest.param(2, [0], [2], [1.0], None, "out of range", id="target_too_large"),
    pytest.param(2, [-1], [1], [1.0], None, "out of range", id="source_negative"),
    pytest.param(2, [0], [1], [-1.0], None, "weight", id="negative_weight"),
    pytest.param(2, [0], [1], [np.nan], None, "weight", id="nan_weight"),
    pytest.param(2, [0], [1], ["a"], None, "weights must be real numbers", id="str_weight"),
    pytest.param(2, [0, 1], [1], [1.0], None, "length", id="ragged_edge_arrays"),
    pytest.param(-1, [], [], [], None, "n", id="negative_n"),
    pytest.param(2.0, [0], [1], [1.0], None, "n", id="float_n"),
    pytest.param(True, [], [], [], None, "n", id="bool_n"),
    pytest.param(2, [0], [1], [1.0], [[0.0, 0.0]], "coords", id="coords_too_few_rows"),
    pytest.param(2, [0], [1], [1.0], np.zeros((2, 4)), "coords", id="coords_bad_width"),
    pytest.param(2, [0.5], [1], [1.0], None, "integers", id="float_source"),
    pytest.param(2, [0], [1.0], [1.0], None, "integers", id="float_target"),
])
def test_from_edges_rejects_bad_edges(n, sources, targets, weights, coords, message):
    with pytest.raises(InvalidGridError, match=message):
        CSRGraph.from_edges(n, sources, targets, weights, coords=coords)


def test_arrays_are_read_only():
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 2.0], coords=np.zeros((3, 2)))
    for arr in (g.indptr, g.indices, g.weights, g.coords):
        with pytest.raises(ValueError):
            arr[0] = 1


@pytest.mark.parametrize("directed", [True, False])
def test_from_edges_counts(directed):
    g = CSRGraph.from_edges(4, [0, 0, 2], [1, 2, 3], [1.0, 2.0, 3.0], directed=directed)
    assert g.num_nodes == 4
    assert g.num_edges == (3 if directed else 6)
    assert sorted(g.successors(2)) == ([(3, 3.0)] if directed else [(0, 2.0), (3, 3.0)])


# ---------------------------------------------------------------------------- queries

@pytest.fixture(scope="module")
def chain() -> CSRGraph:
    return CSRGraph.from_edges(4, [0, 1], [1, 2], [2.0, 3.0])  # node 3 is isolated


@pytest.mark.parametrize(("start", "goal"), [
    pytest.param(0, 4, id="goal_too_large"),
    pytest.param(-1, 2, id="start_negative"),
    pytest.param(True, 2, id="bool_start"),
    pytest.param(0.0, 2, id="float_start"),
    pytest.param(0, "2", id="str_goal"),
])
def test_find_path_rejects_bad_nodes(chain, start, goal):
    with pytest.raises(InvalidQueryError):
        chain.find_path(start, goal)


def test_find_path_rejects_unknown_method(chain):
    with pytest.raises(InvalidQueryError, match="unknown method 'bfs' for CSRGraph"):
        chain.find_path(0, 2, method="bfs")


@pytest.mark.parametrize("source", [4, -1, 1.0])
def test_distances_rejects_bad_source(chain, source):
    with pytest.raises(InvalidQueryError):
        chain.distances(source)


@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
@pytest.mark.parametrize(("start", "goal", "found", "cost", "path"), [
    (0, 2, True, 5.0, [0, 1, 2]),
    (1, 1, True, 0.0, [1]),
    (3, 3, True, 0.0, [3]),
    (2, 0, False, math.inf, []),
    (0, 3, False, math.inf, []),
])
def test_find_path_outcomes(chain, algo, start, goal, found, cost, path):
    r = chain.find_path(start, goal, method=algo)
    assert r.found is found
    assert r.cost == cost
    assert r.path.dtype == np.int64
    assert r.path.tolist() == path


# ---------------------------------------------------------------------------- T32

@pytest.mark.parametrize("weights", [[5.0, 2.0], [2.0, 5.0], [5.0, 2.0, 3.0]])
@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
def test_t32_parallel_edges_pick_the_cheapest(weights, algo):
    k = len(weights)
    g = CSRGraph.from_edges(2, [0] * k, [1] * k, weights, coords=[[0.0, 0.0], [1.0, 0.0]])
    r = g.find_path(0, 1, method=algo)
    assert r.path.tolist() == [0, 1]
    assert r.cost == 2.0
    assert g.distances(0).tolist() == [0.0, 2.0]
    assert g.to_scipy().toarray().tolist() == [[0.0, 2.0], [0.0, 0.0]]
    assert astar(g, 0, 1).cost == 2.0


# ---------------------------------------------------------------------------- vs scipy

def _without_coords(g: CSRGraph) -> CSRGraph:
    return CSRGraph(g.indptr, g.indices, g.weights)


def graphs_with_or_without_coords():
    """:func:`seeded_csr_graphs` of up to 12 nodes, half of them without coordinates (A*
    then has no heuristic)."""
    graphs = seeded_csr_graphs(max_nodes=12)
    return st.one_of(graphs, graphs.map(_without_coords))


def geometric_graphs():
    """:func:`seeded_csr_graphs` whose every edge weighs at least its length."""
    return seeded_csr_graphs(max_nodes=12, weights=("geometric",))


def _scipy_costs(g: CSRGraph) -> np.ndarray:
    return scipy_dijkstra(g.to_scipy(), directed=True)


def _path_cost(g: CSRGraph, path: np.ndarray) -> float:
    total = 0.0
    for a, b in zip(path[:-1].tolist(), path[1:].tolist()):
        total += min(c for v, c in g.successors(a) if v == b)
    return total


@settings(max_examples=100, deadline=None)
@given(graphs_with_or_without_coords(), st.data())
def test_distances_match_scipy(g, data):
    source = data.draw(st.integers(0, g.num_nodes - 1), label="source")
    np.testing.assert_allclose(g.distances(source), _scipy_costs(g)[source], rtol=1e-12)


@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
@settings(max_examples=60, deadline=None)
@given(g=graphs_with_or_without_coords(), data=st.data())
def test_find_path_costs_match_scipy(algo, g, data):
    start = data.draw(st.integers(0, g.num_nodes - 1), label="start")
    goal = data.draw(st.integers(0, g.num_nodes - 1), label="goal")
    expected = _scipy_costs(g)[start, goal]
    r = g.find_path(start, goal, method=algo)
    assert r.found == bool(np.isfinite(expected))
    assert r.cost == pytest.approx(expected, rel=1e-12)
    if r.found:
        assert r.path[0] == start
        assert r.path[-1] == goal
        assert _path_cost(g, r.path) == pytest.approx(r.cost, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(geometric_graphs(), st.data())
def test_coords_heuristic_keeps_astar_optimal(g, data):
    start = data.draw(st.integers(0, g.num_nodes - 1), label="start")
    goal = data.draw(st.integers(0, g.num_nodes - 1), label="goal")
    a = g.find_path(start, goal, method="astar")
    d = g.find_path(start, goal, method="dijkstra")
    assert a.found == d.found
    assert a.cost == pytest.approx(d.cost, rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(geometric_graphs(), st.data())
def test_coords_heuristic_is_admissible_and_consistent(g, data):
    goal = data.draw(st.integers(0, g.num_nodes - 1), label="goal")
    to_goal = _scipy_costs(g)[:, goal]
    h = np.array([g.heuristic(u, goal) for u in range(g.num_nodes)])
    assert np.all(h <= to_goal * (1 + 1e-12) + 1e-12)
    src = np.repeat(np.arange(g.num_nodes), np.diff(g.indptr))
    assert np.all(h[src] <= g.weights + h[g.indices] + 1e-9)


@pytest.mark.parametrize("weight", [0.5, 1.0, 4.0])
def test_coords_heuristic_scale_is_the_cheapest_cost_per_length(weight):
    # a 3-4-5 triangle: the diagonal edge costs `weight` per unit length, the others 2
    g = CSRGraph.from_edges(3, [0, 1, 0], [1, 2, 2], [6.0, 8.0, 5 * weight],
                            coords=[[0.0, 0.0], [3.0, 0.0], [3.0, 4.0]])
    assert g.heuristic(0, 2) == pytest.approx(5 * min(weight, 2.0))


# ------------------------------------------------------------------------ Grid.to_csr

def grids():
    """Grids of 1 to 8 cells a side drawn cell by cell, uniform or with terrain."""
    return cellwise_grids(max_side=8, rules=RULES)


@settings(max_examples=80, deadline=None)
@given(grids(), st.data())
def test_to_csr_distances_equal_grid_distances(grid, data):
    free = list(grid.iter_cells())
    x, y = data.draw(st.sampled_from(free), label="source")
    csr = grid.to_csr()
    expected = distance_map(grid, (x, y)).ravel()
    np.testing.assert_allclose(csr.distances(y * grid.width + x), expected, rtol=1e-12)


@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
@settings(max_examples=60, deadline=None)
@given(grid=grids(), data=st.data())
def test_to_csr_path_costs_equal_grid_search(algo, grid, data):
    free = list(grid.iter_cells())
    s = data.draw(st.sampled_from(free), label="start")
    t = data.draw(st.sampled_from(free), label="goal")
    csr = grid.to_csr()
    r = csr.find_path(s[1] * grid.width + s[0], t[1] * grid.width + t[0], method=algo)
    expected = find_path(grid, s, t, method=algo)
    assert r.found == expected.found
    assert r.cost == pytest.approx(expected.cost, rel=1e-12)
    if r.found:
        cells = np.stack([r.path % grid.width, r.path // grid.width], axis=1)
        assert grid.path_cost(cells) == pytest.approx(r.cost, rel=1e-12)


@pytest.mark.parametrize(("rule", "cost"), [
    ("never", 5.0),
    ("no_corner_cutting", 5.0),  # (0, 1) -> (1, 0) would cut the corner of (1, 1)
    ("allow_one_blocked", 1 + 2 * math.sqrt(2)),
    ("always", 1 + 2 * math.sqrt(2)),
])
def test_to_csr_structure(rule, cost):
    grid = Grid.from_ascii("""
        ....
        .##.
        ....""", diagonal=rule)
    csr = grid.to_csr()
    assert csr.num_nodes == 12
    assert csr.coords.tolist()[6] == [2.0, 1.0]  # node y * W + x holds (x, y)
    blocked = {1 * 4 + 1, 1 * 4 + 2}
    assert not blocked & set(csr.indices.tolist())
    assert all(csr.successors(b) == [] for b in blocked)
    assert csr.find_path(4, 7).cost == pytest.approx(cost, rel=1e-12)


def test_float_indptr_is_refused():
    with pytest.raises(InvalidGridError, match="indptr must be integers"):
        CSRGraph([0, 1.7], [0], [1.0])


def test_from_grid_is_a_deprecated_alias_of_to_csr():
    grid = Grid.from_ascii("....\n.@..\n....")
    with pytest.warns(DeprecationWarning, match="grid.to_csr"):
        old = CSRGraph.from_grid(grid)
    new = grid.to_csr()
    assert old.fingerprint == new.fingerprint


def test_coordinates_far_out_give_the_heuristic_without_overflow():
    """Edge lengths for the heuristic's scale are taken without squares (1e200 ** 2 is inf)."""
    coords = np.array([[0.0, 0.0], [3e200, 4e200], [6e200, 8e200]])
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [5e200, 5e200], coords=coords)
    r = g.find_path(0, 2)
    assert r.found and r.cost == pytest.approx(1e201)


@pytest.mark.parametrize("scale", [1e160, 1e200, 1e300])
def test_coordinates_far_out_give_shortest_paths(scale):
    """Distances between nodes far out are taken without their squares overflowing: the
    heuristic was inf and A* (compiled, generic and incremental) took dearer paths."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        n, m = 25, 100
        u, v, w = rng.integers(0, n, m), rng.integers(0, n, m), rng.uniform(0.1, 10, m)
        coords = rng.uniform(-1, 1, (n, 2)) * scale
        g = CSRGraph.from_edges(n, u, v, w, coords=coords)
        nxg = nx.MultiDiGraph()
        nxg.add_nodes_from(range(n))
        nxg.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
        try:
            want = nx.dijkstra_path_length(nxg, 0, 1)
        except nx.NetworkXNoPath:
            want = math.inf
        assert g.heuristic(0, 1) <= want
        for r in (g.find_path(0, 1), find_path(g, 0, {1}), LPAStar(g, 0, 1).replan(),
                  DStarLite(g, 0, 1).replan()):
            assert r.cost == pytest.approx(want, rel=1e-12)
