"""The simulated controller, the offline harness, the fitted model driving a character to
its mark, and the regression report."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry.angles import wrap_angle
from wayfinding.planning.motion_fitting import (
    FitFailure,
    compare_models,
    fit_motion_model,
    regenerate,
)
from wayfinding.planning.motion_models import MotionModel
from wayfinding.planning.motion_simulation import (
    ControllerParams,
    MotionCommand,
    RunFailure,
    SimulatedController,
    SimulationSettings,
    simulate,
)

DT = 1.0 / 30.0
#: Controllers to fit: the default, one without blend lag, a slow-stopping noisy one.
PARAMS = {
    "default": ControllerParams(),
    "no_lag": ControllerParams(blend_delay=0.0),
    "noisy": ControllerParams(blend_delay=0.3, jitter=0.05, stop_deceleration=3.0),
}


@functools.cache
def fitted(params: ControllerParams) -> MotionModel:
    """The model fitted to a simulated controller (fitted once per parameters: records are
    frozen)."""
    fit = fit_motion_model(SimulatedController(params=params), rough_min_speed=1.0,
                           rough_max_speed=4.0,
                           settings=SimulationSettings(jitter=params.jitter))
    assert fit.failures == ()
    assert fit.model is not None
    return fit.model


class Oscillating:
    """A controller whose speed swings for ever round its goal (a broken blend)."""

    def reset(self, seed: int) -> None:
        self.t = self.x = 0.0

    def step(self, goal_speed, goal_heading, dt):
        self.t += dt
        v = goal_speed + 0.5 * math.sin(5.0 * self.t)
        self.x += v * dt
        return self.x, 0.0, 0.0, v

    def recentre(self) -> None:
        self.x = 0.0


class Overflowing(Oscillating):
    """A controller whose speed overflows at goal speeds above 1 m/s (a float bug in an
    animation)."""

    def step(self, goal_speed, goal_heading, dt):
        self.t += dt
        v = goal_speed if goal_speed <= 1.0 else math.inf
        self.x += v * dt
        return self.x, 0.0, 0.0, v


class Dog(SimulatedController):
    """A controller whose top speed falls short of its goal above 4 m/s."""

    def step(self, goal_speed, goal_heading, dt):
        return super().step(goal_speed if goal_speed <= 4.0 else 4.0 - 0.5 * (goal_speed - 4.0),
                            goal_heading, dt)


class Cart:
    """A controller of the user's own: speed and heading follow the command at bounded rates
    (2 m/s² up, 3 m/s² down, 1 rad/s), speeds in 1..5 m/s."""

    def reset(self, seed: int) -> None:
        self.x = self.y = self.h = self.v = 0.0

    def step(self, goal_speed, goal_heading, dt):
        target = 0.0 if goal_speed == 0 else min(max(goal_speed, 1.0), 5.0)
        self.v += max(min(target - self.v, 2.0 * dt), -3.0 * dt)
        self.h += max(min(math.remainder(goal_heading - self.h, 2 * math.pi), dt), -dt)
        self.x += self.v * dt * math.cos(self.h)
        self.y += self.v * dt * math.sin(self.h)
        return self.x, self.y, self.h, self.v

    def recentre(self) -> None:
        self.x = self.y = 0.0


def test_a_controller_of_the_user_s_own_is_fitted_through_the_step_interface():
    fit = fit_motion_model(Cart(), rough_min_speed=1.0, rough_max_speed=5.0)
    model = fit.model
    assert fit.failures == () and model is not None
    step = (7.5 - 0.5) / 11                 # the goal speeds tried: 0.5 to 7.5 m/s
    assert model.min_speed == pytest.approx(0.5 + step) and model.max_speed <= 5.0
    assert model.max_speed > 5.0 - step
    for v, d in zip(model.stop_speeds, model.stop_distances):
        assert d == pytest.approx(v * v / 6.0, abs=v * DT)
    np.testing.assert_allclose(model.radii, model.radius_speeds, rtol=1e-9)


# -- the controller ------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_motion_and_seeds_vary_a_noisy_one():
    params = ControllerParams(jitter=0.1)
    command = MotionCommand(start_speed=3.0, goal_speed=1.0, turn=1.0)
    settings = SimulationSettings(jitter=0.1)
    first = simulate(SimulatedController(params=params), command, settings=settings)
    again = simulate(SimulatedController(params=params), command, settings=settings)
    assert first == again and first.failure is None
    a, b, c = first.trajectories
    assert not np.array_equal(a.speed, b.speed)
    assert first.spread(settings.window) > 0.0
    steady = simulate(SimulatedController(), command)
    assert steady.spread(0.5) == 0.0


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3])
@pytest.mark.parametrize("speed", [1.0, 3.0, 6.0])
def test_a_stop_takes_the_lag_plus_the_stop_animation_s_distance(delay, speed):
    params = ControllerParams(blend_delay=delay, stop_deceleration=5.0)
    run = simulate(SimulatedController(params=params),
                   MotionCommand(start_speed=speed, goal_speed=0.0))
    # the lag's frames at full speed, then v - 5 k dt each frame until 0
    lag = round(delay / DT)
    frames = np.arange(1, math.ceil(speed / (5.0 * DT)) + 1)
    expected = speed * lag * DT + np.maximum(speed - 5.0 * frames * DT, 0.0).sum() * DT
    assert run.trajectories[0].distance == pytest.approx(expected, abs=1e-9)
    assert run.trajectories[0].speed[-1] == 0.0


@pytest.mark.parametrize("speed", [1.0, 2.5, 4.0, 6.0])
def test_circles_have_the_radius_of_the_turn_limit(speed):
    params = ControllerParams()
    run = simulate(SimulatedController(params=params),
                   MotionCommand(start_speed=speed, goal_speed=speed, circle=True))
    t = run.trajectories[0]
    omega = min(params.turn_rate, params.lateral_acceleration / speed)
    assert t.stable_turn_rate(0.5) == pytest.approx(omega, rel=1e-9)
    assert t.stable_speed(0.5) / t.stable_turn_rate(0.5) == pytest.approx(speed / omega)


@pytest.mark.parametrize("turn", [0.5, math.pi / 2, 2.5, math.pi, -1.0])
def test_a_turn_ends_on_the_new_heading_beside_the_ideal_line(turn):
    speed = 3.0
    params = ControllerParams(blend_delay=0.0)
    t = simulate(SimulatedController(params=params),
                 MotionCommand(start_speed=speed, goal_speed=speed, turn=turn)).trajectories[0]
    assert wrap_angle(t.heading[-1] - turn) == pytest.approx(0.0, abs=1e-12)
    radius = speed / min(params.turn_rate, params.lateral_acceleration / speed)
    x, y = t.position[-1]
    side = abs(math.cos(turn) * y - math.sin(turn) * x)
    # an arc of the turning circle: r (1 - cos θ), to within a frame's travel
    assert side == pytest.approx(radius * (1 - math.cos(turn)), abs=speed * DT)


def test_recentring_keeps_the_trajectory_whole():
    command = MotionCommand(start_speed=5.0, goal_speed=2.0, turn=1.0)
    far = simulate(SimulatedController(), command)
    near = simulate(SimulatedController(), command,
                    settings=SimulationSettings(recentre_distance=3.0))
    np.testing.assert_allclose(near.trajectories[0].position, far.trajectories[0].position,
                               atol=1e-9)
    assert near.trajectories[0].distance == pytest.approx(far.trajectories[0].distance)


# -- stability and failures ----------------------------------------------------------------


def test_an_oscillating_controller_is_flagged_unstable():
    run = simulate(Oscillating(), MotionCommand(start_speed=0.0, goal_speed=2.0),
                   settings=SimulationSettings(max_time=5.0))
    assert (run.failure, run.seed, run.trajectories) == (RunFailure.UNSTABLE, 0, ())
    assert run.failure is RunFailure.UNSTABLE
    fit = fit_motion_model(Oscillating(), rough_min_speed=1.0, rough_max_speed=4.0,
                           settings=SimulationSettings(max_time=5.0))
    assert fit.model is None and fit.failures[0][1] is FitFailure.UNSTABLE
    assert "start_speed=0.0" in fit.failures[0][0]


def test_an_overflow_is_flagged_non_finite():
    run = simulate(Overflowing(), MotionCommand(start_speed=0.0, goal_speed=2.0))
    assert run.failure is RunFailure.NON_FINITE


def test_a_slow_settling_controller_needs_the_time_it_takes():
    slow = SimulatedController(params=ControllerParams(acceleration=0.1))
    command = MotionCommand(start_speed=0.0, goal_speed=5.0)
    assert simulate(slow, command, settings=SimulationSettings(max_time=10.0)).failure \
        is RunFailure.UNSTABLE
    assert simulate(slow, command, settings=SimulationSettings(max_time=60.0)).failure is None


def test_the_dog_s_range_ends_where_its_speed_drops():
    fit = fit_motion_model(Dog(), rough_min_speed=1.0, rough_max_speed=4.0)
    assert fit.model is not None
    assert (fit.model.min_speed, fit.model.max_speed) == (0.5, 4.0)
    failed = fit_motion_model(Dog(), rough_min_speed=1.0, rough_max_speed=6.0,
                              min_range_share=1.0)
    assert failed.model is None
    assert failed.failures == (("speed_range", FitFailure.NARROW_SPEED_RANGE),)


def test_a_range_of_one_speed_fails_the_fit_rather_than_raising():
    # goal speeds are met only where the clip range clamps them: a single goal speed
    narrow = SimulatedController(params=ControllerParams(min_speed=2.0, max_speed=2.02))
    fit = fit_motion_model(narrow, rough_min_speed=1.0, rough_max_speed=4.0,
                           min_range_share=0.0)
    assert fit.model is None and fit.deceleration is None
    assert fit.failures == (("speed_range", FitFailure.NARROW_SPEED_RANGE),)


def test_an_instant_slow_down_fails_the_deceleration_fit_rather_than_raising():
    # every loss is reached on the first frame, at one distance: no three to fit
    instant = SimulatedController(params=ControllerParams(
        blend_delay=0.0, deceleration=1e6, deceleration_falloff=0.0))
    fit = fit_motion_model(instant, rough_min_speed=1.0, rough_max_speed=4.0)
    assert fit.model is None and fit.deceleration is None
    assert fit.failures == (("deceleration", FitFailure.TOO_FEW_DISTANCES),)


# -- fitting the simulated controller ------------------------------------------------------


def test_the_fit_measures_the_controller_s_known_motion():
    params = ControllerParams(blend_delay=0.0)
    model = fitted(params)
    assert (model.min_speed, model.max_speed) == (0.5, 6.0)
    for v, d in zip(model.stop_speeds, model.stop_distances):
        assert d == pytest.approx(v * v / (2 * params.stop_deceleration), abs=v * DT)
    for v, r in zip(model.radius_speeds, model.radii):
        assert r == pytest.approx(v / min(params.turn_rate, params.lateral_acceleration / v))
    np.testing.assert_allclose(model.overshoot[-1], 2 * model.radii, atol=6.0 * DT)
    assert np.all(model.overshoot[0] == 0.0)
    assert np.all(np.diff(model.overshoot, axis=0) >= -1e-9)    # sharper turns go wider


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_fitted_deceleration_stays_under_the_worst_case_it_was_fitted_to(name):
    params = PARAMS[name]
    fit = fit_motion_model(SimulatedController(params=params), rough_min_speed=1.0,
                           rough_max_speed=4.0,
                           settings=SimulationSettings(jitter=params.jitter))
    assert fit.deceleration is not None
    # a bounded fit: never more loss than the worst run measured
    assert (fit.deceleration.residuals <= 1e-9).all()
    # 1.2 times the worst measured over PARAMS (rms 0.355, max 1.013 m/s)
    assert fit.deceleration.rms < 0.43 and fit.deceleration.max_error < 1.22
    assert fit.model is not None
    assert (fit.model.deceleration_rms, fit.model.deceleration_max_error) \
        == (fit.deceleration.rms, fit.deceleration.max_error)
    assert len(fit.deceleration.residuals) >= 5


@pytest.mark.parametrize("name", sorted(PARAMS))
@pytest.mark.parametrize("mark", [0.5, 1.0, 3.0, 7.5, 20.0])
def test_the_capped_controller_stops_on_its_mark(name, mark):
    params = PARAMS[name]
    model = fitted(params)
    controller = SimulatedController(params=params)
    controller.reset(11)
    x = v = 0.0
    stopping = False
    for _ in range(3000):
        control = 0.0 if stopping else model.stop_control_speed(
            v, desired_speed=model.max_speed, distance=max(mark - x, 0.0))
        stopping = control == 0.0
        x, _, _, v = controller.step(control, 0.0, DT)
        if stopping and v == 0.0:
            break
    assert stopping and v == 0.0
    # past the mark by at most a frame's travel; short of it by a few per cent
    assert -(0.1 + 0.03 * mark) <= x - mark <= model.max_speed * DT


def scaled_params(params: ControllerParams, u: float, p: float) -> ControllerParams:
    """The controller at size ``u`` played at rate ``p``: lengths times ``u``, times
    divided by ``p``."""
    return dataclasses.replace(
        params, min_speed=params.min_speed * u * p, max_speed=params.max_speed * u * p,
        acceleration=params.acceleration * u * p * p,
        deceleration=params.deceleration * u * p * p,
        stop_deceleration=params.stop_deceleration * u * p * p,
        lateral_acceleration=params.lateral_acceleration * u * p * p,
        turn_rate=params.turn_rate * p, blend_delay=params.blend_delay / p)


@pytest.mark.parametrize("u, p", [(2.0, 1.0), (0.5, 1.0), (1.0, 1.5), (1.5, 0.8)])
def test_fitting_a_scaled_controller_gives_the_scaled_model(u, p):
    """Simulated at frames of ``dt / p`` (the same frames of animation), the controller at
    size ``u`` and rate ``p`` fits to exactly the fitted model scaled by ``u`` and ``p``."""
    settings = SimulationSettings(dt=DT / p, window=0.5 / p, max_time=30.0 / p,
                                  speed_tolerance=0.01 * u * p, turn_tolerance=0.01 * p)
    fit = fit_motion_model(SimulatedController(params=scaled_params(PARAMS["default"], u, p)),
                           rough_min_speed=u * p, rough_max_speed=4.0 * u * p,
                           settings=settings)
    assert fit.model is not None
    report = compare_models(fitted(PARAMS["default"]).scaled(scale=u, rate=p), fit.model,
                            tolerance=1e-9)
    assert report.ok, report.changes[:3]


@pytest.mark.parametrize("name", ["default", "no_lag"])
@pytest.mark.parametrize("future", [1.0, 2.0, 4.0])
@pytest.mark.parametrize("ahead", [5.0, 15.0])
def test_the_future_speed_cap_brings_the_character_to_its_speed_on_time(name, future, ahead):
    params = PARAMS[name]
    model = fitted(params)
    controller = SimulatedController(params=params)
    x = v = 0.0
    while x < ahead:
        x, _, _, v = controller.step(model.future_speed_cap(future, ahead - x), 0.0, DT)
    # from top speed, down to the future speed (within the fit's slack) where it is wanted
    assert future - 0.1 <= v <= future + 0.15


# -- regression ----------------------------------------------------------------------------


def test_the_same_controller_regenerates_the_same_model():
    model = fitted(PARAMS["default"])
    assert fit_motion_model(SimulatedController(), rough_min_speed=1.0,
                            rough_max_speed=4.0).model == model
    report = regenerate(SimulatedController(), model, rough_min_speed=1.0, rough_max_speed=4.0)
    assert report.ok and report.changes == () and report.failures == ()
    assert report.deceleration is not None
    assert (report.deceleration.rms, report.deceleration.max_error) \
        == (model.deceleration_rms, model.deceleration_max_error)


def test_regeneration_fits_with_the_options_given():
    options = dict(max_error=0.1, min_range_share=0.3, speed_steps=6, steps=3, angle_steps=4)
    fit = fit_motion_model(SimulatedController(), rough_min_speed=1.0, rough_max_speed=4.0,
                           **options)
    assert fit.model is not None and fit.model.overshoot.shape == (4, 3)
    report = regenerate(SimulatedController(), fit.model, rough_min_speed=1.0,
                        rough_max_speed=4.0, **options)
    assert report.ok and report.deceleration == fit.deceleration
    # with the default options the fit differs (8 * 5 losses rather than 8 * 3)
    default = regenerate(SimulatedController(), fit.model, rough_min_speed=1.0,
                         rough_max_speed=4.0)
    assert default.deceleration is not None and fit.deceleration is not None
    assert (len(default.deceleration.residuals), len(fit.deceleration.residuals)) == (40, 24)


def test_a_worse_deceleration_fit_is_flagged():
    model = fitted(PARAMS["default"])
    assert model.deceleration_rms is not None
    looser = dataclasses.replace(model, deceleration_rms=model.deceleration_rms * 1.5)
    report = compare_models(model, looser)
    assert [(c.quantity, c.at) for c in report.changes] == [("deceleration_rms", None)]
    assert report.changes[0].relative == pytest.approx(0.5)
    # a model that does not know its residuals is compared on the rest
    unknown = dataclasses.replace(model, deceleration_rms=None, deceleration_max_error=None)
    assert compare_models(model, unknown).ok and compare_models(unknown, looser).ok


def test_a_slower_stop_is_flagged():
    model = fitted(PARAMS["default"])
    slower = fitted(ControllerParams(stop_deceleration=4.0))
    report = compare_models(model, slower)
    assert not report.ok
    flagged = {c.quantity for c in report.changes}
    assert "stop_speed_limit" in flagged and "overshoot" not in flagged
    for change in report.changes:
        assert change.relative > 0.05
        if change.quantity == "stop_speed_limit":
            assert change.new < change.old
            assert change.new == pytest.approx(slower.stop_speed_limit(change.at))


def test_tolerances_decide_what_is_flagged():
    model = fitted(PARAMS["default"])
    harder = dataclasses.replace(model, deceleration=model.deceleration * 1.04)
    assert compare_models(model, harder).ok
    report = compare_models(model, harder, tolerance=0.03)
    assert {c.quantity for c in report.changes} == {"speed_loss"}


def test_a_failed_regeneration_is_reported():
    model = fitted(PARAMS["default"])
    report = regenerate(Oscillating(), model, rough_min_speed=1.0, rough_max_speed=4.0,
                        settings=SimulationSettings(max_time=5.0))
    assert not report.ok and report.changes == ()
    assert report.failures[0][1] is FitFailure.UNSTABLE and report.deceleration is None


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("make, match", [
    (lambda: ControllerParams(min_speed=0.0), "min_speed"),
    (lambda: ControllerParams(max_speed=0.4), "max_speed"),
    (lambda: ControllerParams(acceleration=-1.0), "acceleration"),
    (lambda: ControllerParams(deceleration_falloff=1.0), "deceleration_falloff"),
    (lambda: ControllerParams(blend_delay=-0.1), "blend_delay"),
    (lambda: ControllerParams(jitter=float("nan")), "jitter"),
    (lambda: MotionCommand(start_speed=-1.0, goal_speed=0.0), "start_speed"),
    (lambda: MotionCommand(start_speed=1.0, goal_speed=0.0, turn=4.0), "turn"),
    (lambda: MotionCommand(start_speed=1.0, goal_speed=0.0, circle=1), "circle"),
    (lambda: SimulationSettings(dt=0.0), "dt"),
    (lambda: SimulationSettings(samples=0), "samples"),
    (lambda: SimulationSettings(max_time=0.5), "max_time"),
    (lambda: SimulatedController().reset(-1), "seed"),
    (lambda: SimulatedController().step(-1.0, 0.0, DT), "goal_speed"),
    (lambda: SimulatedController().step(1.0, float("nan"), DT), "goal_heading"),
    (lambda: SimulatedController().step(1.0, 0.0, 0.0), "dt"),
    (lambda: SimulatedController().step(True, 0.0, DT), "goal_speed"),
    (lambda: fit_motion_model(SimulatedController(), rough_min_speed=4.0,
                              rough_max_speed=1.0), "rough_max_speed"),
    (lambda: fit_motion_model(SimulatedController(), rough_min_speed=1.0,
                              rough_max_speed=4.0, steps=1), "steps"),
    (lambda: fit_motion_model(SimulatedController(), rough_min_speed=1.0,
                              rough_max_speed=4.0, min_range_share=-0.1), "min_range_share"),
    (lambda: compare_models(fitted(PARAMS["default"]), fitted(PARAMS["default"]),
                            tolerance=0.0), "tolerance"),
    (lambda: compare_models(fitted(PARAMS["default"]), "model"), "new"),
    (lambda: compare_models(None, fitted(PARAMS["default"])), "old"),
    (lambda: regenerate(SimulatedController(), {"min_speed": 1.0}, rough_min_speed=1.0,
                        rough_max_speed=4.0), "previous"),
    (lambda: regenerate(SimulatedController(), fitted(PARAMS["default"]),
                        rough_min_speed=1.0, rough_max_speed=4.0, steps=1), "steps"),
    (lambda: simulate(SimulatedController(), "cmd"), "command"),
    (lambda: simulate(SimulatedController(), MotionCommand(start_speed=1.0, goal_speed=0.0),
                      settings={"dt": 0.1}), "settings"),
])
def test_bad_settings_are_refused(make, match):
    with pytest.raises(InvalidQueryError, match=match):
        make()
