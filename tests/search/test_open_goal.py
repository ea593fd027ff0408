"""Open-goal search: goal sets (minimum-over-goals heuristic) and predicates, on generic
graphs, CSR graphs and grids, with the notes' "near blocked goal, far open goal" pitfall."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import cellwise_grids, positioned_edge_lists

from wayfinding import AdjacencyGraph, CSRGraph, Grid, InvalidQueryError, find_path
from wayfinding.search import astar, dijkstra
from wayfinding.search.lowmem import ida_star

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]


def positioned_edge_sets():
    """``(n, edges, coords)``: 2 to 12 nodes, up to 40 edges of cost 1 to 20, integer
    coordinates."""
    return positioned_edge_lists(max_nodes=12, costs=st.integers(1, 20), max_edges=40)


@settings(max_examples=80, deadline=None)
@given(positioned_edge_sets(), st.data())
def test_goal_set_cost_is_the_nearest_goal(graph, data):
    n, edges, xy = graph
    s, t, w = (list(c) for c in zip(*edges)) if edges else ([], [], [])
    csr = CSRGraph.from_edges(n, s, t, w, coords=xy)
    start = data.draw(st.integers(0, n - 1))
    goals = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=4))
    dist = csr.distances(start)
    expected = min(dist[g] for g in goals)
    # the graph's own heuristic, minimum over the goals: admissible for the nearest goal
    for node in range(n):
        h = min(csr.heuristic(node, g) for g in goals)
        assert h <= min(csr.distances(node)[g] for g in goals) + 1e-9
    for r in (astar(csr, start, goals), find_path(csr, start, goals),
              find_path(csr, start, goals, method="dijkstra"), ida_star(csr, start, goals)):
        if math.isinf(expected):
            assert not r.found
            continue
        assert r.found and r.cost == pytest.approx(expected)
        path = list(r.path)
        assert path[0] == start and path[-1] in goals
        assert dist[path[-1]] == pytest.approx(expected)
    assert isinstance(find_path(csr, start, goals).path, np.ndarray)


def test_predicate_goal_with_and_without_heuristic():
    g = AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(10)] + [(0, 20, 7)])
    for h in (None, lambda n, goal: max(0, 5 - n) if isinstance(n, int) and n < 20 else 0):
        r = astar(g, 0, lambda n: n % 5 == 0 and n > 0, heuristic=h)
        assert (r.path, r.cost) == ([0, 1, 2, 3, 4, 5], 5)


# ---------------------------------------------------------------------------- pitfall

PITFALL = """
..........................
..........................
..........................
..........................
...........#####..........
...........#...#..........
...........#...#..........
...........#####..........
..........................
..........................
"""


def test_near_blocked_goal_floods_before_the_far_open_goal():
    grid = Grid.from_ascii(PITFALL)
    start, near, far = (4, 5), (13, 5), (25, 0)  # near is walled in
    both = find_path(grid, start, {near, far})
    only_far = find_path(grid, start, far)
    generic_far = find_path(grid, start, {far})
    assert both.found and tuple(both.path[-1]) == far
    assert both.cost == pytest.approx(only_far.cost)
    assert generic_far.cost == pytest.approx(only_far.cost)
    # the min-over-goals heuristic points at the blocked goal: far more expansions
    assert both.stats.expanded > 2 * generic_far.stats.expanded


# ---------------------------------------------------------------------------- grids

def grids():
    """Grids of 2 to 8 cells a side, each cell free or not and costing 1, 2 or 3.5."""
    return cellwise_grids(min_side=2, max_side=8, terrains=((1.0, 2.0, 3.5),), walls="flag",
                          open_corner=False, rules=RULES)


@settings(max_examples=80, deadline=None)
@given(grids(), st.data())
def test_grid_goal_set_equals_the_best_single_goal(grid, data):
    cells = [(int(x), int(y)) for y, x in zip(*np.nonzero(grid.passable))]
    if len(cells) < 2:
        return
    start = data.draw(st.sampled_from(cells))
    goals = data.draw(st.sets(st.sampled_from(cells), min_size=1, max_size=3))
    singles = [find_path(grid, start, g).cost for g in goals]  # compiled, one goal each
    r = find_path(grid, start, goals)
    if all(math.isinf(c) for c in singles):
        assert not r.found
        return
    assert r.found and r.cost == pytest.approx(min(singles))
    assert tuple(r.path[0]) == start and tuple(r.path[-1]) in goals
    assert grid.path_cost(r.path) == pytest.approx(r.cost)
    pred = find_path(grid, start, frozenset(goals).__contains__)
    assert pred.cost == pytest.approx(min(singles))
    assert dijkstra(grid, start, set(goals)).cost == pytest.approx(min(singles))


def test_networkx_multi_goal_oracle_on_g2():
    edges = [("S", "A", 6), ("S", "B", 15), ("A", "C", 6), ("A", "D", 12), ("B", "D", 3),
             ("B", "G", 15), ("D", "C", 9), ("D", "G", 6)]
    g = AdjacencyGraph.from_edges(edges)
    nxg = nx.DiGraph()
    nxg.add_weighted_edges_from(edges)
    for goals in ({"C", "G"}, {"D", "G"}, {"B"}):
        expected = min(nx.dijkstra_path_length(nxg, "S", t) for t in goals)
        assert astar(g, "S", goals).cost == expected


def test_open_goal_bad_inputs():
    grid = Grid.from_ascii("..#\n...")
    with pytest.raises(InvalidQueryError, match="blocked"):
        find_path(grid, (0, 0), {(2, 0), (1, 1)})
    with pytest.raises(InvalidQueryError, match="empty"):
        find_path(grid, (0, 0), set())
    with pytest.raises(InvalidQueryError, match="jps"):
        find_path(grid, (0, 0), {(1, 1)}, method="jps")
    with pytest.raises(InvalidQueryError):
        find_path(CSRGraph.from_edges(2, [0], [1], [1.0]), 5, {1})
