"""Chained specifications and patrols: each leg optimal under its own constraints at the time
the agent starts it (against scipy's Dijkstra on the leg's constrained costs), the legs joined
end to end, a patrol's laps repeated and searched once, a leg with no path ending the plan;
their execution by a runner that walks the legs as time passes and repairs each leg's plan
when a constraint moves or the time changes a weight; and bad input."""

import math

import numpy as np
import pytest
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from wayfinding.constraints import Constraint, ConstraintSet, Disc, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.constrained import GridConstraintDomain
from wayfinding.planning.constrained import ConstraintPlan, inside_shares
from wayfinding.planning.specification import (
    Specification,
    SpecificationLeg,
    SpecificationPlan,
    SpecificationRunner,
    plan_specification,
)


def domain():
    """A 24 x 16 grid with a block in the middle; states at the cell centres."""
    free = np.ones((16, 24), dtype=bool)
    free[6:10, 10:14] = False
    return GridConstraintDomain(Grid(free))


def optimum(d, constraints, start, goal, t=0.0):
    """scipy's Dijkstra on the leg's constrained costs, the joining legs included."""
    cs = ConstraintSet(()) if constraints is None else constraints
    s, leg_s = d.join(start, cs, t=t)
    g, leg_g = d.join(goal, cs, t=t)
    c = d.costs(cs, t=t)
    ok = np.isfinite(c)
    m = csr_matrix((c[ok], (d.edges[ok, 0], d.edges[ok, 1])), shape=(d.num_nodes,) * 2)
    return float(dijkstra(m, indices=s)[g]) + leg_s + leg_g


CORNER, A, B = (1.5, 1.5), (20.5, 2.5), (20.5, 13.5)
ALLEY = Region([(16, 0), (24, 0), (24, 16), (16, 16)])
WATCH = ConstraintSet([Constraint(Disc((12, 12), 2.0), -6, near=True)])
STAY = ConstraintSet([Constraint(ALLEY, 4), Constraint(Disc((20.5, 8), 1.0), -3, near=True)])


def test_chained_legs_are_each_optimal_and_joined_end_to_end():
    d = domain()
    spec = Specification((2.5, 13.5)).then(CORNER, WATCH).then(A, STAY)
    plan = plan_specification(d, spec)
    assert isinstance(plan, SpecificationPlan) and plan.found and plan.status == "found"
    starts = [(2.5, 13.5), CORNER]
    for leg, begin, goal, cs in zip(plan.legs, starts, [CORNER, A], [WATCH, STAY]):
        assert isinstance(leg, ConstraintPlan) and leg.epsilon == 1.0
        assert leg.cost == pytest.approx(optimum(d, cs, begin, goal), abs=1e-9)
        assert leg.path[0].tolist() == list(begin) and leg.path[-1].tolist() == list(goal)
    assert plan.cost == pytest.approx(sum(leg.cost for leg in plan.legs), abs=1e-12)
    assert plan.breaks.tolist() == [0, len(plan.legs[0].path) - 1, len(plan.path) - 1]
    for i, leg in enumerate(plan.legs):
        assert np.array_equal(plan.path[plan.breaks[i]:plan.breaks[i + 1] + 1], leg.path)


def test_each_leg_keeps_its_own_constraints():
    """A hard region holds for its leg only: the first leg goes round it (shapely), the
    second, without it, goes straight through."""
    d = domain()
    pond = Region([(4, 4), (8, 4), (8, 12), (4, 12)])
    spec = Specification((2.5, 8.5)).then((9.5, 8.5), [Constraint.hard(pond)]) \
        .then((2.5, 8.5), None)
    plan = plan_specification(d, spec)
    water = shapely.Polygon(pond.vertices)
    assert not shapely.LineString(plan.legs[0].path).intersects(water)
    assert shapely.LineString(plan.legs[1].path).intersects(water)
    assert plan.legs[1].cost == pytest.approx(7.0) and plan.legs[0].cost > 7.5


