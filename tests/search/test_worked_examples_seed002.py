"""Worked examples of the seed002 notes (section 12, "Dijkstra and A*").

The Dijkstra step narrative of Fig. 2.1, the goal test on removal, the heuristic values for
(dx, dy) = (3, 4), and the property tests: A* with h = 0 expands exactly what Dijkstra
expands, A* with an admissible h is optimal without more expansions, and weighted A* stays
within its bound.  Open lists are written ``"f: PATH"``, PATH from the node back to the start
(see ``conftest.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import adjacency_problems, cellwise_grid_problems

from wayfinding import AdjacencyGraph, Grid, find_path
from wayfinding.search import astar, dijkstra, reachable_costs

SQRT2 = math.sqrt(2.0)
RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]


# ---------------------------------------------------------------------------- Fig. 2.1

@pytest.fixture(scope="module")
def fig_2_1() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(
        [("s", "r", 1), ("s", "v", 4), ("s", "u", 4), ("r", "v", 2), ("v", "w", 3),
         ("v", "t", 3), ("u", "t", 1)], directed=False)


@pytest.mark.parametrize(("iteration", "removed", "open_after", "decrease_keys"), [
    (1, "s", {"1: rs", "4: vs", "4: us"}, 0),  # insert r(1), v(4), u(4)
    (2, "r", {"3: vrs", "4: us"}, 1),  # decrease v: 4 -> 3
    (3, "v", {"4: us", "6: wvrs", "6: tvrs"}, 1),  # insert w(6), t(6)
    (4, "u", {"5: tus", "6: wvrs"}, 2),  # decrease t: 6 -> 5
    (5, "t", {"6: wvrs"}, 2),  # done
])
def test_fig_2_1_dijkstra_step_narrative(fig_2_1, open_list_trace, iteration, removed,
                                         open_after, decrease_keys):
    dijkstra(fig_2_1, "s", "t")
    assert open_list_trace.selected[iteration - 1] == removed
    assert open_list_trace.open_lists[iteration] == open_after
    stopped = dijkstra(fig_2_1, "s", "t", max_expansions=iteration)
    assert stopped.stats.updated == decrease_keys


def test_fig_2_1_dijkstra_result(fig_2_1, open_list_trace):
    r = dijkstra(fig_2_1, "s", "t", record=True)
    assert r.path == ["s", "u", "t"]
    assert r.cost == 5
    assert len(open_list_trace.selected) == 5  # iterations: 4 expansions + removing t
    assert r.expanded_nodes == ["s", "r", "v", "u"]
    assert r.stats.updated == 2
    assert r.stats.reopened == 0


# ---------------------------------------------------------------------------- goal test

@pytest.fixture(scope="module")
def goal_test_graph() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges([("s", "t", 5), ("s", "v", 1), ("v", "t", 1)],
                                     directed=False)


@pytest.mark.parametrize(("termination", "path", "cost", "decrease_keys"), [
    ("on_select", ["s", "v", "t"], 2, 1),  # goal test on removal: t decreased 5 -> 2
    ("exhaustive", ["s", "v", "t"], 2, 1),
    ("on_visit", ["s", "t"], 5, 0),  # stopping when t is first reached (ForwardSearch)
])
def test_goal_test_on_removal(goal_test_graph, termination, path, cost, decrease_keys):
    r = dijkstra(goal_test_graph, "s", "t", termination=termination)
    assert r.found
    assert r.path == path
    assert r.cost == cost
    assert r.stats.updated == decrease_keys


# ---------------------------------------------------------------------------- heuristics

def _lattice_with_diagonal(diagonal: float, size: int = 6) -> AdjacencyGraph:
    """An empty 8-connected lattice whose diagonal steps cost ``diagonal``."""
    edges = []
    for x in range(size):
        for y in range(size):
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (dx or dy) and 0 <= x + dx < size and 0 <= y + dy < size:
                        edges.append(((x, y), (x + dx, y + dy), diagonal if dx and dy else 1))
    return AdjacencyGraph.from_edges(edges)


def _euclidean() -> float:
    csr = (Grid(np.ones((5, 4), dtype=bool))).to_csr()
    return csr.heuristic(0, 4 * 4 + 3)  # node y * W + x: (0, 0) -> (3, 4)


def _manhattan() -> float:
    return Grid(np.ones((5, 4), dtype=bool), diagonal="never").heuristic((0, 0), (3, 4))


def _octile() -> float:
    return Grid(np.ones((5, 4), dtype=bool)).heuristic((0, 0), (3, 4))


def _true_4_connected() -> float:
    return find_path(Grid(np.ones((5, 4), dtype=bool), diagonal="never"), (0, 0), (3, 4),
                     method="dijkstra").cost


def _true_8_connected() -> float:
    return find_path(Grid(np.ones((5, 4), dtype=bool)), (0, 0), (3, 4), method="dijkstra").cost


def _true_diagonal_1_4() -> float:
    return reachable_costs(_lattice_with_diagonal(1.4), (0, 0))[(3, 4)]


@pytest.mark.parametrize(("measure", "value"), [
    pytest.param(_euclidean, 5.0, id="euclidean"),
    pytest.param(_manhattan, 7.0, id="manhattan"),
    pytest.param(_octile, 4 + (SQRT2 - 1) * 3, id="octile_sqrt2"),
    pytest.param(_true_4_connected, 7.0, id="true_cost_4_connected"),
    pytest.param(_true_8_connected, 4 + (SQRT2 - 1) * 3, id="true_cost_8_connected"),
    pytest.param(_true_diagonal_1_4, 5.2, id="octile_1_4_is_true_cost_with_1_4_diagonals"),
])
def test_heuristic_values_for_dx_3_dy_4(measure, value):
    assert measure() == pytest.approx(value, rel=1e-12)
    assert round(measure(), 4) == round(value, 4)


def test_octile_sqrt2_overestimates_a_grid_with_1_4_diagonals():
    assert _octile() == pytest.approx(5.2426, abs=1e-4)
    assert _octile() > _true_diagonal_1_4()  # inadmissible by up to 1.4 %
    assert _octile() / _true_diagonal_1_4() < 1.015


# ---------------------------------------------------------------------------- properties

def grid_problems(rules=tuple(RULES)):
    """A random grid (any diagonal rule, optional terrain) with two passable cells."""
    return cellwise_grid_problems(max_side=9, rules=rules,
                                  terrains=((1.0,), (1.0, 2.0, 3.5), (0.5, 1.0, 4.0)))


def random_graphs():
    """A random directed graph with float costs over nodes 0..n-1, and a start and goal."""
    cost = st.floats(0, 10, allow_nan=False, allow_infinity=False)
    return adjacency_problems(min_nodes=1, max_nodes=10, costs=cost, max_edges=30)


@settings(max_examples=80, deadline=None)
@given(random_graphs())
def test_astar_with_zero_h_performs_dijkstras_expansions_generic(problem):
    graph, start, goal = problem
    a = astar(graph, start, goal, heuristic=lambda n, g: 0.0, record=True)
    d = dijkstra(graph, start, goal, record=True)
    assert a.expanded_nodes == d.expanded_nodes
    assert a.path == d.path
    assert a.cost == d.cost
    assert (a.stats.generated, a.stats.updated) == (d.stats.generated, d.stats.updated)


@settings(max_examples=80, deadline=None)
@given(grid_problems())
def test_astar_with_zero_h_performs_dijkstras_expansions_grid(problem):
    grid, start, goal = problem
    a = find_path(grid, start, goal, method="astar", heuristic="zero", record=True)
    d = find_path(grid, start, goal, method="dijkstra", record=True)
    np.testing.assert_array_equal(a.expanded_nodes, d.expanded_nodes)
    np.testing.assert_array_equal(a.path, d.path)
    assert a.cost == d.cost


@settings(max_examples=80, deadline=None)
@given(grid_problems(), st.sampled_from(["octile", "euclidean", "chebyshev"]))
def test_astar_with_admissible_h_is_optimal_with_no_more_expansions(problem, heuristic):
    grid, start, goal = problem
    name = "manhattan" if grid.diagonal.value == "never" and heuristic == "octile" \
        else heuristic
    a = find_path(grid, start, goal, method="astar", heuristic=name)
    d = find_path(grid, start, goal, method="dijkstra")
    assert a.found == d.found
    assert a.cost == pytest.approx(d.cost, rel=1e-9)
    assert a.stats.expanded <= d.stats.expanded


@settings(max_examples=60, deadline=None)
@given(grid_problems())
def test_generic_astar_with_grid_heuristic_is_optimal(problem):
    grid, start, goal = problem
    a = astar(grid, start, goal)  # the grid's own octile/Manhattan heuristic
    d = find_path(grid, start, goal, method="dijkstra")
    assert a.found == d.found
    assert a.cost == pytest.approx(d.cost, rel=1e-9)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 2.5])
@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_weighted_astar_within_epsilon_of_optimal(rule, epsilon, data):
    grid, start, goal = data.draw(grid_problems(rules=(rule,)))
    optimal = find_path(grid, start, goal, method="dijkstra")
    compiled = find_path(grid, start, goal, method="weighted_astar", weight=epsilon)
    generic = astar(grid, start, goal, weight=epsilon)
    assert compiled.found == generic.found == optimal.found
    if optimal.found:
        assert compiled.cost <= epsilon * optimal.cost * (1 + 1e-12)
        assert generic.cost <= epsilon * optimal.cost * (1 + 1e-12)
        assert grid.path_cost(compiled.path) == pytest.approx(compiled.cost, rel=1e-12)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_weighted_astar_with_epsilon_1_equals_astar(rule, data):
    grid, start, goal = data.draw(grid_problems(rules=(rule,)))
    w = find_path(grid, start, goal, method="weighted_astar", weight=1.0, record=True)
    a = find_path(grid, start, goal, method="astar", record=True)
    np.testing.assert_array_equal(w.path, a.path)
    np.testing.assert_array_equal(w.expanded_nodes, a.expanded_nodes)
    assert w.cost == a.cost
    gw, ga = astar(grid, start, goal, weight=1.0), astar(grid, start, goal)
    assert (gw.path, gw.cost) == (ga.path, ga.cost)


WALL_MAP = """
    ..........
    ..........
    ..........
    ..........
    .######...
    ......#...
    ......#...
    ......#...
    ......#...
    .........."""


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 2.5])
@pytest.mark.parametrize("rule", RULES)
def test_weighted_astar_bound_on_wall_map(rule, epsilon):
    grid = Grid.from_ascii(WALL_MAP, diagonal=rule)
    optimal = find_path(grid, (0, 9), (9, 0), method="dijkstra").cost
    r = find_path(grid, (0, 9), (9, 0), method="weighted_astar", weight=epsilon)
    assert optimal * (1 - 1e-12) <= r.cost <= epsilon * optimal * (1 + 1e-12)  # float sums
    assert grid.path_cost(r.path) == pytest.approx(r.cost, rel=1e-12)
