"""Millington's hierarchical graph and its searches: T15, T16, T16b, brute-force link costs,
validity and cost ratio on random graphs, save/load and bad input."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import edge_lists

from wayfinding import (
    AdjacencyGraph,
    CSRGraph,
    Grid,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.results import Status
from wayfinding.search import astar
from wayfinding.search.hierarchical import (
    hierarchical_path,
    hierarchical_path_exclusions,
    hierarchical_step,
)
from wayfinding.search.hierarchy import LINK_COSTS, HierarchicalGraph, cell_grouping

# ---------------------------------------------------------------------------- T15

T15_EDGES = [("A1", "C1", 1), ("B1", "C6", 1), ("C1", "C2", 1), ("C2", "C3", 1),
             ("C3", "C4", 1), ("C4", "C5", 1), ("C6", "C7", 1), ("C5", "C7", 3),
             ("C5", "D1", 1), ("C7", "D2", 1)]


@pytest.fixture(scope="module")
def t15() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(T15_EDGES, directed=False)


@pytest.mark.parametrize(("method", "cost"), [
    ("minimum", 1.0), ("maximin", 5.0), ("average_minimum", 3.5),
])
def test_t15_link_cost_c_to_d(t15, method, cost):
    h = HierarchicalGraph.build(t15, [{n: n[0] for n in t15.nodes}], link_cost=method)
    assert dict(h.level_graph(1).successors("C"))["D"] == cost


# ---------------------------------------------------------------------------- T16, T16b

GROUPS_T16 = {i: f"g{i // 3}" for i in range(9)}
TOP_T16 = {"g0": "top", "g1": "top", "g2": "top"}


@pytest.fixture(scope="module")
def corridor() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(8)], directed=False)


@pytest.fixture(scope="module")
def t16(corridor) -> HierarchicalGraph:
    return HierarchicalGraph.build(corridor, [GROUPS_T16, TOP_T16])


@pytest.mark.parametrize("positions", [None, {i: (float(i), 0.0) for i in range(9)}])
def test_t16_representatives_are_the_centres(corridor, positions):
    h = HierarchicalGraph.build(corridor, [GROUPS_T16, TOP_T16], positions=positions)
    assert [h.representative(1, g) for g in ("g0", "g1", "g2")] == [1, 4, 7]
    assert h.representative(2, "top") == "g1"


def test_t16_levels_and_mapping(t16):
    assert t16.levels == 3
    assert t16.get_node_at_level(0, 5, 1) == "g1"
    assert t16.get_node_at_level(0, 5, 2) == "top"
    assert t16.get_node_at_level(2, "top", 0) == 4
    assert t16.get_node_at_level(1, "g2", 0) == 7
    assert t16.get_node_at_level(1, "g2", 1) == "g2"
    assert t16.members(1, "g1") == [3, 4, 5]
    # average-minimum: the only entry toward g0 is 5 (from g2): 5 -> 3 (2) + link (1)
    assert sorted(t16.level_graph(1).successors("g1")) == [("g0", 3.0), ("g2", 3.0)]
    assert t16.level_graph(0) is not None


def test_t16_hierarchical_step(t16):
    r = hierarchical_step(t16, 0, 8)
    assert r.found and not r.reached_goal
    assert r.status is Status.FOUND          # the step is found; the goal is not reached yet
    here = hierarchical_step(t16, 8, 8)
    assert here.status is Status.FOUND and here.reached_goal
    assert r.path == [0, 1, 2, 3, 4]
    assert r.cost == 4
    assert r.plans == [(1, ["g0", "g1", "g2"]), (0, [0, 1, 2, 3, 4])]  # level 2 skipped


def test_t16_level_graphs_work_with_plain_astar(t16):
    r = astar(t16.level_graph(1), "g0", "g2")
    assert r.path == ["g0", "g1", "g2"]


def test_t16_full_path_and_exclusions(t16):
    full = hierarchical_path(t16, 0, 8)
    assert full.path == list(range(9)) and full.cost == 8 and full.reached_goal
    ex = hierarchical_path_exclusions(t16, 0, 8)
    assert ex.path == list(range(9)) and ex.cost == 8
    assert ex.plans[0] == (1, ["g0", "g1", "g2"])


def _buggy_step(h, start, goal):
    """The book's driver order: the goal is replaced while levels are skipped."""
    end, end_level = goal, 0
    for level in range(h.levels - 1, -1, -1):
        s = h.get_node_at_level(0, start, level)
        e = h.get_node_at_level(end_level, end, level)
        end, end_level = e, level
        if s == e:
            continue
        path = astar(h.level_graph(level), s, e).path
        if level == 0:
            return path
        end = path[1]


