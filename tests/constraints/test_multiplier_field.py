"""The multiplier field and transition costs: the worked examples of the constraint notes
(seed 002, section 12, examples 14-18) and time-varying weights."""

import math

import numpy as np
import pytest

from wayfinding.constraints import SAMPLES, Constraint, ConstraintSet, Disc, Region

#: A unit disc at the origin: r(x) is |x| - 1 outside it.
UNIT = Disc((0.0, 0.0), 1.0)


def at(r: float) -> tuple[float, float]:
    """A point at distance ``r`` from :data:`UNIT`."""
    return (1.0 + r, 0.0)


@pytest.mark.parametrize("r, weight, factor", [
    (0.0, -5.0, 1.1 ** 5), (2.0, -3.0, 1.1 ** 3), (5.0, 0.0, 1.0), (7.0, 0.0, 1.0)])
def test_near_repeller_table(r, weight, factor):
    """Example 14: Near, w = -5, influence radius 5."""
    c = Constraint(UNIT, -5.0, near=True)
    assert c.weights([at(r)]).tolist() == pytest.approx([weight], abs=1e-12)
    m = ConstraintSet([c]).multiplier([at(r)])
    assert m[0] == pytest.approx(factor, abs=1e-12)


def test_near_repeller_values_are_the_seeds():
    m = ConstraintSet([Constraint(UNIT, -5.0, near=True)]).multiplier(
        [at(0), at(2), at(5), at(7)])
    np.testing.assert_allclose(m, [1.61051, 1.331, 1.0, 1.0], atol=1e-9)


def test_near_attractor_and_the_base_weight():
    """Example 15: Near attractor w = 3 at r = 1: W = 2, m_c = 1.1**-2; the aggregate with
    W0 = 3 is 1 inside and 1.331 far away; with W0 = 0 the attractor is clamped away."""
    c = Constraint(UNIT, 3.0, near=True)
    assert c.weights([at(1)])[0] == pytest.approx(2.0)
    assert 1.1 ** -c.weights([at(1)])[0] == pytest.approx(0.8264, abs=1e-4)
    field = ConstraintSet([c])
    assert field.base_weight() == 3.0
    np.testing.assert_allclose(field.multiplier([(0, 0), at(100)]), [1.0, 1.331], atol=1e-12)
    np.testing.assert_allclose(field.multiplier([at(1)]), [1.1], atol=1e-12)
    flat = ConstraintSet([c], base=0.0)
    np.testing.assert_array_equal(flat.multiplier([(0, 0), at(1), at(100)]), [1, 1, 1])


def test_in_is_a_step():
    """Example 16: In: 1.1**-w inside (lifted by W0 for attractors), 1 outside."""
    pts = [(0, 0), (0.999, 0), (1.001, 0), (3, 0)]
    rep = ConstraintSet([Constraint(UNIT, -4.0)]).multiplier(pts)
    np.testing.assert_allclose(rep, [1.1 ** 4, 1.1 ** 4, 1, 1], atol=1e-12)
    att = ConstraintSet([Constraint(UNIT, 2.0)])
    np.testing.assert_allclose(att.multiplier(pts), [1, 1, 1.21, 1.21], atol=1e-12)


def test_hard_is_infinite_inside_and_on_crossing_transitions():
    """Example 17: the field is inf inside; a transition that meets the volume costs inf
    even when none of its four samples falls inside it."""
    field = ConstraintSet([Constraint.hard(Disc((5.0, 0.0), 0.3))])
    m = field.multiplier([(5, 0), (5.29, 0), (5.31, 0), (0, 0)])
    assert m.tolist() == [math.inf, math.inf, 1.0, 1.0]
    # the samples of 0..8 are x = 1, 3, 5, 7 (5 inside); those of 0..9.6 miss the disc
    a = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.5]])
    b = np.array([[8.0, 0.0], [9.6, 0.0], [10.0, 0.5]])
    assert np.isfinite(field.multiplier(a[1] + np.outer(SAMPLES, b[1] - a[1]))).all()
    assert field.transition_costs(a, b).tolist() == [math.inf, math.inf, 10.0]
    grazing = field.transition_costs([(0.0, 0.3)], [(10.0, 0.3)])     # touches its top
    assert grazing.tolist() == [math.inf]


def test_transition_cost_is_the_mean_sample_times_the_base():
    field = ConstraintSet([Constraint(Region([(2, -1), (4, -1), (4, 1), (2, 1)]), -3.0)])
    # samples of 0..8 at 1, 3, 5, 7: one of four inside
    got = field.transition_costs([(0, 0)], [(8, 0)])
    assert got[0] == pytest.approx(8 * (3 + 1.1 ** 3) / 4)
    got = field.transition_costs([(0, 0)], [(8, 0)], [2.5])
    assert got[0] == pytest.approx(2.5 * (3 + 1.1 ** 3) / 4)