@pytest.mark.parametrize("laps", [1, 3])
def test_a_patrol_repeats_its_two_legs_lap_after_lap(laps):
    d = domain()
    spec = Specification((2.5, 13.5)).then(CORNER, None).patrol(A, B, STAY, laps=laps)
    assert len(spec) == 1 + 2 * laps
    assert [leg.goal.tolist() for leg in spec.legs[1:3]] == [list(A), list(B)]
    plan = plan_specification(d, spec)
    assert plan.found and len(plan.legs) == 1 + 2 * laps
    to_a = optimum(d, STAY, CORNER, A)
    a_to_b, b_to_a = optimum(d, STAY, A, B), optimum(d, STAY, B, A)
    assert plan.legs[1].cost == pytest.approx(to_a, abs=1e-9)
    for i, leg in enumerate(plan.legs[2:]):
        assert leg.cost == pytest.approx(a_to_b if i % 2 == 0 else b_to_a, abs=1e-9)
    expected = optimum(d, None, (2.5, 13.5), CORNER) + to_a + laps * a_to_b \
        + (laps - 1) * b_to_a
    assert plan.cost == pytest.approx(expected, abs=1e-9)
    # The patrol keeps to the alley it is attracted to.
    assert all(leg.satisfied[0] > 0.9 for leg in plan.legs[2:])


def test_a_leg_without_a_path_ends_the_plan():
    d = domain()
    trap = Constraint.hard(Disc(B, 3.0))
    spec = Specification(CORNER).then(A, None).then(B, [trap]).then(CORNER, None)
    plan = plan_specification(d, spec)
    assert not plan.found and plan.status == "failed" and plan.cost == math.inf
    assert len(plan.legs) == 2 and plan.legs[0].found and not plan.legs[1].found
    assert np.array_equal(plan.path, plan.legs[0].path)
    assert plan.breaks.tolist() == [0, len(plan.path) - 1]


def test_time_varying_weights_are_taken_at_the_time_given():
    d = domain()
    lamp = Constraint(Region([(3, 0), (9, 0), (9, 16), (3, 16)]),
                      lambda t: -9.0 if t >= 20 else 0.0)
    spec = Specification((1.5, 8.5)).then((22.5, 3.5), [lamp])
    day, night = plan_specification(d, spec, t=10), plan_specification(d, spec, t=21)
    assert day.cost == pytest.approx(optimum(d, ConstraintSet([lamp]), (1.5, 8.5),
                                             (22.5, 3.5), t=10), abs=1e-9)
    assert night.cost == pytest.approx(optimum(d, ConstraintSet([lamp]), (1.5, 8.5),
                                               (22.5, 3.5), t=21), abs=1e-9)
    assert night.cost > day.cost


def length(path):
    return float(np.hypot(*np.diff(np.asarray(path), axis=0).T).sum())


@pytest.mark.parametrize(("speed", "late"), [(0.5, True), (1.0, True), (4.0, False)])
def test_each_leg_is_planned_at_the_time_the_agent_starts_it(speed, late):
    """A repeller switched on at 12 s: the first leg, at 0 s, goes through its area; the
    return leg starts when the first arrives (its length over the speed) and is planned at
    that time: around it when the agent is slow enough to get there after 12 s."""
    d = domain()
    lamp = Constraint(Region([(3, 0), (9, 0), (9, 16), (3, 16)]),
                      lambda t: -9.0 if t >= 12 else 0.0)
    cs = ConstraintSet([lamp])
    there, back = (22.5, 3.5), (1.5, 8.5)
    plan = plan_specification(d, Specification(back).then(there, cs).then(back, cs),
                              speed=speed)
    assert plan.found and plan.times[0] == 0.0
    begins = [back, there]
    for i, leg in enumerate(plan.legs):
        assert plan.times[i + 1] == pytest.approx(plan.times[i] + length(leg.path) / speed,
                                                  abs=1e-9)
        assert leg.cost == pytest.approx(optimum(d, cs, begins[i], [there, back][i],
                                                 t=plan.times[i]), abs=1e-9)
    assert (plan.times[1] >= 12) == late
    at_start = optimum(d, cs, there, back, t=0.0)
    assert (plan.legs[1].cost > at_start + 1) if late else \
        (plan.legs[1].cost == pytest.approx(at_start, abs=1e-9))


