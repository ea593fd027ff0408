"""Congestion maps: the penalty formula, rolling average, coarse blocks, the compiled graph
and field, the two-openings scenario."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra as scipy_dijkstra

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import FlowField, dijkstra_field
from wayfinding.fields.congestion import CongestionMap
from wayfinding.grid.generate import random_obstacles

# ----------------------------------------------------------------------------- congestion

def test_the_penalty_formula_with_across_and_against():
    grid = Grid(np.ones((5, 9), dtype=bool))
    crowd = CongestionMap(grid, smoothing=1.0, speed=2.0)
    crowd.update([(4.0, 2.0)] * 3, [(1.0, 0.0)] * 3)        # walking right at half speed
    rho = crowd.density[2, 4]
    assert rho == pytest.approx(3.0)
    assert crowd.penalty((2.0, 0.0), (4, 2)) == pytest.approx((1 - 0.5) * rho)   # with
    assert crowd.penalty((0.0, 2.0), (4, 2)) == pytest.approx(rho)               # across
    assert crowd.penalty((-2.0, 0.0), (4, 2)) == pytest.approx(1.5 * rho)        # against
    assert crowd.penalty((1.0, 0.0), (4, 2)) == 0.0          # no faster than the crowd
    assert crowd.penalty((1.0, 0.0), (0, 0)) == 0.0          # no crowd there


def test_rolling_average_and_blocks():
    grid = Grid(np.ones((8, 8), dtype=bool))
    crowd = CongestionMap(grid, smoothing=0.5, block=2, radius=1.0)
    for _ in range(3):
        crowd.update([(4.5, 4.5)], [(1.0, 0.0)])            # the centre of block (2, 2)
    assert crowd.shape == (4, 4)
    assert crowd.velocity[2, 2, 0] == pytest.approx(1 - 0.5 ** 3)
    assert crowd.density[2, 2] == pytest.approx(1.0)
    assert crowd.penalty((0.0, 1.0), (5, 5)) == pytest.approx(1.0)   # the same block


@pytest.mark.parametrize("block", [1, 2, 3])
@pytest.mark.parametrize("x", [0.0, 1.0, 2.0, 2.5, 4.0, 5.0])
@pytest.mark.parametrize("radius", [1.0, 1.5, 2.5])
def test_a_splat_is_centred_on_the_agent_whatever_the_block(block, x, radius):
    # block k spans cells k*block .. k*block + block - 1, so its centre is at
    # k*block + (block - 1) / 2 in cell coordinates (cell x's centre at x)
    grid = Grid(np.ones((1, 6), dtype=bool))
    crowd = CongestionMap(grid, block=block, radius=radius, smoothing=1.0)
    crowd.update([(x, 0.0)], [(1.0, 0.0)])
    centres = np.arange(crowd.shape[1]) * block + (block - 1) / 2
    dy = (block - 1) / 2                        # the row of blocks is centred on y too
    weight = np.clip(1 - np.hypot(centres - x, dy) / radius, 0, None)
    np.testing.assert_allclose(crowd.density[0], weight, atol=1e-12)


def test_graph_costs_and_exact_search():
    rng = np.random.default_rng(3)
    grid = Grid(np.where(rng.random((12, 16)) < 0.15, np.inf, 1.0))
    crowd = CongestionMap(grid, smoothing=1.0)
    free = np.argwhere(grid.passable)
    agents = free[rng.choice(len(free), 20)][:, ::-1].astype(float)
    crowd.update(agents, rng.uniform(-1, 1, (20, 2)))
    g = crowd.graph(weight=2.0)
    base = grid.to_csr()
    w = grid.width
    src = np.repeat(np.arange(g.num_nodes), np.diff(g.indptr))
    for e in rng.choice(g.num_edges, 50):
        u, v = int(src[e]), int(g.indices[e])
        step = np.array([(v % w) - (u % w), (v // w) - (u // w)], float)
        pen = crowd.penalty(step / np.hypot(*step), (v % w, v // w))
        assert g.weights[e] == pytest.approx(base.weights[e] * (1 + 2.0 * pen))
    start = int(np.flatnonzero(grid.passable.ravel())[0])
    oracle = scipy_dijkstra(g.to_scipy(), indices=start)
    for t in rng.choice(g.num_nodes, 30):
        r = g.find_path(start, int(t))
        if np.isfinite(oracle[t]):
            assert r.cost == pytest.approx(oracle[t])
        else:
            assert not r.found


def test_an_agent_takes_the_free_opening_past_a_queue():
    grid = Grid.from_ascii("""
        ....................
        ....................
        ##########..########
        ....................
        ....................
        ##########..########
        ....................
        ....................""")
    goal, start = (10, 0), (10, 7)
    crowd = CongestionMap(grid, smoothing=1.0)
    # A group queues, standing, at the lower opening.
    queue = [(x + 0.0, y + 0.0) for x in range(8, 14) for y in (3, 4, 5, 6)]
    crowd.update(queue, [(0.0, 0.0)] * len(queue))
    plain = CongestionMap(grid).graph().find_path(start[1] * 20 + start[0],
                                                  goal[1] * 20 + goal[0])
    aware = crowd.graph(weight=1.0).find_path(start[1] * 20 + start[0], goal[1] * 20 + goal[0])
    assert plain.cost < aware.cost
    field = crowd.field([goal], weight=1.0)
    np.testing.assert_allclose(field[start[1], start[0]], aware.cost)
    flow = FlowField(grid, field)
    path = flow.descend(start)
    assert tuple(path[-1]) == goal
    # With no crowd the field is the plain Dijkstra field.
    np.testing.assert_allclose(CongestionMap(grid).field([goal]), dijkstra_field(grid, [goal]))


def walking_left(**options):
    crowd = CongestionMap(Grid(np.ones((5, 9), dtype=bool)), smoothing=1.0, **options)
    crowd.update([(4.0, 2.0)] * 4, [(-1.0, 0.0)] * 4)
    return crowd


@pytest.mark.parametrize("ideal", [(1e-200, 0.0), (1e200, 0.0), (-3e307, 3e307)])
def test_penalties_of_tiny_and_huge_ideal_velocities_follow_the_formula(ideal):
    crowd = walking_left()
    u = np.array(ideal) / np.abs(ideal).max()
    p = (u @ crowd.velocity[2, 4]) / np.abs(ideal).max() / (u @ u)
    expected = 0.0 if p >= 1 else (1 - p) * crowd.density[2, 4]
    assert crowd.penalty(ideal, (4, 2)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("bad", [(np.inf, 0.0), (np.nan, 1.0), (1.0, 0.0, 0.0), "ab", (True, 0)])
def test_an_ideal_velocity_must_be_a_finite_pair(bad):
    with pytest.raises(InvalidQueryError, match="ideal velocity"):
        walking_left().penalty(bad, (4, 2))


def test_graph_costs_for_extreme_speeds():
    crowd = walking_left(speed=1e300)       # the crowd is still next to the ideal speed:
    base = crowd.grid.to_csr()              # every step pays the density it enters
    entered = crowd.density.ravel()[base.indices]
    np.testing.assert_allclose(crowd.graph().weights, base.weights * (1 + entered),
                               rtol=1e-12)
    with pytest.raises(InvalidQueryError, match="weight 1 and speed 1e-300"):
        walking_left(speed=1e-300).graph()                   # penalties beyond any cost


def test_velocities_whose_sum_overflows_average_to_a_finite_velocity():
    crowd = CongestionMap(Grid(np.ones((5, 9), dtype=bool)), smoothing=1.0)
    crowd.update([(4.0, 2.0)] * 3, [(1e308, 0.0)] * 3)
    assert crowd.velocity[2, 4].tolist() == [1e308, 0.0]
    assert crowd.penalty((1.0, 0.0), (4, 2)) == 0.0          # with the crowd: free
    assert crowd.penalty((0.0, 1.0), (4, 2)) == crowd.density[2, 4]


def test_the_field_to_many_goals_is_the_nearest_goals_cost_over_the_graph():
    grid = Grid(random_obstacles(20, 14, density=0.25, seed=5).costs)
    crowd = CongestionMap(grid, smoothing=1.0)
    rng = np.random.default_rng(5)
    crowd.update(rng.uniform(0, 13, (30, 2)), rng.uniform(-1, 1, (30, 2)))
    free = [tuple(int(v) for v in c[::-1]) for c in np.argwhere(grid.passable)]
    goals = [free[i] for i in rng.choice(len(free), 12, replace=False)]
    matrix = crowd.graph(weight=2.0).to_scipy()
    expected = scipy_dijkstra(matrix.T, indices=[y * 20 + x for x, y in goals], min_only=True)
    np.testing.assert_allclose(crowd.field(goals, weight=2.0), expected.reshape(14, 20),
                               rtol=1e-12)
