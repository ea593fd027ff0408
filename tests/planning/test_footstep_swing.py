"""The swinging foot: during a step the other foot swings from where it was to where the
next step puts it down, and the planner tests that swing against the others, so that
what a foot held back would meet no longer blocks a step and what the swing meets does.
Checked with the crowd tests' own five-circle test (its feet swinging or held back)."""

import numpy as np
import pytest
from test_footstep_crowd import other_foot, overlap

from wayfinding.planning.footstep_model import LocomotionModel
from wayfinding.planning.footsteps import plan_crowd, plan_footsteps, run_footstep_crowd
from wayfinding.results import Status

#: One slow speed, one duration, straight on or at the goal, no waits: a walk with
#: (almost) no choice.
NARROW = {"turns": (0.0,), "speeds": (0.5,), "durations": (1.0,), "waits": (),
          "max_expansions": 300}
WALK = {"velocity": (0.74, 0.0)} | NARROW


@pytest.fixture(scope="module")
def walk():
    # with someone far away, so that the search runs as it does with others to avoid
    far = plan_footsteps((102.0, -1.8), (102.0, 3.0), velocity=(0.0, 1.3), max_expansions=300)
    return plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[far], **WALK)


def test_the_other_foot_swings_to_the_next_step(walk):
    assert walk.found and len(walk) >= 4
    t = np.linspace(-0.2, walk.times[-1] + 0.5, 1001)
    swinging = walk.body(t)[:, 4]
    assert np.allclose(swinging, [other_foot(walk, x) for x in t.tolist()], atol=1e-12)
    # half way through step i it is half way from feet[i-1] to feet[i+1]
    mid = 0.5 * (walk.times[:-2] + walk.times[1:-1])
    assert np.allclose(walk.body(mid)[:, 4], 0.5 * (walk.feet[:-2] + walk.feet[2:]))
    # it lands as the next step begins; during the last step and after, it stays
    assert np.allclose(walk.body(walk.times[1:-1] - 1e-12)[:, 4], walk.feet[2:])
    last = np.linspace(walk.times[-2], walk.times[-1] + 1.0, 9)
    assert np.allclose(walk.body(last)[:, 4], walk.feet[-2])


def test_the_swing_meets_what_a_foot_held_back_does_not():
    # a thin walker, whose feet reach out beyond its torso, passing a thin post (someone
    # who cannot step: it stands where it is); tested finely, close
    thin = LocomotionModel(torso_radius=0.05, shoulder_radius=0.05, shoulder_offset=0.0)
    pole = LocomotionModel(stride=(0.9, 0.95, 1.0), torso_radius=0.05, shoulder_radius=0.05,
                           shoulder_offset=0.0, foot_radius=0.05, foot_offset=0.05)
    fine = {"model": thin, "sample_interval": 0.01, "clearance": 0.02}
    far = plan_footsteps((102.0, 0.45), (102.0, 3.45), velocity=(0.0, 1.0), model=pole,
                         max_expansions=5)
    alone = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[far], **WALK, **fine)
    post = plan_footsteps((2.3, 0.45), (2.3, 3.45), velocity=(0.0, 1.0), model=pole,
                          max_expansions=5)
    assert alone.found and post.status is Status.FAILED and len(post) == 0
    assert overlap(alone, post, swing=False) < -0.05     # a foot held back would pass it
    assert overlap(alone, post) > 0.05                   # the swinging foot meets it
    plan = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[post], **WALK, **fine)
    assert not plan.found and overlap(plan, post) <= 0
    # with the default actions it finds a way past
    free = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[post], velocity=(0.74, 0.0),
                          max_expansions=1500, **fine)
    assert free.found and overlap(free, post) <= 0


def test_a_foot_held_back_is_no_longer_in_the_way(walk):
    # someone crossing just behind the walker, over the place its trailing foot has left
    cross = plan_footsteps((1.6, 2.0), (1.6, -2.5), velocity=(0.0, -0.74), side="right",
                           start_time=0.5, **NARROW)
    assert overlap(walk, cross, swing=False) > 0.1     # a foot held back would meet it
    assert overlap(walk, cross) < -0.1                  # the swinging foot has gone
    plan = plan_footsteps((0.0, 0.0), (4.0, 0.0), others=[cross], **WALK)
    assert plan.found and np.array_equal(plan.feet, walk.feet)
    assert overlap(plan, cross) <= 0


def test_replanning_never_changes_what_was_done():
    starts, goals = [(0.0, 0.0), (3.0, 0.2)], [(3.0, 0.0), (0.0, 0.2)]
    first = plan_crowd(starts, goals, repair=False, max_expansions=60)
    rolling = run_footstep_crowd(starts, goals, interval=0.5, duration=0.5,
                                 max_expansions=60)
    assert not np.array_equal(first[0].feet, rolling[0].feet)     # planned again at 0.5 s
    t = np.linspace(0.0, 0.5, 101)
    for before, after in zip(first, rolling):
        assert np.array_equal(before.body(t), after.body(t))       # the swing under way too
