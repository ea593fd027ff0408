"""The wavefront planner: the stopping rules' worked example, equality with Dijkstra, repair
after an obstacle moves, several agents, bad input (of congestion maps too)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import dijkstra_field
from wayfinding.fields.congestion import CongestionMap
from wayfinding.fields.wavefront import Wavefront

HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


# ------------------------------------------------------------------------------ wavefront

def worked_grid():
    costs = np.ones((3, 6))
    costs[0, 1:5] = 10.0
    return Grid(costs, diagonal="never")


def test_stopping_rules_on_the_worked_example():
    grid = worked_grid()
    runs = {}
    for stop in ("reach", "minimal", "converge"):
        wf = Wavefront(grid, (0, 0), starts=[(5, 0)], stop=stop)
        runs[stop] = (wf.run(), wf.cost((5, 0)), wf.path((5, 0)))
    # first reached at 41 along the expensive row; by then the predecessors turn into the
    # second row after two expensive cells, and the reported cost is that path's
    assert runs["reach"][1] == grid.path_cost(runs["reach"][2]) == 5.5 + 10 + 5.5 + 4
    assert runs["minimal"][1] == runs["converge"][1] == 7.0
    assert runs["reach"][0] <= runs["minimal"][0] <= runs["converge"][0]
    path = runs["minimal"][2]
    assert tuple(path[0]) == (5, 0) and tuple(path[-1]) == (0, 0)
    assert grid.path_cost(path) == pytest.approx(7.0)


def weighted_grid(data, heights, widths):
    """A random generator and a grid drawn from it: a fifth of the cells blocked, the rest
    costing 1, 2 or 5, 4- or 8-connected."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    h, w = data.draw(heights), data.draw(widths)
    costs = np.where(rng.random((h, w)) < 0.2, np.inf, rng.choice([1.0, 2.0, 5.0], (h, w)))
    return rng, Grid(costs, diagonal=data.draw(st.sampled_from(["never", "no_corner_cutting"])))


@settings(max_examples=40, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_wavefront_equals_dijkstra(data):
    _, grid = weighted_grid(data, st.integers(2, 14), st.integers(2, 14))
    free = np.argwhere(grid.passable)
    if len(free) < 2:
        return
    gy, gx = free[0]
    truth = dijkstra_field(grid, [(int(gx), int(gy))])
    full = Wavefront(grid, (int(gx), int(gy)), stop="converge")
    full.run()
    np.testing.assert_allclose(full.g, truth)
    sy, sx = free[-1]
    least = Wavefront(grid, (int(gx), int(gy)), starts=[(int(sx), int(sy))])
    least.run()
    assert least.cost((int(sx), int(sy))) == pytest.approx(truth[sy, sx]) \
        if np.isfinite(truth[sy, sx]) else True


@pytest.mark.parametrize("starts", [[(4, 0), (2, 0)], [(2, 0), (4, 0)], [(1, 0), (3, 0), (4, 0)]])
def test_minimal_propagates_through_a_start(starts):
    grid = Grid(np.ones((1, 5), dtype=bool))
    wf = Wavefront(grid, (0, 0), starts=starts, stop="minimal")
    assert wf.run() < 4 * 5 + 4                    # stopped by its rule, not the cap
    for x, y in starts:
        assert wf.cost((x, y)) == pytest.approx(x)


@settings(max_examples=40, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_every_stopping_rule_reports_its_paths_cost(data):
    rng, grid = weighted_grid(data, st.integers(1, 10), st.integers(2, 10))
    h, w = grid.shape
    free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]
    if len(free) < 2:
        return
    goal = free[0]
    truth = dijkstra_field(grid, [goal])
    reachable = [c for c in free[1:] if np.isfinite(truth[c[1], c[0]])]
    if not reachable:
        return
    picks = rng.choice(len(reachable), min(3, len(reachable)), replace=False)
    starts = [reachable[int(i)] for i in picks]
    for stop in ("reach", "minimal"):
        wf = Wavefront(grid, goal, starts=starts, stop=stop)
        assert wf.run() < 4 * h * w + 4                # stopped by its rule, not the cap
        for s in starts:
            assert wf.cost(s) == pytest.approx(grid.path_cost(wf.path(s)))
            if stop == "minimal":
                assert wf.cost(s) == pytest.approx(truth[s[1], s[0]])


def test_repair_after_an_obstacle_moves_equals_a_fresh_plan():
    rng = np.random.default_rng(8)
    costs = np.where(rng.random((16, 16)) < 0.2, np.inf, 1.0)
    costs[0, 0] = costs[15, 15] = 1.0
    grid = Grid(costs)
    wf = Wavefront(grid, (0, 0), stop="converge")
    wf.run()
    free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable) if (x, y) != (0, 0)]
    blocked = [(int(x), int(y)) for y, x in np.argwhere(~grid.passable)]
    for k in range(6):
        old, new = blocked[k], free[int(rng.integers(len(free)))]
        wf.move_obstacle(old, new)
        wf.run()
        fresh_costs = wf.costs.copy()
        np.testing.assert_allclose(wf.g, dijkstra_field(Grid(fresh_costs), [(0, 0)]))
        free.remove(new)
        free.append(old)
        blocked[k] = new


