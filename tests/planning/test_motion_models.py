"""Motion models: the deceleration fit, the speed range, scaling and the run-time caps."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wayfinding.errors import FileFormatError, InvalidQueryError
from wayfinding.planning.motion_models import (
    MotionModel,
    fit_deceleration,
    speed_range,
)


def make_model(**changes) -> MotionModel:
    """A hand-made model: Δv(3) = 0.1·9 + 0.2·3 + c·√3 = 2 m/s."""
    fields = dict(
        min_speed=0.5, max_speed=6.0,
        stop_distances=np.array([0.1, 0.6, 1.5, 2.8]),
        stop_speeds=np.array([0.5, 2.0, 4.0, 6.0]),
        deceleration=np.array([0.1, 0.2, (2.0 - 0.9 - 0.6) / math.sqrt(3.0)]),
        overshoot_angles=np.linspace(0.0, math.pi, 5),
        overshoot_speeds=np.array([0.5, 2.0, 4.0, 6.0]),
        overshoot=np.array([[0.0, 0.0, 0.0, 0.0],
                            [0.05, 0.3, 1.0, 2.0],
                            [0.1, 0.8, 2.5, 4.5],
                            [0.15, 1.2, 3.5, 6.5],
                            [0.2, 1.4, 4.0, 7.5]]),
        radius_speeds=np.array([0.5, 2.0, 4.0, 6.0]),
        radii=np.array([0.2, 0.8, 2.0, 4.5]))
    fields.update(changes)
    return MotionModel(**fields)


# -- the notes' worked example and the future-speed cap -------------------------------------


def test_be_at_2_m_s_in_3_m_caps_the_current_speed_at_4_m_s():
    model = make_model()
    assert model.speed_loss(3.0) == pytest.approx(2.0, abs=1e-12)
    assert model.future_speed_cap(2.0, 3.0) == pytest.approx(4.0, abs=1e-12)


def test_the_future_speed_cap_is_the_future_speed_plus_the_loss_up_to_the_top_speed():
    model = make_model()
    for d in (0.0, 0.5, 1.0, 2.0):
        assert model.future_speed_cap(1.0, d) == pytest.approx(
            min(1.0 + 0.1 * d * d + 0.2 * d + model.deceleration[2] * math.sqrt(d), 6.0))
    assert model.future_speed_cap(1.0, 50.0) == 6.0
    # a fit negative near 0 never caps below the future speed
    assert make_model(deceleration=np.array([0.0, 1.0, -1.0])).future_speed_cap(2.0, 0.25) \
        == 2.0


# -- the deceleration fit ------------------------------------------------------------------


@pytest.mark.parametrize("abc", [(0.1, 0.5, 0.3), (-0.05, 1.2, 0.0), (0.0, 0.0, 2.0),
                                 (0.3, -0.4, 1.5)])
def test_the_fit_recovers_known_coefficients_exactly(abc):
    d = np.linspace(0.1, 6.0, 25)
    a, b, c = abc
    fit = fit_deceleration(d, a * d**2 + b * d + c * np.sqrt(d))
    np.testing.assert_allclose(fit.coefficients, abc, atol=1e-10)
    assert fit.max_error < 1e-10 and fit.rms < 1e-10


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3),
       st.lists(st.floats(0.01, 50.0), min_size=3, max_size=30, unique=True))
def test_the_fit_recovers_any_coefficients_from_any_distances(abc, distances):
    d = np.array(distances)
    a, b, c = abc
    design = np.column_stack((d**2, d, np.sqrt(d)))
    assume(np.linalg.cond(design) < 1e6)
    fit = fit_deceleration(d, design @ np.array(abc))
    scale = max(1.0, float(np.abs(design).max()))
    np.testing.assert_allclose(fit.coefficients, abc, atol=1e-7 * scale)
    assert fit.max_error <= 1e-8 * scale * max(1.0, abs(a) + abs(b) + abs(c))


def test_the_fit_reports_its_residuals_and_is_the_least_squares_optimum():
    rng = np.random.default_rng(7)
    d = np.linspace(0.2, 5.0, 40)
    dv = 0.1 * d**2 + 0.5 * d + 0.3 * np.sqrt(d) + rng.normal(0.0, 0.05, len(d))
    fit = fit_deceleration(d, dv)
    design = np.column_stack((d**2, d, np.sqrt(d)))
    # the normal equations as an independent oracle
    np.testing.assert_allclose(fit.coefficients,
                               np.linalg.solve(design.T @ design, design.T @ dv), rtol=1e-8)
    np.testing.assert_allclose(fit.residuals, design @ fit.coefficients - dv, atol=1e-12)
    assert fit.rms == pytest.approx(np.sqrt(np.mean(fit.residuals**2)))
    assert fit.max_error == pytest.approx(np.abs(fit.residuals).max())
    assert 0.02 < fit.rms < 0.08
    np.testing.assert_allclose(fit.coefficients, [0.1, 0.5, 0.3], atol=0.15)


@pytest.mark.parametrize("seed", range(4))
def test_the_bounded_fit_is_the_constrained_least_squares_optimum(seed):
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(seed)
    d = np.sort(rng.uniform(0.05, 6.0, 25))
    dv = 0.05 * d**2 + 0.6 * d + 0.4 * np.sqrt(d) + rng.normal(0.0, 0.1, len(d))
    fit = fit_deceleration(d, np.abs(dv), bound=True)
    design = np.column_stack((d**2, d, np.sqrt(d)))
    y = np.abs(dv)
    assert (fit.residuals <= 1e-9).all()
    # SLSQP as the independent oracle: the same optimum, no better feasible point
    ref = optimize.minimize(lambda x: ((design @ x - y) ** 2).sum(), np.zeros(3),
                            method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
                            constraints=[{"type": "ineq", "fun": lambda x: y - design @ x}])
    assert (fit.residuals**2).sum() <= ((design @ ref.x - y) ** 2).sum() + 1e-9
    np.testing.assert_allclose(fit.coefficients, ref.x, atol=1e-4)
    free = fit_deceleration(d, y)
    assert (free.residuals**2).sum() <= (fit.residuals**2).sum()


def kkt_gap(design, y, x):
    """How far ``x`` is from the KKT conditions of min |design x - y|² s.t. design x <= y:
    the residual of the best multipliers >= 0 on the rows it keeps tightly (scipy's NNLS),
    relative to the gradient's size; 0 at the optimum of this convex problem."""
    optimize = pytest.importorskip("scipy.optimize")
    grad = 2.0 * design.T @ (design @ x - y)
    tight = design @ x - y >= -1e-7 * max(1.0, np.abs(y).max())
    _, gap = optimize.nnls(design[tight].T, -grad) if tight.any() else (None, np.hypot.reduce(grad))
    return gap / max(1.0, float(np.abs(2.0 * design.T @ y).max()))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 40), st.sampled_from([1e-3, 1.0, 1e2, 1e4]),
       st.sampled_from([0.0, 0.01, 1.0]))
