"""Grid searches against an independent oracle on random grids, for every diagonal rule."""

import math

import numpy as np
import pytest
from grid_oracle import legal_steps, oracle_costs
from hypothesis import HealthCheck, given, settings
from strategies import TERRAIN, seeded_cost_problems

import wayfinding as wf
from wayfinding.grid import GridSearch

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