def test_several_agents_wait_for_the_farthest():
    grid = Grid(np.ones((20, 30), dtype=bool))
    far = Wavefront(grid, (0, 0), starts=[(29, 19)])
    n_far = far.run()
    many = Wavefront(grid, (0, 0), starts=[(29, 19), (3, 3), (10, 2), (5, 15)])
    assert many.run() == n_far
    truth = dijkstra_field(grid, [(0, 0)])
    for s in many.starts:
        assert many.cost(s) == pytest.approx(truth[s[1], s[0]])
        assert grid.path_cost(many.path(s)) == pytest.approx(truth[s[1], s[0]])
    near = Wavefront(grid, (0, 0), starts=[(3, 3)])
    assert near.run() < n_far


def test_bad_input():
    grid = worked_grid()
    with pytest.raises(InvalidQueryError, match="stop"):
        Wavefront(grid, (0, 0), starts=[(5, 0)], stop="never")
    with pytest.raises(InvalidQueryError, match="start"):
        Wavefront(grid, (0, 0))
    wf = Wavefront(grid, (0, 0), stop="converge")
    with pytest.raises(InvalidQueryError, match="goal"):
        wf.move_obstacle((1, 1), (0, 0))
    with pytest.raises(InvalidQueryError, match="Grid"):
        CongestionMap(np.ones((2, 2)))
    crowd = CongestionMap(grid)
    with pytest.raises(InvalidQueryError, match="finite"):
        crowd.update([(0.0, 0.0)], [])
    with pytest.raises(InvalidQueryError, match="non-zero"):
        crowd.penalty((0.0, 0.0), (0, 0))
    with pytest.raises(InvalidQueryError, match="weight"):
        crowd.graph(weight=-1)
    with pytest.raises(InvalidQueryError, match="smoothing"):
        CongestionMap(grid, smoothing=0)


@pytest.mark.parametrize("stop", ["reach", "minimal", "converge"])
def test_a_start_the_goal_cannot_be_reached_from_stops_the_run_once_nothing_changes(stop):
    free = np.ones((30, 30), dtype=bool)
    free[:, 15] = False                                # a wall from top to bottom
    plan = Wavefront(Grid(free), (0, 0), starts=[(29, 29), (3, 4)], stop=stop)
    runs = plan.run()
    assert runs < 2 * 30 * 15                          # not 4 x the cells
    assert plan.cost((29, 29)) == np.inf and len(plan.path((29, 29))) == 0
    assert plan.cost((3, 4)) == dijkstra_field(Grid(free), [(0, 0)])[4, 3]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3", np.nan])
def test_max_iterations_must_be_a_count(bad):
    plan = Wavefront(worked_grid(), (0, 0), starts=[(5, 0)])
    with pytest.raises(InvalidQueryError, match="max_iterations"):
        plan.run(max_iterations=bad)
    assert plan.iterations == 0