def test_the_bounded_fit_meets_the_kkt_conditions(seed, n, scale, noise):
    # Distances of 1e4 (losses of 1e8) left every candidate of the former enumeration of
    # active rows infeasible, and it returned the unbounded fit (residuals up to +1136).
    rng = np.random.default_rng(seed)
    d = np.round(rng.uniform(0.1, 6.0, n), 1) * scale
    assume(len(np.unique(d)) >= 3)
    y = 0.1 * d**2 + rng.normal() * d + 0.2 * np.sqrt(d) \
        + rng.normal(0.0, noise, n) * d.max()
    fit = fit_deceleration(d, y, bound=True)
    assert (fit.residuals <= 1e-9 * max(1.0, np.abs(y).max())).all()
    design = np.column_stack((d**2, d, np.sqrt(d)))
    assert kkt_gap(design, y, fit.coefficients) < 1e-6


def test_the_bounded_fit_of_thousands_of_points_is_the_optimum():
    # Every set of three rows was solved and checked against every row: n⁴ work and
    # memory (200 points took a minute and 4.6 GB)
    rng = np.random.default_rng(7)
    d = rng.uniform(0.05, 6.0, 3000)
    y = 0.05 * d**2 + 0.6 * d + 0.4 * np.sqrt(d) + rng.normal(0.0, 0.1, len(d))
    fit = fit_deceleration(d, y, bound=True)
    assert (fit.residuals <= 1e-9 * np.abs(y).max()).all()
    design = np.column_stack((d**2, d, np.sqrt(d)))
    assert kkt_gap(design, y, fit.coefficients) < 1e-6


