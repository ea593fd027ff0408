"""The footstep planner: plans that reach their goal, partial plans at the horizon, the
goal-directed action, the record's trajectory, feet, orientations and energy recomputed
from it, the anytime rounds, space-time avoidance and bad input."""

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.footstep_model import LocomotionModel, heel_strike_energy
from wayfinding.planning.footsteps import FootstepPlan, plan_footsteps
from wayfinding.results import Status

FAST = {"epsilon": 3.5, "epsilon_step": 10.0, "max_expansions": 400}


def stance_feet(plan: FootstepPlan, t: np.ndarray) -> np.ndarray:
    """The foot on the ground at each time: step i's foot during (times[i-1], times[i]]."""
    i = np.clip(np.searchsorted(plan.times, t, side="right"), 0, len(plan))
    return plan.feet[i]


def closest_approach(a: FootstepPlan, b: FootstepPlan) -> float:
    """The least gap between two characters' torso and stance-foot discs, sampled every
    5 ms from 0 until both stand (this checker's own geometry, from the records)."""
    t = np.arange(0.0, max(a.times[-1], b.times[-1]) + 0.5, 0.005)
    pa, _ = a.trajectory(t)
    pb, _ = b.trajectory(t)
    fa, fb = stance_feet(a, t), stance_feet(b, t)
    ra, rb = a.model, b.model
    gaps = [np.hypot(*(pa - pb).T) - ra.torso_radius - rb.torso_radius,
            np.hypot(*(pa - fb).T) - ra.torso_radius - rb.foot_radius,
            np.hypot(*(fa - pb).T) - ra.foot_radius - rb.torso_radius,
            np.hypot(*(fa - fb).T) - ra.foot_radius - rb.foot_radius]
    return float(min(g.min() for g in gaps))


@pytest.fixture(scope="module")
def walk():
    return plan_footsteps((0.0, 0.0), (4.0, 1.0), velocity=(1.2, 0.0), **FAST)


def test_goal_inside_the_horizon_is_reached(walk):
    assert walk.status is Status.FOUND and walk.found
    assert np.hypot(*(walk.com[-1] - (4.0, 1.0))) <= 0.3
    assert np.hypot(*(walk.com[-2] - (4.0, 1.0))) > 0.3 or len(walk) == 1
    assert walk.epsilon == 3.5
    assert walk.stats.expanded > 0 and walk.stats.generated > walk.stats.expanded


def test_small_horizon_gives_a_partial_plan_towards_the_goal():
    plan = plan_footsteps((0.0, 0.0), (8.0, 0.0), velocity=(1.2, 0.0), epsilon=1.0,
                          max_expansions=5)
    assert plan.status is Status.PARTIAL and not plan.found and plan.epsilon == math.inf
    assert 1 <= len(plan) <= 5
    assert np.hypot(*(plan.com[-1] - (8.0, 0.0))) < 8.0


def test_record_is_consistent(walk):
    t = walk.times
    assert walk.times[0] == 0.0 and np.all(np.diff(t) > 0)
    pos, _ = walk.trajectory(t[:-1])
    assert np.allclose(pos, walk.com[:-1])
    end, end_vel = walk.trajectory(t[1:] - 1e-9)
    assert np.allclose(end, walk.com[1:], atol=1e-6)
    assert np.allclose(end_vel, walk.com_velocity[1:], atol=1e-6)
    _, before = walk.trajectory(t[1:-1] - 1e-9)
    _, after = walk.trajectory(t[1:-1] + 1e-9)
    # the heel strike changes the speed, never the direction
    cross = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0]
    assert np.allclose(cross / np.hypot(*before.T) / np.hypot(*after.T), 0.0, atol=1e-6)
    assert np.all((before * after).sum(1) > 0)
    standing, v = walk.trajectory([t[-1] + 1.0])
    assert np.allclose(standing[0], walk.com[-1]) and np.allclose(v, 0.0)
    assert np.all(walk.sides[1:] == -walk.sides[:-1])
    assert walk.body(t).shape == (len(t), 5, 2)


