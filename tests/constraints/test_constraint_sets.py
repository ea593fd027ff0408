"""Constraint sets: the influence bounds (a property test), replacing a constraint, large
batches, and refusing bad constraints, weights, times and costs."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.constraints import (
    Between,
    Constraint,
    ConstraintSet,
    Disc,
    LineOfSight,
    Region,
    Side,
)
from wayfinding.errors import InvalidGeometryError, InvalidQueryError

coord = st.floats(-10, 10, allow_nan=False)
weight = st.one_of(st.floats(-6, 6, allow_nan=False), st.sampled_from([-5.0, 0.0, 2.0]))


@st.composite
def annotations(draw):
    x, y = draw(coord), draw(coord)
    kind = draw(st.sampled_from(["disc", "region", "side", "between", "sight"]))
    disc = Disc((x, y), draw(st.floats(0.2, 3)))
    if kind == "disc":
        return disc
    w, h = draw(st.floats(0.3, 4)), draw(st.floats(0.3, 4))
    rect = Region([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
    if kind == "region":
        return rect
    if kind == "side":
        return Side(rect, draw(st.sampled_from(["front", "back", "left", "right"])),
                    heading=draw(st.floats(-4, 4)), depth=draw(st.floats(0.1, 3)))
    if kind == "between":
        return Between(rect, Disc((draw(coord), draw(coord)), 1.0))
    return LineOfSight((x, y), draw(st.floats(-4, 4)), fov=draw(st.floats(0.1, 2 * math.pi)),
                       range=draw(st.floats(0.5, 5)),
                       occluders=[[(x + 1, y - 1), (x + 1, y + 1)]])


@st.composite
def constraints(draw):
    ann = draw(annotations())
    if draw(st.integers(0, 5)) == 0:
        return Constraint.hard(ann)
    return Constraint(ann, draw(weight), near=draw(st.booleans()))


@settings(max_examples=60, deadline=None)
@given(st.lists(constraints(), min_size=1, max_size=4), st.integers(0, 3),
       st.one_of(st.none(), st.floats(0, 8)), st.integers(0, 2**32 - 1))
def test_influence_bounds_hold_every_change(items, which, base, seed):
    """A point where the field differs from the field without constraint ``which`` lies in
    that constraint's influence bounds (with a fixed base; with the default base only a
    repeller or a zero weight leaves W0 alone)."""
    which %= len(items)
    c = items[which]
    if base is None and not c.is_hard and c.weight_at(0.0) > 0:
        base = 3.0
    rest = items[:which] + items[which + 1:]
    full = ConstraintSet(items, base=base)
    less = ConstraintSet(rest, base=base)
    rng = np.random.default_rng(seed)
    box = full.influence()[which]
    # points all over, and around the annotation out to twice the Near radius
    x0, y0, x1, y1 = c.annotation.bounds
    reach = 1.0 + (0.0 if c.is_hard else 2 * abs(c.weight_at(0.0)))
    pts = np.vstack([rng.uniform(-20, 20, (400, 2)),
                     rng.uniform((x0 - reach, y0 - reach), (x1 + reach, y1 + reach), (800, 2))])
    changed = full.multiplier(pts) != less.multiplier(pts)
    if box is None:
        assert not changed.any()
        return
    x0, y0, x1, y1 = box
    inside = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
    assert not (changed & ~inside).any()


@settings(max_examples=60, deadline=None)
@given(constraints(), st.integers(0, 2**32 - 1))
def test_weights_follow_the_formulas_everywhere(c, seed):
    """W_c from the annotation's own contains and distance at every point (no bounds
    used): In is w inside, Near w · max(0, 1 - r / |w|), hard -inf inside."""
    x0, y0, x1, y1 = c.annotation.bounds
    w = c.weight_at(0.0)
    reach = 1.0 + (0.0 if c.is_hard else 2 * abs(w))
    rng = np.random.default_rng(seed)
    pts = rng.uniform((x0 - reach, y0 - reach), (x1 + reach, y1 + reach), (1000, 2))
    inside = c.annotation.contains(pts)
    if c.near and w != 0:
        want = w * np.maximum(0.0, 1.0 - c.annotation.distance(pts) / abs(w))
    else:
        want = np.where(inside, w, 0.0)
    np.testing.assert_allclose(c.weights(pts), want, rtol=0, atol=1e-12)


def test_influence_of_near_grows_by_the_weight():
    room = Region([(0, 0), (4, 0), (4, 2), (0, 2)])
    field = ConstraintSet([Constraint(room, -3.0), Constraint(room, -3.0, near=True),
                           Constraint.hard(room), Constraint(room, 0.0, near=True)])
    boxes = field.influence()
    np.testing.assert_allclose(boxes[0], (0, 0, 4, 2), atol=1e-8)
    np.testing.assert_allclose(boxes[1], (-3, -3, 7, 5), atol=1e-8)
    np.testing.assert_allclose(boxes[2], (0, 0, 4, 2), atol=1e-8)
    assert boxes[3] is None


def test_replaced_and_with_annotation_move_a_constraint():
    guard = Constraint(Disc((0, 0), 1.0), -4.0, near=True)
    field = ConstraintSet([guard, Constraint.hard(Disc((9, 9), 1.0))], base=1.0)
    moved = field.replaced(0, guard.with_annotation(guard.annotation.moved((5, 0))))
    assert moved.base_weight() == 1.0 and len(moved) == 2 and moved[1] is field[1]
    assert field[1:] == (field[1],) and list(field) == list(field.constraints)
    np.testing.assert_allclose(moved.multiplier([(5, 0), (0, 0)]), [1.1 ** 5, 1.1])
    assert field[1].with_annotation(Disc((0, 0), 1)).is_hard
    with pytest.raises(InvalidQueryError, match="not one of the 2 constraints"):
        field.replaced(2, guard)
    with pytest.raises(InvalidQueryError, match="not a Constraint"):
        field.replaced(0, "guard")


def test_a_million_points_in_one_call():
    field = ConstraintSet([Constraint(Region([(0, 0), (3, 0), (3, 3), (1, 4)]), -2.0,
                                      near=True),
                           Constraint(Disc((5, 5), 1.0), 2.0),
                           Constraint.hard(Disc((8, 2), 0.5))])
    pts = np.random.default_rng(0).uniform(-2, 10, (1_000_000, 2))
    m = field.multiplier(pts)
    assert m.shape == (1_000_000,) and np.all(m >= 1)
    some = np.random.default_rng(1).choice(len(pts), 50, replace=False)
    np.testing.assert_array_equal(field.multiplier(pts[some]), m[some])


def test_transition_costs_across_chunks():
    """More transitions than one batch holds: each costs what it costs alone."""
    field = ConstraintSet([Constraint(Disc((5, 5), 2.0), -3.0, near=True),
                           Constraint.hard(Region([(7, 0), (8, 0), (8, 3)]))])
    rng = np.random.default_rng(2)
    a = rng.uniform(0, 10, (300_000, 2))
    b = a + rng.uniform(-1, 1, a.shape)
    got = field.transition_costs(a, b)
    some = np.concatenate([[0, 262_143, 262_144, 299_999], rng.choice(len(a), 40)])
    for i in some:
        assert got[i] == field.transition_costs(a[i:i + 1], b[i:i + 1])[0]
    assert np.isinf(got).any() and np.isfinite(got).any()


@pytest.mark.parametrize("make, match", [
    (lambda: Constraint("grass", 1.0), "not an Annotation"),
    (lambda: Constraint(Disc((0, 0), 1), "heavy"), "finite number or a callable"),
    (lambda: Constraint(Disc((0, 0), 1), math.nan), "finite number or a callable"),
    (lambda: Constraint(Disc((0, 0), 1), math.inf), "finite number or a callable"),
    (lambda: Constraint(Disc((0, 0), 1), True), "finite number or a callable"),
    (lambda: Constraint(Disc((0, 0), 1), None), "finite number or a callable"),
    (lambda: Constraint(Disc((0, 0), 1), 1.0, near="yes"), "near"),
    (lambda: ConstraintSet([Disc((0, 0), 1)]), "not a Constraint"),
    (lambda: ConstraintSet([], base=math.nan), "base"),
    (lambda: ConstraintSet([], base="auto"), "base"),
])
def test_bad_constraints(make, match):
    with pytest.raises(InvalidQueryError, match=match):
        make()


def test_a_weight_callable_is_checked_when_called():
    field = ConstraintSet([Constraint(Disc((0, 0), 1), lambda t: math.nan if t > 1 else 1.0)])
    assert field.multiplier([(0, 0)], t=0.0).tolist() == [1.0]
    with pytest.raises(InvalidQueryError, match=r"weight\(t=2\) returned nan"):
        field.multiplier([(0, 0)], t=2.0)
    with pytest.raises(InvalidQueryError, match="returned 'x'"):
        Constraint(Disc((0, 0), 1), lambda t: "x").weight_at(0.0)
    with pytest.raises(InvalidQueryError, match=r"base\(t=0\) returned inf"):
        ConstraintSet([], base=lambda t: math.inf).base_weight()


@pytest.mark.parametrize("call, match", [
    (lambda f: f.multiplier([(0, 0)], t=math.nan), "t nan"),
    (lambda f: f.multiplier([(0, math.nan)]), "not finite"),
    (lambda f: f.weights([[0, 0, 0]]), r"shape \(m, 2\)"),
    (lambda f: f.transition_costs([(0, 0)], [(1, 1), (2, 2)]), "differ in shape"),
    (lambda f: f.transition_costs([(0, 0)], [(1, 1)], [1.0, 2.0]), r"shape \(1,\)"),
    (lambda f: f.transition_costs([(0, 0)], [(1, 1)], [-1.0]), r"base\[0\] = -1.0"),
    (lambda f: f.transition_costs([(0, 0)], [(1, 1)], [math.nan]), r"base\[0\] = nan"),
    (lambda f: f.transition_costs([(0, 0)], [(1, 1)], ["a"]), "numbers"),
    (lambda f: f.influence(t=math.inf), "t inf"),
    (lambda f: f.base_weight(t="noon"), "t 'noon'"),
])
def test_bad_queries(call, match):
    field = ConstraintSet([Constraint(Disc((0, 0), 1.0), -1.0)])
    with pytest.raises(InvalidQueryError, match=match):
        call(field)


def test_an_annotation_can_be_refused_by_geometry_not_by_the_constraint():
    with pytest.raises(InvalidGeometryError):
        Constraint(Disc((0, 0), -1), 1.0)


HOSTILE = [10**30, -10**30, None, True, "1", math.nan, math.inf, [], object()]
DISC = Disc((0, 0), 1.0)
CALLS = {
    "Disc radius": lambda v: Disc((0, 0), v),
    "Disc centre": lambda v: Disc(v, 1.0),
    "Side heading": lambda v: Side(DISC, "front", heading=v, depth=1.0),
    "Side depth": lambda v: Side(DISC, "front", heading=0.0, depth=v),
    "Side side": lambda v: Side(DISC, v, heading=0.0, depth=1.0),
    "LineOfSight heading": lambda v: LineOfSight((0, 0), v, fov=1.0, range=1.0),
    "LineOfSight fov": lambda v: LineOfSight((0, 0), 0.0, fov=v, range=1.0),
    "LineOfSight range": lambda v: LineOfSight((0, 0), 0.0, fov=1.0, range=v),
    "moved turn": lambda v: DISC.moved((0, 0), turn=v),
    "moved offset": lambda v: DISC.moved(v),
    "Constraint weight": lambda v: Constraint(DISC, v),
    "Constraint near": lambda v: Constraint(DISC, 1.0, near=v),
    "ConstraintSet base": lambda v: ConstraintSet([], base=v),
    "multiplier t": lambda v: ConstraintSet([Constraint(DISC, 1.0)]).multiplier([(0, 0)], t=v),
    "weight_at t": lambda v: Constraint(DISC, 1.0).weight_at(v),
    "callable weight result": lambda v: Constraint(DISC, lambda t: v).weight_at(0.0),
}


#: Hostile values that are good values of one parameter.
VALID = {("Constraint near", True), ("ConstraintSet base", None)}


@pytest.mark.parametrize(
    "value", HOSTILE, ids=lambda v: "object()" if type(v) is object else repr(v))
@pytest.mark.parametrize("name", CALLS)
def test_hostile_scalars_get_a_clear_error(name, value):
    if any(name == n and value is v for n, v in VALID):
        CALLS[name](value)
        return
    with pytest.raises((InvalidQueryError, InvalidGeometryError)):
        CALLS[name](value)