def test_an_exact_model_is_its_own_bounded_fit():
    d = np.linspace(0.2, 4.0, 9)
    fit = fit_deceleration(d, 0.1 * d**2 + 0.5 * d + 0.3 * np.sqrt(d), bound=True)
    np.testing.assert_allclose(fit.coefficients, [0.1, 0.5, 0.3], atol=1e-9)


def test_the_bounded_fit_stays_under_any_losses_but_a_negative_one_at_0():
    fit = fit_deceleration([1.0, 2.0, 3.0, 4.0], [-1.0, -3.0, -1.0, 2.0], bound=True)
    assert (fit.residuals <= 1e-9).all()
    with pytest.raises(InvalidQueryError, match="at distance 0"):
        fit_deceleration([0.0, 1.0, 2.0, 3.0], [-1.0, 1.0, 2.0, 3.0], bound=True)
    with pytest.raises(InvalidQueryError, match="bound"):
        fit_deceleration([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], bound=1)


@pytest.mark.parametrize("d, dv, match", [
    ([1.0, 2.0], [1.0, 2.0], "at least 3"),
    ([1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0], "at least 3"),
    ([1.0, 2.0, -3.0], [1.0, 2.0, 3.0], ">= 0"),
    ([1.0, 2.0, float("nan")], [1.0, 2.0, 3.0], "finite"),
    ([1.0, 2.0, 3.0], [1.0, 2.0], r"\(3,\)"),
    ([1.0, 2.0, 3.0], ["a", "b", "c"], "numbers"),
    ([[1.0, 2.0, 3.0]], [1.0, 2.0, 3.0], "array"),
])
def test_the_fit_refuses_bad_data(d, dv, match):
    with pytest.raises(InvalidQueryError, match=match):
        fit_deceleration(d, dv)


# -- the speed range -----------------------------------------------------------------------


def test_the_speed_range_is_the_largest_interval_within_the_bound():
    goals = np.arange(0.5, 8.01, 0.5)
    measured = np.clip(goals, 1.0, None)            # the walk clip cannot go below 1 m/s
    measured[goals > 4.0] = 4.0 - (goals[goals > 4.0] - 4.0)   # the dog's drop at 4 m/s
    measured[2] = 1.7                                # one outlier splits the plateau
    assert speed_range(goals, measured) == (2.0, 4.0)
    assert speed_range(goals, measured, max_error=0.2) == (1.0, 4.0)


def test_no_interval_means_no_range():
    assert speed_range([1.0, 2.0, 3.0], [2.0, 3.0, 1.0]) is None
    assert speed_range([1.0, 2.0], [0.0, 0.0]) is None


@pytest.mark.parametrize("goals, measured, kw, match", [
    ([2.0, 1.0], [2.0, 1.0], {}, "increasing"),
    ([1.0, 2.0], [1.0], {}, r"\(2,\)"),
    ([1.0, 2.0], [1.0, 2.0], {"max_error": 0.0}, "max_error"),
    ([1.0, 2.0], [1.0, 2.0], {"max_error": True}, "max_error"),
])
def test_the_speed_range_refuses_bad_input(goals, measured, kw, match):
    with pytest.raises(InvalidQueryError, match=match):
        speed_range(goals, measured, **kw)


