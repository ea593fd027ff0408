"""Boids behind a virtual leader, and social groups in a crowd, stepped by ORCA."""

import math

import numpy as np
import pytest

from wayfinding.crowd import ORCA, Crowd
from wayfinding.errors import InvalidQueryError
from wayfinding.groups.flocking import Flock, social_offsets, social_velocities

DT = 0.1
RADIUS = 0.3


def min_gap(crowd):
    d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).transpose(2, 0, 1))
    d[np.diag_indices(len(crowd))] = math.inf
    return float((d - (crowd.radius[:, None] + crowd.radius[None])).min())


@pytest.mark.parametrize("size", [5, 12])
def test_boids_stay_near_the_leader_and_never_overlap(size):
    rng = np.random.default_rng(size)
    crowd = Crowd(neighbour_dist=5.0)
    ids = [crowd.add((0.8 * (k % 4), 0.8 * (k // 4) - 1.0), radius=RADIUS, max_speed=1.6)
           for k in range(size)]                         # a loose block, none touching
    crowd.position[:] += rng.uniform(-0.05, 0.05, (size, 2))
    path = [(0.0, 0.0), (15.0, 0.0), (15.0, 12.0), (0.0, 12.0)]
    flock = Flock(ids, path, speed=1.0)
    orca = ORCA(time_horizon=2.0)
    worst_gap, farthest = math.inf, 0.0
    for _ in range(600):
        pref = flock.velocities(crowd, DT)
        orca.step(crowd, DT, preferred=pref)
        flock.advance(crowd, DT)
        worst_gap = min(worst_gap, min_gap(crowd))
        farthest = max(farthest, float(np.hypot(*(crowd.position - flock.leader).T).max()))
    assert worst_gap >= -0.01 * RADIUS
    assert farthest <= 5.0
    assert np.allclose(flock.leader, path[-1])           # the leader reached the end
    assert np.hypot(*(crowd.position.mean(0) - path[-1])) < 1.5


def test_the_leader_waits_for_a_lagging_flock():
    crowd = Crowd()
    ids = [crowd.add((0.0, 0.0), max_speed=0.0)]         # a member that cannot move
    flock = Flock(ids, [(0.0, 0.0), (10.0, 0.0)], speed=1.0, slack=2.0)
    for _ in range(100):
        flock.advance(crowd, DT)
    assert flock.leader[0] == pytest.approx(2.0, abs=0.11)


def test_boid_rules_pull_in_their_directions():
    crowd = Crowd()
    a = crowd.add((0.0, 0.0), max_speed=10.0)
    b = crowd.add((0.5, 0.0), max_speed=10.0)
    only_sep = Flock([a, b], [(0.0, 5.0)], speed=1.0, follow=0.0, cohesion=0.0,
                     alignment=0.0, separation=1.0)
    v = only_sep.velocities(crowd, DT)
    assert v[0, 0] < 0 < v[1, 0] and np.allclose(v[:, 1], 0)     # apart
    only_follow = Flock([a, b], [(0.0, 5.0)], speed=1.0, follow=1.0, cohesion=0.0,
                        alignment=0.0, separation=0.0)
    v = only_follow.velocities(crowd, DT)
    assert np.allclose(v, [[0.0, 5.0], [-0.5, 5.0]])            # to the leader


@pytest.mark.parametrize("shape", ["abreast", "v", "lane"])
@pytest.mark.parametrize("size", [2, 3, 4])
def test_social_group_keeps_its_shape_on_an_open_field(shape, size):
    """The members' own goals are scattered (walking to them alone would break the shape):
    the shape comes from the group."""
    crowd = Crowd()
    offs = social_offsets(shape, size, spacing=0.8)
    scatter = np.random.default_rng(size).uniform(-2.0, 2.0, (size, 2))
    ids = [crowd.add(o, goal=(20.0, 0.0) + s, radius=0.25, max_speed=1.3)
           for o, s in zip(offs, scatter - scatter.mean(0), strict=True)]
    orca = ORCA(time_horizon=2.0)
    deviation = []
    for step in range(180):
        orca.step(crowd, DT, preferred=social_velocities(crowd, [ids], DT, shape=shape,
                                                         spacing=0.8))
        centre = crowd.position.mean(0)
        if step >= 10 and centre[0] < 18.0:
            deviation.append(np.hypot(*(crowd.position - (centre + offs)).T).mean())
        assert min_gap(crowd) >= -0.01 * 0.25
    assert np.mean(deviation) < 0.1
    assert np.allclose(crowd.position, crowd.goal, atol=0.2)    # then each to its goal
    # Each walking straight to its own goal alone would lose the shape by half way.
    half = (offs + crowd.goal) / 2
    assert np.hypot(*(half - (half.mean(0) + offs)).T).mean() > 0.3


def test_social_groups_crossing_keep_their_shape_roughly():
    crowd = Crowd()
    east = [crowd.add((-10.0, y), goal=(10.0, y), radius=0.25) for y in (0.4, -0.4)]
    west = [crowd.add((10.0, y), goal=(-10.0, y), radius=0.25) for y in (0.8, 0.0, -0.8)]
    loners = [crowd.add((0.0, -6.0 + k), goal=(0.0, 6.0 + k), radius=0.25) for k in range(3)]
    orca = ORCA(time_horizon=2.0)
    spread = []
    for _ in range(250):
        pref = social_velocities(crowd, [east, west], DT, shape="abreast")
        orca.step(crowd, DT, preferred=pref)
        assert min_gap(crowd) >= -0.01 * 0.25
        for g, n in ((east, 2), (west, 3)):
            x = crowd.position[[crowd.row(a) for a in g]]
            spread.append(abs(np.hypot(*(x[0] - x[-1])) - 0.8 * (n - 1)))
    assert np.mean(spread) < 0.3
    assert all(np.hypot(*(crowd.position_of(a) - crowd.goal[crowd.row(a)])) < 0.5
               for a in east + west + loners)


def test_social_offsets_shapes():
    assert social_offsets("abreast", 2, spacing=1.0).tolist() == [[0.0, 0.5], [0.0, -0.5]]
    assert social_offsets("lane", 3, spacing=1.0).tolist() == [[1.0, 0.0], [0.0, 0.0],
                                                               [-1.0, 0.0]]
    v = social_offsets("v", 4, spacing=1.0)
    assert v[1, 0] < v[0, 0] and v[2, 0] < v[3, 0] and v[:, 0].mean() == pytest.approx(0)


def test_bad_arguments_are_refused():
    crowd = Crowd()
    ids = [crowd.add((0.0, y)) for y in range(5)]
    with pytest.raises(InvalidQueryError, match="shape"):
        social_offsets("circle", 3)
    with pytest.raises(InvalidQueryError, match="2 to 4"):
        social_velocities(crowd, [ids], DT)
    with pytest.raises(InvalidQueryError, match="shares"):
        social_velocities(crowd, [ids[:2], ids[1:3]], DT)
    with pytest.raises(InvalidQueryError, match="twice"):
        social_velocities(crowd, [[ids[0], ids[0]]], DT)
    with pytest.raises(InvalidQueryError, match="no agent"):
        social_velocities(crowd, [[ids[0], 99]], DT)
    with pytest.raises(InvalidQueryError, match="Crowd"):
        social_velocities("crowd", [ids[:2]], DT)
    with pytest.raises(InvalidQueryError, match="members"):
        Flock([], [(0, 0)], speed=1.0)
    with pytest.raises(InvalidQueryError, match="path"):
        Flock(ids, [(0, math.nan)], speed=1.0)
    with pytest.raises(InvalidQueryError, match="speed"):
        Flock(ids, [(0, 0)], speed=0.0)
    with pytest.raises(InvalidQueryError, match="separation"):
        Flock(ids, [(0, 0)], speed=1.0, separation=-1.0)


def test_a_social_group_too_big_to_allocate_is_refused_at_once():
    with pytest.raises(InvalidQueryError, match="MAX_CELLS"):
        social_offsets("abreast", 10**9)


def test_social_velocities_check_the_spacing_first():
    crowd = Crowd()
    for i in range(2):
        crowd.add((float(i), 0.0), goal=(10.0, float(i)))
    for spacing in (None, float("nan"), "x"):
        with pytest.raises(InvalidQueryError, match="spacing"):
            social_velocities(crowd, [[0, 1]], 0.1, spacing=spacing)


@pytest.mark.parametrize("shape", ["abreast", "v", "lane"])
def test_social_offsets_too_wide_for_a_float_are_refused(shape):
    # 2 spacings of 1e308 either side overflowed to inf (and the V's depth to NaN)
    np.testing.assert_array_equal(social_offsets(shape, 4, spacing=2.0 ** 1020),
                                  np.ldexp(social_offsets(shape, 4, spacing=1.0), 1020))
    with pytest.raises(InvalidQueryError, match="spacing"):
        social_offsets(shape, 5, spacing=1e308)


def _far_walkers(n):
    crowd = Crowd()
    for i in range(n):
        crowd.add((float(i), 0.0), goal=(1e140, 1e140))
    return crowd


@pytest.mark.parametrize("spacing, gain", [(1e100, 1e300), (4.0, 1e308)])
def test_a_pull_past_the_largest_float_is_cut_to_the_top_speed_in_its_direction(spacing,
                                                                                gain):
    # gain x (slot - member) overflowed: its length was inf and the velocity NaN
    crowd = _far_walkers(4)
    pref = social_velocities(crowd, [[0, 1, 2, 3]], 0.1, spacing=spacing, gain=gain)
    np.testing.assert_allclose(np.hypot(*pref.T), crowd.max_speed)
    heading = np.array([1.0, 1.0]) / math.sqrt(2.0)
    offsets = social_offsets("abreast", 4, spacing=spacing)
    centre = crowd.position.mean(axis=0)
    slots = centre + offsets[:, :1] * heading + offsets[:, 1:] * [-heading[1], heading[0]]
    order = np.argsort(-(crowd.position - centre) @ [-heading[1], heading[0]], kind="stable")
    pull = slots - crowd.position[order]
    want = pull / np.hypot(*pull.T)[:, None] * crowd.max_speed[order][:, None]
    np.testing.assert_allclose(pref[order], want, atol=1e-9)


def test_flock_weights_past_the_largest_float_give_top_speeds_not_nan():
    crowd = _far_walkers(4)
    flock = Flock([0, 1, 2, 3], [(0.0, 0.0), (1e140, 0.0)], speed=1.0, follow=1e308,
                  cohesion=1e308, alignment=1e308, separation=1e308)
    pref = flock.velocities(crowd, 0.1)
    np.testing.assert_allclose(np.hypot(*pref.T), crowd.max_speed)
    # the members behind the leader's start are pulled back to it (-x), the first one,
    # on it, towards the others' centre (+x)
    np.testing.assert_allclose(pref, [[1.4, 0.0], [-1.4, 0.0], [-1.4, 0.0], [-1.4, 0.0]])


def test_a_flock_path_beyond_the_agents_world_is_refused():
    with pytest.raises(InvalidQueryError, match="path .* beyond"):
        Flock([0, 1], [(0.0, 0.0), (1e200, 0.0)], speed=1.0)
