"""A crowd of footstep-planned characters: in priority order each avoids the footsteps of
those before it; checked here with a collision test of this file's own, over all five
circles, against the records."""

import itertools

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.footstep_model import LocomotionModel
from wayfinding.planning.footsteps import FootstepPlan, clashes, plan_crowd, plan_footsteps
from wayfinding.results import Status

#: Two walkers passing head on, two crossing their lane: every pair meets near (2, 0).
STARTS = [(0.0, 0.0), (4.0, 0.2), (2.0, -1.8), (2.2, 2.2)]
GOALS = [(4.0, 0.0), (0.0, 0.2), (2.0, 2.4), (2.2, -1.8)]
BUDGET = {"max_expansions": 1500}


def other_foot(plan: FootstepPlan, t: float, swing: bool = True) -> np.ndarray:
    """Where the foot off the ground during step i is at time ``t``: on its way from
    ``feet[i-1]`` to ``feet[i+1]``, the share of the step gone (``swing``; not during a
    wait or the last step, nor after it), else held back at ``feet[i-1]``."""
    i = min(int(np.searchsorted(plan.times, t, side="right")), len(plan))
    if i == 0:
        return plan.feet[0]
    lift = plan.feet[i - 1]
    if not swing or i == len(plan) or plan.standing[i - 1]:
        return lift
    share = (t - plan.times[i - 1]) / (plan.times[i] - plan.times[i - 1])
    return lift + share * (plan.feet[i + 1] - lift)


def circles(plan: FootstepPlan, t: np.ndarray, swing: bool = True
            ) -> tuple[np.ndarray, np.ndarray]:
    """The five circles at times ``t`` (ascending), built here from the record: torso on
    the COM, shoulders across the COM's heading (the last heading it moved with while it
    stands), the foot on the ground and the other one (:func:`other_foot`)."""
    m = plan.model
    pos, vel = plan.trajectory(t)
    moving = np.hypot(*vel.T) > 0
    last = np.maximum.accumulate(np.where(moving, np.arange(len(t)), -1))
    heading = np.where((last >= 0)[:, None], vel[np.maximum(last, 0)], plan.com_velocity[0])
    heading = heading / np.hypot(*heading.T)[:, None]
    side = np.stack([-heading[:, 1], heading[:, 0]], 1) * m.shoulder_offset
    step = np.searchsorted(plan.times, t, side="right").clip(0, len(plan))
    centres = np.stack([pos, pos + side, pos - side, plan.feet[step],
                        np.array([other_foot(plan, x, swing) for x in t.tolist()])], 1)
    radii = np.array([m.torso_radius, m.shoulder_radius, m.shoulder_radius, m.foot_radius,
                      m.foot_radius])
    return centres, radii


def overlap(a: FootstepPlan, b: FootstepPlan, swing: bool = True) -> float:
    """The deepest overlap of two characters' circles, sampled every 5 ms until both
    stand (<= 0: none); ``swing``: their feet swing (else held back, :func:`other_foot`)."""
    t = np.arange(0.0, max(a.times[-1], b.times[-1]) + 0.5, 0.005)
    ca, ra = circles(a, t, swing)
    cb, rb = circles(b, t, swing)
    gap = np.linalg.norm(ca[:, :, None] - cb[:, None], axis=-1) - ra[:, None] - rb[None]
    return float(-gap.min())


@pytest.fixture(scope="module")
def crowd():
    return plan_crowd(STARTS, GOALS, **BUDGET)


def test_crowd_reaches_its_goals(crowd):
    assert [p.status for p in crowd] == [Status.FOUND] * 4
    for plan, goal in zip(crowd, GOALS):
        assert np.hypot(*(plan.com[-1] - goal)) <= 0.3


@pytest.mark.parametrize(("i", "j"), list(itertools.combinations(range(4), 2)))
def test_crowd_footsteps_are_collision_free(crowd, i, j):
    assert overlap(crowd[i], crowd[j]) <= 0


def test_alone_they_would_collide(crowd):
    alone = [plan_footsteps(s, g, velocity=p.com_velocity[0],
                            **(BUDGET if i == 0 else {"max_expansions": 300}))
             for i, (s, g, p) in enumerate(zip(STARTS, GOALS, crowd))]
    assert max(overlap(a, b) for a, b in itertools.combinations(alone, 2)) > 0
    # the first in priority plans as if alone
    assert np.array_equal(alone[0].feet, crowd[0].feet)


def test_short_horizons_stop_where_they_meet_nobody():
    plans = plan_crowd(STARTS, GOALS, max_expansions=60)
    assert any(p.status is Status.PARTIAL for p in plans)
    assert all(len(p) == 0 for p in plans if p.status is Status.FAILED)
    # those left without a plan stand at their starts, and the others avoid them too
    assert max(overlap(a, b) for a, b in itertools.combinations(plans, 2)) <= 0


def test_crowd_options():
    slow = LocomotionModel(speed=(0.3, 1.0, 1.2))
    plans = plan_crowd([(0.0, 0.0), (0.0, 2.0)], [(3.0, 0.0), (3.0, 2.0)],
                       velocities=[(1.0, 0.0), (1.0, 0.0)], models=[LocomotionModel(), slow],
                       max_expansions=300)
    assert plans[1].model is slow and all(p.found for p in plans)
    assert np.allclose(plans[0].com_velocity[0], (1.0, 0.0))


