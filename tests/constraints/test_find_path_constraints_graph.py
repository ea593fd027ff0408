"""find_path(constraints=) on a positioned graph: its links under the multiplier field, the
end points joined by clear legs, exact against scipy on the same graph."""

from __future__ import annotations

import numpy as np
import pytest
from test_domain_dense_grid import (
    assert_outside,
    hard_across,
    hard_polygons,
    oracle_costs,
    oracle_route,
    random_constraints,
)

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
    """The route's cost equals scipy's Dijkstra over the links costed by an independent
    multiplier, the end points joined to their nearest nodes and to each other by clear
    legs."""
    graph, rng = random_graph(seed)
    field = random_constraints(rng, (0, 0, 20, 20))
    s, g = rng.uniform(0, 20, 2), rng.uniform(0, 20, 2)
    r = graph.find_path(s, g, constraints=field)
    d = graph.constraint_domain
    e = d.edges
    costs = oracle_costs(field, d.points[e[:, 0]], d.points[e[:, 1]], d.base_costs)
    expect = oracle_route(d, costs, s, g, field, graph.links_clear)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        assert r.path[0].tolist() == s.tolist() and r.path[-1].tolist() == g.tolist()
        assert_outside(r.path, hard_polygons(field))


@pytest.mark.parametrize("seed", range(8))
def test_routes_never_enter_a_hard_region(seed):
    """Checked with shapely: no leg or link of a route meets a hard disc or region, even
    where the plain route crosses it."""
    shapely = pytest.importorskip("shapely")
    graph, rng = random_graph(seed)
    s, g = graph.positions[0], graph.positions[-1]
    plain = graph.find_path(s, g, join="quantize")
    line = shapely.LineString(plain.path)
    field, polygons = hard_across(line, seed, rng, (0, 0, 20, 20), 1.5,
                                  [(-1.5, -1), (1.5, -1), (0, 1.5)])
    r = graph.find_path(s + 0.01, g - 0.01, constraints=field)
    if r.found:
        assert_outside(r.path, polygons)
        assert r.cost >= plain.cost - 0.05


def test_start_equal_to_goal_costs_nothing_and_a_clear_straight_leg_is_a_route():
    graph = WaypointGraph([(0, 0), (10, 0)], [(0, 1)])
    field = ConstraintSet([Constraint(Disc((5, 5), 1), -3, near=True)])
    same = graph.find_path((4, 2), (4, 2), constraints=field)
    assert same.found and same.cost == 0.0 and same.path.tolist() == [[4.0, 2.0]]
    r = graph.find_path((4, 2), (6, 2), constraints=field)
    assert r.path.tolist() == [[4.0, 2.0], [6.0, 2.0]] and len(r.nodes) == 0
    assert r.cost == pytest.approx(field.transition_costs([(4, 2)], [(6, 2)])[0])


def test_without_soft_weights_the_cost_lies_between_the_plain_joins():
    """Joining several nearest nodes and the straight leg is never worse than walking to
    the nearest node, never better than linking the ends to every node they see."""
    graph, rng = random_graph(3)
    for _ in range(10):
        s, g = rng.uniform(0, 20, 2), rng.uniform(0, 20, 2)
        quantize = graph.find_path(s, g, join="quantize")
        connect = graph.find_path(s, g, join="connect")
        r = graph.find_path(s, g, constraints=ConstraintSet([]))
        assert connect.cost - 1e-9 <= r.cost <= quantize.cost + 1e-9


def test_legs_are_clear_of_obstacles():
    wall = Obstacles([[(4, -1), (5, -1), (5, 1), (4, 1)]])
    graph = WaypointGraph([(0, 0), (0, 3), (9, 3), (9, 0)], [(0, 1), (1, 2), (2, 3)],
                          obstacles=wall)
    r = graph.find_path((3, 0), (6, 0), constraints=ConstraintSet([]))
    assert r.nodes.tolist() == [1, 2]
    assert r.cost == pytest.approx(2 * np.hypot(3, 3) + 9)


def test_a_hard_disc_on_a_node_blocks_its_links():
    graph = WaypointGraph([(0, 0), (5, 0), (10, 0), (5, 4)], [(0, 1), (1, 2), (0, 3), (3, 2)])
    field = ConstraintSet([Constraint.hard(Disc((5, 0), 1.0))])
    r = graph.find_path((0, 0), (10, 0), constraints=field)
    assert r.nodes.tolist() == [3] and r.cost == pytest.approx(2 * np.hypot(5, 4))


@pytest.mark.parametrize("options, match", [
    ({"join": "connect"}, "join"), ({"method": "theta"}, "method"),
    ({"constraints": "no"}, "ConstraintSet"), ({"t": float("inf")}, "t")])
def test_bad_queries_are_refused(options, match):
    graph = WaypointGraph([(0, 0), (5, 0)], [(0, 1)])
    options = {"constraints": ConstraintSet([]), **options}
    with pytest.raises(InvalidQueryError, match=match):
        graph.find_path((0, 0), (5, 0), **options)


def test_wayfinding_find_path_hands_constraints_to_the_graph():
    from wayfinding import find_path

    graph, rng = random_graph(4)
    field = random_constraints(rng, (0, 0, 20, 20))
    s, g = graph.positions[2] + 0.1, graph.positions[30] - 0.1
    r = find_path(graph, s, g, constraints=field, method="dijkstra", t=1.0)
    ref = graph.find_path(s, g, constraints=field, method="dijkstra", t=1.0)
    assert r.found and r.cost == ref.cost and np.array_equal(r.path, ref.path)
    with pytest.raises(InvalidQueryError, match="constraints= needs"):
        find_path(graph, s, g, constraints=field, heuristic=lambda a, b: 0.0)
