"""IDA* and memory-bounded A*: the notes' T10 and T11, oracles on random graphs, bad input."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import edge_lists

from wayfinding import AdjacencyGraph, InvalidQueryError
from wayfinding.search import astar
from wayfinding.search.lowmem import ida_star, memory_bounded_astar, sma_star

G2_EDGES = [("S", "A", 6), ("S", "B", 15), ("A", "C", 6), ("A", "D", 12), ("B", "D", 3),
            ("B", "G", 15), ("D", "C", 9), ("D", "G", 6)]
H = {"S": 0, "A": 6, "B": 9, "C": 3, "D": 3, "G": 0}


@pytest.fixture(scope="module")
def g2() -> AdjacencyGraph:
    return AdjacencyGraph.from_edges(G2_EDGES)


# ---------------------------------------------------------------------------- T10

@pytest.mark.parametrize(("heuristic", "cutoffs"), [
    (H, [0, 12, 15, 21, 24]),
    (None, [0, 6, 12, 15, 18, 24]),
])
def test_t10_ida_star_cutoffs_on_g2(g2, heuristic, cutoffs):
    r = ida_star(g2, "S", "G", heuristic=heuristic)
    assert r.found and r.status == "found"
    assert r.cutoffs == cutoffs
    assert r.iterations == len(cutoffs)
    assert r.path == ["S", "A", "D", "G"]
    assert r.cost == 24


@pytest.mark.parametrize(("start", "goal"), [("C", "G"), ("G", "S")])
def test_ida_star_no_path_ends(g2, start, goal):
    r = ida_star(g2, start, goal)
    assert not r.found and r.status == "failed"
    assert r.path == [] and r.cost == math.inf


def test_ida_star_start_is_goal(g2):
    r = ida_star(g2, "A", "A")
    assert (r.path, r.cost, r.found) == (["A"], 0.0, True)


def test_ida_star_open_goal(g2):
    r = ida_star(g2, "S", {"C", "G"})
    assert (r.path, r.cost) == (["S", "A", "C"], 12)


def test_ida_star_cycles_terminate():
    g = AdjacencyGraph.from_edges([(0, 1, 1), (1, 2, 1), (2, 0, 1), (1, 3, 0)],
                                  directed=False)
    r = ida_star(g, 0, 3)
    assert (r.path, r.cost) == ([0, 1, 3], 1.0)


def test_ida_star_unreachable_in_cyclic_graph_fails():
    g = AdjacencyGraph.from_edges([(0, 1, 1), (1, 2, 1), (2, 0, 1)], directed=False)
    g.add_edge(5, 5, 1)
    assert ida_star(g, 0, 5).status == "failed"


def test_ida_star_deep_chain_has_no_recursion_limit():
    n = 5000
    g = AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(n)])
    r = ida_star(g, 0, n, heuristic=lambda a, b: b - a)
    assert r.found and r.cost == n and len(r.path) == n + 1


def test_ida_star_budget(g2):
    r = ida_star(g2, "S", "G", max_expansions=3)
    assert r.status == "out_of_budget" and not r.found
    assert r.stats.expanded == 3


# ---------------------------------------------------------------------------- T11

@pytest.mark.parametrize(("max_open", "path", "cost"), [
    (1, [], math.inf),  # S -> A -> C: B and D were dropped
    (2, ["S", "A", "D", "G"], 24),
    (3, ["S", "A", "D", "G"], 24),
    (10, ["S", "A", "D", "G"], 24),
])
def test_t11_memory_bounded_astar_on_g2(g2, max_open, path, cost):
    r = memory_bounded_astar(g2, "S", "G", max_open=max_open, heuristic=H)
    assert r.path == path
    assert r.cost == cost
    assert r.found == bool(path)
    assert r.status == ("found" if path else "failed")
    assert r.stats.max_open <= max_open


def test_t11_cap_one_drops_b_and_d(g2):
    r = memory_bounded_astar(g2, "S", "G", max_open=1, heuristic=H, )
    assert r.dropped == 2
    assert r.stats.expanded == 3  # S, A, C


def test_memory_bounded_budget(g2):
    r = memory_bounded_astar(g2, "S", "G", max_open=5, max_expansions=1)
    assert r.status == "out_of_budget" and r.stats.expanded == 1


# ---------------------------------------------------------------------------- oracles

def weighted_graphs():
    """``(n, edges)``: 2 to 9 nodes, up to 22 edges of cost 0 to 9."""
    return edge_lists(max_nodes=9, max_edges=22)


def _graphs(n, edges):
    adj = AdjacencyGraph({u: [] for u in range(n)})
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(n))
    for a, b, c in edges:
        adj.add_edge(a, b, c)
        if not nxg.has_edge(a, b) or nxg[a][b]["weight"] > c:
            nxg.add_edge(a, b, weight=c)
    return adj, nxg


def _path_cost(graph, path):
    return sum(min(c for v, c in graph.successors(a) if v == b)
               for a, b in zip(path, path[1:]))


@settings(max_examples=80, deadline=None)
@given(weighted_graphs(), st.data())
def test_ida_star_cost_equals_dijkstra(graph, data):
    n, edges = graph
    adj, nxg = _graphs(n, edges)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    r = ida_star(adj, s, t)
    try:
        expected = nx.dijkstra_path_length(nxg, s, t)
    except nx.NetworkXNoPath:
        assert r.status == "failed"
        return
    assert r.found
    assert r.cost == pytest.approx(expected)
    assert r.path[0] == s and r.path[-1] == t
    assert _path_cost(adj, r.path) == pytest.approx(r.cost)
    assert r.cost == pytest.approx(astar(adj, s, t).cost)


@settings(max_examples=80, deadline=None)
@given(weighted_graphs(), st.data())
def test_memory_bounded_large_cap_equals_astar(graph, data):
    n, edges = graph
    adj, _ = _graphs(n, edges)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    expected = astar(adj, s, t)
    r = memory_bounded_astar(adj, s, t, max_open=len(edges) + 1)
    assert r.found == expected.found
    assert r.cost == expected.cost
    assert r.dropped == 0


@settings(max_examples=80, deadline=None)
@given(weighted_graphs(), st.data(), st.integers(1, 3))
def test_memory_bounded_small_cap_is_valid_when_found(graph, data, cap):
    n, edges = graph
    adj, _ = _graphs(n, edges)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    best = astar(adj, s, t)
    r = memory_bounded_astar(adj, s, t, max_open=cap)
    assert r.stats.max_open <= cap
    if r.found:  # never a path that does not exist, never cheaper than the optimum
        assert best.found
        assert r.path[0] == s and r.path[-1] == t
        assert _path_cost(adj, r.path) == pytest.approx(r.cost)
        assert r.cost >= best.cost - 1e-9


# ---------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("cap", [0, -1, 1.5, True, None])
def test_memory_bounded_rejects_bad_cap(g2, cap):
    with pytest.raises(InvalidQueryError, match="max_open"):
        memory_bounded_astar(g2, "S", "G", max_open=cap)


@pytest.mark.parametrize("search", [ida_star,
                                    lambda *a, **k: memory_bounded_astar(*a, max_open=4, **k)])
def test_bad_inputs(g2, search):
    with pytest.raises(InvalidQueryError, match="max_expansions"):
        search(g2, "S", "G", max_expansions=-1)
    with pytest.raises(InvalidQueryError, match="hashable"):
        search(g2, ["S"], "G")
    with pytest.raises(InvalidQueryError, match="heuristic"):
        search(g2, "S", "G", heuristic=lambda n, g: -1)
    neg = AdjacencyGraph({"a": [], "b": []})
    neg._adj["a"].append(("b", -2.0))  # bypass the graph's own check
    with pytest.raises(InvalidQueryError, match="cost"):
        search(neg, "a", "b")


# ---------------------------------------------------------------------------- SMA*

def _fewest_nodes_on_an_optimal_path(nxg, s, t):
    return min(len(p) for p in nx.all_shortest_paths(nxg, s, t, weight="weight"))


@settings(max_examples=100, deadline=None)
@given(weighted_graphs(), st.data())
def test_sma_star_is_optimal_when_an_optimal_path_fits(graph, data):
    n, edges = graph
    adj, nxg = _graphs(n, edges)
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    cap = data.draw(st.integers(2, n + 1))
    r = sma_star(adj, s, t, max_nodes=cap, max_expansions=200_000)
    assert r.status != "out_of_budget"
    assert r.stats.max_open <= cap
    try:
        best = nx.dijkstra_path_length(nxg, s, t)
    except nx.NetworkXNoPath:
        assert r.status == "failed"
        return
    if r.found:
        assert r.path[0] == s and r.path[-1] == t and len(r.path) <= cap
        assert _path_cost(adj, r.path) == pytest.approx(r.cost)
        assert r.cost >= best - 1e-9
    if _fewest_nodes_on_an_optimal_path(nxg, s, t) <= cap:
        assert r.found and r.cost == pytest.approx(best)


@pytest.mark.parametrize(("cap", "path", "cost"), [
    (2, [], math.inf),  # no S-G edge: the shortest path has 3 nodes
    (3, ["S", "B", "G"], 30),  # the only path that fits
    (4, ["S", "A", "D", "G"], 24),
    (6, ["S", "A", "D", "G"], 24),
])
def test_sma_star_on_g2(g2, cap, path, cost):
    r = sma_star(g2, "S", "G", max_nodes=cap, heuristic=H)
    assert (r.path, r.cost) == (path, cost)
    assert r.stats.max_open <= cap


@pytest.mark.parametrize("cap", [1, 0, 2.5, True])
def test_sma_star_rejects_bad_memory(g2, cap):
    with pytest.raises(InvalidQueryError, match="max_nodes"):
        sma_star(g2, "S", "G", max_nodes=cap)