# -- scale and playback rate ---------------------------------------------------------------


def test_unit_scale_and_rate_change_nothing():
    model = make_model()
    assert model.scaled() == model
    assert model.scaled(scale=1.0, rate=1.0).speed_loss(2.5) == model.speed_loss(2.5)


@pytest.mark.parametrize("u, p", [(2.0, 1.0), (0.5, 1.0), (1.0, 1.5), (1.7, 0.6)])
def test_the_scaled_deceleration_is_p_u_dv_of_d_over_u(u, p):
    model = make_model()
    a, b, c = model.deceleration
    big = model.scaled(scale=u, rate=p)
    for d in (0.0, 0.4, 1.0, 3.0, 7.0):
        assert big.speed_loss(d) == pytest.approx(p * u * model.speed_loss(d / u), abs=1e-12)
        assert big.speed_loss(d) == pytest.approx(
            p * (a * d * d / u + b * d + c * math.sqrt(u * d)), abs=1e-12)
        assert big.stop_speed_limit(u * d) == pytest.approx(u * p * model.stop_speed_limit(d))
        assert big.rotation_radius(u * p * 3.0) == pytest.approx(u * model.rotation_radius(3.0))
        assert big.overshoot_at(1.0, u * p * 3.0) == pytest.approx(
            u * model.overshoot_at(1.0, 3.0))
    assert (big.min_speed, big.max_speed) == pytest.approx((0.5 * u * p, 6.0 * u * p))


def test_doubling_the_size_doubles_the_speeds():
    assert make_model().scaled(scale=2.0).max_speed == 12.0


def test_the_residuals_scale_as_the_speed_losses():
    big = make_model(deceleration_rms=0.1, deceleration_max_error=0.3).scaled(scale=2.0,
                                                                              rate=1.5)
    assert (big.deceleration_rms, big.deceleration_max_error) == pytest.approx((0.3, 0.9))
    assert make_model().scaled(scale=2.0).deceleration_rms is None


# -- the stop trigger ----------------------------------------------------------------------


@pytest.mark.parametrize("distance", [0.0, 0.05, 0.3, 1.0, 2.0, 2.8, 10.0])
def test_a_speed_above_the_limit_stops_at_once(distance):
    model = make_model()
    limit = model.stop_speed_limit(distance)
    assert model.stop_control_speed(limit + 1e-9, desired_speed=6.0, distance=distance) == 0.0


@pytest.mark.parametrize("distance", [0.05, 0.3, 1.0, 2.0, 2.8, 10.0])
def test_below_the_limit_the_control_speed_keeps_the_95_percent_margin(distance):
    model = make_model()
    limit = model.stop_speed_limit(distance)
    for physical in (0.0, 0.5 * limit, limit):
        control = model.stop_control_speed(physical, desired_speed=6.0, distance=distance)
        assert 0.0 < control == pytest.approx(0.95 * limit)
        assert model.stop_control_speed(physical, desired_speed=0.1 * limit,
                                        distance=distance) == pytest.approx(0.1 * limit)


def test_the_stop_limit_reads_the_table_backwards():
    model = make_model()
    assert model.stop_speed_limit(0.0) == 0.0
    assert model.stop_speed_limit(0.05) == pytest.approx(0.25)      # from (0 m, 0 m/s)
    assert model.stop_speed_limit(0.6) == pytest.approx(2.0)
    assert model.stop_speed_limit(1.05) == pytest.approx(3.0)
    assert model.stop_speed_limit(100.0) == 6.0


# -- turns, arrival and the turn side ------------------------------------------------------


