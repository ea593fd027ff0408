"""Dynamic search against a fresh A* after every step: cells blocked, freed and re-costed near
the agent, on its path ahead and anywhere, the agent walking its path; every answer is a valid
path whose cost equals the fresh optimum (or lies within the reported epsilon)."""

import math

import numpy as np
import pytest
from movingai_data import load

from wayfinding.grid import Grid, GridSearch
from wayfinding.search.incremental import ADStar, ARAStar, DStarLite, LPAStar

MOVES = (ADStar, DStarLite)      # planners that follow the agent


def optimum(costs, a, b):
    r = GridSearch(Grid(costs)).find_path(a, b)
    return r.cost if r.found else math.inf


def changes(rng, costs, walls, agent, goal, path):
    """A few cells blocked, freed or re-costed: near the agent, on its path ahead, or
    anywhere; never the agent's or the goal's cell, never one of the map's walls."""
    h, w = costs.shape
    out = {}
    for _ in range(int(rng.integers(1, 4))):
        where = rng.random()
        if where < 0.4 and len(path) > 2:
            x, y = (int(v) for v in path[int(rng.integers(1, min(len(path) - 1, 12)))])
        elif where < 0.7:
            x = int(np.clip(agent[0] + rng.integers(-4, 5), 0, w - 1))
            y = int(np.clip(agent[1] + rng.integers(-4, 5), 0, h - 1))
        else:
            x, y = int(rng.integers(w)), int(rng.integers(h))
        if (x, y) in (agent, goal) or walls[y, x]:
            continue
        out[(x, y)] = float(rng.choice([np.inf, np.inf, 1.0, 1.0, 2.0]))
    return out


def drive(name, cls, budget, steps, seed):
    """Run ``steps`` plan-change-move rounds; returns how many answers were checked."""
    grid, scen = load(name)
    rng = np.random.default_rng(seed)
    walls = ~np.isfinite(np.asarray(grid.costs))
    costs = np.where(walls, np.inf, 1.0)
    problems = [p for p in scen.problems if p.optimal > 10]
    planner, checked = None, 0
    for _ in range(steps):
        if planner is None:
            p = problems[int(rng.integers(len(problems)))]
            agent, goal = tuple(p.start), tuple(p.goal)
            costs[:] = np.where(walls, np.inf, 1.0)
            kw = {} if cls in (DStarLite, LPAStar) else {"epsilon": 2.5, "step": 0.5}
            planner = cls(Grid(costs), agent, goal, **kw)
        if cls in (DStarLite, LPAStar):
            r, eps = planner.replan(), 1.0
        else:
            r = planner.plan(max_expansions=budget)
            eps = r.epsilon
        best = optimum(costs, agent, goal)
        if r.found:
            assert tuple(r.path[0]) == agent and tuple(r.path[-1]) == goal
            assert Grid(costs).path_cost(r.path) == pytest.approx(r.cost, rel=1e-12)
            assert r.cost <= eps * best * (1 + 1e-12)
            if eps == 1.0:
                assert r.cost == pytest.approx(best, rel=1e-12)
        if budget is None:                       # no budget: the optimum, or none
            assert r.found == math.isfinite(best) and (not r.found or eps == 1.0)
        checked += 1
        path = r.path if r.found else np.empty((0, 2), dtype=np.int64)
        change = changes(rng, costs, walls, agent, goal, path)
        for (x, y), c in change.items():
            costs[y, x] = c
        planner.update_costs(change)
        if cls in MOVES and r.found and len(r.path) > 1 and rng.random() < 0.6:
            k = int(rng.integers(1, min(4, len(r.path))))
            nxt = tuple(int(v) for v in r.path[k])
            if all(np.isfinite(costs[y, x]) for x, y in r.path[1:k + 1].tolist()):
                agent = nxt
                if agent == goal:
                    planner = None
                else:
                    planner.move_start(agent)
    return checked


CASES = [(cls, budget) for cls in (ADStar, ARAStar) for budget in (None, 1, 40, 400)] + \
    [(DStarLite, None), (LPAStar, None)]