def test_feet_respect_the_model(walk):
    m = walk.model
    spacing = np.hypot(*np.diff(walk.feet, axis=0).T)
    assert np.all(spacing >= m.stride[0] - 1e-9) and np.all(spacing <= m.stride[2] + 1e-9)
    lo, hi = walk.orientation_bounds.T
    assert np.all(lo <= walk.orientations + 1e-12) and np.all(walk.orientations <= hi + 1e-12)
    pos, _ = walk.trajectory(np.linspace(0.0, walk.times[-1], 2001)[:-1])
    lean = np.hypot(*(pos - stance_feet(walk, np.linspace(0.0, walk.times[-1], 2001)[:-1])).T)
    assert lean.max() <= m.reach + 1e-9
    turn = np.abs(np.diff(walk.orientations))
    assert np.all(turn <= m.foot_turn + 1e-9)
    # each foot points between its step's axis and the COM's heading at the step's end
    for i in range(1, len(walk) + 1):
        phi = walk.curves[i - 1, 2]
        head = math.atan2(*walk.com_velocity[i][::-1])
        arc = sorted([phi, phi + (head - phi + math.pi) % (2 * math.pi) - math.pi])
        o = walk.orientations[i]
        o = o + 2 * math.pi * round((sum(arc) / 2 - o) / (2 * math.pi))
        assert arc[0] - 1e-9 <= o <= arc[1] + 1e-9


def test_cost_is_the_steps_energy(walk):
    m = walk.model
    total = 0.0
    for i in range(1, len(walk) + 1):
        t0, t1 = walk.times[i - 1], walk.times[i]
        t = np.linspace(t0, t1, 4001)[:-1]
        pos, vel = walk.trajectory(t)
        length = np.hypot(*np.diff(pos, axis=0).T).sum()
        theta = math.asin(np.hypot(*(pos[0] - walk.feet[i])) / m.leg_length)
        v0 = np.hypot(*walk.com_velocity[i - 1])
        v = np.hypot(*vel[0])
        total += m.rate * (t1 - t0) + heel_strike_energy(m, v, v0, theta) \
            + m.curvature_weight * m.mass * m.alpha * length
    assert walk.cost == pytest.approx(total, rel=1e-4)


def test_goal_directed_step_is_always_offered():
    plan = plan_footsteps((0.0, 0.0), (3.0, 3.0), velocity=(1.0, 0.0), turns=(0.0,), **FAST)
    assert plan.found
    phis = plan.curves[:, 2]
    heads = [math.atan2(v[1], v[0]) for v in plan.com_velocity[:-1]]
    to_goal = [math.atan2(3.0 - p[1], 3.0 - p[0]) for p in plan.com[:-1]]
    for phi, head, goal in zip(phis, heads, to_goal):
        assert min(abs(phi - head), abs(phi - goal)) < 1e-9
    assert any(abs(phi - goal) < 1e-9 and abs(phi - head) > 1e-3
               for phi, head, goal in zip(phis, heads, to_goal))


def test_exact_hyperbola_plans_too():
    plan = plan_footsteps((0.0, 0.0), (3.0, 0.0), velocity=(1.0, 0.0), curve="hyperbola",
                          **FAST)
    assert plan.found and plan.curve == "hyperbola"
    end, _ = plan.trajectory(plan.times[1:] - 1e-9)
    assert np.allclose(end, plan.com[1:], atol=1e-6)


def test_more_rounds_never_cost_more():
    first = plan_footsteps((0.0, 0.0), (3.0, 0.5), velocity=(1.0, 0.0), **FAST)
    more = plan_footsteps((0.0, 0.0), (3.0, 0.5), velocity=(1.0, 0.0), epsilon=3.0,
                          epsilon_step=0.5, max_expansions=1000)
    assert more.found and more.cost <= first.cost + 1e-9 and more.epsilon <= 3.0


def test_head_on_walkers_avoid_each_other():
    oncoming = plan_footsteps((4.0, 0.1), (0.0, 0.1), velocity=(-1.2, 0.0), side="right",
                              **FAST)
    alone = plan_footsteps((0.0, 0.0), (4.0, 0.0), velocity=(1.2, 0.0), **FAST)
    assert closest_approach(oncoming, alone) < 0         # they would collide
    avoiding = plan_footsteps((0.0, 0.0), (4.0, 0.0), velocity=(1.2, 0.0),
                              others=[oncoming], max_expansions=1500)
    assert avoiding.found and closest_approach(oncoming, avoiding) >= 0


