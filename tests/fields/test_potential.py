"""Potential fields: each potential function's defining shape, sum against max for two
ranged-unit rings, static and periodic dynamic layers, hill climbing to a target and into
a local maximum, a pheromone trail that gets out of a shallow one, an integration field that
gets out of a deep one, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import FlowField
from wayfinding.fields.potential import (
    Cone,
    Linear,
    PheromoneTrail,
    PotentialField,
    Radial,
    Ring,
)


def open_grid(h=21, w=31):
    return Grid(np.ones((h, w), dtype=bool))


def test_potential_shapes():
    xs = np.array([0.0, 3.0, 6.0, 10.0, 20.0])
    ys = np.zeros_like(xs)
    np.testing.assert_allclose(Linear((0, 0), 8.0, 10.0).values(xs, ys), [8, 5.6, 3.2, 0, 0])
    ring = Ring((0, 0), peak=6.0, best=4.0, radius=12.0).values(xs, ys)
    np.testing.assert_allclose(ring, [0, 4.5, 4.5, 1.5, 0])
    assert Ring((0, 0), 6.0, 4.0, 12.0).values(np.array([4.0]), np.array([0.0]))[0] == 6.0
    quad = Radial((0, 0), lambda d: -d ** 2).values(xs, ys)
    np.testing.assert_allclose(quad, -xs ** 2)
    cone = Cone((0, 0), (1, 0), math.radians(30), 10.0, -5.0)
    pts = np.array([[5.0, 0.0], [5.0, 2.0], [5.0, 4.0], [-5.0, 0.0], [11.0, 0.0]])
    np.testing.assert_allclose(cone.values(pts[:, 0], pts[:, 1]),
                               [-2.5, -5 * (1 - np.hypot(5, 2) / 10), 0, 0, 0])


def test_max_does_not_invent_a_spot_that_sum_does():
    grid = open_grid()
    enemies = [(8, 10), (22, 10)]
    rings = [Ring(e, peak=5.0, best=5.0, radius=12.0) for e in enemies]

    def best_spot(combine):
        field = PotentialField(grid, combine=combine)
        field.set_static(rings)
        y, x = np.unravel_index(np.argmax(field.values), grid.shape)
        return min(math.dist((x, y), e) for e in enemies)

    # Summing the rings makes the ground midway between the enemies look best: out of
    # range of both.
    assert best_spot("sum") == pytest.approx(7.0, abs=0.5)
    # The maximum keeps the ranged unit at its distance from the nearest enemy.
    assert best_spot("max") == pytest.approx(5.0, abs=0.6)


def test_static_and_periodic_dynamic_layers():
    grid = open_grid()
    field = PotentialField(grid, period=0.2)
    field.set_static([Linear((25, 10), 40.0, 40.0)])
    base = field.values.copy()
    calls = []

    def enemies():
        calls.append(1)
        return [Radial((20, 11), lambda d: -8.0 * np.clip(1 - d / 4, 0, None))]

    for t in np.arange(0.0, 1.0, 0.05):   # 20 frames at 20 Hz: 5 dynamic updates
        field.update_dynamic(t, enemies)
    assert field.dynamic_updates == len(calls) == 5
    np.testing.assert_allclose(field.values - base, field.dynamic)
    assert field.values[11, 20] < base[11, 20] - 7
    # Climbers keep away from the enemy on their way to the target.
    path = field.climb((2, 10), steps=100)
    assert tuple(path[-1]) == (25, 10)
    assert min(math.dist(c, (20, 11)) for c in path.tolist()) > 1.5
    straight = PotentialField(grid)
    straight.set_static([Linear((25, 10), 40.0, 40.0)])
    assert min(math.dist(c, (20, 11)) for c in straight.climb((2, 10)).tolist()) <= 1.5


def test_hill_climbing_stops_in_a_local_maximum_and_walls_are_never_entered():
    grid = Grid.from_ascii("""
        ..................
        ..................
        ......#####.......
        ..........#.......
        ..........#.......
        ..........#.......
        ......#####.......
        ..................
        ..................""")
    goal = (14, 4)
    field = PotentialField(grid)
    field.set_static([Linear(goal, 10.0, 30.0)])
    assert np.isneginf(field.values[~grid.passable]).all()
    path = field.climb((1, 4))
    assert tuple(path[-1]) == (9, 4)                      # stuck in the U
    assert grid.passable[path[:, 1], path[:, 0]].all()
    # The integration field has no local maximum (minimum of cost): it goes round.
    assert tuple(FlowField.build(grid, [goal]).descend((1, 4))[-1]) == goal


def test_a_pheromone_trail_gets_out_of_a_shallow_trap():
    grid = Grid.from_ascii("""
        ..............
        ..............
        .......#......
        .......#......
        .......#......
        ..............
        ..............""")
    goal = (12, 3)
    plain = PotentialField(grid)
    plain.set_static([Linear(goal, 10.0, 30.0)])
    assert tuple(plain.climb((2, 3))[-1]) == (6, 3)      # behind the wall
    trail = PheromoneTrail(grid.shape, amount=0.5, keep=0.98)
    pushed = PotentialField(grid, trail=trail)
    pushed.set_static([Linear(goal, 10.0, 30.0)])
    path = pushed.climb((2, 3), steps=200)
    assert (path[:, 0] > 7).any() and math.dist(path[-1], goal) <= 2.5
    assert trail.values.min() < 0 and (trail.values <= 0).all()


def test_many_agents_step_at_once():
    grid = open_grid()
    field = PotentialField(grid)
    field.set_static([Linear((15, 10), 10.0, 40.0)])
    agents = np.array([[0, 0], [30, 20], [15, 10], [14, 10]])
    nxt = field.step(agents)
    np.testing.assert_array_equal(nxt, [[1, 1], [29, 19], [15, 10], [15, 10]])


def test_bad_input():
    grid = open_grid(3, 3)
    with pytest.raises(InvalidQueryError, match="radius"):
        Linear((0, 0), 1.0, 0.0)
    with pytest.raises(InvalidQueryError, match="exceed"):
        Ring((0, 0), 1.0, 5.0, 4.0)
    with pytest.raises(InvalidQueryError, match="half_angle"):
        Cone((0, 0), (1, 0), 4.0, 1.0, 1.0)
    with pytest.raises(InvalidQueryError, match="non-zero"):
        Cone((0, 0), (0, 0), 0.5, 1.0, 1.0)
    with pytest.raises(InvalidQueryError, match="combine"):
        PotentialField(grid, combine="mean")
    with pytest.raises(InvalidQueryError, match="Potential"):
        PotentialField(grid).set_static([lambda x, y: x])
    with pytest.raises(InvalidQueryError, match="keep"):
        PheromoneTrail((3, 3), keep=1.0)
    with pytest.raises(InvalidQueryError, match="shape"):
        PotentialField(grid, trail=PheromoneTrail((2, 2)))
    with pytest.raises(InvalidQueryError, match="Grid"):
        PotentialField(np.ones((3, 3)))


@pytest.mark.parametrize("bad", [[(3, 0)], [(-1, 0)], [(0, -1)], [(0.5, 0)], [(np.nan, 0)],
                                 [(True, 0)], "ab", [(1, 2, 3)]])
def test_agents_and_trail_drops_must_be_cells_inside_the_grid(bad):
    field = PotentialField(open_grid(3, 3), trail=PheromoneTrail((3, 3)))
    with pytest.raises(InvalidQueryError, match="cells"):
        field.step(bad)
    with pytest.raises(InvalidQueryError, match="cells"):
        field.trail.deposit(bad)
    assert not field.trail.values.any()                      # a cell (-1, 0) wrapped round
    assert field.step(np.empty((0, 2))).shape == (0, 2)


def test_potentials_and_times_must_be_finite():
    with pytest.raises(InvalidQueryError, match="center"):
        Linear((np.nan, 0.0), 1.0, 2.0)
    with pytest.raises(InvalidQueryError, match="center"):
        Ring("ab", 1.0, 1.0, 2.0)
    with pytest.raises(InvalidQueryError, match="center"):
        Radial((np.inf, 0.0), np.exp)
    with pytest.raises(InvalidQueryError, match="apex"):
        Cone((np.nan, 0.0), (1.0, 0.0), 0.5, 1.0, 1.0)
    with pytest.raises(InvalidQueryError, match="direction"):
        Cone((0.0, 0.0), (np.inf, 0.0), 0.5, 1.0, 1.0)          # gave NaN everywhere
    field = PotentialField(open_grid(3, 3))
    with pytest.raises(InvalidQueryError, match="time"):
        field.update_dynamic(np.nan, list)
    assert field.dynamic_updates == 0
    with pytest.raises(InvalidQueryError, match="values has shape"):
        field.step([(1, 1)], values=np.zeros((2, 2)))
    far = Cone((0.0, 0.0), (1e300, 1e300), 0.5, 2.0, 1.0)        # a long direction is fine
    assert far.values(np.array([1.0]), np.array([1.0]))[0] == pytest.approx(1 - 2**0.5 / 2)


@pytest.mark.parametrize("profile", [lambda d: d * np.nan, lambda d: d[:1], lambda d: "x",
                                     lambda d: [None] * len(d)])
def test_a_profile_must_give_a_number_for_every_cell(profile):
    field = PotentialField(open_grid(3, 4))
    with pytest.raises(InvalidQueryError, match="number"):
        field.set_static([Radial((1.0, 1.0), profile)])
    assert not field.static.any()
    field.set_static([Radial((1.0, 1.0), lambda d: 2.5)])       # one number for every cell
    assert (field.values == 2.5).all()
