"""Worked examples, exercises and derived test cases of the seed001 notes (section 3).

Graphs G1 (Figure 4.4) and G2 (the MIT graph of Exercise 4.1), the Dijkstra and A* traces of
Exercises 4.2-4.7, and the derived cases T3, T7, T7b, T8, T9, T12, T13, T14, T14b, T25, T26,
T30, T31 and T32.  Open lists are written as in the notes, ``"f: PATH"`` with PATH from the
node back to the start (see ``conftest.py``).  Where the book's result depends on its
tie-breaking, the tests pin ours: ties in f go to the larger g, updates only when strictly
cheaper, and start == goal gives the one-node path ``[start]`` (the book: no connections).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import positioned_edge_lists

from wayfinding import (
    AdjacencyGraph,
    CSRGraph,
    Grid,
    InvalidGridError,
    InvalidQueryError,
    find_path,
)
from wayfinding.search import astar, dijkstra, reachable_costs

SQRT2 = math.sqrt(2.0)
RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]

G1_EDGES = [("A", "B", 4), ("A", "D", 5), ("B", "D", 6), ("B", "C", 5)]
G2_EDGES = [("S", "A", 6), ("S", "B", 15), ("A", "C", 6), ("A", "D", 12), ("B", "D", 3),
            ("B", "G", 15), ("D", "C", 9), ("D", "G", 6)]
#: Exercise 4.4's heuristic for the goal G of G2.
H = {"S": 0, "A": 6, "B": 9, "C": 3, "D": 3, "G": 0}


@pytest.fixture(scope="module")
def g1() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(G1_EDGES, directed=False)


@pytest.fixture(scope="module")
def g2() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(G2_EDGES, directed=True)


def edge_cost(graph: AdjacencyGraph, a: str, b: str) -> float:
    """The cheapest stored a -> b edge."""
    return min(c for v, c in graph.successors(a) if v == b)


# ---------------------------------------------------------------------------- G1, G2

@pytest.mark.parametrize(("start", "goal", "cost", "path"), [
    ("A", "C", 9, ["A", "B", "C"]),
    ("A", "B", 4, ["A", "B"]),
    ("A", "D", 5, ["A", "D"]),
    ("D", "C", 11, ["D", "B", "C"]),
    ("C", "A", 9, ["C", "B", "A"]),
])
@pytest.mark.parametrize("search", [astar, dijkstra])
def test_g1_figure_4_4_shortest_paths(g1, search, start, goal, cost, path):
    r = search(g1, start, goal)
    assert r.found
    assert r.cost == cost
    assert r.path == path


@pytest.mark.parametrize(("node", "cost"), [
    ("S", 0), ("A", 6), ("C", 12), ("B", 15), ("D", 18), ("G", 24),
])
def test_g2_exercise_4_1_costs_from_s(g2, node, cost):
    assert reachable_costs(g2, "S")[node] == cost
    assert dijkstra(g2, "S", node).cost == cost


@pytest.mark.parametrize(("path", "cost"), [
    (["S", "A", "D", "G"], 24),
    (["S", "B", "D", "G"], 24),
    (["S", "B", "G"], 30),
])
def test_g2_exercise_4_1_route_costs(g2, path, cost):
    assert sum(edge_cost(g2, a, b) for a, b in itertools.pairwise(path)) == cost


@pytest.mark.parametrize("node", ["C", "G"])
def test_g2_exercise_4_1_dead_ends_have_no_successors(g2, node):
    assert list(g2.successors(node)) == []


# ---------------------------------------------------------------------------- Exercise 4.2

@pytest.mark.parametrize(("line", "open_list"), [
    (1, {"0: S"}),
    (2, {"6: AS", "15: BS"}),
    (3, {"12: CAS", "15: BS", "18: DAS"}),
    (4, {"15: BS", "18: DAS"}),
    (5, {"18: DAS", "30: GBS"}),  # D via B = 18 is not < 18: no update
    (6, {"24: GDAS"}),  # G improved 30 -> 24
    (7, set()),  # G selected: done
])
def test_ex_4_2_dijkstra_open_list_per_line(g2, open_list_trace, line, open_list):
    dijkstra(g2, "S", "G")
    assert open_list_trace.open_lists[line - 1] == open_list


def test_ex_4_2_dijkstra_has_seven_lines(g2, open_list_trace):
    dijkstra(g2, "S", "G")
    assert len(open_list_trace.open_lists) == 7


def test_ex_4_2_dijkstra_selection_order(g2, open_list_trace):
    r = dijkstra(g2, "S", "G", record=True)
    assert open_list_trace.selected == ["S", "A", "C", "B", "D", "G"]
    assert r.expanded_nodes == ["S", "A", "C", "B", "D"]  # the goal is selected, not expanded


@pytest.mark.parametrize(("k", "expanded", "open_nodes"), [
    (0, [], {"S"}),
    (1, ["S"], {"A", "B"}),
    (2, ["S", "A"], {"B", "C", "D"}),
    (3, ["S", "A", "C"], {"B", "D"}),
    (4, ["S", "A", "C", "B"], {"D", "G"}),
])
def test_ex_4_2_dijkstra_stopped_after_k_expansions(g2, k, expanded, open_nodes):
    r = dijkstra(g2, "S", "G", record=True, max_expansions=k)
    assert not r.found
    assert r.cost == math.inf
    assert r.expanded_nodes == expanded
    assert set(r.open_nodes) == open_nodes
    assert r.stats.expanded == k


def test_ex_4_2_dijkstra_result(g2):
    r = dijkstra(g2, "S", "G", record=True)
    assert r.found
    assert r.cost == 24
    assert r.path == ["S", "A", "D", "G"]  # "strictly cheaper" rule: not S-B-D-G
    assert r.open_nodes == []
    assert r.stats.updated == 1  # G: 30 -> 24
    assert r.stats.reopened == 0


# ---------------------------------------------------------------------------- Exercise 4.3 / T3

@pytest.mark.parametrize(("termination", "path", "cost"), [
    ("on_visit", ["S", "B", "G"], 30),  # stops when G is first discovered, at line 5
    ("on_select", ["S", "A", "D", "G"], 24),
    ("exhaustive", ["S", "A", "D", "G"], 24),
])
def test_t3_ex_4_3_dijkstra_termination(g2, termination, path, cost):
    r = dijkstra(g2, "S", "G", termination=termination)
    assert r.found
    assert r.path == path
    assert r.cost == cost


# ---------------------------------------------------------------------------- Exercises 4.4-4.5

@pytest.mark.parametrize(("line", "open_list"), [
    (1, {"0: S"}),
    (2, {"12: AS", "24: BS"}),
    (3, {"15: CAS", "21: DAS", "24: BS"}),
    (4, {"21: DAS", "24: BS"}),
    (5, {"24: BS", "24: GDAS"}),  # the tie goes to G (larger g): the search ends
    (6, {"24: BS"}),
])
def test_ex_4_5_astar_open_list_per_line(g2, open_list_trace, line, open_list):
    astar(g2, "S", "G", heuristic=H)
    assert open_list_trace.open_lists[line - 1] == open_list


def test_ex_4_5_astar_selection_order(g2, open_list_trace):
    r = astar(g2, "S", "G", heuristic=H, record=True)
    assert open_list_trace.selected == ["S", "A", "C", "D", "G"]
    assert r.expanded_nodes == ["S", "A", "C", "D"]
    assert r.open_nodes == ["B"]


@pytest.mark.parametrize("queue", ["heap", "bucket"])
def test_ex_4_5_astar_result(g2, queue):
    r = astar(g2, "S", "G", heuristic=H, queue=queue)
    assert r.found
    assert r.path == ["S", "A", "D", "G"]
    assert r.cost == 24


# ---------------------------------------------------------------------------- Exercise 4.6

@pytest.mark.parametrize(("node", "cost_to_go"), [
    ("S", 24), ("A", 18), ("B", 9), ("C", math.inf), ("D", 6), ("G", 0),
])
def test_ex_4_6_h_is_admissible(g2, node, cost_to_go):
    true = dijkstra(g2, node, "G").cost
    assert true == cost_to_go
    assert H[node] <= true


def test_ex_4_6_largest_admissible_h_of_d_is_6(g2):
    assert dijkstra(g2, "D", "G").cost == 6
    r = astar(g2, "S", "G", heuristic={**H, "D": 6})
    assert (r.path, r.cost) == (["S", "A", "D", "G"], 24)


# ---------------------------------------------------------------------------- Exercise 4.7

@pytest.mark.parametrize(("a", "b", "consistent", "consistent_with_hd_6"), [
    ("S", "A", True, True),
    ("S", "B", True, True),
    ("A", "C", True, True),
    ("A", "D", True, True),
    ("B", "D", False, True),  # 9 <= 3 + 3 fails; 9 <= 3 + 6 holds
    ("B", "G", True, True),
    ("D", "C", True, True),
    ("D", "G", True, True),  # 6 <= 6 + 0
])
def test_ex_4_7_consistency_per_edge(g2, a, b, consistent, consistent_with_hd_6):
    c = edge_cost(g2, a, b)
    h6 = {**H, "D": 6}
    assert (H[a] <= c + H[b]) is consistent
    assert (h6[a] <= c + h6[b]) is consistent_with_hd_6


def test_ex_4_7_graph_has_exactly_the_checked_edges(g2):
    edges = {(a, b) for a in g2.nodes for b, _ in g2.successors(a)}
    assert edges == {(a, b) for a, b, _ in G2_EDGES}


# ---------------------------------------------------------------------------- T7, T7b

@pytest.mark.parametrize(("h_d", "termination", "path", "cost"), [
    (20, "on_select", ["S", "B", "G"], 30),  # h(D) overestimates by 14: 30 <= 24 + 14
    (20, "exhaustive", ["S", "A", "D", "G"], 24),  # closed D is reopened
    (7, "on_select", ["S", "A", "D", "G"], 24),
])
def test_t7_overestimating_heuristic(g2, h_d, termination, path, cost):
    r = astar(g2, "S", "G", heuristic={**H, "D": h_d}, termination=termination)
    assert r.found
    assert r.path == path
    assert r.cost == cost
    assert r.cost <= 24 + (h_d - 6)


def test_t7_exhaustive_reopens_d(g2):
    r = astar(g2, "S", "G", heuristic={**H, "D": 20}, termination="exhaustive")
    assert r.stats.reopened == 1


@pytest.mark.parametrize(("h_d", "path", "cost"), [
    (3, ["S", "A", "D", "G"], 24),
    # B and D tie at f = 24; the book's alphabetical order picks B and returns S-B-G (30),
    # our larger-g rule picks D (g 18 > 15) and finds G through it.
    (6, ["S", "A", "D", "G"], 24),
])
def test_t7b_early_exit_on_visit(g2, h_d, path, cost):
    r = astar(g2, "S", "G", heuristic={**H, "D": h_d}, termination="on_visit")
    assert r.found
    assert r.path == path
    assert r.cost == cost


# ---------------------------------------------------------------------------- T8

T8_EDGES = [("S", "A", 1), ("S", "B", 2), ("A", "C", 3), ("B", "C", 1), ("C", "G", 3)]
T8_H = {"S": 0, "A": 1, "B": 4, "C": 0, "G": 0}


@pytest.fixture(scope="module")
def t8() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(T8_EDGES)


@pytest.mark.parametrize(("line", "open_list"), [
    (1, {"0: S"}),
    (2, {"2: AS", "6: BS"}),
    (3, {"4: CAS", "6: BS"}),
    (4, {"6: BS", "7: GCAS"}),
    (5, {"3: CBS", "7: GCBS"}),  # expanding B reopened C (g 4 -> 3)
    (6, {"6: GCBS"}),
    (7, set()),
])
def test_t8_closed_node_reopening_trace(t8, open_list_trace, line, open_list):
    astar(t8, "S", "G", heuristic=T8_H)
    assert open_list_trace.open_lists[line - 1] == open_list


@pytest.mark.parametrize(("reopen", "path", "cost", "reopened"), [
    (True, ["S", "B", "C", "G"], 6, 1),
    (False, ["S", "A", "C", "G"], 7, 0),
])
def test_t8_closed_node_reopening_result(t8, reopen, path, cost, reopened):
    r = astar(t8, "S", "G", heuristic=T8_H, reopen=reopen)
    assert r.path == path
    assert r.cost == cost
    assert r.stats.reopened == reopened


def test_t8_heuristic_is_admissible_but_inconsistent_at_b_c(t8):
    for node, h in T8_H.items():
        assert h <= dijkstra(t8, node, "G").cost
    assert T8_H["B"] > edge_cost(t8, "B", "C") + T8_H["C"]


# ---------------------------------------------------------------------------- T9

@pytest.fixture(scope="module")
def t9() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges([("A", "B", 1), ("A", "C", 2), ("B", "D", 5),
                                      ("C", "D", 1)])


@pytest.mark.parametrize(("line", "open_list"), [
    (1, {"0: A"}),
    (2, {"1: BA", "2: CA"}),
    (3, {"2: CA", "6: DBA"}),
    (4, {"3: DCA"}),  # open node D updated 6 -> 3
    (5, set()),
])
def test_t9_open_node_update_trace(t9, open_list_trace, line, open_list):
    dijkstra(t9, "A", "D")
    assert open_list_trace.open_lists[line - 1] == open_list


@pytest.mark.parametrize(("termination", "path", "cost", "updated"), [
    ("on_select", ["A", "C", "D"], 3, 1),
    ("on_visit", ["A", "B", "D"], 6, 0),
])
def test_t9_open_node_update_result(t9, termination, path, cost, updated):
    r = dijkstra(t9, "A", "D", termination=termination)
    assert r.path == path
    assert r.cost == cost
    assert r.stats.updated == updated


# ---------------------------------------------------------------------------- T12

@pytest.mark.parametrize("search", [astar, dijkstra])
@pytest.mark.parametrize("node", ["S", "A", "C", "G"])
def test_t12_start_equals_goal(g2, search, node):
    r = search(g2, node, node)
    assert r.found
    assert r.path == [node]  # our convention; the book returns no connections
    assert r.cost == 0


@pytest.mark.parametrize("search", [astar, dijkstra])
@pytest.mark.parametrize(("start", "goal"), [("C", "G"), ("G", "S")])
def test_t12_no_path(g2, search, start, goal):
    r = search(g2, start, goal)
    assert not r.found
    assert r.cost == math.inf
    assert r.path == []


@pytest.mark.parametrize("cost", [-1, -0.001, -math.inf, math.nan, math.inf])
@pytest.mark.parametrize("directed", [True, False])
def test_t12_bad_cost_rejected_at_construction(cost, directed):
    with pytest.raises(InvalidGridError, match="cost"):
        AdjacencyGraph.from_edges([("A", "B", 1), ("B", "C", cost)], directed=directed)


# ---------------------------------------------------------------------------- T13

def _lattice_paths() -> set[tuple[tuple[int, int], ...]]:
    """The C(5, 2) = 10 monotone paths (0, 0) -> (3, 2) on the 4 x 3 lattice."""
    out = set()
    for downs in itertools.combinations(range(5), 2):
        x = y = 0
        cells = [(0, 0)]
        for step in range(5):
            if step in downs:
                y += 1
            else:
                x += 1
            cells.append((x, y))
        out.add(tuple(cells))
    return out


T13_PATHS = _lattice_paths()


@pytest.fixture(scope="module")
def t13_grid() -> Grid:
    return Grid(np.ones((3, 4), dtype=bool), diagonal="never")


@pytest.mark.parametrize(("algo", "options"), [
    ("astar", {}),
    ("dijkstra", {}),
    ("bfs", {}),
    ("bidirectional", {}),
    ("weighted_astar", {"weight": 1.0}),
    ("astar", {"heuristic": lambda n, g: abs(n[0] - g[0]) + abs(n[1] - g[1])}),  # generic
])
def test_t13_many_optimal_paths(t13_grid, algo, options):
    r = find_path(t13_grid, (0, 0), (3, 2), method=algo, **options)
    assert r.found
    assert r.cost == 5
    assert tuple(map(tuple, r.path.tolist())) in T13_PATHS


def test_t13_there_are_ten_optimal_paths(t13_grid):
    dist = reachable_costs(t13_grid, (0, 0))
    count = {(0, 0): 1}
    for u in sorted(dist, key=dist.get):
        for v, c in t13_grid.successors(u):
            if dist[u] + c == dist[v]:
                count[v] = count.get(v, 0) + count[u]
    assert len(T13_PATHS) == 10
    assert dist[(3, 2)] == 5
    assert count[(3, 2)] == 10


# ---------------------------------------------------------------------------- T14

@pytest.mark.parametrize(("point", "cell"), [
    ((3.9, 0.1), (1, 0)),
    ((-0.1, 5.0), (-1, 2)),  # floor, not truncation
    ((0.0, 0.0), (0, 0)),
    ((2.0, 1.999), (1, 0)),
    ((-2.0, -2.001), (-1, -2)),
])
def test_t14_tile_quantization(point, cell):
    grid = Grid(np.ones((4, 4), dtype=bool), cell_size=2.0)
    assert grid.world_to_cell(point) == cell


@pytest.mark.parametrize(("cell", "centre"), [
    ((1, 0), (3.0, 1.0)),
    ((0, 0), (1.0, 1.0)),
    ((-1, 2), (-1.0, 5.0)),
])
def test_t14_tile_localization_is_the_centre(cell, centre):
    grid = Grid(np.ones((4, 4), dtype=bool), cell_size=2.0)
    assert grid.cell_to_world(cell) == centre
    assert grid.world_to_cell(grid.cell_to_world(cell)) == cell


@pytest.mark.parametrize("rule", RULES)
def test_t14_blocked_tile_has_no_incoming_connections(rule):
    passable = np.ones((3, 3), dtype=bool)
    passable[1, 2] = False  # cell (2, 1)
    grid = Grid(passable, diagonal=rule)
    targets = {v for c in grid.iter_cells() for v, _ in grid.successors(c)}
    assert (2, 1) not in targets
    assert grid.successors((2, 1)) == []
    assert len(targets) == 8


# ---------------------------------------------------------------------------- T14b

@pytest.mark.parametrize(("rule", "cost"), [
    ("never", 4.0),
    ("no_corner_cutting", 4.0),
    ("allow_one_blocked", 2 + SQRT2),
    ("always", 2 + SQRT2),
])
@pytest.mark.parametrize(("algo", "options"), [
    ("astar", {}),
    ("dijkstra", {}),
    ("bidirectional", {}),
    ("astar", {"heuristic": lambda n, g: 0.0}),  # generic A*
])
def test_t14b_3x3_grid_with_blocked_centre(rule, cost, algo, options):
    passable = np.ones((3, 3), dtype=bool)
    passable[1, 1] = False
    r = find_path(Grid(passable, diagonal=rule), (0, 0), (2, 2), method=algo, **options)
    assert r.found
    assert r.cost == pytest.approx(cost, rel=1e-12)


# ---------------------------------------------------------------------------- T25

def _squared_distance(n, g) -> float:
    return float((n[0] - g[0]) ** 2 + (n[1] - g[1]) ** 2)


@pytest.mark.parametrize(("node", "goal", "h", "h_star"), [
    ((0, 0), (9, 0), 81, 9),
    ((0, 0), (2, 0), 4, 2),
    ((5, 5), (5, 9), 16, 4),
])
def test_t25_squared_distance_is_not_admissible(node, goal, h, h_star):
    grid = Grid(np.ones((10, 10), dtype=bool), diagonal="never")
    true = find_path(grid, node, goal, method="dijkstra").cost
    assert true == h_star
    assert _squared_distance(node, goal) == h
    assert h > true


T25_MAP = """
..........
..........
..........
..........
.######...
......#...
......#...
......#...
......#...
..........
"""


@pytest.mark.parametrize(("rule", "optimal", "greedy_like"), [
    ("never", 18.0, 22.0),
    ("no_corner_cutting", 12 + 3 * SQRT2, 10 + 6 * SQRT2),
])
def test_t25_squared_distance_gives_suboptimal_paths(rule, optimal, greedy_like):
    grid = Grid.from_ascii(T25_MAP, diagonal=rule)
    best = find_path(grid, (0, 9), (9, 0), method="dijkstra")
    r = find_path(grid, (0, 9), (9, 0), heuristic=_squared_distance)
    assert best.cost == pytest.approx(optimal, rel=1e-12)
    assert r.cost == pytest.approx(greedy_like, rel=1e-12)
    assert r.cost > best.cost
    assert grid.path_cost(r.path) == pytest.approx(r.cost, rel=1e-12)


# ---------------------------------------------------------------------------- T26

def _manhattan(a, b) -> float:
    return float(abs(a[0] - b[0]) + abs(a[1] - b[1]))


@pytest.mark.parametrize("goal", [(0, 0), (3, 0), (0, 7), (4, 4), (7, 2), (7, 7)])
def test_t26_manhattan_is_exact_on_empty_4_connected_grid(goal):
    grid = Grid(np.ones((8, 8), dtype=bool), diagonal="never")
    true = reachable_costs(grid, goal)
    assert len(true) == 64
    assert all(_manhattan(c, goal) == d for c, d in true.items())
    assert all(grid.heuristic(c, goal) == d for c, d in true.items())


@pytest.mark.parametrize("rule", RULES[1:])
@pytest.mark.parametrize("step", [(1, 1), (-1, 1), (1, -1), (-1, -1)])
def test_t26_manhattan_overestimates_a_diagonal_step(rule, step):
    grid = Grid(np.ones((3, 3), dtype=bool), diagonal=rule)
    a, b = (1, 1), (1 + step[0], 1 + step[1])
    true = find_path(grid, a, b, method="dijkstra").cost
    assert true == pytest.approx(SQRT2)
    assert _manhattan(a, b) == 2 > true
    assert grid.heuristic(a, b) == pytest.approx(true)  # octile: exact here


@pytest.mark.parametrize("rule", RULES[1:])
def test_t26_manhattan_on_8_connected_grid_loses_optimality(rule):
    grid = Grid(np.ones((10, 10), dtype=bool), diagonal=rule)
    best = find_path(grid, (0, 0), (9, 9))
    r = find_path(grid, (0, 0), (9, 9), heuristic="manhattan")
    assert best.cost == pytest.approx(9 * SQRT2)
    assert r.cost > best.cost


# ---------------------------------------------------------------------------- T30

def _exact_cost_to(graph, goals):
    """h*(node, goal); a predicate goal is passed to heuristics as ``None``."""
    def h(node, goal):
        return dijkstra(graph, node, goals if goal is None else goal).cost
    return h


T30_GOALS = {"C", "G"}


@pytest.mark.parametrize("heuristic", [
    pytest.param(None, id="none"),
    pytest.param(lambda n, g: 0.0, id="zero"),
    pytest.param(_exact_cost_to(AdjacencyGraph.from_edges(G2_EDGES), T30_GOALS),
                 id="exact_min_over_goals"),
    pytest.param({"S": 12, "A": 6, "B": 9, "C": 0, "D": 6, "G": 0}, id="table"),
])
@pytest.mark.parametrize("goal", [
    pytest.param(T30_GOALS, id="set"),
    pytest.param(frozenset(T30_GOALS), id="frozenset"),
    pytest.param(T30_GOALS.__contains__, id="predicate"),
])
def test_t30_open_goal(g2, heuristic, goal):
    r = astar(g2, "S", goal, heuristic=heuristic)
    assert r.found
    assert r.path == ["S", "A", "C"]
    assert r.cost == 12


@pytest.mark.parametrize("heuristic", [None, H])
def test_t30_single_goal_set(g2, heuristic):
    r = astar(g2, "S", {"G"}, heuristic=heuristic)
    assert r.path == ["S", "A", "D", "G"]
    assert r.cost == 24


# ---------------------------------------------------------------------------- T31

def integer_graphs():
    """``(n, edges, coords)``: 2 to 12 nodes, up to 40 edges of cost 0 to 20, and integer
    coordinates half the time (else None)."""
    return positioned_edge_lists(max_nodes=12, costs=st.integers(0, 20), max_edges=40,
                                 optional_coords=True)


@settings(max_examples=60, deadline=None)
@given(integer_graphs(), st.data())
def test_t31_compiled_astar_equals_generic_astar(graph, data):
    n, edges, coords = graph
    s, t, w = (list(col) for col in zip(*edges)) if edges else ([], [], [])
    csr = CSRGraph.from_edges(n, s, t, w, coords=coords)
    adj = AdjacencyGraph({u: [] for u in range(n)})
    for a, b, c in edges:
        adj.add_edge(a, b, c)
    start = data.draw(st.integers(0, n - 1), label="start")
    goal = data.draw(st.integers(0, n - 1), label="goal")
    compiled = csr.find_path(start, goal, record=True)
    generic_csr = astar(csr, start, goal)  # uses the CSR graph's own heuristic
    generic_adj = astar(adj, start, goal)
    assert compiled.found == generic_csr.found == generic_adj.found
    assert compiled.cost == generic_csr.cost == generic_adj.cost
    # category UNVISITED -> OPEN -> CLOSED: no node is expanded twice
    expanded = compiled.expanded_nodes.tolist()
    assert len(expanded) == len(set(expanded))


# ---------------------------------------------------------------------------- T32

@pytest.mark.parametrize("edges", [
    [("A", "B", 5), ("A", "B", 2)],
    [("A", "B", 2), ("A", "B", 5)],
    [("A", "B", 5), ("A", "B", 2), ("A", "B", 3)],
])
@pytest.mark.parametrize("search", [astar, dijkstra])
def test_t32_parallel_connections_use_the_cheapest(edges, search):
    graph = AdjacencyGraph.from_edges(edges)
    r = search(graph, "A", "B")
    assert r.path == ["A", "B"]
    assert r.cost == 2


def test_dijkstra_accepts_an_explicit_none_heuristic():
    g = AdjacencyGraph.from_edges([("a", "b", 1)])
    assert dijkstra(g, "a", "b", heuristic=None).cost == 1.0


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_bad_max_expansions_is_refused(bad):
    g = AdjacencyGraph.from_edges([("a", "b", 1)])
    with pytest.raises(InvalidQueryError, match="max_expansions"):
        astar(g, "a", "b", max_expansions=bad)


@pytest.mark.parametrize("value", [float("nan"), -1.0])
def test_bad_heuristic_values_are_refused(value):
    g = AdjacencyGraph.from_edges([("a", "b", 1)])
    with pytest.raises(InvalidQueryError, match="heuristic gave"):
        astar(g, "a", "b", heuristic=lambda n, t: value)


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_t27_interruptible_astar_matches_one_run(chunk):
    from wayfinding.search import AStarSearch

    g2 = AdjacencyGraph.from_edges([("S", "A", 6), ("S", "B", 15), ("A", "C", 6),
                                    ("A", "D", 12), ("B", "D", 3), ("B", "G", 15),
                                    ("D", "C", 9), ("D", "G", 6)])
    h = {"S": 0, "A": 6, "B": 9, "C": 3, "D": 3, "G": 0}
    whole = astar(g2, "S", "G", heuristic=h)
    search = AStarSearch(g2, "S", "G", heuristic=h)
    statuses = []
    while search.status == "running":
        statuses.append(search.step(max_expansions=chunk))
        assert len(statuses) < 50
    assert statuses[-1] == "found" and set(statuses[:-1]) <= {"running"}
    r = search.result()
    assert r.path == whole.path == ["S", "A", "D", "G"] and r.cost == whole.cost == 24
    assert r.stats.expanded == whole.stats.expanded


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7))
def test_t27_slices_equal_one_run_on_random_graphs(seed, chunk):
    from wayfinding.search import AStarSearch

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    edges = [(int(a), int(b), float(rng.integers(0, 9)))
             for a, b in rng.integers(0, n, size=(3 * n, 2))]
    g = AdjacencyGraph.from_edges(edges)
    whole = astar(g, 0, n - 1)
    search = AStarSearch(g, 0, n - 1)
    while search.step(max_expansions=chunk) == "running":
        pass
    r = search.result()
    assert (r.found, r.path, r.cost) == (whole.found, whole.path, whole.cost)
    assert search.status == ("found" if whole.found else "failed")
