"""LPA* and D* Lite against a fresh search after every random change: on grids (cells
blocked, freed, re-costed; the agent moving along its path) and on CSR graphs (edge costs
raised, lowered, removed)."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid, generated_scen

from wayfinding.errors import InvalidQueryError
from wayfinding.graph import CSRGraph
from wayfinding.grid import Grid, GridSearch
from wayfinding.search.incremental import ADStar, ARAStar, DStarLite, LPAStar


def fresh_cost(costs, diagonal, a, b):
    r = GridSearch(Grid(costs, diagonal=diagonal)).find_path(a, b)
    return r.cost if r.found else math.inf


def check_path(costs, diagonal, res, a, b):
    assert tuple(res.path[0]) == tuple(a) and tuple(res.path[-1]) == tuple(b)
    assert Grid(costs, diagonal=diagonal).path_cost(res.path) == pytest.approx(res.cost)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), diagonal=st.sampled_from(
    ["no_corner_cutting", "never", "allow_one_blocked", "always"]),
    weighted=st.booleans(), cls=st.sampled_from([DStarLite, LPAStar]))
def test_grid_repairs_equal_a_fresh_search(seed, diagonal, weighted, cls):
    rng = np.random.default_rng(seed)
    h, w = 12, 15
    costs = np.where(rng.random((h, w)) < 0.2, np.inf,
                     rng.integers(1, 4, (h, w)) if weighted else 1.0).astype(float)
    free = np.argwhere(np.isfinite(costs))[:, ::-1]
    a, b = (tuple(free[i]) for i in rng.choice(len(free), 2, replace=False))
    planner = cls(Grid(costs, diagonal=diagonal), a, b)
    start = a
    for step in range(8):
        res = planner.replan()
        # The queue holds exactly the inconsistent nodes, in key order.
        queued, ordered = planner._core.queued()
        g, rhs = np.asarray(planner._core.g), np.asarray(planner._core.rhs)
        assert ordered and set(queued) == set(np.flatnonzero(g != rhs).tolist())
        expected = fresh_cost(costs, diagonal, start, b)
        assert res.cost == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert res.found == math.isfinite(expected)
        if res.found:
            check_path(costs, diagonal, res, start, b)
        # Change a few cells near the agent (never its own cell or the goal).
        changes = {}
        for _ in range(rng.integers(1, 4)):
            x = int(np.clip(start[0] + rng.integers(-3, 4), 0, w - 1))
            y = int(np.clip(start[1] + rng.integers(-3, 4), 0, h - 1))
            if (x, y) in (start, b):
                continue
            changes[(x, y)] = float(rng.choice([np.inf, 1.0, 2.0, 3.0] if weighted
                                                else [np.inf, 1.0]))
        for (x, y), c in changes.items():
            costs[y, x] = c
        planner.update_costs(changes)
        if cls is DStarLite and res.found and len(res.path) > 2 and step % 2:
            nxt = tuple(res.path[1])
            if np.isfinite(costs[nxt[1], nxt[0]]):
                start = nxt
                planner.move_start(start)


def random_graph(rng, n=30, m=110):
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    coords = rng.random((n, 2)) * 10
    length = np.hypot(*(coords[dst] - coords[src]).T)
    return CSRGraph.from_edges(n, src[keep], dst[keep], (length * (1 + rng.random(m)))[keep],
                               coords=coords)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), cls=st.sampled_from([DStarLite, LPAStar]))
def test_graph_repairs_equal_a_fresh_search(seed, cls):
    rng = np.random.default_rng(seed)
    g = random_graph(rng)
    a, b = (int(v) for v in rng.choice(g.num_nodes, 2, replace=False))
    planner = cls(g, a, b)
    weights = np.array(g.weights, dtype=float)
    for _ in range(6):
        res = planner.replan()
        now = CSRGraph(g.indptr, g.indices, np.where(np.isfinite(weights), weights, 1e250),
                       coords=g.coords)
        ref = now.find_path(a, b, method="dijkstra")
        expected = ref.cost if ref.found and ref.cost < 1e249 else math.inf
        assert res.cost == pytest.approx(expected, rel=1e-12)
        if res.found:
            assert res.path[0] == a and res.path[-1] == b
        edges = rng.choice(len(weights), 5, replace=False)
        change = {}
        for e in edges.tolist():
            # Cheaper than its length too: the planner must lower its heuristic's scale.
            change[e] = float(rng.choice([np.inf, g.weights[e] * 0.3, g.weights[e] * 3]))
            weights[e] = change[e]
        planner.update_costs(change)


def planned(cls, world, a, b):
    planner = cls(world, a, b)
    return planner, (planner.plan() if cls in (ARAStar, ADStar) else planner.replan())


ZERO_COST_CYCLES = {
    # A zero-cost edge both ways (listed before the way on), a zero-cost loop on either end.
    "zero edge": (CSRGraph.from_edges(4, [2, 0, 2], [1, 1, 3], [0.0, 1.0, 1.0], directed=False),
                  [(0, 3), (3, 0)], 2.0),
    "loop at 0": (CSRGraph.from_edges(2, [0, 0, 1], [0, 1, 0], [0.0, 1.0, 1.0]),
                  [(0, 1), (1, 0)], 1.0),
}


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
@pytest.mark.parametrize("case", ZERO_COST_CYCLES)
def test_the_path_is_found_past_cycles_of_zero_cost(cls, case):
    graph, pairs, cost = ZERO_COST_CYCLES[case]
    for a, b in pairs:
        _, r = planned(cls, graph, a, b)
        assert r.found and r.cost == cost and r.path[0] == a and r.path[-1] == b
        assert len(set(r.path.tolist())) == len(r.path)


def nx_cost(graph, weights, a, b):
    """The least cost from ``a`` to ``b`` by networkx over the edges of finite weight."""
    nxg = nx.MultiDiGraph()
    nxg.add_nodes_from(range(graph.num_nodes))
    src = np.repeat(np.arange(graph.num_nodes), np.diff(graph.indptr))
    nxg.add_weighted_edges_from((int(u), int(v), float(w))
                                for u, v, w in zip(src, graph.indices, weights) if w < math.inf)
    try:
        return nx.dijkstra_path_length(nxg, a, b)
    except nx.NetworkXNoPath:
        return math.inf


RISEN_UNDER_CYCLES = {
    # (edges, start, goal, the edge whose cost rises and its new cost): the cycle's nodes
    # held each other's old g, so the repair found no path (or, the cycle at the goal of a
    # backward search, none either).
    "cycle at the goal": ([(0, 1, 1.0), (1, 2, 0.0), (2, 1, 0.0)], 0, 1, (0, 1), 2.0),
    "cycle at the start": ([(1, 0, 1.0), (0, 2, 0.0), (2, 0, 0.0)], 1, 0, (1, 0), 2.0),
    "loop at the goal": ([(0, 1, 1.0), (1, 1, 0.0)], 0, 1, (0, 1), 2.0),
    "loop at the start": ([(0, 0, 0.0), (0, 1, 1.0)], 0, 1, (0, 1), 2.0),
    "steps below the rounding": ([(0, 1, 1.0), (1, 2, 1e-20), (2, 1, 1e-20)], 0, 1, (0, 1),
                                 2.0),
    "a cycle of 8 next to g of 1e250": ([(0, 6, 1e9), (3, 4, 0.42), (3, 0, 1e250),
                                         (4, 3, 7.69)], 4, 6, (0, 6), 1e250),
}


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
@pytest.mark.parametrize("case", RISEN_UNDER_CYCLES)
def test_a_cost_rising_under_a_cycle_of_no_cost_is_repaired(cls, case):
    edges, a, b, edge, cost = RISEN_UNDER_CYCLES[case]
    u, v, w = (list(column) for column in zip(*edges))
    graph = CSRGraph.from_edges(1 + max(u + v), u, v, w)
    planner, _ = planned(cls, graph, a, b)
    planner.update_costs({edge: cost})
    weights = np.array(graph.weights)
    weights[planner._e._edges_between(*edge)] = cost
    r = planner.plan() if cls in (ARAStar, ADStar) else planner.replan()
    assert r.found and r.cost == pytest.approx(nx_cost(graph, weights, a, b), rel=1e-12)
    assert r.path[0] == a and r.path[-1] == b


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
def test_a_cost_rising_next_to_steps_below_the_rounding_of_g_is_repaired(cls):
    costs = np.ones((3, 6))
    costs[:, 2:4] = 1e-17       # a step there adds nothing to a g of about 1
    for a, b, column in (((0, 0), (5, 2), 1), ((5, 2), (0, 0), 4), ((0, 1), (5, 1), 4)):
        planner, _ = planned(cls, Grid(costs), a, b)
        planner.update_costs({(column, y): 5.0 for y in range(3)})
        now = costs.copy()
        now[:, column] = 5.0
        r = planner.plan() if cls in (ARAStar, ADStar) else planner.replan()
        assert r.found and r.cost == pytest.approx(fresh_cost(now, "no_corner_cutting", a, b))
        check_path(now, "no_corner_cutting", r, a, b)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), cls=st.sampled_from([LPAStar, DStarLite, ARAStar, ADStar]))
def test_repairs_over_edges_of_zero_cost_equal_networkx(seed, cls):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    m = int(rng.integers(1, 25))
    weights = rng.choice([0.0, 0.0, 1e-20, 0.5, 1.0, 2.0, 3.7], m)
    graph = CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m), weights)
    weights = np.array(graph.weights)
    a, b = (int(v) for v in rng.integers(0, n, 2))
    planner = cls(graph, a, b)
    for _ in range(6):
        r = planner.plan() if cls in (ARAStar, ADStar) else planner.replan()
        assert r.cost == pytest.approx(nx_cost(graph, weights, a, b), rel=1e-12)
        edges = rng.choice(m, min(m, 2), replace=False)
        change = {int(e): float(rng.choice([0.0, 1e-20, 1.0, 2.0, 5.0, np.inf])) for e in edges}
        planner.update_costs(change)
        weights[list(change)] = list(change.values())


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
@pytest.mark.parametrize("scale", [1e-9, 1e-30])
def test_worlds_of_small_costs_get_their_shortest_paths(cls, scale):
    # Keys were rounded to 2**-24 and ties taken within 1e-9 in absolute terms: with steps
    # of about 1e-9 ties chose the path, up to 30 times dearer than the shortest.
    rng = np.random.default_rng(7)
    for trial in range(12):
        n, m = 30, 120
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        coords = rng.uniform(0, scale, (n, 2)) if trial % 2 else None
        graph = CSRGraph.from_edges(n, u, v, rng.uniform(0.1, 10, m) * scale, coords=coords)
        _, r = planned(cls, graph, 0, 1)
        assert r.cost == pytest.approx(nx_cost(graph, graph.weights, 0, 1), rel=1e-12)
        costs = rng.uniform(1, 5, (8, 8))
        costs[rng.random((8, 8)) < 0.2] = np.inf
        costs[0, 0] = costs[7, 7] = 1.0
        _, r = planned(cls, Grid(costs * scale), (0, 0), (7, 7))
        assert r.cost == pytest.approx(fresh_cost(costs, "no_corner_cutting", (0, 0), (7, 7))
                                       * scale, rel=1e-12)


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
def test_costs_changed_to_small_ones_get_their_shortest_paths(cls):
    # The keys' unit follows the least cost down when a change brings a smaller one.
    rng = np.random.default_rng(8)
    for _ in range(12):
        n, m = 30, 120
        graph = CSRGraph.from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m),
                                    rng.uniform(0.1, 10, m))
        weights = rng.uniform(0.1, 10, m) * 1e-9
        planner, _ = planned(cls, graph, 0, 1)
        planner.update_costs(np.arange(m), costs=weights)
        r = planner.plan() if cls in (ARAStar, ADStar) else planner.replan()
        assert r.cost == pytest.approx(nx_cost(graph, weights, 0, 1), rel=1e-12)
        costs = rng.uniform(1, 5, (8, 8))
        costs[0, 0] = costs[7, 7] = 1.0
        planner, _ = planned(cls, Grid(costs), (0, 0), (7, 7))
        costs = costs * 1e-9
        planner.update_costs(np.argwhere(costs > 0)[:, ::-1], costs=costs[costs > 0])
        r = planner.plan() if cls in (ARAStar, ADStar) else planner.replan()
        assert r.cost == pytest.approx(fresh_cost(costs, "no_corner_cutting", (0, 0), (7, 7)),
                                       rel=1e-12)


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
def test_the_path_is_found_over_steps_below_the_rounding_of_g(cls):
    costs = np.ones((4, 8))
    costs[:, :3] = 1e-17        # a step there adds nothing to a g of about 1
    grid = Grid(costs)
    for a, b in (((0, 0), (7, 3)), ((7, 3), (0, 0))):
        _, r = planned(cls, grid, a, b)
        assert r.found and r.cost == pytest.approx(fresh_cost(costs, "no_corner_cutting", a, b))
        check_path(costs, "no_corner_cutting", r, a, b)


@pytest.mark.parametrize("cost", ["a", None, True, 10**400, 1j])
def test_changed_costs_must_be_real_numbers(cost):
    grid_planner = LPAStar(Grid(np.ones((4, 5))), (0, 0), (4, 3))
    with pytest.raises(InvalidQueryError, match="must be at least"):
        grid_planner.update_costs({(1, 1): cost})
    graph = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    graph_planner = DStarLite(graph, 0, 2)
    with pytest.raises(InvalidQueryError, match="must be >= 0"):
        graph_planner.update_costs({0: cost})
    with pytest.raises(InvalidQueryError, match=r"must be \(u, v\) or an edge id"):
        graph_planner.update_costs({(0, 1, 2): 1.0})
    assert graph_planner.replan().cost == 2.0 and grid_planner.replan().found


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
def test_changed_costs_stay_within_what_the_world_holds(cls):
    # Beyond the grid's MAX_COST per cell (twice it per edge) a step or a path overflowed
    # to inf and the path was lost: such costs are refused, as the grid and graph refuse them.
    def path(planner):
        return planner.replan() if cls in (LPAStar, DStarLite) else planner.plan()

    grid_planner = cls(Grid(np.ones((1, 3))), (0, 0), (2, 0))
    for change in ({(1, 0): 2e250}, {(1, 0): 1e250, (2, 0): 1.7e308}, {(1, 0): 5e-324}):
        with pytest.raises(InvalidQueryError, match=r"at least 2.2250738585072014e-308 and "
                                                    r"at most 1e\+250"):
            grid_planner.update_costs(change)
        with pytest.raises(InvalidQueryError, match=r"at most 1e\+250"):
            grid_planner.update_costs(np.array(list(change)), costs=list(change.values()))
    graph_planner = cls(CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0]), 0, 2)
    for change in ({0: 2e250, 1: 1.7e308}, {(0, 1): 2e250, (1, 2): 1.7e308}):
        with pytest.raises(InvalidQueryError, match=r"at most 2e\+250"):
            graph_planner.update_costs(change)
        with pytest.raises(InvalidQueryError, match=r"at most 2e\+250"):
            graph_planner.update_costs(np.array(list(change)), costs=list(change.values()))
    assert path(grid_planner).cost == 2.0 and path(graph_planner).cost == 2.0
    grid_planner.update_costs({(1, 0): 1e250, (2, 0): 1e250})
    graph_planner.update_costs({0: 2e250, 1: 2e250})
    assert path(grid_planner).cost == 1.5e250 and path(graph_planner).cost == 4e250


def test_a_cost_lowered_to_zero_leaves_the_way_found():
    graph = CSRGraph.from_edges(4, [2, 0, 2], [1, 1, 3], [0.5, 1.0, 1.0], directed=False)
    planner, r = planned(DStarLite, graph, 0, 3)
    assert r.cost == 2.5
    planner.update_costs({(2, 1): 0.0, (1, 2): 0.0})
    assert planner.replan().cost == 2.0


@pytest.mark.parametrize("cls", [LPAStar, DStarLite, ARAStar, ADStar])
def test_start_equal_to_goal_on_a_blocked_cell_has_no_path(cls):
    """As when either end alone is blocked: no path, until the cell is freed (then cost 0),
    and none again once it is blocked."""
    grid = Grid.from_ascii("...\n.#.\n...")
    planner, r = planned(cls, grid, (1, 1), (1, 1))
    assert not r.found and r.cost == math.inf and len(r.path) == 0
    again = planner.plan if cls in (ARAStar, ADStar) else planner.replan
    planner.update_costs({(1, 1): 2.0})
    r = again()
    assert r.found and r.cost == 0.0 and r.path.tolist() == [[1, 1]]
    planner.update_costs({(1, 1): math.inf})
    assert not again().found
    assert planned(cls, grid, (0, 0), (0, 0))[1].path.tolist() == [[0, 0]]


def test_few_expansions_after_a_change_near_the_agent():
    grid = generated_grid("caves")
    far = max(generated_scen("caves"), key=lambda p: p.optimal)
    a, b = far.start, far.goal
    planner = DStarLite(grid, a, b)
    first = planner.replan()
    costs = np.array(grid.costs)
    blocked = tuple(first.path[3])            # a wall appears on the path, near the agent
    costs[blocked[1], blocked[0]] = np.inf
    planner.update_costs({blocked: np.inf})
    again = planner.replan()
    assert again.cost == pytest.approx(fresh_cost(costs, "no_corner_cutting", a, b))
    assert again.stats.expanded * 5 < first.stats.expanded


def test_bad_input():
    grid = Grid(np.ones((4, 4)))
    with pytest.raises(InvalidQueryError):
        DStarLite(grid, (0, 0), (9, 9))
    planner = LPAStar(grid, (0, 0), (3, 3))
    with pytest.raises(InvalidQueryError, match="must be at least"):
        planner.update_costs({(1, 1): 0})
    with pytest.raises(InvalidQueryError, match="must be at least"):
        planner.update_costs({(2, 2): math.inf, (1, 1): math.nan})
    assert planner.replan().cost == pytest.approx(3 * math.sqrt(2))  # nothing changed
    with pytest.raises(InvalidQueryError, match="Grid or a CSRGraph"):
        LPAStar([[1]], 0, 0)
    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    with pytest.raises(InvalidQueryError, match="no edge"):
        LPAStar(g, 0, 2).update_costs({(0, 2): 1.0})
    with pytest.raises(InvalidQueryError, match="out of range"):
        LPAStar(g, 0, 2).update_costs({5: 1.0})
    kept = DStarLite(g, 0, 2)
    with pytest.raises(InvalidQueryError, match=">= 0"):
        kept.update_costs({(0, 1): 7.0, 1: -1.0})
    assert kept.replan().cost == 2.0  # the first, valid change was not applied either


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), cls=st.sampled_from([ARAStar, ADStar]),
       eps=st.sampled_from([1.0, 1.5, 3.0]))
def test_anytime_rounds_stay_within_epsilon(seed, cls, eps):
    rng = np.random.default_rng(seed)
    h, w = 14, 18
    costs = np.where(rng.random((h, w)) < 0.25, np.inf, rng.integers(1, 4, (h, w))).astype(float)
    free = np.argwhere(np.isfinite(costs))[:, ::-1]
    a, b = (tuple(free[i]) for i in rng.choice(len(free), 2, replace=False))
    planner = cls(Grid(costs), a, b, epsilon=eps, step=0.5)
    optimal = fresh_cost(costs, "no_corner_cutting", a, b)
    seen = []
    while True:
        r = planner.plan(max_expansions=15)
        assert r.stats.expanded <= 15
        if r.found:
            assert r.cost <= r.epsilon * optimal + 1e-9
            check_path(costs, "no_corner_cutting", r, a, b)
            seen.append(r.epsilon)
        elif not math.isfinite(optimal) and planner.epsilon == 1.0:
            break
        if r.found and r.epsilon == 1.0:
            assert r.cost == pytest.approx(optimal)
            break
        if not math.isfinite(optimal) and len(seen) == 0 and r.stats.expanded == 0:
            break
    assert seen == sorted(seen, reverse=True)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_ad_star_repairs_to_the_optimum(seed):
    rng = np.random.default_rng(seed)
    h, w = 12, 15
    costs = np.where(rng.random((h, w)) < 0.2, np.inf, 1.0)
    free = np.argwhere(np.isfinite(costs))[:, ::-1]
    a, b = (tuple(free[i]) for i in rng.choice(len(free), 2, replace=False))
    planner = ADStar(Grid(costs), a, b, epsilon=2.0)
    for _ in range(5):
        r = planner.plan()                        # no budget: down to epsilon 1
        assert r.epsilon in (1.0, math.inf)
        assert r.cost == pytest.approx(fresh_cost(costs, "no_corner_cutting", a, b))
        changes = {}
        for _ in range(3):
            x, y = int(rng.integers(w)), int(rng.integers(h))
            if (x, y) not in (a, b):
                changes[(x, y)] = float(rng.choice([np.inf, 1.0]))
        for (x, y), c in changes.items():
            costs[y, x] = c
        planner.update_costs(changes)


def first_plan(planner):
    """Expand one state per call until the planner publishes a path (or none exists): the
    answer and the expansions it took."""
    used = 0
    while True:
        r = planner.plan(max_expansions=1)
        used += r.stats.expanded
        if r.found or planner.finished:
            return r, used


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), cls=st.sampled_from([ARAStar, ADStar]),
       raise_epsilon=st.booleans())
def test_a_cut_path_is_repaired_from_epsilon0_with_raise_epsilon(seed, cls, raise_epsilon):
    rng = np.random.default_rng(seed)
    h, w = 14, 18
    costs = np.where(rng.random((h, w)) < 0.2, np.inf, rng.integers(1, 4, (h, w))).astype(float)
    free = np.argwhere(np.isfinite(costs))[:, ::-1]
    a, b = (tuple(free[i]) for i in rng.choice(len(free), 2, replace=False))
    planner = cls(Grid(costs), a, b, epsilon=2.0, raise_epsilon=raise_epsilon)
    best = planner.plan()
    if len(best.path) < 3:
        return
    # A cost raised on the path keeps it open: the repair stays at epsilon 1.
    x, y = (int(v) for v in best.path[1])
    costs[y, x] += 1
    planner.update_costs({(x, y): costs[y, x]})
    assert planner.epsilon == 1.0 and planner.plan(max_expansions=0).found
    planner.plan()
    # A cell of the path blocked cuts it: with raise_epsilon the repair starts at 2.
    x, y = (int(v) for v in planner.plan(max_expansions=0).path[1])
    costs[y, x] = np.inf
    planner.update_costs({(x, y): np.inf})
    assert planner.epsilon == (2.0 if raise_epsilon else 1.0)
    r, _ = first_plan(planner)
    optimal = fresh_cost(costs, "no_corner_cutting", a, b)
    assert r.found == math.isfinite(optimal)
    if r.found:
        assert 1.0 <= r.epsilon <= planner.epsilon0
        assert r.cost <= r.epsilon * optimal + 1e-9
        check_path(costs, "no_corner_cutting", r, a, b)
    final = planner.plan()
    assert final.cost == pytest.approx(optimal) and planner.finished


@pytest.mark.parametrize("cls", [ARAStar, ADStar])
@pytest.mark.parametrize("along", [0.2, 0.5, 0.8])
def test_raise_epsilon_finds_a_cut_path_again_with_fewer_expansions(cls, along):
    grid = generated_grid("caves")
    far = max(generated_scen("caves"), key=lambda p: p.optimal)
    used = {}
    for raise_epsilon in (False, True):
        planner = cls(grid, far.start, far.goal, epsilon=2.5, raise_epsilon=raise_epsilon)
        path = planner.plan().path
        cut = tuple(int(v) for v in path[int(len(path) * along)])
        planner.update_costs({cut: math.inf})
        r, used[raise_epsilon] = first_plan(planner)
        costs = np.array(grid.costs)
        costs[cut[1], cut[0]] = np.inf
        assert r.found and r.cost <= r.epsilon * fresh_cost(costs, "no_corner_cutting",
                                                            far.start, far.goal) + 1e-9
    assert used[True] < used[False]


def test_ad_star_moved_off_its_path_starts_at_epsilon0_with_raise_epsilon():
    grid = Grid(np.ones((6, 8)))
    for raise_epsilon in (False, True):
        planner = ADStar(grid, (0, 0), (7, 5), epsilon=3.0, raise_epsilon=raise_epsilon)
        planner.plan()
        planner.move_start((0, 5))                      # off the diagonal path
        assert planner.epsilon == (3.0 if raise_epsilon else 1.0)
        assert planner.plan().cost == pytest.approx(7.0)


def test_anytime_bad_input():
    grid = Grid(np.ones((4, 4)))
    with pytest.raises(InvalidQueryError, match="epsilon"):
        ARAStar(grid, (0, 0), (3, 3), epsilon=0.5)
    with pytest.raises(InvalidQueryError, match="step"):
        ADStar(grid, (0, 0), (3, 3), step=0)
    with pytest.raises(InvalidQueryError, match="raise_epsilon 1 must be True or False"):
        ARAStar(grid, (0, 0), (3, 3), raise_epsilon=1)
