"""Each steering behaviour against its defining property: seek heads straight at full speed,
flee opens the gap, arrive stops on the target without overshooting, pursue intercepts a
straight mover sooner than seek, evade keeps away from a pursuer, wander repeats with its
seed and keeps to the speed limit, separation pushes apart, alignment matches the
neighbours' heading, cohesion gathers; the two ways of combining; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import (
    Crowd,
    Wander,
    alignment,
    arrive,
    by_priority,
    cohesion,
    evade,
    flee,
    pursue,
    seek,
    separation,
    truncated_sum,
    weighted_sum,
)

DT = 0.05


def run(crowd, steer, steps):
    for _ in range(steps):
        crowd.step(DT, velocity=crowd.velocity + steer(crowd))


def test_seek_heads_straight_at_full_speed():
    crowd = Crowd()
    crowd.add((0, 0), max_speed=2.0, max_accel=10.0)
    run(crowd, lambda c: seek(c, (30, 40)), 40)
    v = crowd.velocity[0]
    assert np.hypot(*v) == pytest.approx(2.0) and v / 2 == pytest.approx([0.6, 0.8])
    x, y = crowd.position[0]
    assert abs(x * 0.8 - y * 0.6) < 1e-9                             # on the straight line


def test_flee_opens_the_gap_every_step():
    crowd = Crowd()
    crowd.add((1, 1), max_speed=1.0, max_accel=5.0)
    gaps = []
    for _ in range(50):
        crowd.step(DT, velocity=crowd.velocity + flee(crowd, (0, 0)))
        gaps.append(np.hypot(*crowd.position[0]))
    assert (np.diff(gaps) > 0).all()


@pytest.mark.parametrize("accel", [2.0, 8.0, math.inf])
def test_arrive_stops_on_the_target_without_overshooting(accel):
    crowd = Crowd()
    crowd.add((0, 0), max_speed=3.0, max_accel=accel)
    xs = []
    for _ in range(600):
        crowd.step(DT, velocity=crowd.velocity + arrive(crowd, (10, 0), slowing=3.0))
        xs.append(crowd.position[0, 0])
    assert max(xs) <= 10 + 1e-9
    assert crowd.position[0].tolist() == pytest.approx([10, 0], abs=1e-3)
    assert np.hypot(*crowd.velocity[0]) < 1e-3


def test_pursue_intercepts_a_straight_mover_sooner_than_seek():
    def catch(behaviour):
        crowd = Crowd()
        crowd.add((0, 0), max_speed=2.0, max_accel=20.0)
        target, velocity = np.array([10.0, 0.0]), np.array([0.0, 1.2])
        for step in range(2000):
            if np.hypot(*(crowd.position[0] - target)) < 0.2:
                return step
            crowd.step(DT, velocity=crowd.velocity + behaviour(crowd, target, velocity))
            target = target + velocity * DT
        return math.inf

    by_pursuit = catch(lambda c, t, v: pursue(c, t, v))
    by_seeking = catch(lambda c, t, v: seek(c, t))
    # Interception time at full speed: |(10, 1.2 T)| = 2 T, so T = 10 / 1.6 = 6.25 s.
    assert by_pursuit * DT == pytest.approx(6.25, abs=0.3) and by_pursuit < by_seeking


def test_evade_keeps_further_from_a_pursuer_than_fleeing_its_position():
    def closest(behaviour):
        crowd = Crowd()
        crowd.add((0, 0), max_speed=1.0, max_accel=20.0)
        threat, velocity = np.array([-10.0, -3.0]), np.array([1.5, 0.0])   # passing by
        gaps = []
        for _ in range(400):
            crowd.step(DT, velocity=crowd.velocity + behaviour(crowd, threat, velocity))
            threat = threat + velocity * DT
            gaps.append(np.hypot(*(crowd.position[0] - threat)))
        return min(gaps)

    assert closest(lambda c, t, v: evade(c, t, v)) > \
        closest(lambda c, t, v: flee(c, t)) + 0.1


@pytest.mark.parametrize("behaviour", [pursue, evade])
@pytest.mark.parametrize("speed", [0.0, 1.0])
@pytest.mark.parametrize("velocity", [(5e-324, 0.0), (0.0, -5e-324), (1e-300, 1e-300)])
def test_pursue_and_evade_steer_finitely_for_crawling_targets(behaviour, speed, velocity):
    # a lead time of gap / (tiny speed) overflows; with max_speed 0 neither may raise
    crowd = Crowd()
    crowd.add((0, 0), max_speed=speed, max_accel=1.0)
    crowd.add((3, 4), max_speed=speed, max_accel=1.0)
    out = behaviour(crowd, [(10.0, 0.0), (3.0, 4.0)], [velocity, velocity])
    assert out.shape == (2, 2) and np.isfinite(out).all()


def test_wander_repeats_with_its_seed_and_keeps_to_the_speed_limit():
    paths = []
    for seed in (7, 7, 8):
        crowd = Crowd()
        for i in range(5):
            crowd.add((3 * i, 0), max_speed=1.5, max_accel=3.0)
        wander = Wander(radius=1.0, distance=2.0, jitter=3.0, seed=seed)
        track = []
        for _ in range(200):
            crowd.step(DT, velocity=crowd.velocity + wander(crowd, DT))
            assert (np.hypot(*crowd.velocity.T) <= 1.5 + 1e-12).all()
            track.append(crowd.position.copy())
        paths.append(np.array(track))
    np.testing.assert_array_equal(paths[0], paths[1])
    assert not np.allclose(paths[0], paths[2])
    assert np.ptp(paths[0][:, :, 1]) > 0.5          # it does wander off the start line


def test_wander_keeps_each_agents_circle_angle_by_its_id():
    """Agents removed and added between calls: the others' wandering goes on as if nothing
    had happened (each keeps its own angle), and a newcomer gets a fresh one."""
    def run(churn):
        crowd = Crowd()
        ids = [crowd.add((3.0 * i, 0.0), max_speed=1.5, max_accel=3.0) for i in range(4)]
        wander, track = Wander(jitter=0.0, seed=2), []
        for step in range(40):
            if churn and step == 20:
                crowd.remove(ids[1])                      # rows move: 3 takes row 1
                crowd.add((50.0, 50.0), max_speed=1.5, max_accel=3.0)
            crowd.step(DT, velocity=crowd.velocity + wander(crowd, DT))
            track.append([crowd.position_of(a) for a in (ids[0], ids[2], ids[3])])
        return np.array(track)

    np.testing.assert_allclose(run(True), run(False), atol=1e-12)


def test_separation_pushes_apart_and_leaves_loners_alone():
    crowd = Crowd()
    for p in [(0, 0), (0.5, 0), (0.2, 0.4), (40, 40)]:
        crowd.add(p, max_speed=1.0, max_accel=5.0)
    spread = []
    for _ in range(60):
        s = separation(crowd, distance=3.0)
        assert not s[3].any()
        crowd.step(DT, velocity=crowd.velocity + s)
        d = np.hypot(*(crowd.position[:3, None] - crowd.position[None, :3]).T)
        spread.append(d[np.triu_indices(3, 1)].min())
    assert spread[-1] > spread[0] + 1.0


def test_alignment_takes_the_neighbours_heading():
    crowd = Crowd()
    crowd.add((0, 0), velocity=(0, 1), max_speed=1.0, max_accel=5.0)
    for p in [(1, 0), (-1, 0), (0, 1.5)]:
        crowd.add(p, velocity=(1, 0), max_speed=1.0, max_accel=0.0)     # they keep going
    crowd.add((50, 50), velocity=(0, -1))
    a = alignment(crowd, distance=3.0)
    assert not a[4].any()
    for _ in range(40):
        crowd.step(DT, velocity=crowd.velocity + alignment(crowd, distance=3.0))
    assert crowd.velocity[0] == pytest.approx([1, 0], abs=1e-6)


def test_cohesion_gathers_a_group():
    rng = np.random.default_rng(2)
    crowd = Crowd()
    for p in rng.uniform(-3, 3, (12, 2)):
        crowd.add(p, max_speed=1.0, max_accel=4.0)

    def spread():
        return np.hypot(*(crowd.position - crowd.position.mean(0)).T).mean()

    before = spread()
    for _ in range(60):
        steer = weighted_sum((1.0, cohesion(crowd, distance=10.0)),
                             (1.0, -crowd.velocity))     # damped: settle rather than orbit
        crowd.step(DT, velocity=crowd.velocity + steer)
    assert spread() < 0.5 * before


def test_combining_by_weight_and_by_priority():
    a, b = np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 2.0], [0.0, 3.0]])
    assert weighted_sum((2, a), (0.5, b)).tolist() == [[2, 1], [0, 1.5]]
    # The first says something for agent 0 only; agent 1 falls through to the second.
    assert by_priority(a, b).tolist() == [[1, 0], [0, 3]]
    with pytest.raises(InvalidQueryError):
        weighted_sum()
    with pytest.raises(InvalidQueryError):
        by_priority()


def test_combinations_refuse_bad_terms():
    """Weights and steerings must be finite, steerings ``(n, 2)`` of one length, the
    threshold and limit >= 0 (the limit may be inf: no limit)."""
    a = np.array([[1.0, 0.0], [0.0, 0.0]])
    for bad in ((math.nan, a), (1.0, a[:1]), (1.0, np.full((2, 2), math.inf)),
                (1.0, np.zeros((2, 3))), (1.0, "x"), ("1", a), (None, a), (True, a), (1.0,),
                a):
        with pytest.raises(InvalidQueryError, match="weight|steering|pair"):
            weighted_sum((1.0, a), bad)
        with pytest.raises(InvalidQueryError, match="weight|steering|pair"):
            truncated_sum((1.0, a), bad, limit=1.0)
    for bad in (math.nan, -1.0, "x", [1.0, 2.0, 3.0], [], None):
        with pytest.raises(InvalidQueryError, match="limit"):
            truncated_sum((1.0, a), limit=bad)
    assert truncated_sum((1.0, a), limit=math.inf).tolist() == a.tolist()
    for bad in (a[:1], np.zeros((2, 3)), [[math.nan, 0], [0, 0]], 0.5, None):
        with pytest.raises(InvalidQueryError, match="steering"):
            by_priority(bad, a)
        with pytest.raises(InvalidQueryError, match="steering"):
            by_priority(a, bad)
    for bad in (math.nan, -1.0, "x", None):
        with pytest.raises(InvalidQueryError, match="threshold"):
            by_priority(a, a, threshold=bad)


def test_bad_input():
    crowd = Crowd()
    crowd.add((0, 0))
    crowd.add((1, 0))
    for bad in ((1, 2, 3), [(0, 0)] * 3, (math.nan, 0), "x"):
        with pytest.raises(InvalidQueryError, match="target"):
            seek(crowd, bad)
    with pytest.raises(InvalidQueryError, match="slowing"):
        arrive(crowd, (0, 0), slowing=0)
    with pytest.raises(InvalidQueryError, match="max_lead"):
        pursue(crowd, (0, 0), (1, 0), max_lead=-1)
    with pytest.raises(InvalidQueryError, match="jitter"):
        Wander(jitter=math.inf)
    with pytest.raises(InvalidQueryError, match="dt"):
        Wander()(crowd, 0)
    # Per-agent targets are taken row by row.
    np.testing.assert_allclose(seek(crowd, [(0, 5), (1, -5)]), [[0, 1.4], [0, -1.4]])
