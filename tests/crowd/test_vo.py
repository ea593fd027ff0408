"""VO and RVO by candidate velocities: the choice against an independent closest-approach
oracle (free whenever a free candidate exists, the nearest such to the preferred velocity,
exact against dense sampling for one neighbour), VO's oscillation against RVO's steady
dodge, a two-agent swap, a dense crossing, deterministic replays, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd
from wayfinding.crowd.scenarios import scenario, simulate_crowd
from wayfinding.crowd.vo import VelocityObstacles
from wayfinding.geometry.obstacles import MAX_EXTENT


def clearance(crowd, i, c, weight, horizon):
    """Per neighbour j of agent i: how far (m) the pair stays outside touching over [0,
    horizon] when i takes ``c`` and j the reciprocal share (closest approach of the
    relative motion; for an overlapping pair, minus the closing speed)."""
    out = []
    for j in range(len(crowd)):
        if j == i:
            continue
        p = crowd.position[j] - crowd.position[i]
        r = crowd.radius[i] + crowd.radius[j]
        u = crowd.velocity[i] - crowd.velocity[j] + (np.asarray(c) - crowd.velocity[i]) / weight
        if np.hypot(*p) <= r:
            out.append(-float(u @ p))
            continue
        uu = float(u @ u)
        t = 0.0 if uu == 0 else min(max(float(p @ u) / uu, 0.0), horizon)
        out.append(float(np.hypot(*(p - u * t))) - r)
    return np.array(out)


def random_crowd(agents):
    crowd = Crowd(neighbour_dist=1e3, max_neighbours=len(agents))
    for x, y, vx, vy, _, _, r, vmax in agents:
        crowd.add((x, y), velocity=(vx, vy), radius=r, max_speed=vmax)
    return crowd, np.array([(a[4], a[5]) for a in agents])


coord, speed = st.floats(-4, 4), st.floats(-1.5, 1.5)
agent = st.tuples(coord, coord, speed, speed, speed, speed, st.floats(0.2, 0.6),
                  st.floats(1.5, 2.0))


@settings(max_examples=120, deadline=None)
@example(agents=[(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0)] * 3
         + [(4.505405923430537e-161, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, 2.0)], weight=1.0,
         horizon=2.0)                                      # subnormal squared distance
@given(st.lists(agent, min_size=2, max_size=7), st.sampled_from([1.0, 0.5, 0.3]),
       st.sampled_from([2.0, 5.0]))
def test_the_choice_is_free_and_nearest_whenever_a_candidate_is_free(agents, weight, horizon):
    crowd, pref = random_crowd(agents)
    model = VelocityObstacles(weight=weight, time_horizon=horizon)
    chosen = model.velocities(crowd, 0.1, preferred=pref)
    cands = model.candidates(crowd, 0.1, preferred=pref)
    assert np.isfinite(chosen).all()
    assert (np.hypot(*chosen.T) <= crowd.max_speed * (1 + 1e-12)).all()
    for i in range(len(crowd)):
        c = cands[i][np.isfinite(cands[i]).all(1)]
        assert np.isclose(c, chosen[i], rtol=0, atol=1e-12).all(1).any()     # one of them
        free = [c_ for c_ in c if clearance(crowd, i, c_, weight, horizon).min() > 1e-7]
        if free:
            assert clearance(crowd, i, chosen[i], weight, horizon).min() >= -1e-7
            best = min(np.hypot(*(f - pref[i])) for f in free)
            assert np.hypot(*(chosen[i] - pref[i])) <= best + 1e-9


@pytest.mark.parametrize("weight", [1.0, 0.5])
@pytest.mark.parametrize("other, vel", [((3.0, 0.3), (-1.0, 0.0)), ((2.5, -0.4), (-0.5, 0.2)),
                                        ((3.0, 1.5), (-0.8, -0.6)), ((4.0, 0.0), (0.0, 0.0))])
def test_one_neighbour_gets_the_exact_nearest_free_velocity(weight, other, vel):
    crowd = Crowd()
    crowd.add((0, 0), velocity=(1, 0), radius=0.5, max_speed=2.0)
    crowd.add(other, velocity=vel, radius=0.5, max_speed=2.0)
    pref = np.array([[1.0, 0.0], vel])
    model = VelocityObstacles(weight=weight, time_horizon=5.0)
    ours = model.velocities(crowd, 0.1, preferred=pref)[0]
    assert clearance(crowd, 0, ours, weight, 5.0).min() >= -1e-7
    assert clearance(crowd, 0, pref[0], weight, 5.0).min() < 0            # had to dodge
    # dense polar sampling of the top-speed disc: nothing free is nearer the preferred
    r, a = np.meshgrid(np.linspace(0, 2, 201), np.linspace(0, 2 * math.pi, 721))
    dense = np.stack([r * np.cos(a), r * np.sin(a)], -1).reshape(-1, 2)
    near = dense[np.hypot(*(dense - pref[0]).T) < np.hypot(*(ours - pref[0])) - 1e-6]
    assert not any(clearance(crowd, 0, c, weight, 5.0).min() > 0 for c in near)


@pytest.mark.parametrize("safety", [0.01, 1.0, 100.0])
def test_a_free_velocity_beats_any_penalty(safety):
    # Going straight collides only after 4.5 s: with a small safety weight its penalty
    # (safety / 4.5) is far below the dodge's detour, yet the rule takes the free dodge.
    crowd = Crowd()
    crowd.add((0, 0), velocity=(1, 0), radius=0.5, max_speed=1.0)
    crowd.add((10, 0.2), velocity=(-1, 0), radius=0.5, max_speed=1.0)
    pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
    model = VelocityObstacles(weight=0.5, time_horizon=5.0, safety=safety)
    chosen = model.velocities(crowd, 0.1, preferred=pref)
    assert clearance(crowd, 0, pref[0], 0.5, 5.0).min() < 0
    assert clearance(crowd, 0, chosen[0], 0.5, 5.0).min() >= -1e-9
    assert np.hypot(*(chosen[0] - pref[0])) > 0.05


def swings(model, distance=5.0, dt=0.1, offset=0.1, steps=300):
    """Two agents nearly head on: the number of times agent 0's lateral velocity changes
    state (left / straight / right, straight below 5% of top speed) before they pass; the
    closest approach of their centres; their final positions."""
    crowd = Crowd()
    crowd.add((-distance, 0), goal=(distance, 0), radius=0.5, max_speed=1.0)
    crowd.add((distance, offset), goal=(-distance, offset), radius=0.5, max_speed=1.0)
    lateral, closest = [], math.inf
    for _ in range(steps):
        passed = crowd.position[0, 0] > crowd.position[1, 0]
        model.step(crowd, dt)
        closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
        if not passed:
            lateral.append(crowd.velocity[0, 1])
    side = np.where(np.abs(lateral) > 0.05, np.sign(lateral), 0)
    return int((np.diff(side) != 0).sum()), closest, crowd.position.copy()


@pytest.mark.parametrize("distance, dt", [(5.0, 0.1), (5.0, 0.25), (10.0, 0.1)])
def test_vo_oscillates_and_rvo_does_not(distance, dt):
    # Measured: VO 50, 20 and 17 swings; RVO 0, 0 and 1 (the one: starting to dodge when
    # the collision comes within the horizon).
    vo, _, _ = swings(VelocityObstacles.vo(), distance, dt)
    rvo, closest, end = swings(VelocityObstacles.rvo(), distance, dt)
    assert vo >= 10
    assert rvo <= 2
    assert closest >= 1.0 - 1e-9
    assert np.allclose(end, [[distance, 0], [-distance, 0.1]], rtol=0, atol=1e-6)


def test_rvo_one_step_dodge_stays_put():
    # RVO's two-agent guarantee: with constant preferred velocities, after the first dodge
    # each keeps its velocity until their closest approach.
    crowd = Crowd()
    crowd.add((-4, 0), radius=0.5, max_speed=1.0)
    crowd.add((4, 0.2), radius=0.5, max_speed=1.0)
    pref = np.array([[1.0, 0.0], [-1.0, 0.0]])
    rvo = VelocityObstacles.rvo()
    rvo.step(crowd, 0.1, preferred=pref)
    first = crowd.velocity.copy()
    assert abs(first[0, 1]) > 0.05 and np.allclose(first[1], -first[0])
    steps = 0
    while (crowd.position[1] - crowd.position[0]) @ (crowd.velocity[0] - crowd.velocity[1]) > 0:
        rvo.step(crowd, 0.1, preferred=pref)
        steps += 1
        assert np.allclose(crowd.velocity, first, rtol=0, atol=1e-5)
        assert np.hypot(*(crowd.position[0] - crowd.position[1])) >= 1.0
    assert steps > 30


@pytest.mark.parametrize("weight", [0.5, 1.0])
def test_a_lone_agent_and_an_empty_crowd(weight):
    model = VelocityObstacles(weight=weight)
    assert model.velocities(Crowd(), 0.1).shape == (0, 2)
    crowd = Crowd()
    crowd.add((0, 0), goal=(10, 0), max_speed=1.2)
    assert model.velocities(crowd, 0.1).tolist() == [[1.2, 0.0]]
    assert model.velocities(crowd, 0.1, preferred=[[3.0, 4.0]])[0] == pytest.approx([0.72, 0.96])


def test_a_dense_crossing_stays_mostly_clear():
    # Measured (two streams of 20 crossing at 90 degrees, radius 0.3): RVO 5 overlapping
    # pair-steps at most 3.9 cm deep; VO 48, 5.8 cm.
    rvo = simulate_crowd(scenario("crossing_flows", n=20), avoidance=VelocityObstacles.rvo())
    vo = simulate_crowd(scenario("crossing_flows", n=20), avoidance=VelocityObstacles.vo())
    assert rvo.completion == 1.0
    assert rvo.max_penetration() < 0.1
    assert rvo.collisions() < 20
    assert rvo.collisions() < vo.collisions()
    assert rvo.jitter() < vo.jitter()


def test_replays_are_identical():
    runs = [simulate_crowd(scenario("swap", n=9), avoidance=VelocityObstacles.rvo()).positions
            for _ in range(2)]
    assert np.array_equal(runs[0], runs[1], equal_nan=True)
    crowd = scenario("swap", n=9).crowd
    model = VelocityObstacles.vo()
    first = model.velocities(crowd, 0.1)
    assert np.array_equal(first, model.velocities(crowd, 0.1))


def test_options():
    assert VelocityObstacles.vo().weight == 1.0 and VelocityObstacles.rvo().weight == 0.5
    assert VelocityObstacles.rvo(time_horizon=2.0).time_horizon == 2.0
    crowd = Crowd(max_neighbours=4)
    for k in range(6):
        crowd.add((k, 0.0))
    assert VelocityObstacles(rings=3, spokes=8).candidates(crowd, 0.1).shape \
        == (6, 3 + 3 * 4 + 3 * 8, 2)
    assert "weight=0.5" in repr(VelocityObstacles())


@pytest.mark.parametrize("weight", [1.0, 0.5])
def test_coincident_and_overlapping_agents_get_finite_velocities(weight):
    crowd = Crowd()
    crowd.add((0, 0), velocity=(1, 0))
    crowd.add((0, 0), velocity=(-1, 0))
    crowd.add((0.6, 0.1), velocity=(-1, 0))
    model = VelocityObstacles(weight=weight)
    v = model.velocities(crowd, 0.1)
    assert np.isfinite(v).all()
    # the overlapping pair 0-2 is not made to close further
    p = crowd.position[2] - crowd.position[0]
    assert (v[0] - v[2]) @ p <= 1e-9


def test_bad_input():
    for name in ("weight", "time_horizon", "safety", "neighbour_dist"):
        for bad in (0, -1, math.inf, math.nan, True, "1"):
            with pytest.raises(InvalidQueryError, match=name):
                VelocityObstacles(**{name: bad})
    with pytest.raises(InvalidQueryError, match="weight"):
        VelocityObstacles(weight=1.5)
    for name in ("rings", "spokes", "max_neighbours"):
        for bad in (0, -1, 2.5, True):
            with pytest.raises(InvalidQueryError, match=name):
                VelocityObstacles(**{name: bad})
    crowd = Crowd()
    crowd.add((0, 0))
    crowd.add((3, 0))
    model = VelocityObstacles()
    with pytest.raises(InvalidQueryError, match="dt"):
        model.step(crowd, 0)
    with pytest.raises(InvalidQueryError, match="dt"):
        model.candidates(crowd, -1.0)
    with pytest.raises(InvalidQueryError, match="preferred"):
        model.velocities(crowd, 0.1, preferred=[[math.nan, 0], [0, 0]])
    with pytest.raises(InvalidQueryError, match="preferred"):
        model.velocities(crowd, 0.1, preferred=[[1, 0]])
    with pytest.raises(InvalidQueryError, match="Crowd"):
        model.velocities([(0, 0)], 0.1)
    with pytest.raises(InvalidQueryError, match="Crowd"):
        model.candidates(None, 0.1)
    before = crowd.position.copy()
    with pytest.raises(InvalidQueryError):
        model.step(crowd, 0.1, preferred=[[1, 0]])
    assert np.array_equal(crowd.position, before)                        # nothing moved
    for bad in (0.5, None, [(0, 0)], np.zeros((2, 3)), np.zeros((1, 4, 2)),
                np.full((2, 4, 2), math.inf), np.zeros((2, 4, 3)), "x"):
        with pytest.raises(InvalidQueryError, match="candidates"):
            model.forbids(crowd, 0.1, bad)
    with pytest.raises(InvalidQueryError, match="dt"):
        model.forbids(crowd, 0, np.zeros((2, 4, 2)))
    with pytest.raises(InvalidQueryError, match="Crowd"):
        model.forbids(None, 0.1, np.zeros((2, 4, 2)))
    assert model.forbids(crowd, 0.1, np.zeros((2, 4, 2))).shape == (2, 4)
    # the candidates' own NaN (absent neighbours) are no velocities: forbidden
    cands = model.candidates(crowd, 0.1)
    assert np.isnan(cands).any()
    np.testing.assert_array_equal(model.forbids(crowd, 0.1, cands)[np.isnan(cands[..., 0])],
                                  True)


def first_contact(p, u, r, horizon, samples=20001):
    """The first sampled time in [0, horizon] at which the pair touches (inf if none)."""
    t = np.linspace(0, horizon, samples)
    gap = np.hypot(*(p[:, None] - u[:, None] * t)) - r
    hit = np.flatnonzero(gap <= 0)
    return t[hit[0]] if len(hit) else math.inf


@pytest.mark.parametrize("weight", [1.0, 0.5])
def test_when_nothing_is_free_the_penalty_decides(weight):
    crowd = Crowd(neighbour_dist=10.0, max_neighbours=8)
    crowd.add((0, 0), velocity=(0.3, 0), radius=0.5, max_speed=1.5)
    for k in range(8):                                 # a closing ring, gaps under 0.3 m
        a = 2 * math.pi * k / 8 + 0.1
        d = np.array([math.cos(a), math.sin(a)])
        crowd.add(1.7 * d, velocity=-0.6 * d, radius=0.5, max_speed=1.5)
    pref = np.zeros((9, 2))
    pref[0] = (1.0, 0.0)
    model = VelocityObstacles(weight=weight, time_horizon=3.0, safety=1.0)
    chosen = model.velocities(crowd, 0.1, preferred=pref)[0]
    cands = model.candidates(crowd, 0.1, preferred=pref)[0]
    cands = cands[np.isfinite(cands).all(1)]

    def penalty(c):
        u = crowd.velocity[0] - crowd.velocity[1:] + (c - crowd.velocity[0]) / weight
        p = crowd.position[1:] - crowd.position[0]
        tc = min(first_contact(p[j], u[j], 1.0, 3.0) for j in range(8))
        return 1.0 / max(tc, 1e-9) + float(np.hypot(*(c - pref[0]))), tc

    scores = [penalty(c) for c in cands]
    assert all(tc < math.inf for _, tc in scores)                          # nothing free
    best = min(s for s, _ in scores)
    ours, tc = penalty(chosen)
    assert ours <= best * (1 + 1e-3) + 1e-3
    assert tc > penalty(pref[0])[1]              # a later collision than going straight on


def test_a_huge_preferred_velocity_is_taken_at_top_speed():
    """Preferred velocities whose squares overflow still give, for agents clear of each
    other, their direction at top speed."""
    crowd = Crowd()
    crowd.add((0.0, 0.0), max_speed=2.0)
    crowd.add((0.0, 50.0), max_speed=1.0)
    for size in (1e3, 1e200, 1e300):
        v = VelocityObstacles().velocities(crowd, 0.1, preferred=[(size, 0.0), (0.0, size)])
        np.testing.assert_allclose(v, [(2.0, 0.0), (0.0, 1.0)], atol=1e-12)


def test_overlapping_agents_far_faster_than_their_top_speed_keep_it():
    """Agents MAX_EXTENT across, overlapping, one moving at 1e300 (so that their relative
    velocity times their offset overflows), still get velocities within their top speeds,
    without a floating-point warning."""
    crowd = Crowd()
    crowd.add((-MAX_EXTENT / 2, 0.0), goal=(MAX_EXTENT, 0.0), velocity=(1e300, 0.0),
              radius=MAX_EXTENT, max_speed=MAX_EXTENT)
    crowd.add((MAX_EXTENT / 2, 1.0), goal=(-MAX_EXTENT, 0.0), radius=MAX_EXTENT,
              max_speed=MAX_EXTENT)
    v = VelocityObstacles().velocities(crowd, 0.1)
    assert np.isfinite(v).all() and (np.hypot(*v.T) <= MAX_EXTENT * (1 + 1e-12)).all()