@pytest.mark.parametrize("i", range(1, 5))
@pytest.mark.parametrize("speed", [0.3, 1.0, 3.0, 5.5])
def test_the_turn_speed_limit_inverts_the_overshoot(i, speed):
    model = make_model()
    angle = model.overshoot_angles[i]
    room = model.overshoot_at(angle, speed)
    assert model.turn_speed_limit(angle, room) == pytest.approx(speed)
    assert model.overshoot_at(angle, model.turn_speed_limit(angle, 0.9 * room)) \
        == pytest.approx(0.9 * room)


def test_between_tabulated_angles_the_turn_limit_takes_the_sharper_turn():
    model = make_model()
    step = math.pi / 4
    mid = 1.5 * step
    assert model.turn_speed_limit(mid, 1.0) == model.turn_speed_limit(2 * step, 1.0)
    assert model.turn_speed_limit(-mid, 1.0) == model.turn_speed_limit(mid, 1.0)
    assert model.turn_speed_limit(0.0, 0.0) == 6.0          # going straight never overshoots
    assert model.turn_speed_limit(math.pi, 100.0) == 6.0


def test_an_anticipated_turn_caps_the_speed_through_the_deceleration():
    model = make_model()
    limit = model.turn_speed_limit(math.pi / 2, 1.0)
    assert model.turn_cap(math.pi / 2, 1.0, 3.0) == pytest.approx(
        model.future_speed_cap(limit, 3.0))


def test_the_arrival_radius_grows_with_speed_once_the_turning_circle_is_larger():
    model = make_model()
    radii = [model.arrival_radius(v, math.pi / 2, radius=1.0) for v in (0.5, 1.0, 2.0, 4.0, 6.0)]
    assert radii[:2] == [1.0, 1.0]                  # 2 r below the base radius
    assert radii[2] == pytest.approx(1.6) and radii[3] == pytest.approx(4.0)
    assert radii == sorted(radii) and radii[-1] == pytest.approx(9.0)
    assert model.arrival_radius(6.0, 0.0, radius=1.0) == 1.0        # straight ahead


def test_the_arrival_radius_is_the_turning_circle_s_reach():
    """A target nearer than 2 r sin φ lies inside the circle the character turns on."""
    model = make_model()
    r = model.rotation_radius(4.0)
    for phi in (0.3, 1.0, 2.0):
        reach = model.arrival_radius(4.0, phi, radius=0.0)
        centre = np.array([0.0, r])
        on_circle = np.array([reach * math.cos(phi), reach * math.sin(phi)])
        assert np.linalg.norm(on_circle - centre) == pytest.approx(r)


def test_the_turn_side_takes_the_side_with_room():
    model = make_model()
    # a quarter turn left: the short way, unless the left side is walled off
    assert model.turn_side(4.0, math.pi / 2, free_left=10.0, free_right=10.0) == "left"
    assert model.turn_side(4.0, math.pi / 2, free_left=0.5, free_right=10.0) == "right"
    assert model.turn_side(4.0, -math.pi / 2, free_left=10.0, free_right=10.0) == "right"
    assert model.turn_side(4.0, math.pi, free_left=1.0, free_right=1.0) == "left"
    assert model.turn_side(4.0, math.pi, free_left=1.0, free_right=math.inf) == "right"


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("changes, match", [
    ({"min_speed": 0.0}, "min_speed"),
    ({"max_speed": 0.4}, "max_speed"),
    ({"stop_speeds": np.array([0.5, 2.0, 1.0, 6.0])}, "stop_speeds"),
    ({"stop_distances": np.array([0.1, 0.6, 0.5, 2.8])}, "stop_distances"),
    ({"stop_distances": np.array([0.1, 0.6])}, "stop_speeds"),
    ({"deceleration": np.array([1.0, 2.0])}, "deceleration"),
    ({"deceleration": np.array([1.0, np.nan, 2.0])}, "deceleration"),
    ({"overshoot_angles": np.linspace(0.0, 3.0, 5)}, "from 0 to pi"),
    ({"overshoot": np.zeros((4, 4))}, "overshoot"),
    ({"overshoot": -np.ones((5, 4))}, "overshoot"),
    ({"radii": np.array([0.2, -0.8, 2.0, 4.5])}, "radii"),
    ({"deceleration_rms": -0.1}, "deceleration_rms"),
    ({"deceleration_max_error": float("nan")}, "deceleration_max_error"),
    ({"deceleration_rms": "0.1"}, "deceleration_rms"),
])
def test_a_malformed_model_is_refused(changes, match):
    with pytest.raises(InvalidQueryError, match=match):
        make_model(**changes)