def test_t16b_skipped_level_keeps_the_goal(corridor):
    h = HierarchicalGraph.build(corridor, [GROUPS_T16, TOP_T16],
                                representatives=[None, {"top": "g0"}])
    assert h.representative(2, "top") == "g0"
    r = hierarchical_step(h, 0, 8)
    assert (r.path, r.cost) == ([0, 1, 2, 3, 4], 4)
    assert _buggy_step(h, 0, 8) == [0, 1]  # what the bug would give


def test_exclusions_searches_only_the_corridor():
    # a ladder: row 0 and row 1 joined at both ends; groups are the two rows' halves
    edges = [(i, i + 1, 1) for i in range(3)] + [(i + 4, i + 5, 1) for i in range(3)]
    edges += [(0, 4, 1), (3, 7, 1)]
    g = AdjacencyGraph.from_edges(edges, directed=False)
    groups = {0: "a", 1: "a", 2: "b", 3: "b", 4: "c", 5: "c", 6: "d", 7: "d"}
    h = HierarchicalGraph.build(g, [groups], link_cost="minimum")
    ex = hierarchical_path_exclusions(h, 0, 3)
    assert ex.plans[0] == (1, ["a", "b"])
    assert set(ex.path) <= {0, 1, 2, 3}
    assert ex.path == [0, 1, 2, 3]


# ---------------------------------------------------------------------------- brute force

def _brute_link_costs(edges, groups, method):
    """Link costs straight from the definitions, with networkx distances."""
    g = nx.DiGraph()
    g.add_nodes_from(groups)
    for a, b, c in edges:
        if not g.has_edge(a, b) or g[a][b]["weight"] > c:
            g.add_edge(a, b, weight=c)
    out = {}
    for x in set(groups.values()):
        inside = g.subgraph([n for n in groups if groups[n] == x])
        for y in set(groups.values()) - {x}:
            links = [(u, v, d["weight"]) for u, v, d in g.edges(data=True)
                     if groups[u] == x and groups[v] == y]
            if not links:
                continue
            minimum = min(c for _, _, c in links)
            entries = {v for u, v in g.edges() if groups[v] == x and groups[u] not in (x, y)}
            values = []
            for e in entries:
                dist = nx.single_source_dijkstra_path_length(inside, e)
                best = min((dist[u] + c for u, _, c in links if u in dist), default=math.inf)
                if best < math.inf:
                    values.append(best)
            if method == "minimum" or not values:
                out[x, y] = minimum
            elif method == "maximin":
                out[x, y] = max(values)
            else:
                out[x, y] = sum(values) / len(values)
    return out


@st.composite
def grouped_graphs(draw):
    n, edges = draw(edge_lists(max_nodes=10, max_edges=30))
    groups = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return n, edges, {i: groups[i] for i in range(n)}


@settings(max_examples=60, deadline=None)
@given(grouped_graphs(), st.sampled_from(LINK_COSTS), st.booleans())
def test_link_costs_match_brute_force(graph, method, as_csr):
    n, edges, groups = graph
    if as_csr:
        s, t, w = (list(c) for c in zip(*edges)) if edges else ([], [], [])
        base = CSRGraph.from_edges(n, s, t, w)
        h = HierarchicalGraph.build(base, [np.array([groups[i] for i in range(n)])],
                                    link_cost=method)
    else:
        base = AdjacencyGraph({i: [] for i in range(n)})
        for a, b, c in edges:
            base.add_edge(a, b, c)
        h = HierarchicalGraph.build(base, [groups], link_cost=method)
    level = h.level_graph(1)
    got = {(x, y): c for x in level.nodes for y, c in level.successors(x)}
    expected = _brute_link_costs(edges, groups, method)
    assert got.keys() == expected.keys()
    for key, cost in expected.items():
        assert got[key] == pytest.approx(cost)


# ---------------------------------------------------------------------------- validity

@st.composite
def undirected_grouped(draw):
    n, edges = draw(edge_lists(max_nodes=14, costs=st.integers(1, 9), max_edges=35))
    g1 = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    g2 = draw(st.lists(st.integers(0, 1), min_size=5, max_size=5))
    return n, edges, g1, g2