def test_a_patrol_is_searched_once_per_distinct_leg_and_counted_once():
    d = domain()
    spec = Specification((2.5, 13.5)).then(CORNER, None).patrol(A, B, STAY, laps=4)
    plan = plan_specification(d, spec)
    distinct = {id(leg): leg for leg in plan.legs}
    assert len(distinct) == 4                 # to the corner, to A, A to B, B to A
    assert plan.stats.expanded == sum(leg.stats.expanded for leg in distinct.values())
    one_lap = plan_specification(d, Specification((2.5, 13.5)).then(CORNER, None)
                                 .patrol(A, B, STAY, laps=1))
    assert plan.stats.expanded == one_lap.stats.expanded + plan.legs[3].stats.expanded


def test_a_patrol_under_a_timed_weight_plans_each_lap_at_its_own_time():
    """A guard on duty from 40 s: the laps before are planned without it, the laps after
    around it, each leg optimal at its own start time."""
    d = domain()
    guard = Constraint(Disc((20.5, 8), 2.0), lambda t: -6.0 if t >= 40 else 0.0, near=True)
    cs = ConstraintSet([guard])
    plan = plan_specification(d, Specification(A).patrol(B, A, cs, laps=3))
    assert plan.found and len(plan.legs) == 6
    for i, leg in enumerate(plan.legs):
        begin, goal = (A, B) if i % 2 == 0 else (B, A)
        assert leg.cost == pytest.approx(optimum(d, cs, begin, goal, t=plan.times[i]),
                                         abs=1e-9)
    on = plan.times[:-1] >= 40
    assert on.any() and not on.all()
    assert plan.legs[0].cost == pytest.approx(11.0) and plan.legs[-1].cost > 11.5
    assert plan.stats.expanded == sum(
        leg.stats.expanded for leg in {id(leg): leg for leg in plan.legs}.values())


def run(runner, dt, **budget):
    """Advance ``runner`` by ``dt`` until it is done: the number of steps."""
    steps = 0
    while not runner.done:
        runner.advance(dt, **budget)
        steps += 1
        assert steps < 10_000
    return steps


@pytest.mark.parametrize("dt", [0.3, 1.0, 7.0])
def test_a_runner_walks_the_planned_specification(dt):
    """Without changes, a runner with an unbounded budget arrives at every goal when the
    plan says, having walked the planned legs' lengths."""
    d = domain()
    spec = Specification((2.5, 13.5)).then(CORNER, WATCH).patrol(A, B, STAY, laps=2)
    plan = plan_specification(d, spec, t=3.0, speed=1.5)
    runner = SpecificationRunner(d, spec, t=3.0, speed=1.5)
    assert runner.leg == 0 and not runner.done and runner.t == 3.0
    run(runner, dt)
    assert runner.done and runner.planner is None and runner.leg == len(spec)
    assert runner.arrivals == pytest.approx(plan.times[1:], abs=1e-9)
    assert runner.position.tolist() == list(B)
    assert length(runner.walked) == pytest.approx(length(plan.path), abs=1e-9)
    assert runner.t >= runner.arrivals[-1]
    assert runner.advance(1.0) is None and runner.done


@pytest.mark.parametrize("dt", [0.1, 0.45])
def test_a_runner_walks_straight_to_goals_off_the_domain_states(dt):
    """End points between states: the agent walks the joining legs once, never back and
    forth, and arrives when the plan says."""
    d = domain()
    spec = Specification((1.2, 13.9)).then((22.3, 3.7), WATCH).then((2.05, 2.6), None)
    plan = plan_specification(d, spec, speed=1.3)
    runner = SpecificationRunner(d, spec, speed=1.3)
    run(runner, dt)
    assert length(runner.walked) == pytest.approx(length(plan.path), abs=1e-9)
    assert runner.arrivals == pytest.approx(plan.times[1:], abs=1e-9)
    assert runner.position.tolist() == [2.05, 2.6]


def test_a_runner_with_a_small_budget_waits_for_its_plans_and_arrives():
    d = domain()
    spec = Specification((2.5, 13.5)).then(A, WATCH).patrol(B, A, STAY, laps=2)
    runner = SpecificationRunner(d, spec, speed=2.0, epsilon=2.5)
    first = runner.advance(0.5, max_expansions=3)
    assert not first.found and runner.position.tolist() == [2.5, 13.5] and runner.t == 0.5
    run(runner, 0.5, max_expansions=20)
    assert runner.position.tolist() == list(A) and len(runner.arrivals) == 5
    assert np.all(np.diff(runner.arrivals) > 0)