@pytest.mark.parametrize("call, match", [
    (lambda m: m.future_speed_cap(-1.0, 3.0), "future_speed"),
    (lambda m: m.future_speed_cap(2.0, -3.0), "distance"),
    (lambda m: m.speed_loss(float("nan")), "distance"),
    (lambda m: m.stop_control_speed(1.0, desired_speed=2.0, distance=1.0, margin=0.0),
     "margin"),
    (lambda m: m.stop_control_speed(1.0, desired_speed=2.0, distance=1.0, margin=1.5),
     "margin"),
    (lambda m: m.stop_control_speed(-1.0, desired_speed=2.0, distance=1.0), "physical_speed"),
    (lambda m: m.stop_control_speed(1.0, desired_speed=True, distance=1.0), "desired_speed"),
    (lambda m: m.turn_speed_limit(float("inf"), 1.0), "angle"),
    (lambda m: m.turn_speed_limit(1.0, -1.0), "free_distance"),
    (lambda m: m.arrival_radius(1.0, 0.5, radius=-1.0), "radius"),
    (lambda m: m.turn_side(1.0, 0.5, free_left=-1.0, free_right=1.0), "free_left"),
    (lambda m: m.scaled(scale=0.0), "scale"),
    (lambda m: m.scaled(rate=-1.0), "rate"),
    (lambda m: m.clamp_speed(-0.1), "speed"),
])
def test_run_time_calls_refuse_bad_input(call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call(make_model())


def test_selectable_speeds_are_clamped_into_the_range():
    model = make_model()
    assert [model.clamp_speed(v) for v in (0.0, 0.2, 3.0, 9.0)] == [0.0, 0.5, 3.0, 6.0]


# -- files ---------------------------------------------------------------------------------


def test_a_saved_model_loads_equal(tmp_path):
    model = make_model().scaled(scale=1.3, rate=0.9)
    model.save(tmp_path / "hero.npz")
    assert MotionModel.load(tmp_path / "hero.npz") == model


def test_a_saved_model_keeps_its_deceleration_residuals(tmp_path):
    model = make_model(deceleration_rms=0.25, deceleration_max_error=0.75)
    model.save(tmp_path / "hero.npz")
    loaded = MotionModel.load(tmp_path / "hero.npz")
    assert loaded == model
    assert (loaded.deceleration_rms, loaded.deceleration_max_error) == (0.25, 0.75)
    assert loaded != make_model()


def test_a_malformed_model_file_is_refused_with_its_name(tmp_path):
    path = tmp_path / "hero.npz"
    make_model().save(path)
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["radii"] = arrays["radii"][:2]
    np.savez(path, **arrays)
    with pytest.raises(FileFormatError, match=r"hero\.npz: malformed motion model: radii"):
        MotionModel.load(path)
    arrays["radii"] = arrays["radii"].astype(np.float32)
    np.savez(path, **arrays)
    with pytest.raises(FileFormatError, match="array 'radii' must be float64"):
        MotionModel.load(path)
    del arrays["radii"]
    np.savez(path, **arrays)
    with pytest.raises(FileFormatError, match="array 'radii' .* is missing"):
        MotionModel.load(path)
    (tmp_path / "text.npz").write_text("not a model")
    with pytest.raises(FileFormatError, match=r"text\.npz"):
        MotionModel.load(tmp_path / "text.npz")
    with pytest.raises(FileFormatError, match="not found"):
        MotionModel.load(tmp_path / "absent.npz")
