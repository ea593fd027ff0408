"""find_path(constraints=) on a positioned graph: its links under the multiplier field, the
end points joined by clear legs, exact against scipy on the same graph."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import assert_outside, hard_polygons, random_constraints

from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.errors import InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import PositionedGraph, WaypointGraph


def random_graph(seed):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 20, (40, 2))
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    i, j = np.nonzero(np.triu(d < 6.0, 1))
    return PositionedGraph(pts, np.stack([i, j], 1)), rng


@pytest.mark.parametrize("seed", range(12))
def test_cost_equals_scipy_dijkstra_with_the_legs(seed):
    graph, rng = random_graph(seed)
    field = random_constraints(rng, (0, 0, 20, 20))
    s, g = rng.uniform(0, 20, 2), rng.uniform(0, 20, 2)
    r = graph.find_path(s, g, constraints=field)
    d = graph.constraint_domain
    u, leg_s = d.join(s, field)
    v, leg_g = d.join(g, field)
    c = d.costs(field)
    ok = np.isfinite(c)
    m = csr_array((c[ok], (d.edges[ok, 0], d.edges[ok, 1])), shape=(d.num_nodes,) * 2)
    expect = np.inf if min(u, v) < 0 else dijkstra(m, indices=u)[v] + leg_s + leg_g
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        assert r.path[0].tolist() == s.tolist() and r.path[-1].tolist() == g.tolist()
        assert_outside(r.path, hard_polygons(field))


def test_without_soft_weights_the_cost_is_the_plain_graph_cost():
    graph, rng = random_graph(3)
    d = graph.constraint_domain
    s, g = d.points[0], d.points[7]
    plain = graph.find_path(s, g, join="quantize")
    r = graph.find_path(s, g, constraints=ConstraintSet([]))
    assert r.cost == pytest.approx(plain.cost, rel=1e-12)


def test_legs_are_clear_of_obstacles():
    wall = Obstacles([[(4, -1), (5, -1), (5, 1), (4, 1)]])
    graph = WaypointGraph([(0, 0), (0, 3), (9, 3), (9, 0)], [(0, 1), (1, 2), (2, 3)],
                          obstacles=wall)
    r = graph.find_path((3, 0), (6, 0), constraints=ConstraintSet([]))
    assert r.nodes.tolist() == [0, 1, 2, 3]
    assert r.cost == pytest.approx(3 + 3 + 9 + 3 + 3)


def test_a_hard_disc_on_a_node_blocks_its_links():
    graph = WaypointGraph([(0, 0), (5, 0), (10, 0), (5, 4)], [(0, 1), (1, 2), (0, 3), (3, 2)])
    field = ConstraintSet([Constraint.hard(Disc((5, 0), 1.0))])
    r = graph.find_path((0, 0), (10, 0), constraints=field)
    assert r.nodes.tolist() == [0, 3, 2]


@pytest.mark.parametrize("options, match", [
    ({"join": "connect"}, "join"), ({"method": "theta"}, "method"),
    ({"constraints": "no"}, "ConstraintSet"), ({"t": float("inf")}, "t")])
def test_bad_queries_are_refused(options, match):
    graph = WaypointGraph([(0, 0), (5, 0)], [(0, 1)])
    options = {"constraints": ConstraintSet([]), **options}
    with pytest.raises(InvalidQueryError, match=match):
        graph.find_path((0, 0), (5, 0), **options)
