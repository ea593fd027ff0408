"""Restrictors and directors: restrictions combine by union, a positional restriction
removes the velocities that would enter it within the step, prioritised summation spends
its budget in order, weights scale; velocity obstacles match an independent collision
check; a small crowd kept on a mesh and apart; bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd, seek, separation
from wayfinding.crowd.locomotion import Locomotion, stay_within
from wayfinding.crowd.vo import VelocityObstacles
from wayfinding.geometry import Obstacles
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh


def one_agent(velocity=(0.0, 0.0), max_speed=2.0):
    crowd = Crowd()
    crowd.add((0.0, 0.0), velocity=velocity, max_speed=max_speed)
    return crowd


def east(c, dt):
    return seek(c, (100.0, 0.0))


def test_restrictions_combine_by_union():
    crowd = one_agent()
    no_east = lambda c, dt, v: v[..., 0] > 0.1          # noqa: E731
    no_north = lambda c, dt, v: v[..., 1] > 0.1         # noqa: E731
    loco = Locomotion([(1.0, east)], restrictors=[no_east, no_north], speeds=8, headings=64)
    cand = loco.candidates(crowd, loco.directed(crowd, 0.1))
    v = loco.velocities(crowd, 0.1)[0]
    assert v[0] <= 0.1 and v[1] <= 0.1                   # forbidden by neither
    allowed = ~(no_east(crowd, 0.1, cand) | no_north(crowd, 0.1, cand))[0]
    gaps = np.hypot(*(cand[0, allowed] - (2.0, 0.0)).T)
    assert np.hypot(*(v - (2.0, 0.0))) == pytest.approx(gaps.min())   # nearest allowed
    # Each alone forbids less: the union is the larger restriction.
    alone = Locomotion([(1.0, east)], restrictors=[no_north], speeds=8, headings=64)
    assert alone.velocities(crowd, 0.1)[0].tolist() == [2.0, 0.0]


@pytest.mark.parametrize("world", ["mesh", "grid", "obstacles"])
def test_a_wall_removes_the_velocities_that_enter_it_within_the_step(world):
    """A wall 0.5 east of the agent: with dt 0.25 every velocity east of 2 m/s is gone."""
    if world == "mesh":
        w = NavMesh.build(outline=[(-5, -5), (0.5, -5), (0.5, 5), (-5, 5)])
    elif world == "grid":
        w = Grid.from_ascii("\n".join(["." * 6 + "#" * 4] * 10), origin=(-5.5, -5.0))
    else:
        w = Obstacles([[(0.5, -5), (5, -5), (5, 5), (0.5, 5)]])
    crowd = one_agent(max_speed=3.0)
    loco = Locomotion([(1.0, east)], restrictors=[stay_within(w)])
    cand = loco.candidates(crowd, loco.directed(crowd, 0.25))
    forbidden = stay_within(w)(crowd, 0.25, cand)[0]
    assert np.array_equal(forbidden, cand[0, :, 0] * 0.25 > 0.5 + 1e-12)
    v = loco.velocities(crowd, 0.25)[0]
    assert v.tolist() == [1.5, 0.0]                       # the fastest allowed sample east
    assert stay_within(w)(crowd, 1.0, cand).any()         # a longer step forbids more
    assert stay_within(w)(crowd, 1.0, cand).sum() > forbidden.sum()


def test_directors_prioritised_within_a_budget_and_weighted():
    crowd = one_agent(max_speed=100.0)
    first = lambda c, dt: np.array([[3.0, 0.0]])          # noqa: E731
    second = lambda c, dt: np.array([[0.0, 4.0]])         # noqa: E731
    # A budget of 2 per second times dt 1: the first alone passes it, and is cut.
    loco = Locomotion([(1.0, first), (1.0, second)], limit=2.0)
    assert loco.directed(crowd, 1.0).tolist() == [[2.0, 0.0]]
    # A budget of 5: the second gets what is left.
    loco = Locomotion([(1.0, first), (1.0, second)], limit=5.0)
    assert loco.directed(crowd, 1.0).tolist() == [[3.0, 2.0]]
    # Weights: doubling one doubles its part.
    loco = Locomotion([(2.0, first), (1.0, second)])
    assert loco.directed(crowd, 1.0).tolist() == [[6.0, 4.0]]
    assert loco.velocities(crowd, 1.0).tolist() == [[6.0, 4.0]]      # nothing restricts


def collides(p, v, q, u, r, horizon):
    """Plain check: sample the relative motion finely."""
    t = np.linspace(0, horizon, 20001)
    d = (q - p)[None] + (u - v)[None] * t[:, None]
    return bool((np.hypot(d[:, 0], d[:, 1]) < r - 1e-9).any())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_velocity_obstacles_forbid_exactly_the_colliding_velocities(seed):
    rng = np.random.default_rng(seed)
    crowd = Crowd()
    crowd.add((0, 0), radius=0.5, max_speed=2.0)
    crowd.add(rng.uniform(-4, 4, 2) + (3, 0), velocity=rng.uniform(-1, 1, 2), radius=0.5)
    p, q = crowd.position
    if np.hypot(*(q - p)) <= 1.0:
        return
    cand = rng.uniform(-2, 2, (1, 40, 2))
    cand = np.concatenate([cand, np.zeros((1, 40, 2))])
    got = VelocityObstacles.vo(time_horizon=2.0).forbids(crowd, 0.1, cand)[0]
    want = [collides(p, v, q, crowd.velocity[1], 1.0, 2.0) for v in cand[0]]
    # Grazing velocities (touching within the sampling) may differ: skip those.
    for v, g, w in zip(cand[0], got, want):
        if g != w:
            d = (q - p)[None] + (crowd.velocity[1] - v)[None] \
                * np.linspace(0, 2.0, 20001)[:, None]
            assert abs(np.hypot(d[:, 0], d[:, 1]).min() - 1.0) < 1e-3


def test_a_small_crowd_kept_on_the_mesh_and_apart():
    mesh = NavMesh.build(outline=[(0, 0), (12, 0), (12, 6), (0, 6)], radius=0.3)
    closest = {}
    vo = VelocityObstacles.vo(time_horizon=1.5, neighbour_dist=4.0)
    for avoid in (False, True):
        crowd = Crowd()
        for k in range(4):
            crowd.add((1.0, 1.2 + 1.2 * k), goal=(11.0, 4.8 - 1.2 * k), radius=0.3,
                      max_speed=1.2)
            crowd.add((11.0, 1.2 + 1.2 * k), goal=(1.0, 1.2 + 1.2 * k), radius=0.3,
                      max_speed=1.2)
        loco = Locomotion([(1.0, lambda c, dt: seek(c, c.goal)),
                           (0.3, lambda c, dt: separation(c, distance=1.0))],
                          restrictors=[stay_within(mesh)] + [vo.forbids] * avoid,
                          speeds=5, headings=48)
        closest[avoid] = np.inf
        for _ in range(400):
            loco.step(crowd, 0.05)
            assert (mesh.locate_many(crowd.position) >= 0).all()
            d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).transpose(2, 0, 1))
            closest[avoid] = min(closest[avoid], d[np.triu_indices(8, 1)].min())
        assert np.hypot(*(crowd.position - crowd.goal).T).max() < 0.3
    # Sampled velocities keep overlaps small (the radii sum to 0.6).
    assert closest[True] > 0.5 and closest[False] < 0.3


def test_bad_input():
    with pytest.raises(InvalidQueryError, match="at least one"):
        Locomotion([])
    with pytest.raises(InvalidQueryError, match="director 0"):
        Locomotion([east])
    with pytest.raises(InvalidQueryError, match="restrictors"):
        Locomotion([(1.0, east)], restrictors=[3])
    with pytest.raises(InvalidQueryError, match="limit"):
        Locomotion([(1.0, east)], limit=-1)
    with pytest.raises(InvalidQueryError, match="world"):
        stay_within([(0, 0)])
    loco = Locomotion([(1.0, east)], restrictors=[lambda c, dt, v: np.zeros(3, bool)])
    with pytest.raises(InvalidQueryError, match="shape"):
        loco.velocities(one_agent(), 0.1)
    with pytest.raises(InvalidQueryError, match="Crowd"):
        loco.velocities([], 0.1)
