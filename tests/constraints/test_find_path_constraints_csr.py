"""find_path(constraints=) on a CSR graph with coords: its edges, weights as base costs,
under the multiplier field, exact against scipy on the same graph."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import (
    assert_empty_set_costs_the_plain_search,
    assert_outside,
    hard_across,
    oracle_costs,
    random_constraints,
)

from wayfinding import find_path
from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.errors import InvalidQueryError
from wayfinding.graph import CSRGraph


def random_graph(seed, *, directed=False):
    """40 nodes in a 20 × 20 square, linked within 6 units, weights 1 to 3 times the
    length (each pair once per direction)."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 20, (40, 2))
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    i, j = np.nonzero(np.triu(d < 6.0, 1))
    w = d[i, j] * rng.uniform(1, 3, len(i))
    return CSRGraph.from_edges(40, i, j, w, directed=directed, coords=pts), rng


def edge_list(graph):
    src = np.repeat(np.arange(graph.num_nodes), np.diff(graph.indptr))
    return src, graph.indices.astype(np.int64), graph.weights


def oracle(graph, field, s, g, t=0.0):
    """scipy's Dijkstra over the graph's own edges costed by an independent multiplier."""
    src, dst, w = edge_list(graph)
    xy = graph.coords
    costs = oracle_costs(field, xy[src], xy[dst], w, t)
    ok = np.isfinite(costs)
    m = csr_array((costs[ok], (src[ok], dst[ok])), shape=(graph.num_nodes,) * 2)
    return float(dijkstra(m, indices=s)[g]), dict(zip(zip(src.tolist(), dst.tolist()), costs))


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("seed", range(10))
def test_cost_equals_scipy_dijkstra_on_the_same_graph(seed, method):
    graph, rng = random_graph(seed, directed=bool(seed % 2))
    field = random_constraints(rng, (0, 0, 20, 20))
    s, g = (int(v) for v in rng.choice(40, 2, replace=False))
    r = graph.find_path(s, g, method=method, constraints=field)
    expect, costs = oracle(graph, field, s, g)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        assert r.path.tolist() == r.nodes.tolist() and r.path[[0, -1]].tolist() == [s, g]
        walked = sum(costs[(int(u), int(v))] for u, v in zip(r.path[:-1], r.path[1:]))
        assert walked == pytest.approx(r.cost, rel=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_routes_never_enter_a_hard_region(seed):
    """Checked with shapely on the path's points: a hard disc or triangle on the plain
    route's middle is gone around (or there is no route)."""
    shapely = pytest.importorskip("shapely")
    graph, rng = random_graph(seed)
    plain = graph.find_path(0, 39)
    assert plain.found
    line = shapely.LineString(graph.coords[plain.path])
    field, polygons = hard_across(line, seed, rng, (0, 0, 20, 20), 1.5,
                                  [(-1.5, -1), (1.5, -1), (0, 1.5)])
    r = graph.find_path(0, 39, constraints=field)
    assert r.found == np.isfinite(oracle(graph, field, 0, 39)[0])
    if r.found:
        assert_outside(graph.coords[r.path], polygons)
        assert r.cost > plain.cost


@pytest.mark.parametrize("seed", range(4))
def test_an_empty_set_costs_what_the_graph_search_does(seed):
    graph, rng = random_graph(seed)
    s, g = (int(v) for v in rng.choice(40, 2, replace=False))
    assert_empty_set_costs_the_plain_search(graph.find_path, s, g)


def test_an_end_node_in_a_hard_region_has_no_path_and_start_equal_to_goal_costs_nothing():
    graph = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], directed=False,
                                coords=[(0, 0), (1, 0), (2, 0)])
    hard = ConstraintSet([Constraint.hard(Disc((2, 0), 0.5))])
    r = graph.find_path(0, 2, constraints=hard)
    assert not r.found and r.cost == np.inf and len(r.path) == 0
    same = graph.find_path(1, 1, constraints=hard)
    assert same.found and same.cost == 0.0 and same.path.tolist() == [1]


def test_a_time_varying_weight_changes_the_cost_with_t():
    graph, _ = random_graph(3)
    field = ConstraintSet([Constraint(Disc((10, 10), 4), lambda t: 3.0 * t)])
    for t in (0.0, 1.0, 2.0):
        r = graph.find_path(0, 39, constraints=field, t=t)
        assert r.cost == pytest.approx(oracle(graph, field, 0, 39, t)[0], rel=1e-9)


def test_the_library_find_path_hands_constraints_to_the_graph():
    graph, rng = random_graph(5)
    field = random_constraints(rng, (0, 0, 20, 20))
    r = find_path(graph, 0, 39, constraints=field)
    assert r.cost == graph.find_path(0, 39, constraints=field).cost
    assert r.algorithm == graph.find_path(0, 39, constraints=field).algorithm


def test_a_graph_without_plane_coords_is_refused():
    field = ConstraintSet([Constraint(Disc((0, 0), 1), 2.0)])
    bare = CSRGraph.from_edges(2, [0], [1], [1.0])
    with pytest.raises(InvalidQueryError, match="coords"):
        bare.find_path(0, 1, constraints=field)
    spatial = CSRGraph.from_edges(2, [0], [1], [1.0], coords=[(0, 0, 0), (1, 0, 0)])
    with pytest.raises(InvalidQueryError, match="coords"):
        spatial.find_path(0, 1, constraints=field)


@pytest.mark.parametrize("options", [
    {"constraints": "open"}, {"constraints": [Constraint(Disc((0, 0), 1), 2.0)]},
    {"t": float("nan")}, {"method": "jps"}, {"record": True}, {"differential": object()},
    {"bounds": object()}, {"zones": object()}])
def test_bad_queries_are_refused(options):
    graph, _ = random_graph(1)
    query = {"constraints": ConstraintSet([Constraint(Disc((0, 0), 1), 2.0)]), **options}
    with pytest.raises(InvalidQueryError):
        graph.find_path(0, 1, **query)


@pytest.mark.parametrize("start, goal", [(-1, 1), (0, 40), (0.5, 1), ("0", 1)])
def test_bad_nodes_are_refused(start, goal):
    graph, _ = random_graph(1)
    with pytest.raises(InvalidQueryError):
        graph.find_path(start, goal, constraints=ConstraintSet([]))