def test_collisions_are_tested_in_space_time():
    far = plan_footsteps((102.0, -1.8), (102.0, 3.0), velocity=(0.0, 1.3), **FAST)
    walk = {"velocity": (1.2, 0.0), "turns": (0.0,)} | FAST
    free = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[far], **walk)
    # a character crossing the walk 1.3 m after its start, leaving so as to meet it there
    x, y = free.trajectory([2.0])[0][0]
    up = {"velocity": (0.0, 1.3)} | FAST
    first = plan_footsteps((x, y - 1.3), (x, y + 3.0), **up)
    grid = np.arange(0.0, 2.0, 0.01)
    reach = grid[np.argmin(np.hypot(*(first.trajectory(grid)[0] - (x, y)).T))]
    crossing = plan_footsteps((x, y - 1.3), (x, y + 3.0), start_time=2.0 - reach, **up)
    assert closest_approach(crossing, free) < 0          # at the same time they meet
    met = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[crossing], velocity=(1.2, 0.0),
                         max_expansions=1500)
    assert met.found and closest_approach(crossing, met) >= 0
    n = min(len(met.feet), len(free.feet))
    assert not np.allclose(met.feet[:n], free.feet[:n])
    # the same walk once the crossing character has passed: the same steps as with nobody
    free_later = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[far], start_time=10.0, **walk)
    later = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[crossing], start_time=10.0,
                           **walk)
    assert later.found and np.array_equal(later.feet, free_later.feet)
    assert np.allclose(later.times - 10.0, free.times)


@pytest.mark.parametrize(("options", "match"), [
    ({"velocity": (0.0, 0.0)}, "velocity"),
    ({"velocity": (1.0, float("nan"))}, "velocity"),
    ({"side": "middle"}, "side"),
    ({"curve": "spline"}, "curve"),
    ({"others": ["plan"]}, "FootstepPlan"),
    ({"epsilon": 0.5}, "epsilon"),
    ({"epsilon_step": 0.0}, "epsilon_step"),
    ({"max_expansions": 0}, "max_expansions"),
    ({"sample_interval": 1.0}, "sample_interval"),
    ({"clearance": -0.1}, "clearance"),
    ({"speeds": (5.0,)}, "leave no action"),
    ({"turns": ()}, "turns"),
    ({"goal_radius": 0.0}, "goal_radius"),
    ({"start_time": -1.0}, "start_time"),
    ({"model": "adult"}, "LocomotionModel"),
    ({"others": 5}, "others"),
    ({"turns": [[0.0, 0.5], [1.0]]}, "turns"),
    ({"speeds": [True]}, "speeds"),
    ({"waits": "1"}, "waits"),
])
def test_bad_input(options, match):
    args = {"velocity": (1.0, 0.0)} | options
    with pytest.raises(InvalidQueryError, match=match):
        plan_footsteps((0.0, 0.0), (3.0, 0.0), **args)


def test_bad_points():
    with pytest.raises(InvalidQueryError, match="goal"):
        plan_footsteps((0.0, 0.0), (3.0,), velocity=(1.0, 0.0))
    with pytest.raises(InvalidQueryError, match="start"):
        plan_footsteps(None, (3.0, 0.0), velocity=(1.0, 0.0))


def test_a_slow_model_keeps_its_speeds():
    slow = LocomotionModel(speed=(0.2, 0.6, 0.8))
    plan = plan_footsteps((0.0, 0.0), (3.0, 0.0), velocity=(0.6, 0.0), model=slow,
                          max_expansions=300)
    assert plan.model is slow and len(plan) >= 1
    starts, _ = plan.trajectory(plan.times[:-1])
    _, v = plan.trajectory(plan.times[:-1])
    assert np.all(np.hypot(*v.T) <= 0.8 + 1e-9) and np.all(np.hypot(*v.T) >= 0.2 - 1e-9)
    assert np.hypot(*(plan.com[-1] - (3.0, 0.0))) < np.hypot(*(starts[0] - (3.0, 0.0)))


def test_others_out_of_view_are_ignored():
    oncoming = plan_footsteps((4.0, 0.1), (0.0, 0.1), velocity=(-1.2, 0.0), side="right",
                              **FAST)
    far = plan_footsteps((104.0, 0.1), (100.0, 0.1), velocity=(-1.2, 0.0), side="right",
                         **FAST)
    walk = {"velocity": (1.2, 0.0)} | FAST
    blind = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[oncoming], view_radius=0.01,
                           **walk)
    alone = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[far], **walk)
    assert np.array_equal(blind.feet, alone.feet)
    assert closest_approach(oncoming, blind) < 0
    with pytest.raises(InvalidQueryError, match="view_radius"):
        plan_footsteps((0.0, 0.0), (4.0, 0.0), view_radius=0.0, **walk)


@pytest.mark.parametrize("t", ["x", [[0.1, 0.2], [0.3]], [True], None, [float("nan")]])
def test_bad_times_of_a_plan_are_refused(t):
    plan = plan_footsteps((0.0, 0.0), (2.0, 0.0), velocity=(1.0, 0.0), max_expansions=60)
    for sample in (plan.trajectory, plan.body):
        with pytest.raises(InvalidQueryError, match="t "):
            sample(t)