@pytest.mark.parametrize("name", ["gen/rooms", "dao/den312d"])
@pytest.mark.parametrize("cls,budget", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_replans_equal_a_fresh_search(name, cls, budget):
    assert drive(name, cls, budget, steps=150, seed=7) == 150


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gen/rooms", "dao/den312d", "dao/arena2", "rooms/8room_000"])
@pytest.mark.parametrize("cls,budget", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_replans_equal_a_fresh_search_long(name, cls, budget):
    steps = 500 if name == "rooms/8room_000" else 3000
    assert drive(name, cls, budget, steps=steps, seed=11) == steps


def test_a_budgeted_answer_never_crosses_a_new_wall():
    costs = np.ones((5, 9))
    planner = ADStar(Grid(costs), (0, 2), (8, 2), epsilon=1.0)
    first = planner.plan()
    assert first.found and first.epsilon == 1.0 and first.cost == 8.0
    planner.update_costs({(4, 2): math.inf})           # a wall on the path
    r = planner.plan(max_expansions=1)
    assert not r.found                                 # the old path is shut, none yet
    planner.update_costs({(4, 0): 2.0})                # elsewhere: none still
    r = planner.plan()
    assert r.found and r.epsilon == 1.0 and r.cost == pytest.approx(6 + 2 * math.sqrt(2))
    x, y = (int(v) for v in r.path[-2])
    planner.update_costs({(x, y): 1.5})                # dearer, still open: kept, no bound
    again = planner.plan(max_expansions=1)
    assert again.found and again.epsilon == math.inf and np.array_equal(again.path, r.path)
    assert again.cost == pytest.approx(r.cost + 0.25 * (1 + math.sqrt(2)))
    before = again.path
    planner.move_start(tuple(int(v) for v in before[1]))   # the agent steps along it
    r = planner.plan(max_expansions=1)
    assert r.found and tuple(r.path[0]) == tuple(before[1])
    assert r.epsilon == 1.0 or np.array_equal(r.path, before[1:])
    planner.move_start((0, 4))                         # off the path: nothing until repaired
    assert not planner.plan(max_expansions=1).found
    r = planner.plan()
    assert r.found and r.epsilon == 1.0 and tuple(r.path[0]) == (0, 4)


@pytest.mark.parametrize("cls", [ADStar, ARAStar])
@pytest.mark.parametrize("budget", [None, 5])
def test_graph_replans_equal_dijkstra(cls, budget):
    from wayfinding.graph import CSRGraph

    rng = np.random.default_rng(3)
    n, m = 60, 260
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    _, first = np.unique(src * n + dst, return_index=True)     # no parallel edges
    keep = np.isin(np.arange(m), first) & (src != dst)
    xy = rng.random((n, 2)) * 10
    length = np.hypot(*(xy[dst] - xy[src]).T)
    g = CSRGraph.from_edges(n, src[keep], dst[keep], (length * (1 + rng.random(m)))[keep],
                            coords=xy)
    weights = np.array(g.weights, dtype=float)
    a, b = 0, n - 1
    planner = cls(g, a, b, epsilon=2.0)
    for _ in range(300):
        r = planner.plan(max_expansions=budget)
        now = CSRGraph(g.indptr, g.indices, np.where(np.isfinite(weights), weights, 1e250),
                       coords=xy)
        ref = now.find_path(a, b, method="dijkstra")
        best = ref.cost if ref.found and ref.cost < 1e249 else math.inf
        if r.found:
            assert r.path[0] == a and r.path[-1] == b
            steps = [weights[g.indptr[u] + np.flatnonzero(g.indices[g.indptr[u]:g.indptr[u + 1]]
                                                          == v)[0]]
                     for u, v in zip(r.path[:-1].tolist(), r.path[1:].tolist())]
            assert sum(steps) == pytest.approx(r.cost, rel=1e-12)
            assert r.cost <= r.epsilon * best * (1 + 1e-12)
        if budget is None:
            assert r.found == math.isfinite(best) and (not r.found or r.epsilon == 1.0)
            assert not r.found or r.cost == pytest.approx(best, rel=1e-12)
        change = {}
        for e in rng.choice(len(weights), 3, replace=False).tolist():
            change[e] = float(rng.choice([np.inf, g.weights[e] * 0.5, g.weights[e] * 2]))
            weights[e] = change[e]
        planner.update_costs(change)