def _check_valid(graph, path, cost, start, goal):
    assert path[0] == start and path[-1] == goal
    total = 0.0
    for a, b in zip(path, path[1:]):
        costs = [c for v, c in graph.successors(a) if v == b]
        assert costs, f"no edge {a} -> {b}"
        total += min(costs)
    assert total == pytest.approx(cost)


def _check_full_path(base, h, start, goal):
    """``hierarchical_path`` finds the goal exactly when the graph reaches it, by a real path
    no cheaper than the best; returns the best path."""
    best = base.find_path(start, goal)
    full = hierarchical_path(h, start, goal)
    assert full.found == best.found
    if full.found:
        _check_valid(base, full.path.tolist(), full.cost, start, goal)
        assert full.cost >= best.cost - 1e-9
    return best


@settings(max_examples=80, deadline=None)
@given(undirected_grouped(), st.sampled_from(LINK_COSTS), st.data())
def test_hierarchical_paths_are_valid(graph, method, data):
    n, edges, g1, g2 = graph
    s, t, w = (list(c) for c in zip(*edges)) if edges else ([], [], [])
    base = CSRGraph.from_edges(n, s, t, w, directed=False)
    h = HierarchicalGraph.build(base, [np.array(g1), {k: g2[k] for k in range(5)
                                                      if k in set(g1)}], link_cost=method)
    start = data.draw(st.integers(0, n - 1))
    goal = data.draw(st.integers(0, n - 1))
    best = _check_full_path(base, h, start, goal)
    step = hierarchical_step(h, start, goal)
    if step.found:  # may stop short of an unreachable goal, but is a real path
        _check_valid(base, step.path.tolist(), step.cost, start, step.path[-1])
    ex = hierarchical_path_exclusions(h, start, goal)
    if ex.found:
        _check_valid(base, ex.path.tolist(), ex.cost, start, goal)
        assert ex.cost >= best.cost - 1e-9
    else:
        assert not best.found or len(set(g1)) > 1  # only a corridor can miss a path


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(LINK_COSTS))
def test_hierarchical_path_finds_every_reachable_goal_in_directed_graphs(seed, method):
    rng = np.random.default_rng(seed)  # sparse random digraphs: many one-way dead ends
    n = int(rng.integers(2, 15))
    e = int(rng.integers(0, 31))
    base = CSRGraph.from_edges(n, rng.integers(0, n, e), rng.integers(0, n, e),
                               rng.integers(1, 10, e).astype(float))
    h = HierarchicalGraph.build(base, [rng.integers(0, 5, n)], link_cost=method)
    for start in range(n):
        for goal in range(n):
            _check_full_path(base, h, start, goal)


@pytest.mark.parametrize("link_cost", LINK_COSTS)
def test_step_to_a_dead_end_falls_back_from_the_start(link_cost):
    # 3 -> 0 -> 4 reaches the goal; the coarse step from 3 ends on 1, which cannot
    g = CSRGraph.from_edges(5, [3, 0, 0], [0, 4, 1], [1.0, 1.0, 1.0])
    h = HierarchicalGraph.build(g, [np.array([0, 0, 0, 1, 2])], link_cost=link_cost)
    r = hierarchical_path(h, 3, 4)
    assert r.found and r.fallback
    _check_valid(g, r.path.tolist(), r.cost, 3, 4)
    assert r.cost == g.find_path(3, 4).cost


@pytest.fixture(scope="module")
def cave():
    rng = np.random.default_rng(7)
    grid = Grid(rng.random((48, 48)) > 0.28)
    base = grid.to_csr()
    h = HierarchicalGraph.build(base, [cell_grouping(6), cell_grouping(18)])
    return grid, base, h


def test_cell_grouping_groups_are_connected_cells(cave):
    grid, base, h = cave
    parent = h._parent[0]
    cells = np.floor(base.coords / 6).astype(int)
    src = np.repeat(np.arange(base.num_nodes), np.diff(base.indptr))
    same = parent[src] == parent[base.indices]
    assert np.all(cells[src][same] == cells[base.indices][same])
    for k in range(h.num_nodes(1))[:50]:
        members = np.array(h.members(1, k))
        assert len(np.unique(cells[members], axis=0)) == 1


