"""Grid searches against an independent oracle on random grids, for every diagonal rule."""

import math

import numpy as np
import pytest
from grid_oracle import legal_steps, oracle_costs
from hypothesis import HealthCheck, given, settings
from strategies import TERRAIN, seeded_cost_problems

import wayfinding as wf
from wayfinding.errors import InvalidGridError
from wayfinding.grid import GridSearch
from wayfinding.grid.methods import EXACT, make_solver

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]
OPTIMAL = ["astar", "dijkstra", "bidirectional"]


def grids(weighted=True):
    """Cost arrays of 1 to 64 cells a side (half with terrain when ``weighted``), a start and
    a goal."""
    return seeded_cost_problems(max_side=64, terrain=TERRAIN if weighted else None)


def assert_legal(grid, result, start, goal):
    path = result.path
    assert tuple(path[0]) == start and tuple(path[-1]) == goal
    steps = dict(((a, b), c) for a, b, c in legal_steps(grid.costs, grid.diagonal.value))
    total = 0.0
    for p, q in zip(path[:-1], path[1:]):
        key = (tuple(int(v) for v in p), tuple(int(v) for v in q))
        assert key in steps, f"illegal step {key}"
        total += steps[key]
    assert math.isclose(total, result.cost, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("method", OPTIMAL)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_optimal_algorithms_match_oracle(rule, method, case):
    costs, start, goal = case
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
    r = GridSearch(grid).find_path(start, goal, method=method)
    if math.isinf(want):
        assert not r.found and math.isinf(r.cost) and len(r.path) == 0
        return
    assert r.found
    assert math.isclose(r.cost, want, rel_tol=1e-9, abs_tol=1e-9)
    assert_legal(grid, r, start, goal)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(weighted=False))
def test_bfs_finds_fewest_steps(rule, case):
    costs, start, goal = case
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start, unit=True)[goal[1], goal[0]]
    r = GridSearch(grid).find_path(start, goal, method="bfs")
    assert r.found == math.isfinite(want)
    if r.found:
        assert len(r.path) - 1 == want
        assert_legal(grid, r, start, goal)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("weight", [1.0, 1.5, 3.0])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_weighted_astar_within_bound(rule, weight, case):
    costs, start, goal = case
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
    r = GridSearch(grid).find_path(start, goal, method="weighted_astar", weight=weight)
    assert r.found == math.isfinite(want)
    if r.found:
        assert r.cost <= weight * want * (1 + 1e-9) + 1e-9
        assert r.cost >= want * (1 - 1e-9) - 1e-9
        assert_legal(grid, r, start, goal)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_greedy_paths_are_legal(rule, case):
    costs, start, goal = case
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
    r = GridSearch(grid).find_path(start, goal, method="greedy")
    assert r.found == math.isfinite(want)
    if r.found:
        assert r.cost >= want * (1 - 1e-9) - 1e-9
        assert_legal(grid, r, start, goal)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("heuristic", ["zero", "euclidean", "chebyshev", "octile"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_admissible_heuristics_stay_optimal(rule, heuristic, case):
    costs, start, goal = case
    if rule == "never" and heuristic == "octile":
        heuristic = "manhattan"
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
    r = GridSearch(grid).find_path(start, goal, heuristic=heuristic)
    assert r.found == math.isfinite(want)
    if r.found:
        assert math.isclose(r.cost, want, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_distance_map_matches_oracle(rule, case):
    costs, start, _ = case
    grid = wf.Grid(costs, diagonal=rule)
    want = oracle_costs(costs, rule, start)
    got = wf.distance_map(grid, start)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_components_agree_with_reachability(rule, case):
    costs, start, _ = case
    grid = wf.Grid(costs, diagonal=rule)
    reach = np.isfinite(oracle_costs(costs, rule, start))
    comp = grid.components
    same = comp == comp[start[1], start[0]]
    np.testing.assert_array_equal(same, reach)


def degenerate_costs(rng, rule_uniform):
    """Thin, tiny and nearly walled maps: 1 x N, N x 1, 2 x 2, 2 x N and N x N with most
    cells blocked, with the start and goal drawn from the border cells half of the time."""
    h, w = [(1, int(rng.integers(1, 70))), (int(rng.integers(1, 70)), 1), (2, 2),
            (2, int(rng.integers(2, 70))), tuple(int(v) for v in rng.integers(3, 40, 2))][
        int(rng.integers(5))]
    free = rng.random((h, w)) >= rng.choice([0.0, 0.15, 0.4, 0.8])
    costs = np.where(free, 1.0 if rule_uniform else rng.choice([1.0, 2.0, 7.5], (h, w)), np.inf)
    cells = np.argwhere(free)
    if rng.random() < 0.5:
        cells = cells[(cells[:, 0] == 0) | (cells[:, 0] == h - 1) | (cells[:, 1] == 0)
                      | (cells[:, 1] == w - 1)]
    return costs, cells


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_every_exact_method_on_degenerate_maps(seed):
    """Every exact method by name (make_solver), on the maps and rules it supports, against
    scipy's Dijkstra on the move graph built from the written rules; the bounded methods
    within their documented bounds."""
    rng = np.random.default_rng(seed)
    for _ in range(60):
        rule = RULES[int(rng.integers(4))]
        costs, cells = degenerate_costs(rng, rng.random() < 0.5)
        if not len(cells):
            continue
        grid = wf.Grid(costs, diagonal=rule)
        pairs = [(tuple(int(v) for v in cells[rng.integers(len(cells))][::-1]),
                  tuple(int(v) for v in cells[rng.integers(len(cells))][::-1]))
                 for _ in range(4)]
        for method in sorted(EXACT) + ["weighted_astar", "jps_plus_buckets"]:
            try:
                solve = make_solver(grid, method, progress=False)
            except InvalidGridError:      # a method for other maps or rules
                continue
            for start, goal in pairs:
                want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
                try:
                    r = solve(start, goal)
                except InvalidGridError as err:   # online JPS refuses other maps per query
                    assert method in ("jps", "jps2") and err.__context__ is None
                    break
                assert r.found == math.isfinite(want), (method, start, goal)
                if not r.found:
                    continue
                bound = {"weighted_astar": 2 * want, "jps_plus_buckets": want + 0.1}
                assert want - 1e-9 <= r.cost <= bound.get(method, want) + 1e-9 * max(1, want), \
                    (method, rule, start, goal, r.cost, want)
