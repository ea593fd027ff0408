"""Chained specifications and patrols: each leg optimal under its own constraints (against
scipy's Dijkstra on the leg's constrained costs), the legs joined end to end, a patrol's laps
repeated, a leg with no path ending the plan, and bad input."""

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
from wayfinding.planning.constrained import ConstraintPlan
from wayfinding.planning.specification import (
    Specification,
    SpecificationLeg,
    SpecificationPlan,
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
])
def test_bad_input_raises_and_names_it(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call(domain())