def _smooth_field():
    return ConstraintSet([Constraint(Disc((3.0, 0.5), 1.0), -6.0, near=True),
                          Constraint(Region([(6, -2), (9, -2), (9, 2), (6, 2)]), 2.0,
                                     near=True)])


@pytest.mark.parametrize("k", [1, 2, 3, 8, 50])
def test_subdivision_invariance(k):
    """Example 18: splitting a transition into k collinear pieces changes its cost only by
    the Riemann sums' error.  Near fields change W by at most 1 per world unit each, so m
    is Lipschitz with constant L = m_max · ln 1.1 · (number of Near constraints), and the
    midpoint rule over 4k samples of spacing h errs by at most length · L · h / 4."""
    field = _smooth_field()
    a, b = np.array([-2.0, 0.0]), np.array([12.0, 0.3])
    length = float(np.hypot(*(b - a)))
    fine = a + np.outer(np.linspace(0, 1, 20001), b - a)
    exact = field.transition_costs(fine[:-1], fine[1:]).sum()
    ends = a + np.outer(np.linspace(0, 1, k + 1), b - a)
    split = field.transition_costs(ends[:-1], ends[1:]).sum()
    lip = 1.1 ** (2.0 + 6.0) * math.log(1.1) * 2
    h = length / (4 * k)
    assert abs(split - exact) <= length * lip * h / 4


def test_subdivision_leaves_a_uniform_field_exact():
    field = ConstraintSet([Constraint(Region([(-5, -5), (20, -5), (20, 5), (-5, 5)]), -2.0)])
    ends = np.outer(np.linspace(0, 1, 8), [10.0, 1.0])
    whole = field.transition_costs([ends[0]], [ends[-1]])[0]
    assert field.transition_costs(ends[:-1], ends[1:]).sum() == pytest.approx(whole, abs=1e-12)
    assert whole == pytest.approx(1.21 * math.hypot(10, 1), abs=1e-12)


def test_time_varying_weights():
    night = Constraint(UNIT, lambda t: -5.0 if t >= 20 or t < 6 else 0.0)
    field = ConstraintSet([night])
    assert field.multiplier([(0, 0)], t=12.0).tolist() == [1.0]
    assert field.multiplier([(0, 0)], t=22.0)[0] == pytest.approx(1.1 ** 5)
    assert field.influence(t=12.0) == [None]
    assert field.influence(t=22.0)[0] == pytest.approx((-1, -1, 1, 1))
    grows = ConstraintSet([Constraint(UNIT, lambda t: t, near=True)])
    assert grows.base_weight(t=4.0) == 4.0
    assert grows.multiplier([at(2)], t=4.0)[0] == pytest.approx(1.1 ** 2)
    base = ConstraintSet([Constraint(UNIT, 1.0)], base=lambda t: 2.0 * t)
    assert base.base_weight(t=3.0) == 6.0


@pytest.mark.parametrize("make", [
    lambda: Constraint(UNIT, 8000.0), lambda: Constraint(UNIT, -8000.0, near=True),
    lambda: ConstraintSet([Constraint(UNIT, 1.0)], base=-7500.0),
    lambda: ConstraintSet([Constraint(UNIT, 4000.0), Constraint(UNIT, -3500.0)])])
def test_weights_that_would_overflow_the_multiplier_are_refused(make):
    from wayfinding.errors import InvalidQueryError

    with pytest.raises(InvalidQueryError, match="overflow"):
        make()


def test_a_callable_weight_beyond_the_limit_is_refused_when_evaluated():
    from wayfinding.errors import InvalidQueryError

    field = ConstraintSet([Constraint(UNIT, lambda t: -9000.0 if t > 5 else -9.0)])
    assert field.multiplier([at(0)], t=0.0)[0] == pytest.approx(1.1 ** 9)
    with pytest.raises(InvalidQueryError, match=r"weight\(t=6\) -9000"):
        field.multiplier([at(0)], t=6.0)


def test_the_largest_weights_keep_every_multiplier_and_cost_finite():
    """Up to the limit, a strong repeller is not a hard constraint: the field is finite and
    a transition across it costs more than one around it."""
    field = ConstraintSet([Constraint(UNIT, -2000.0), Constraint(Disc((9, 9), 1.0), 2000.0)])
    m = field.multiplier([at(-1), at(3), (9.0, 9.0)])
    assert np.isfinite(m).all() and m[0] == pytest.approx(1.1 ** 4000, rel=1e-9)
    assert m[2] == 1.0
    across, around = field.transition_costs([(-2, 0), (-2, 3)], [(2, 0), (2, 3)])
    assert np.isfinite(across) and across > around
