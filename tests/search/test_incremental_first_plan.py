"""Edits made right after an incremental planner's first plan: cells inside the region the
first search settled, on its frontier (queued, not yet settled) and beyond it (never
reached), costs raised, lowered, blocked and freed, the start's neighbours blocked, goals
walled off and opened again.  Every replan's cost equals the plain Dijkstra of
test_incremental_lazy."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental_lazy import STEPS, dijkstra

from wayfinding.grid import Grid
from wayfinding.search.incremental import DStarLite, LPAStar


def check(planner, costs, a, b):
    r = planner.replan()
    best = dijkstra(costs, "no_corner_cutting", a, b)
    assert r.found == math.isfinite(best)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-9)
        assert tuple(r.path[0]) == a and tuple(r.path[-1]) == b
        assert Grid(costs).path_cost(r.path) == pytest.approx(best, rel=1e-9)
    return r


def regions(planner, shape):
    """Cells (x, y) the first search settled (g finite), left on its frontier (rhs finite,
    g not) and never reached."""
    g = planner._core.g.reshape(shape)
    rhs = planner._core.rhs.reshape(shape)
    inside = np.isfinite(g)
    frontier = ~inside & np.isfinite(rhs)
    beyond = ~inside & ~frontier
    return [[(int(x), int(y)) for y, x in zip(*np.nonzero(m))] for m in (inside, frontier, beyond)]


VALUES = [math.inf, 0.5, 1.0, 3.0]


@st.composite
def worlds(draw):
    h = draw(st.integers(4, 18))
    w = draw(st.integers(4, 18))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    costs = np.where(rng.random((h, w)) < draw(st.sampled_from([0.0, 0.15, 0.3])), math.inf,
                     rng.choice([1.0, 1.0, 1.5, 2.0], size=(h, w)))
    a = (int(rng.integers(w)), int(rng.integers(h)))
    b = (int(rng.integers(w)), int(rng.integers(h)))
    costs[a[1], a[0]] = costs[b[1], b[0]] = 1.0
    return costs, a, b, rng


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
@settings(max_examples=120, deadline=None)
@given(world=worlds(), where=st.lists(st.sampled_from([0, 1, 2]), min_size=1, max_size=6))
def test_edits_inside_at_and_beyond_the_first_frontier(cls, world, where):
    costs, a, b, rng = world
    planner = cls(Grid(costs.copy()), a, b)
    check(planner, costs, a, b)
    places = regions(planner, costs.shape)
    change = {}
    for k in where:
        cells = [c for c in places[k] if c not in (a, b)]
        if cells:
            cell = cells[int(rng.integers(len(cells)))]
            change[cell] = VALUES[int(rng.integers(len(VALUES)))]
    for (x, y), c in change.items():
        costs[y, x] = c
    planner.update_costs(change)
    check(planner, costs, a, b)
    again = {}                                     # a second round, anywhere
    for _ in range(3):
        cell = (int(rng.integers(costs.shape[1])), int(rng.integers(costs.shape[0])))
        if cell not in (a, b):
            again[cell] = VALUES[int(rng.integers(len(VALUES)))]
    for (x, y), c in again.items():
        costs[y, x] = c
    planner.update_costs(again)
    check(planner, costs, a, b)


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_every_region_is_edited_on_an_open_map(cls):
    costs = np.ones((30, 40))
    a, b = (3, 4), (35, 25)
    planner = cls(Grid(costs.copy()), a, b)
    check(planner, costs, a, b)
    inside, frontier, beyond = regions(planner, costs.shape)
    assert inside and frontier and beyond
    rng = np.random.default_rng(2)
    for cells in (frontier, inside, beyond):
        for value in VALUES:
            change = {}
            for i in rng.choice(len(cells), min(4, len(cells)), replace=False).tolist():
                if cells[i] not in (a, b):
                    change[cells[i]] = value
            for (x, y), c in change.items():
                costs[y, x] = c
            planner.update_costs(change)
            check(planner, costs, a, b)


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_blocking_the_starts_neighbours_after_the_first_plan(cls):
    costs = np.ones((12, 15))
    costs[2:10, 7] = math.inf
    a, b = (4, 6), (12, 5)
    planner = cls(Grid(costs.copy()), a, b)
    check(planner, costs, a, b)
    ring = {(a[0] + dx, a[1] + dy): math.inf for dx, dy in STEPS}
    for (x, y), c in ring.items():
        costs[y, x] = c
    planner.update_costs(ring)
    assert not check(planner, costs, a, b).found
    costs[a[1] - 1, a[0] + 1] = 2.0                   # one diagonal opened: still shut
    planner.update_costs({(a[0] + 1, a[1] - 1): 2.0})
    assert not check(planner, costs, a, b).found
    costs[a[1], a[0] + 1] = 0.5                       # its side cell too: a way out
    planner.update_costs({(a[0] + 1, a[1]): 0.5})
    assert check(planner, costs, a, b).found


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_goals_walled_off_and_opened_after_the_first_plan(cls):
    costs = np.ones((10, 14))
    a, b = (1, 1), (11, 7)
    planner = cls(Grid(costs.copy()), a, b)
    check(planner, costs, a, b)
    wall = {(x, y): math.inf for x in range(9, 14) for y in range(5, 10)
            if (x, y) != b and (x in (9, 13) or y in (5, 9))}
    for (x, y), c in wall.items():
        costs[y, x] = c
    planner.update_costs(wall)
    assert not check(planner, costs, a, b).found
    costs[5, 11] = 3.0                                # a gate, dear
    planner.update_costs({(11, 5): 3.0})
    assert check(planner, costs, a, b).found


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_an_unreachable_first_goal_is_reached_after_an_edit(cls):
    costs = np.ones((9, 9))
    costs[:, 4] = math.inf
    a, b = (0, 4), (8, 4)
    planner = cls(Grid(costs.copy()), a, b)
    assert not check(planner, costs, a, b).found       # the first search floods one side
    costs[0, 4] = 0.5
    planner.update_costs({(4, 0): 0.5})
    assert check(planner, costs, a, b).found
    costs[0, 4] = math.inf
    planner.update_costs({(4, 0): math.inf})
    assert not check(planner, costs, a, b).found