@pytest.mark.parametrize(("args", "match"), [
    ({"goals": [(1.0, 0.0)]}, "must match"),
    ({"velocities": [(1.0, 0.0)]}, "velocities"),
    ({"models": [LocomotionModel()]}, "models"),
    ({"others": []}, "sets others"),
    ({"starts": [(0.0, float("nan")), (1.0, 1.0)]}, "starts"),
    ({"repair": 1}, "repair"),
])
def test_crowd_bad_input(args, match):
    call = {"starts": [(0.0, 0.0), (0.0, 1.0)], "goals": [(2.0, 0.0), (2.0, 1.0)]} | args
    with pytest.raises(InvalidQueryError, match=match):
        plan_crowd(call.pop("starts"), call.pop("goals"), **call)


def test_a_character_waits_to_let_another_pass():
    # one slow speed, one duration, straight or at the goal: only waiting lets it pass
    narrow = {"turns": (0.0,), "speeds": (0.5,), "durations": (1.0,), "max_expansions": 600}
    walk = {"velocity": (0.74, 0.0)} | narrow
    alone = plan_footsteps((0.0, 0.0), (3.0, 0.0), **walk)
    x, y = alone.trajectory([2.0])[0][0]
    up = {"velocity": (0.0, 1.4)} | BUDGET
    first = plan_footsteps((x, y - 1.6), (x, y + 3.0), **up)
    grid = np.arange(0.0, 2.0, 0.01)
    reach = grid[np.argmin(np.hypot(*(first.trajectory(grid)[0] - (x, y)).T))]
    crossing = plan_footsteps((x, y - 1.6), (x, y + 3.0), start_time=2.0 - reach, **up)
    assert overlap(alone, crossing) > 0
    plan = plan_footsteps((0.0, 0.0), (3.0, 0.0), others=[crossing], **walk)
    assert plan.found and plan.standing.any() and overlap(plan, crossing) <= 0
    never = plan_footsteps((0.0, 0.0), (3.0, 0.0), others=[crossing], waits=(), **walk)
    assert not never.found and not never.standing.any()
    # while it waits it stands still over both feet, heading as it walked
    for i in np.flatnonzero(plan.standing):
        t = np.linspace(plan.times[i], plan.times[i + 1], 7)[1:-1]
        pos, vel = plan.trajectory(t)
        assert np.allclose(pos, plan.com[i]) and np.allclose(vel, 0.0)
        assert np.allclose(plan.com[i + 1], plan.com[i])
        body = plan.body(t)
        assert {tuple(f) for f in body[:, 3:].reshape(-1, 2).round(9)} \
            == {tuple(plan.feet[i].round(9)), tuple(plan.feet[i + 1].round(9))}
        assert np.allclose(np.hypot(*(body[:, 1] - body[:, 0]).T), plan.model.shoulder_offset)


def test_a_character_without_a_plan_stands_where_it_started():
    # the second cannot take a step (its shortest stride is too long): the first, planned
    # before it, walks through its start unless planned again around it
    stuck = LocomotionModel(stride=(0.9, 0.95, 1.0))
    first, = plan_crowd([(0.0, 0.0)], [(4.0, 0.0)], max_expansions=600)
    x, y = first.trajectory([2.5])[0][0]
    call = {"models": [LocomotionModel(), stuck], "max_expansions": 600}
    blind = plan_crowd([(0.0, 0.0), (x, y)], [(4.0, 0.0), (x, y + 3.0)], repair=False, **call)
    assert blind[1].status is Status.FAILED and overlap(*blind) > 0
    plans = plan_crowd([(0.0, 0.0), (x, y)], [(4.0, 0.0), (x, y + 3.0)], **call)
    assert plans[1].status is Status.FAILED and len(plans[1]) == 0
    assert plans[0].found and overlap(*plans) <= 0


@pytest.mark.parametrize("options, message", [
    ({"clearance": float("nan")}, "clearance"),
    ({"clearance": -1.0}, "clearance"),
    ({"sample_interval": 1e-9}, "MAX_CELLS"),
    ({"sample_interval": 1e-300}, "MAX_CELLS"),
    ({"a": None}, "FootstepPlan"),
])
def test_clashes_refuses_bad_options_instead_of_a_wrong_answer(options, message):
    # side by side 0.3 m apart the bodies overlap: a NaN clearance must not say they
    # do not, and a sample step too fine to allocate is refused before sampling
    a = plan_footsteps((0.0, 0.0), (2.0, 0.0), velocity=(1.0, 0.0), max_expansions=60)
    b = plan_footsteps((0.0, 0.3), (2.0, 0.3), velocity=(1.0, 0.0), max_expansions=60)
    assert clashes(a, b)
    call = {"a": a, "b": b, **options}
    with pytest.raises(InvalidQueryError, match=message):
        clashes(call.pop("a"), call.pop("b"), **call)


@pytest.mark.parametrize("models", [5, [None, None], [LocomotionModel()]])
def test_a_crowd_refuses_models_that_are_not_one_per_character(models):
    with pytest.raises(InvalidQueryError, match="models"):
        plan_crowd([(0.0, 0.0), (0.0, 2.0)], [(2.0, 0.0), (2.0, 2.0)], models=models,
                   max_expansions=20)