def test_a_runner_repairs_a_hard_constraint_moved_onto_its_path():
    """A cart (hard) moves onto the path ahead of the agent: the planner repairs to the
    optimum under the moved cart, the agent walks round it, and a later leg that holds the
    same constraint sees it moved too."""
    d = domain()
    cart = Constraint.hard(Disc((2.0, 3.0), 0.8))
    cs = ConstraintSet([Constraint(Disc((12, 2), 1.0), -3, near=True), cart])
    spec = Specification((1.5, 14.5)).then((22.5, 14.5), cs).then((1.5, 14.5), cs)
    runner = SpecificationRunner(d, spec, speed=1.0, epsilon=1.0)
    runner.advance(3.0)
    ahead = tuple(runner.planner.plan().path[8])
    runner.move_constraint(1, Disc(ahead, 1.2))
    moved = runner.constraints
    assert moved[0][1] is moved[1][1] and moved[0][1].annotation.centre == ahead
    assert moved[0][0] is cs[0]
    planner = runner.planner
    plan = planner.plan()
    assert plan.cost == pytest.approx(optimum(d, moved[0], planner.start, (22.5, 14.5)),
                                      abs=1e-9)
    run(runner, 1.0)
    disc = shapely.Point(ahead).buffer(1.2)
    assert not shapely.LineString(runner.walked).intersects(disc)
    assert runner.position.tolist() == [1.5, 14.5]


def test_a_runner_that_has_not_set_off_is_not_held_to_its_first_transition():
    d = domain()
    cart = Constraint.hard(Disc((10.0, 2.0), 0.4))
    runner = SpecificationRunner(d, Specification((1.5, 14.5)).then((22.5, 14.5), [cart]),
                                 epsilon=1.0)
    first = runner.advance(0.0)
    assert runner.position.tolist() == [1.5, 14.5] and runner.t == 0.0
    runner.move_constraint(0, Disc(tuple(first.path[1]), 0.4))
    run(runner, 0.5)
    assert not shapely.LineString(runner.walked).intersects(
        shapely.Point(first.path[1]).buffer(0.4))


def test_a_runner_repairs_when_the_time_switches_a_weight_on():
    """A repeller switched on at 6 s across the route: the agent, which set off through
    it, is replanned round it once the time comes."""
    d = domain()
    wall = Region([(17, 10), (19, 10), (19, 16), (17, 16)])
    alarm = Constraint(wall, lambda t: -20.0 if t >= 6 else 0.0)
    cs = ConstraintSet([alarm])
    start, goal = (1.5, 13.5), (22.5, 13.5)
    runner = SpecificationRunner(d, Specification(start).then(goal, cs), speed=1.0,
                                 epsilon=1.0)
    runner.advance(0.0)
    straight = runner.planner.plan().path
    assert np.all(straight[:, 1] == 13.5)                             # through it
    runner.advance(6.5)
    planner = runner.planner
    assert planner.t == 6.5
    plan = planner.plan()
    assert plan.cost == pytest.approx(optimum(d, cs, planner.start, goal, t=6.5), abs=1e-9)
    # Round it (a corner cut where the multiplier's four samples allow it).
    assert plan.path[:, 1].min() < 10 and plan.satisfied[0] > 0.9
    run(runner, 1.0)
    assert inside_shares(cs, runner.walked)[0] < inside_shares(cs, straight)[0] / 3


