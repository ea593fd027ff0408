"""The crowd's structure-of-arrays store (adding and removing at any time against a plain
dict model), the compiled nearest-neighbour query against brute force, and the synchronous
fixed step (order independence, acceleration and speed limits, arriving)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA, Crowd
from wayfinding.geometry.obstacles import MAX_EXTENT


def brute_neighbours(points, ranges, k):
    d2 = ((points[:, None] - points[None]) ** 2).sum(-1)
    out = []
    for i in range(len(points)):
        order = np.lexsort((np.arange(len(points)), d2[i]))
        out.append([int(j) for j in order if j != i and d2[i, j] < ranges[i] ** 2][:k])
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 120), st.integers(1, 12),
       st.booleans())
def test_neighbours_equal_brute_force(seed, n, k, lattice):
    rng = np.random.default_rng(seed)
    crowd = Crowd(max_neighbours=k)
    # On a lattice many distances tie: the lower row must win.
    pts = rng.integers(0, 6, (n, 2)).astype(float) if lattice else \
        rng.uniform(-30, 30, (n, 2))
    for p in pts:
        crowd.add(p)
    ranges = rng.uniform(0.5, 12, n)
    rows, counts = crowd.neighbours(distance=ranges)
    expect = brute_neighbours(crowd.position, ranges, k)
    for i in range(n):
        assert rows[i, :counts[i]].tolist() == expect[i]
        assert (rows[i, counts[i]:] == -1).all()


def test_neighbours_of_far_apart_and_spread_out_agents():
    crowd = Crowd(neighbour_dist=2.0, max_neighbours=3)
    for p in [(0, 0), (1, 0), (1e6, 0), (1e6, 1.5), (-3e5, 7e5)]:
        crowd.add(p)
    rows, counts = crowd.neighbours()
    assert counts.tolist() == [1, 1, 1, 1, 0]
    assert rows[:, 0].tolist() == [1, 0, 3, 2, -1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), max_size=80))
def test_adding_and_removing_keep_every_agent_s_data(ops):
    crowd, model = Crowd(), {}
    for i, (add, pick) in enumerate(ops):
        if add or not model:
            agent = crowd.add((i, -i), goal=(2 * i, 0), radius=0.1 + i, group=i % 3)
            assert agent not in model
            model[agent] = i
        else:
            agent = sorted(model)[pick % len(model)]
            crowd.remove(agent)
            del model[agent]
    assert sorted(crowd.ids.tolist()) == sorted(model) and len(crowd) == len(model)
    for agent, i in model.items():
        r = crowd.row(agent)
        assert crowd.position[r].tolist() == [i, -i] and crowd.goal[r].tolist() == [2 * i, 0]
        assert crowd.radius[r] == 0.1 + i and crowd.group[r] == i % 3


def test_the_step_does_not_depend_on_the_agents_order():
    rng = np.random.default_rng(3)
    starts, goals = rng.uniform(-10, 10, (30, 2)), rng.uniform(-10, 10, (30, 2))
    speeds, accels = rng.uniform(0.5, 2, 30), rng.uniform(0.5, 3, 30)
    results = []
    for order in (np.arange(30), rng.permutation(30)):
        crowd = Crowd()
        ids = {}
        for i in order:
            ids[i] = crowd.add(starts[i], goal=goals[i], max_speed=speeds[i],
                               max_accel=accels[i])
        for _ in range(50):
            crowd.step(0.1)
        results.append(np.array([crowd.position_of(ids[i]) for i in range(30)]))
    np.testing.assert_array_equal(results[0], results[1])


def test_the_step_limits_acceleration_and_speed_and_arrives():
    crowd = Crowd()
    a = crowd.add((0, 0), goal=(10, 0), max_speed=2.0, max_accel=1.0)
    speeds = []
    for _ in range(100):
        crowd.step(0.25)
        speeds.append(float(np.hypot(*crowd.velocity[crowd.row(a)])))
    steps = np.diff([0.0] + speeds)
    assert max(speeds) <= 2.0 + 1e-12 and steps.max() <= 0.25 * 1.0 + 1e-12
    assert crowd.position_of(a) == pytest.approx([10, 0], abs=0.05)
    assert speeds[-1] < 0.3                     # it settled at the goal
    # Without an acceleration limit, arriving lands exactly on the goal and stops there.
    b = crowd.add((0, 5), goal=(3, 9), max_speed=1.0)
    for _ in range(60):
        crowd.step(0.1)
    assert crowd.position_of(b).tolist() == pytest.approx([3, 9], abs=1e-12)
    assert not crowd.velocity[crowd.row(b)].any()


def test_a_given_velocity_is_followed():
    crowd = Crowd()
    crowd.add((0, 0), max_speed=1.0)
    crowd.step(0.5, velocity=[[3.0, 4.0]])           # clamped to max_speed
    assert crowd.velocity[0].tolist() == pytest.approx([0.6, 0.8])
    assert crowd.position[0].tolist() == pytest.approx([0.3, 0.4])


def test_bad_input_is_refused_and_changes_nothing():
    crowd = Crowd()
    a = crowd.add((1, 1))
    for kwargs in ({"position": (math.nan, 0)}, {"position": (1, 2, 3)},
                   {"position": (0, 0), "radius": 0}, {"position": (0, 0), "max_speed": -1},
                   {"position": (0, 0), "max_accel": math.nan},
                   {"position": (0, 0), "group": 1.5}, {"position": (0, 0), "goal": "x"}):
        with pytest.raises(InvalidQueryError):
            crowd.add(**kwargs)
    assert len(crowd) == 1 and crowd.ids.tolist() == [a]
    for bad in (a + 1, "a", None):
        with pytest.raises(InvalidQueryError, match="no agent"):
            crowd.remove(bad)
    for dt in (0, -1, math.inf, math.nan, True, "0.1"):
        with pytest.raises(InvalidQueryError, match="dt"):
            crowd.step(dt)
        with pytest.raises(InvalidQueryError, match="dt"):
            crowd.preferred_velocity(dt)
    with pytest.raises(InvalidQueryError, match="velocity"):
        crowd.step(0.1, velocity=[[1.0, math.nan]])
    with pytest.raises(InvalidQueryError, match="velocity"):
        crowd.step(0.1, velocity=[[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(InvalidQueryError, match="distance"):
        crowd.neighbours(distance=0)
    with pytest.raises(InvalidQueryError, match="max_neighbours"):
        crowd.neighbours(max_neighbours=-1)
    with pytest.raises(InvalidQueryError, match="max_neighbours"):
        Crowd(max_neighbours=-1)
    assert crowd.position[0].tolist() == [1, 1] and not crowd.velocity.any()


def test_neighbours_of_agents_far_apart():
    """Agents very far from the rest (or from each other) neither overflow the bucket grid
    nor lose the neighbours of those near each other."""
    crowd = Crowd()
    for p in [(0.0, 0.0), (1.0, 0.0), (1e15, 0.0), (-1e15, MAX_EXTENT), (1e15, 0.5)]:
        crowd.add(p)
    rows, counts = crowd.neighbours(distance=2.0, max_neighbours=3)
    assert counts.tolist() == [1, 1, 1, 0, 1]
    assert rows[:, 0].tolist() == [1, 0, 4, -1, 2]


def test_added_fields_grow_move_and_start_from_their_fill():
    crowd = Crowd()
    crowd.add_field("mood", shape=(3,), dtype=np.int32, fill=7)
    ids = [crowd.add((float(k), 0.0)) for k in range(40)]             # grows past 16
    mood = crowd.field("mood")
    assert mood.shape == (40, 3) and mood.dtype == np.int32 and (mood == 7).all()
    mood[:, 0] = np.arange(40)
    crowd.remove(ids[0])
    assert crowd.field("mood")[0].tolist() == [39, 7, 7]              # the last row moved
    crowd.resize_field("mood", (5,))
    assert crowd.field("mood")[0].tolist() == [39, 7, 7, 7, 7]
    crowd.add((0.0, 1.0))
    assert crowd.field("mood")[-1].tolist() == [7] * 5
    with pytest.raises(InvalidQueryError, match="already has a field 'radius'"):
        crowd.add_field("radius")
    with pytest.raises(InvalidQueryError, match="no field 'hunger'"):
        crowd.field("hunger")
    with pytest.raises(InvalidQueryError, match="no added field 'radius'"):
        crowd.resize_field("radius", (2,))
    assert crowd.field("radius").tolist() == crowd.radius.tolist()


@pytest.mark.parametrize("option, bad", [
    ("position", (1e300, 0.0)), ("position", (0.0, -2 * MAX_EXTENT)), ("goal", (0.0, 1e300)),
    ("radius", 1e300), ("max_speed", 1e300), ("max_accel", 2 * MAX_EXTENT)])
def test_sizes_beyond_max_extent_are_refused(option, bad):
    crowd = Crowd()
    with pytest.raises(InvalidQueryError, match=option):
        crowd.add(**{"position": (0.0, 0.0), option: bad})
    assert len(crowd) == 0


@pytest.mark.parametrize("seed", range(4))
def test_agents_as_large_and_fast_as_max_extent_step_to_finite_states(seed):
    """Agents of radius and top speed MAX_EXTENT, far apart or piled on one point, keep
    finite velocities within their top speeds under ORCA, step after step."""
    rng = np.random.default_rng(seed)
    crowd = Crowd()
    scale = MAX_EXTENT if seed % 2 else 1.0
    for _ in range(4):
        crowd.add(rng.uniform(-1, 1, 2) * scale, goal=rng.uniform(-1, 1, 2) * scale,
                  radius=MAX_EXTENT, max_speed=MAX_EXTENT, max_accel=MAX_EXTENT)
    for _ in range(6):
        ORCA().step(crowd, 0.1)
        speed = np.hypot(*crowd.velocity.T)
        assert np.isfinite(crowd.position).all() and (speed <= MAX_EXTENT * (1 + 1e-12)).all()


def test_a_step_however_short_heads_for_the_goal_at_top_speed():
    """A step so short that the distance over it overflows asks for top speed, without a
    floating-point warning."""
    crowd = Crowd()
    crowd.add((0.0, 0.0), goal=(3.0, 4.0), max_speed=2.0)
    np.testing.assert_allclose(crowd.preferred_velocity(5e-324), [(1.2, 1.6)], rtol=1e-15)


@pytest.mark.parametrize("dt", [1e140, 1e300])
def test_a_step_beyond_max_extent_is_refused_and_changes_nothing(dt):
    crowd = Crowd()
    crowd.add((0.0, 0.0), goal=(1.0, 0.0), max_speed=1.0)
    crowd.add((0.0, 5.0), velocity=(0.0, 1e20), max_speed=1e20, max_accel=0.0)
    before = crowd.position.copy(), crowd.velocity.copy()
    with pytest.raises(InvalidQueryError, match=r"row 1 first\) beyond"):
        crowd.step(dt)
    assert (crowd.position == before[0]).all() and (crowd.velocity == before[1]).all()
    crowd.step(1e120 / dt)                       # far, but within the bound
    assert np.abs(crowd.position).max() <= MAX_EXTENT


@pytest.mark.parametrize("max_accel, want", [(1.0, (1.0, 0.0)), (math.inf, (-1.0, 0.0))])
def test_turning_between_velocities_of_any_size_gives_finite_velocities(max_accel, want):
    """A change between velocities whose difference overflows is limited and cut to the
    top speed as any other (at acceleration 1 the turn hardly starts; with no limit the
    agent takes the new direction), without a floating-point warning."""
    crowd = Crowd()
    crowd.add((0.0, 0.0), velocity=(1.7e308, 0.0), max_speed=1.0, max_accel=max_accel)
    crowd.step(0.1, velocity=[(-1.7e308, 0.0)])
    np.testing.assert_allclose(crowd.velocity, [want], rtol=1e-15)
    np.testing.assert_allclose(crowd.position, [np.multiply(want, 0.1)], rtol=1e-15)
