"""CSRGraph A* with a differential heuristic and with goal-bounding pruning: costs equal to
scipy's Dijkstra on random directed and undirected graphs, the bounds' defining properties
(admissible and consistent; every optimal first edge's box holds the goal), grid move graphs,
save/load, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra
from strategies import seeded_csr_graphs, seeded_grids

from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.graph import CSRGraph
from wayfinding.graph.differential import CSRDifferentialHeuristic
from wayfinding.graph.goal_bounds import CSRGoalBounds
from wayfinding.grid import Grid, GridSearch, generate

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


def graphs(max_nodes=14):
    """Random graphs with coordinates: weights either free (0-100, some exactly 0 or tied) or
    at least the Euclidean length, directed or not, 2D or 3D coords."""
    return seeded_csr_graphs(max_nodes=max_nodes)


def all_pairs(g: CSRGraph) -> np.ndarray:
    return scipy_dijkstra(g.to_scipy(), directed=True)


def edge_sources(g: CSRGraph) -> np.ndarray:
    return np.repeat(np.arange(g.num_nodes), np.diff(g.indptr))


def assert_path(g: CSRGraph, r, start, goal):
    assert r.path[0] == start and r.path[-1] == goal
    total = 0.0
    for a, b in zip(r.path[:-1].tolist(), r.path[1:].tolist()):
        total += min(c for v, c in g.successors(a) if v == b)
    assert total == pytest.approx(r.cost, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------- optimality

@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(g=graphs(), data=st.data())
def test_pruned_searches_match_scipy(g, data):
    k = data.draw(st.integers(1, 4), label="pivots")
    dh = CSRDifferentialHeuristic.build(g, pivots=k)
    gb = CSRGoalBounds.build(g)
    dist = all_pairs(g)
    nodes = st.integers(0, g.num_nodes - 1)
    for _ in range(3):
        s, t = data.draw(nodes, label="start"), data.draw(nodes, label="goal")
        want = dist[s, t]
        for kwargs in ({"differential": dh}, {"bounds": gb}, {"differential": dh, "bounds": gb},
                       {"bounds": gb, "method": "dijkstra"}):
            r = g.find_path(s, t, **kwargs)
            assert r.found == math.isfinite(want), kwargs
            if r.found:
                assert r.cost == pytest.approx(want, rel=1e-9, abs=1e-12), kwargs
                assert_path(g, r, s, t)
            else:
                assert math.isinf(r.cost) and len(r.path) == 0


@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(g=graphs(), data=st.data())
def test_differential_bound_is_admissible_and_consistent(g, data):
    dh = CSRDifferentialHeuristic.build(g, pivots=data.draw(st.integers(1, 4)))
    assert dh.options["symmetric"] == g.is_symmetric
    assert ("to_pivot" in dh.arrays) == (not g.is_symmetric)
    dist = all_pairs(g)
    src = edge_sources(g)
    goal = data.draw(st.integers(0, g.num_nodes - 1), label="goal")
    h = dh.heuristic_map(goal)
    to_goal = dist[:, goal]
    reach = np.isfinite(to_goal)
    assert np.all(h[reach] <= to_goal[reach] * (1 + 1e-12) + 1e-12)
    assert h[goal] == 0.0
    live = reach[src]
    assert np.all(h[src][live] <= g.weights[live] + h[g.indices][live] + 1e-9)
    # an infinite bound only ever marks a node that cannot reach the goal
    assert not np.any(np.isinf(h) & reach)


@settings(max_examples=100, deadline=None, suppress_health_check=HEALTH)
@given(g=graphs(max_nodes=10))
def test_every_optimal_first_edge_box_holds_its_targets(g):
    gb = CSRGoalBounds.build(g)
    dist = all_pairs(g)
    boxes = gb.boxes.astype(np.float64)
    xy = g.coords[:, :2]
    for s in range(g.num_nodes):
        for e in range(g.indptr[s], g.indptr[s + 1]):
            v = g.indices[e]
            inside = (boxes[e, 0] <= xy[:, 0]) & (xy[:, 0] <= boxes[e, 1]) \
                & (boxes[e, 2] <= xy[:, 1]) & (xy[:, 1] <= boxes[e, 3])
            if v == s or g.weights[e] + dist[v, s] <= 0.0:
                continue  # a free round trip back to s: never needed as a first edge
            for t in range(g.num_nodes):
                if t == s or not math.isfinite(dist[s, t]):
                    continue
                if g.weights[e] + dist[v, t] <= dist[s, t] * (1 + 1e-12):
                    assert inside[t], (s, e, t)
        # every reachable node is covered by some edge of s
        for t in range(g.num_nodes):
            if t != s and math.isfinite(dist[s, t]):
                assert gb.allowed(s, t).any()


def test_boxes_are_tight_on_a_line():
    # 0 - 1 - 2 - 3 on the x axis (undirected): from node 1, west holds node 0, east 2 and 3
    g = CSRGraph.from_edges(4, [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0], directed=False,
                            coords=[[0, 0], [1, 0], [2, 0], [3, 0]])
    gb = CSRGoalBounds.build(g)
    row = {v: tuple(gb.boxes[e].tolist())
           for v, e in zip(g.indices[g.indptr[1]:g.indptr[2]], range(g.indptr[1], g.indptr[2]))}
    assert row == {0: (0.0, 0.0, 0.0, 0.0), 2: (2.0, 3.0, 0.0, 0.0)}


def test_dearer_parallel_edge_gets_an_empty_box():
    g = CSRGraph.from_edges(2, [0, 0], [1, 1], [5.0, 2.0], coords=[[0, 0], [1, 0]])
    gb = CSRGoalBounds.build(g)
    assert gb.boxes[0].tolist() == [math.inf, -math.inf, math.inf, -math.inf]
    assert gb.boxes[1].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert g.find_path(0, 1, bounds=gb).cost == 2.0


def test_boxes_round_outward_to_float32():
    x = 0.1  # not a float32
    g = CSRGraph.from_edges(3, [0, 0], [1, 2], [1.0, 1.0],
                            coords=[[0.0, 0.0], [x, x], [-x, -x]])
    gb = CSRGoalBounds.build(g)
    b1, b2 = gb.boxes[0].astype(np.float64), gb.boxes[1].astype(np.float64)
    assert b1[0] <= x <= b1[1] and b1[0] < b1[1]
    assert b2[0] <= -x <= b2[1] and b2[0] < b2[1]
    assert g.find_path(0, 1, bounds=gb).found and g.find_path(0, 2, bounds=gb).found


def test_hub_with_more_than_64_edges():
    n = 150
    hub = 0
    leaves = np.arange(1, n)
    angle = leaves * 2 * np.pi / (n - 1)
    coords = np.concatenate([[[0.0, 0.0]], np.stack([np.cos(angle), np.sin(angle)], 1)])
    ring_s, ring_t = leaves, np.roll(leaves, -1)
    g = CSRGraph.from_edges(n, np.concatenate([np.zeros(n - 1, int), ring_s]),
                            np.concatenate([leaves, ring_t]),
                            np.concatenate([np.full(n - 1, 1.0), np.full(n - 1, 0.05)]),
                            directed=False, coords=coords)
    gb = CSRGoalBounds.build(g)
    dist = all_pairs(g)
    for t in range(1, n, 7):
        r = g.find_path(hub, t, bounds=gb)
        assert r.cost == pytest.approx(dist[hub, t])
        assert gb.allowed(hub, t).sum() >= 1
    for s, t in [(5, 100), (140, 3), (70, 0)]:
        assert g.find_path(s, t, bounds=gb).cost == pytest.approx(dist[s, t])


def test_zero_weight_cycle():
    # 0 -> 1 -> 2 -> 0 all free, then 2 -> 3 costs 1: every node of the cycle reaches 3
    g = CSRGraph.from_edges(4, [0, 1, 2, 2], [1, 2, 0, 3], [0.0, 0.0, 0.0, 1.0],
                            coords=[[0, 0], [1, 0], [1, 1], [5, 5]])
    gb = CSRGoalBounds.build(g)
    dh = CSRDifferentialHeuristic.build(g, pivots=2)
    for s in range(3):
        for kw in ({"bounds": gb}, {"differential": dh}):
            assert g.find_path(s, 3, **kw).cost == 1.0
    assert g.find_path(3, 0, bounds=gb, differential=dh).found is False


def test_progress_is_reported():
    g = Grid.from_ascii("....\n.@..\n....").to_csr()
    seen = []
    CSRGoalBounds.build(g, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (12, 12)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_unreachable_goal_is_cut_off_at_once():
    # two undirected components: the pivot bound is inf at the start
    g = CSRGraph.from_edges(6, [0, 1, 3, 4], [1, 2, 4, 5], [1.0] * 4, directed=False)
    dh = CSRDifferentialHeuristic.build(g, pivots=2)
    assert set(g.weak_components.tolist()) == {0, 1}
    assert {int(g.weak_components[p]) for p in dh.pivots} == {0, 1}
    r = g.find_path(0, 5, differential=dh)
    assert not r.found and r.stats.expanded <= 1


def test_pivot_ids_are_checked_by_the_library_s_own_node_check(monkeypatch):
    def public_node(*args, **kwargs):
        raise AssertionError("the public CSRGraph.node with its positional-name shim")

    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], directed=False)
    monkeypatch.setattr(CSRGraph, "node", public_node)
    assert CSRDifferentialHeuristic.build(g, pivots=[0, 2]).from_pivot.shape[0] == 2
    with pytest.raises(InvalidQueryError, match="pivot 5 is outside 0..2"):
        CSRDifferentialHeuristic.build(g, pivots=[5])


def test_directed_graph_keeps_both_tables():
    # a one-way ring: d(x, p) and d(p, x) differ
    n = 6
    g = CSRGraph.from_edges(n, np.arange(n), (np.arange(n) + 1) % n, np.ones(n))
    assert not g.is_symmetric
    dh = CSRDifferentialHeuristic.build(g, pivots=[0])
    assert dh.from_pivot[0].tolist() == [0, 1, 2, 3, 4, 5]
    assert dh.to_pivot[0].tolist() == [0, 5, 4, 3, 2, 1]
    # the bound is exact toward the pivot: d(3, 0) = 3
    assert dh.heuristic(3, 0) == pytest.approx(3.0)
    assert g.find_path(1, 0, differential=dh).cost == 5.0


def test_symmetric_detection():
    assert CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 2.0], directed=False).is_symmetric
    assert not CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 2.0]).is_symmetric
    # same pairs both ways but different costs
    assert not CSRGraph.from_edges(2, [0, 1], [1, 0], [1.0, 2.0]).is_symmetric
    # parallel edges reduce to the cheapest before comparing
    assert CSRGraph.from_edges(2, [0, 0, 1], [1, 1, 0], [1.0, 3.0, 1.0]).is_symmetric


def test_weak_components_are_numbered_by_smallest_node():
    g = CSRGraph.from_edges(6, [5, 3], [2, 1], [1.0, 1.0])
    assert g.weak_components.tolist() == [0, 1, 2, 1, 3, 2]


# ---------------------------------------------------------------------------- grids

def small_grids():
    """Grids of 1 to 9 cells a side, half with terrain, (0, 0) free, any diagonal rule."""
    return seeded_grids(max_side=9, densities=(0.0, 0.2, 0.4), terrain=(1.0, 2.0, 3.5),
                        open_corner="always", rules=RULES)


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(grid=small_grids(), data=st.data())
def test_to_csr_with_both_matches_grid_search(grid, data):
    csr = grid.to_csr()
    gb = CSRGoalBounds.build(csr)
    dh = CSRDifferentialHeuristic.build(csr, pivots=3)
    assert dh.options["symmetric"] is True
    free = list(grid.iter_cells())
    search = GridSearch(grid)
    for _ in range(3):
        a = data.draw(st.sampled_from(free), label="start")
        b = data.draw(st.sampled_from(free), label="goal")
        want = search.find_path(a, b)
        for kw in ({"bounds": gb}, {"differential": dh}, {"bounds": gb, "differential": dh}):
            r = csr.find_path(a[1] * grid.width + a[0], b[1] * grid.width + b[0], **kw)
            assert r.found == want.found
            assert r.cost == pytest.approx(want.cost, rel=1e-9)


@pytest.fixture(scope="module")
def arena():
    grid = generate.caves(56, 48, seed=3)
    scen = generate.benchmark_scenario(grid, per_bucket=6, seed=3)
    csr = grid.to_csr()
    return scen, grid, csr, CSRGoalBounds.build(csr), CSRDifferentialHeuristic.build(csr)


def test_arena_problems_optimal_with_fewer_expansions(arena):
    scen, grid, csr, gb, dh = arena
    w = grid.width
    expanded = {"astar": [], "astar_gb": [], "astar_dh": [], "dijkstra": [], "dijkstra_gb": []}
    for p in scen.problems:
        s, t = p.start[1] * w + p.start[0], p.goal[1] * w + p.goal[0]
        runs = [csr.find_path(s, t), gb.find_path(s, t), dh.find_path(s, t),
                csr.find_path(s, t, method="dijkstra"), gb.find_path(s, t, method="dijkstra"),
                csr.find_path(s, t, bounds=gb, differential=dh)]
        for r in runs:
            assert r.found and p.matches(r.cost)
            assert r.cost == pytest.approx(runs[0].cost, rel=1e-12)
            if r.algorithm in expanded:
                expanded[r.algorithm].append(r.stats.expanded)
        assert runs[-1].algorithm == "astar_dh_gb"
    mean = {k: np.mean(v) for k, v in expanded.items()}
    assert all(len(v) == len(scen.problems) for v in expanded.values())
    # A* already ignores most of what the boxes cut; Dijkstra gains several times
    assert mean["astar_gb"] < 0.95 * mean["astar"]
    assert mean["dijkstra_gb"] < 0.4 * mean["dijkstra"]
    assert mean["astar_dh"] < mean["astar"]


def test_record_with_bounds(arena):
    _, grid, csr, gb, dh = arena
    a, b = next(iter(grid.iter_cells())), list(grid.iter_cells())[-1]
    s, t = a[1] * grid.width + a[0], b[1] * grid.width + b[0]
    r = csr.find_path(s, t, bounds=gb, differential=dh, record=True)
    assert len(r.expanded_nodes) == r.stats.expanded
    assert r.expanded_nodes[0] == s and r.expanded_nodes[-1] == t


# ---------------------------------------------------------------------------- save / load

@pytest.mark.parametrize("directed", [False, True])
def test_save_load_round_trip(tmp_path, directed):
    rng = np.random.default_rng(1)
    n, m = 30, 90
    coords = rng.uniform(0, 10, (n, 2))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = np.linalg.norm(coords[src] - coords[dst], axis=1) + 0.5
    g = CSRGraph.from_edges(n, src, dst, w, directed=directed, coords=coords)
    dh, gb = CSRDifferentialHeuristic.build(g, pivots=5), CSRGoalBounds.build(g)
    for index, cls in ((dh, CSRDifferentialHeuristic), (gb, CSRGoalBounds)):
        path = tmp_path / f"{index.kind}.npz"
        index.save(path)
        back = cls.load(path, g)
        assert type(back) is cls and back.options == index.options
        assert back.arrays.keys() == index.arrays.keys()
        for key in index.arrays:
            np.testing.assert_array_equal(back.arrays[key], index.arrays[key])
    dh2 = CSRDifferentialHeuristic.load(tmp_path / "csr_differential.npz", g)
    gb2 = CSRGoalBounds.load(tmp_path / "csr_goal_bounds.npz", g)
    dist = all_pairs(g)
    for s, t in [(0, 5), (3, 29), (17, 2)]:
        r = g.find_path(s, t, differential=dh2, bounds=gb2)
        assert r.found == math.isfinite(dist[s, t])
        if r.found:
            assert r.cost == pytest.approx(dist[s, t])


@pytest.fixture()
def saved(tmp_path):
    g = Grid.from_ascii("....\n.@..\n....").to_csr()
    paths = {}
    for index in (CSRGoalBounds.build(g), CSRDifferentialHeuristic.build(g, pivots=2)):
        paths[index.kind] = tmp_path / f"{index.kind}.npz"
        index.save(paths[index.kind])
    return g, paths


@pytest.mark.parametrize("cls", [CSRGoalBounds, CSRDifferentialHeuristic])
def test_load_refuses_another_graph(saved, cls):
    g, paths = saved
    other = Grid.from_ascii("....\n..@.\n....").to_csr()
    with pytest.raises(IndexMismatchError, match="another graph"):
        cls.load(paths[cls.kind], other)
    # same structure, one weight changed
    w = g.weights.copy()
    w[0] += 1.0
    tweaked = CSRGraph(g.indptr, g.indices, w, coords=g.coords)
    with pytest.raises(IndexMismatchError):
        cls.load(paths[cls.kind], tweaked)
    with pytest.raises(IndexMismatchError):
        cls.load(paths[cls.kind], "graph")


def test_load_refuses_the_wrong_kind_and_junk(saved, tmp_path):
    g, paths = saved
    with pytest.raises(IndexFormatError, match="not 'csr_goal_bounds'"):
        CSRGoalBounds.load(paths["csr_differential"], g)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(IndexFormatError):
        CSRDifferentialHeuristic.load(junk, g)
    with pytest.raises(IndexFormatError):
        CSRGoalBounds.load(tmp_path / "missing.npz", g)


def test_indexes_of_another_graph_are_refused_at_query_time(saved):
    g, _ = saved
    other = Grid.from_ascii("....\n..@.\n....").to_csr()
    with pytest.raises(IndexMismatchError):
        other.find_path(0, 5, bounds=CSRGoalBounds.build(g))
    with pytest.raises(IndexMismatchError):
        other.find_path(0, 5, differential=CSRDifferentialHeuristic.build(g, pivots=1))
    twin = Grid.from_ascii("....\n.@..\n....").to_csr()
    assert twin.find_path(0, 11, bounds=CSRGoalBounds.build(g)).found


# ---------------------------------------------------------------------------- bad input

@pytest.fixture(scope="module")
def small():
    return CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], directed=False,
                               coords=[[0, 0], [1, 0], [2, 0]])


def test_bounds_need_coords():
    with pytest.raises(InvalidGridError, match="coordinates"):
        CSRGoalBounds.build(CSRGraph.from_edges(2, [0], [1], [1.0]))


@pytest.mark.parametrize("build", [CSRGoalBounds.build, CSRDifferentialHeuristic.build])
def test_builds_need_a_graph(build):
    with pytest.raises(InvalidGridError):
        build(Grid.from_ascii(".."))


def test_progress_must_be_callable(small):
    with pytest.raises(InvalidQueryError, match="progress"):
        CSRGoalBounds.build(small, progress=5)


@pytest.mark.parametrize("pivots", [0, -1, 2.5, True, "3", [], [0, 0], [3], [-1], [1.0], None])
def test_differential_rejects_bad_pivots(small, pivots):
    with pytest.raises(InvalidQueryError):
        CSRDifferentialHeuristic.build(small, pivots=pivots)


def test_differential_needs_astar(small):
    dh = CSRDifferentialHeuristic.build(small, pivots=1)
    with pytest.raises(InvalidQueryError, match="astar"):
        small.find_path(0, 2, method="dijkstra", differential=dh)


@pytest.mark.parametrize("kw", [{"differential": "dh"}, {"bounds": np.zeros((4, 4))},
                                {"bounds": "gb"}])
def test_indexes_must_be_indexes(small, kw):
    with pytest.raises(InvalidQueryError):
        small.find_path(0, 2, **kw)


def test_swapped_indexes_are_refused(small):
    dh = CSRDifferentialHeuristic.build(small, pivots=1)
    gb = CSRGoalBounds.build(small)
    with pytest.raises(InvalidQueryError):
        small.find_path(0, 2, differential=gb)
    with pytest.raises(InvalidQueryError):
        small.find_path(0, 2, bounds=dh)


def test_query_nodes_are_validated(small):
    gb = CSRGoalBounds.build(small)
    dh = CSRDifferentialHeuristic.build(small, pivots=1)
    with pytest.raises(InvalidQueryError):
        gb.find_path(0, 3)
    with pytest.raises(InvalidQueryError):
        dh.heuristic(-1, 0)
    with pytest.raises(InvalidQueryError):
        gb.allowed(0, 7)


def test_many_pivots_on_a_small_graph(small):
    dh = CSRDifferentialHeuristic.build(small, pivots=10)
    assert 1 <= len(dh.pivots) <= 3
    assert len(set(dh.pivots.tolist())) == len(dh.pivots)
    assert small.find_path(0, 2, differential=dh).cost == 2.0


def test_table_memory_order_does_not_change_results():
    rng = np.random.default_rng(4)
    n, m = 40, 160
    g = CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                            rng.uniform(0, 5, m))
    dh = CSRDifferentialHeuristic.build(g, pivots=4)
    arrays = {k: np.ascontiguousarray(v) for k, v in dh.arrays.items()}
    twin = CSRDifferentialHeuristic(g, arrays, dh.options, 0.0)
    assert dh.from_pivot.flags.f_contiguous and twin.from_pivot.flags.c_contiguous
    for s, t in [(0, 39), (5, 17), (20, 3)]:
        r0, r1 = dh.find_path(s, t), twin.find_path(s, t)
        assert r0.cost == r1.cost and r0.stats.expanded == r1.stats.expanded