@pytest.mark.parametrize("seed", range(6))
def test_a_runner_under_random_moves_and_times_repairs_each_leg_to_a_fresh_search(seed):
    """A patrol under a moving repeller, a timed attractor and a fixed hard pond, advanced
    by random steps with random budgets: after every step the current leg's repaired plan
    costs what a fresh search from the agent's next stop finds at the time now, the agent
    never walks into the pond, and it reaches every goal."""
    rng = np.random.default_rng(seed)
    d = domain()
    pond = Constraint.hard(Region([(4, 4), (7, 4), (7, 7), (4, 7)]))
    guard = Constraint(Disc((18, 8), 1.5), -5, near=True)
    bell = Constraint(Region([(0, 12), (24, 12), (24, 16), (0, 16)]),
                      lambda t: 3.0 if int(t) % 20 < 10 else 0.0)
    cs = ConstraintSet([pond, guard, bell])
    spec = Specification((2.5, 13.5)).then(A, cs).patrol(B, A, cs, laps=2)
    runner = SpecificationRunner(d, spec, speed=float(rng.uniform(0.7, 2.0)),
                                 epsilon=float(rng.uniform(1, 3)))
    steps = 0
    while not runner.done:
        if rng.random() < 0.2:
            shift = tuple(rng.uniform(-3, 3, 2))
            moved = runner.constraints[runner.leg][1].annotation.moved(shift)
            runner.move_constraint(1, moved)
        runner.advance(float(rng.uniform(0.2, 3.0)),
                       max_expansions=int(rng.integers(5, 200)))
        steps += 1
        planner = runner.planner
        if planner is not None:
            plan = planner.plan()
            assert planner.constraints is runner.constraints[runner.leg]
            expected = optimum(d, planner.constraints, planner.start, planner.goal,
                               t=planner.t)
            assert plan.cost == pytest.approx(expected, abs=1e-9)
        assert steps < 2000
    assert len(runner.arrivals) == len(spec)
    water = shapely.Polygon(pond.annotation.vertices)
    assert not shapely.LineString(runner.walked).intersects(water)


def test_specifications_are_immutable_and_legs_compare_by_value():
    base = Specification(CORNER)
    longer = base.then(A, None)
    assert len(base) == 0 and len(longer) == 1
    with pytest.raises(ValueError):
        longer.legs[0].goal[0] = 3.0
    cs = ConstraintSet(())
    leg = SpecificationLeg(np.array([1.0, 2.0]), cs)
    assert leg == SpecificationLeg(np.array([1.0, 2.0]), cs)
    assert leg != SpecificationLeg(np.array([1.0, 2.5]), cs)
    assert "Specification(start=(1.5, 1.5)" in repr(longer)


def finished(d):
    runner = SpecificationRunner(d, Specification(CORNER).then((3.5, 1.5), WATCH))
    runner.advance(10.0)
    return runner


@pytest.mark.parametrize(("call", "message"), [
    (lambda d: Specification((math.nan, 1)), "start"),
    (lambda d: Specification(CORNER).then((1, 2, 3), None), "goal"),
    (lambda d: Specification(CORNER).then(A, "watch"), "ConstraintSet"),
    (lambda d: Specification(CORNER).then(A, [Disc((1, 1), 1.0)]), "not a Constraint"),
    (lambda d: Specification(CORNER).patrol(A, B, None, laps=0), "laps"),
    (lambda d: Specification(CORNER).patrol(A, B, None, laps=1.5), "laps"),
    (lambda d: Specification(CORNER).patrol(A, None, None, laps=1), "b"),
    (lambda d: plan_specification("grid", Specification(CORNER).then(A, None)), "domain"),
    (lambda d: plan_specification(d, [A, B]), "specification"),
    (lambda d: plan_specification(d, Specification(CORNER)), "no leg"),
    (lambda d: plan_specification(d, Specification(CORNER).then(A, None), t=math.nan), "t"),
    (lambda d: plan_specification(d, Specification(CORNER).then(A, None), speed=0), "speed"),
    (lambda d: SpecificationRunner("grid", Specification(CORNER).then(A, None)), "domain"),
    (lambda d: SpecificationRunner(d, Specification(CORNER)), "no leg"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None), speed=-1),
     "speed"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None), epsilon=0.5),
     "epsilon"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None)).advance(-1),
     "dt"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None)).advance(math.nan),
     "dt"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None)).advance(
        1, max_expansions=-1), "max_expansions"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, None)).move_constraint(
        0, Disc((1, 1), 1.0)), "no constraint"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, WATCH)).move_constraint(
        1, Disc((1, 1), 1.0)), "index"),
    (lambda d: SpecificationRunner(d, Specification(CORNER).then(A, WATCH)).move_constraint(
        0, "here"), "Annotation"),
    (lambda d: finished(d).move_constraint(0, Disc((1, 1), 1.0)), "done"),
])
def test_bad_input_raises_and_names_it(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call(domain())
