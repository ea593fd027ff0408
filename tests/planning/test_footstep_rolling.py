"""A footstep crowd planned on a rolling horizon: short plans made again at a fixed
interval reach goals that one short plan each does not, and stay collision-free (checked
with the five-circle test of the crowd tests' own, against the records)."""

import itertools

import numpy as np
import pytest
from test_footstep_crowd import overlap

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.footstep_model import LocomotionModel
from wayfinding.planning.footsteps import plan_crowd, plan_footsteps, run_footstep_crowd
from wayfinding.results import Status

#: Two walkers meeting head on, 0.2 m apart sideways.
STARTS = [(0.0, 0.0), (3.0, 0.2)]
GOALS = [(3.0, 0.0), (0.0, 0.2)]
SHORT = {"max_expansions": 60}


@pytest.fixture(scope="module")
def rolling():
    return run_footstep_crowd(STARTS, GOALS, interval=0.5, **SHORT)


def test_replanning_reaches_what_one_short_plan_does_not(rolling):
    once = plan_crowd(STARTS, GOALS, **SHORT)
    assert not any(p.found for p in once)
    assert [p.status for p in rolling] == [Status.FOUND] * 2
    for plan, goal in zip(rolling, GOALS):
        assert np.hypot(*(plan.com[-1] - goal)) <= 0.3
    assert overlap(*rolling) <= 0
    # each kept more than one plan's search: the stats add up over its plans
    assert all(p.stats.expanded > SHORT["max_expansions"] for p in rolling)


def test_rolling_records_are_one_walk(rolling):
    for plan in rolling:
        assert plan.times[0] == 0.0 and np.all(np.diff(plan.times) > 0)
        # each step's curve ends where the next begins, the feet alternate except at a wait
        end = plan.trajectory(np.nextafter(plan.times[1:], -np.inf))[0]
        assert np.allclose(end, plan.com[1:], atol=1e-9)
        walk = ~plan.standing
        assert np.all(plan.sides[1:][walk] == -plan.sides[:-1][walk])
        assert len(plan.curves) == len(plan.apex_speed) == len(plan) == len(plan.standing)


def test_without_replanning_it_is_one_plan_each():
    first, = run_footstep_crowd(STARTS[:1], GOALS[:1], duration=0.0, **SHORT)
    alone = plan_footsteps(STARTS[0], GOALS[0], velocity=first.com_velocity[0], **SHORT)
    assert np.array_equal(first.feet, alone.feet) and first.cost == alone.cost
    assert first.status is alone.status is Status.PARTIAL


def test_a_character_without_a_plan_is_walked_around():
    stuck = LocomotionModel(stride=(0.9, 0.95, 1.0))
    first, = plan_crowd([(0.0, 0.0)], [(4.0, 0.0)], max_expansions=600)
    x, y = first.trajectory([3.0])[0][0]
    plans = run_footstep_crowd([(0.0, 0.0), (x, y)], [(4.0, 0.0), (x, y + 3.0)],
                               models=[LocomotionModel(), stuck], max_expansions=600,
                               duration=1.0)
    # the first, planned before the second failed, walked through its start: planned again
    assert plans[0].found and overlap(*plans) <= 0


@pytest.mark.parametrize(("args", "match"), [
    ({"interval": 0.0}, "interval"),
    ({"duration": -1.0}, "duration"),
    ({"goals": [(1.0, 0.0)]}, "must match"),
    ({"others": []}, "sets others"),
    ({"max_expansions": 0}, "max_expansions"),
    ({"give_way": 1}, "give_way"),
])
def test_rolling_bad_input(args, match):
    call = {"starts": [(0.0, 0.0), (0.0, 1.0)], "goals": [(2.0, 0.0), (2.0, 1.0)]} | args
    with pytest.raises(InvalidQueryError, match=match):
        run_footstep_crowd(call.pop("starts"), call.pop("goals"), **call)


@pytest.mark.slow
def test_eight_in_two_way_traffic_all_arrive():
    # the benchmark's two-way crowd: in priority order some are boxed in for good
    starts = [(0.0, 0.8 * (i // 2)) if i % 2 == 0 else (6.0, 0.8 * (i // 2) + 0.2)
              for i in range(8)]
    goals = [(6.0, y) if x == 0.0 else (0.0, y) for x, y in starts]
    once = plan_crowd(starts, goals, max_expansions=1500)
    assert not all(p.found for p in once)
    plans = run_footstep_crowd(starts, goals, max_expansions=600)
    assert all(p.found for p in plans)
    for a, b in itertools.combinations(plans, 2):
        assert overlap(a, b) <= 0


def test_a_replanning_time_before_the_first_step_keeps_the_plan():
    # at t = 1e-9 no step has begun: the plan is kept as it is, as if not replanned
    kept = run_footstep_crowd([(0.0, 0.0)], [(6.0, 0.0)], max_expansions=5, interval=1e-9,
                              duration=0.5e-9)
    plain = run_footstep_crowd([(0.0, 0.0)], [(6.0, 0.0)], max_expansions=5, interval=2.0,
                               duration=1.0)
    assert kept[0].times.tolist() == plain[0].times.tolist()
    assert kept[0].cost == plain[0].cost


def test_more_replanning_times_than_a_run_may_take_are_refused_at_once():
    with pytest.raises(InvalidQueryError, match="MAX_TIME_STEPS"):
        run_footstep_crowd([(0.0, 0.0)], [(6.0, 0.0)], interval=1e-9, duration=30.0)