def test_cost_ratio_on_a_cave_map(cave):
    """The measured ratio to the optimum; only ratio >= 1 is a provable bound."""
    grid, base, h = cave
    rng = np.random.default_rng(3)
    free = np.flatnonzero(grid.passable.ravel())
    comp = base.weak_components
    ratios, ex_ratios = [], []
    for _ in range(60):
        s, t = (int(x) for x in rng.choice(free, 2))
        best = base.find_path(s, t)
        if comp[s] != comp[t] or best.cost == 0:
            continue
        full = hierarchical_path(h, s, t)
        ex = hierarchical_path_exclusions(h, s, t)
        assert full.found
        _check_valid(base, full.path.tolist(), full.cost, s, t)
        ratios.append(full.cost / best.cost)
        if ex.found:
            _check_valid(base, ex.path.tolist(), ex.cost, s, t)
            ex_ratios.append(ex.cost / best.cost)
    assert len(ratios) > 20
    assert min(ratios) >= 1 - 1e-9 and min(ex_ratios) >= 1 - 1e-9


# ---------------------------------------------------------------------------- save / load

def test_save_load_round_trip(cave, tmp_path):
    grid, base, h = cave
    path = tmp_path / "h.npz"
    h.save(path)
    back = HierarchicalGraph.load(path, base)
    assert back.levels == h.levels and back.link_cost == h.link_cost
    for s, t in [(0, base.num_nodes - 1), (100, 2000)]:
        a, b = hierarchical_path(h, s, t), hierarchical_path(back, s, t)
        assert a.found == b.found and a.cost == b.cost
        assert np.array_equal(a.path, b.path)
    assert h.nbytes > 0 and h.build_time > 0
    other = (Grid(np.ones((4, 4), dtype=bool))).to_csr()
    with pytest.raises(IndexMismatchError):
        HierarchicalGraph.load(path, other)


def test_generic_hierarchy_cannot_be_saved(t16, tmp_path):
    with pytest.raises(InvalidQueryError, match="saved"):
        t16.save(tmp_path / "x.npz")


# ---------------------------------------------------------------------------- bad input

def test_bad_inputs(corridor, t16):
    with pytest.raises(InvalidQueryError, match="node 8 .reached from 7. has no group"):
        HierarchicalGraph.build(corridor, [{i: 0 for i in range(8)}])
    with pytest.raises(InvalidQueryError, match="link_cost"):
        HierarchicalGraph.build(corridor, [GROUPS_T16], link_cost="median")
    with pytest.raises(InvalidQueryError, match="groupings"):
        HierarchicalGraph.build(corridor, GROUPS_T16)
    with pytest.raises(InvalidQueryError, match="groupings"):
        HierarchicalGraph.build(corridor, [])
    with pytest.raises(InvalidQueryError, match="no group for node"):
        HierarchicalGraph.build(corridor, [GROUPS_T16, {"g0": "top"}])
    with pytest.raises(InvalidQueryError, match="not one of its members"):
        HierarchicalGraph.build(corridor, [GROUPS_T16], representatives=[{"g0": 5}])
    with pytest.raises(InvalidQueryError, match="shape"):
        HierarchicalGraph.build(CSRGraph.from_edges(3, [0], [1], [1.0]), [np.array([0, 1])])
    neg = AdjacencyGraph({"a": [], "b": []})
    neg._adj["a"].append(("b", -1.0))  # bypass the graph's own check
    with pytest.raises(InvalidGridError, match="cost"):
        HierarchicalGraph.build(neg, [{"a": 0, "b": 0}])
    with pytest.raises(InvalidQueryError, match="not a node"):
        hierarchical_step(t16, 0, 99)
    with pytest.raises(InvalidQueryError, match="not a node"):
        hierarchical_path(t16, "x", 1)
    with pytest.raises(InvalidQueryError, match="level"):
        t16.get_node_at_level(0, 1, 3)
    with pytest.raises(InvalidQueryError, match="cell_size"):
        cell_grouping(0)
    with pytest.raises(InvalidQueryError, match="positions"):
        HierarchicalGraph.build(CSRGraph.from_edges(2, [0], [1], [1.0]), [cell_grouping(2)])


def test_unreachable_goal_is_not_found(corridor):
    g = AdjacencyGraph.from_edges([(0, 1, 1), (2, 3, 1)], directed=False)
    h = HierarchicalGraph.build(g, [{0: "a", 1: "a", 2: "b", 3: "b"}])
    for search in (hierarchical_step, hierarchical_path, hierarchical_path_exclusions):
        r = search(h, 0, 3)
        assert not r.found and r.cost == math.inf and r.path == []
