"""The footstep locomotion model: the inverted pendulum (exact and Taylor), the Froude speed,
step energies and one step's COM curve, against closed forms, an ODE integration and the
notes' worked numbers."""

import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.footstep_model import (
    LocomotionModel,
    arc_length,
    bending_energy,
    canonical,
    curve_kind,
    froude_speed,
    heel_strike_energy,
    pendulum,
    step_curve,
)


@pytest.mark.parametrize(("p0", "v0"), [((0.1, -0.05), (1.2, 0.3)), ((-0.2, 0.1), (0.0, 0.0)),
                                         ((0.0, 0.0), (1.4, -0.2))])
def test_exact_pendulum_matches_an_ode_integration(p0, v0):
    g, length = 9.81, 0.9
    ts = np.linspace(0.0, 0.6, 13)
    sol = solve_ivp(lambda t, s: [s[2], s[3], g / length * s[0], g / length * s[1]],
                    (0.0, 0.6), [*p0, *v0], t_eval=ts, rtol=1e-11, atol=1e-12)
    pos, vel = pendulum(p0, v0, ts, leg_length=length)
    assert np.allclose(pos, sol.y[:2].T, atol=1e-8)
    assert np.allclose(vel, sol.y[2:].T, atol=1e-8)


def test_exact_pendulum_is_the_notes_exponential_form():
    k = math.sqrt(9.81 / 1.0)
    x0, v0, t = 0.12, 0.9, 0.37
    expected = ((k * x0 + v0) * math.exp(k * t) + (k * x0 - v0) * math.exp(-k * t)) / (2 * k)
    pos, _ = pendulum((x0, 0.0), (v0, 0.0), t, leg_length=1.0)
    assert pos[0] == pytest.approx(expected, rel=1e-12)


def test_taylor_pendulum_matches_the_start_and_errs_by_t_cubed():
    p0, v0 = (0.1, 0.05), (1.0, -0.4)
    pos, vel = pendulum(p0, v0, 0.0, leg_length=0.9, exact=False)
    assert np.allclose(pos, p0) and np.allclose(vel, v0)
    k2 = 9.81 / 0.9
    t = 0.3
    taylor, _ = pendulum(p0, v0, t, leg_length=0.9, exact=False)
    assert np.allclose(taylor, np.add(np.add(p0, np.multiply(v0, t)),
                                      np.multiply(p0, 0.5 * k2 * t * t)))
    errors = []
    for h in (0.04, 0.02, 0.01):
        exact, _ = pendulum(p0, v0, h, leg_length=0.9)
        approx, _ = pendulum(p0, v0, h, leg_length=0.9, exact=False)
        errors.append(np.hypot(*(exact - approx)))
    assert errors[0] / errors[1] == pytest.approx(8.0, rel=0.05)
    assert errors[1] / errors[2] == pytest.approx(8.0, rel=0.05)


def test_pendulum_shapes():
    pos, vel = pendulum([(0.1, 0.0), (0.0, 0.1)], [(1.0, 0.0), (0.0, 1.0)],
                        [0.0, 0.1, 0.2], leg_length=1.0)
    assert pos.shape == vel.shape == (3, 2, 2)
    pos, _ = pendulum((0.1, 0.0), (1.0, 0.0), [0.0, 0.1], leg_length=1.0)
    assert pos.shape == (2, 2)


@pytest.mark.parametrize(("length", "speed"), [(1.0, 1.566), (0.9, 1.486)])
def test_froude_speed_matches_the_notes(length, speed):
    assert froude_speed(length) == pytest.approx(speed, abs=5e-4)
    assert LocomotionModel(leg_length=length).speeds[1] == pytest.approx(speed, abs=5e-4)


def test_energies_match_the_notes():
    model = LocomotionModel(mass=70.0, curvature_weight=0.3)
    assert heel_strike_energy(model, 1.4, 1.4, 0.2) == pytest.approx(10.403, abs=1e-3)
    assert bending_energy(model, 0.5, 0.7) == pytest.approx(7.35)
    assert 1.4 * math.cos(0.4) == pytest.approx(1.28949, abs=1e-5)


@pytest.mark.parametrize("hyperbola", [False, True])
@pytest.mark.parametrize(("velocity", "phi", "side"),
                         [((1.2, 0.1), 0.3, 1), ((1.2, 0.1), -0.2, -1), ((0.0, 1.0), 1.9, 1)])
def test_step_curve_starts_where_and_as_asked(hyperbola, velocity, phi, side):
    model = LocomotionModel()
    curve = step_curve(model, (2.0, -1.0), velocity, phi, 0.5, side, hyperbola=hyperbola)
    assert curve is not None
    pos, vel = curve.world(np.array([curve.t0]), model)
    assert np.allclose(pos[0], (2.0, -1.0)) and np.allclose(vel[0], velocity)
    foot = np.array(curve.foot(model))
    apex, _ = curve.world(np.array([0.0]), model)
    assert np.hypot(*(foot - apex[0])) == pytest.approx(model.foot_offset)
    # the foot is on the asked side of the axis: right (+1) is clockwise of it
    axis = np.array([math.cos(phi), math.sin(phi)])
    rel = foot - apex[0]
    assert np.sign(axis[0] * rel[1] - axis[1] * rel[0]) == -side


def test_hyperbola_step_is_the_pendulum_on_its_foot():
    model = LocomotionModel(leg_length=0.95, foot_offset=0.12)
    curve = step_curve(model, (0.5, 0.2), (1.1, 0.25), 0.1, 0.6, -1, hyperbola=True)
    foot = np.array(curve.foot(model))
    p0, v0 = curve.world(np.array([curve.t0]), model)
    ts = np.linspace(0.0, 0.6, 7)
    rel, vel = pendulum(p0[0] - foot, v0[0], ts, leg_length=0.95)
    pos, vel_c = curve.world(curve.t0 + ts, model)
    assert np.allclose(pos, rel + foot) and np.allclose(vel_c, vel)


def test_parabola_is_the_taylor_expansion_at_the_apex():
    model = LocomotionModel()
    d, vx = model.foot_offset, 1.3
    ts = np.array([0.0, 0.1, 0.25, -0.2])
    x, y, dx, dy = canonical(ts, vx, model, False)
    taylor, tv = pendulum((0.0, d), (vx, 0.0), ts, leg_length=model.leg_length, exact=False)
    assert np.allclose(np.stack([x, y + d], 1), taylor)
    assert np.allclose(np.stack([dx, dy], 1), tv)
    assert model.alpha == pytest.approx(0.5 * 9.81 / model.leg_length * d)


def test_step_curve_refuses_a_velocity_against_its_axis():
    assert step_curve(LocomotionModel(), (0.0, 0.0), (1.0, 0.0), math.pi, 0.5, 1) is None


@pytest.mark.parametrize("hyperbola", [False, True])
def test_arc_length_matches_a_quadrature(hyperbola):
    model = LocomotionModel()

    def speed(t):
        _, _, dx, dy = canonical(t, 1.1, model, hyperbola)
        return math.hypot(dx, dy)
    expected, _ = quad(speed, -0.3, 0.25)
    assert float(arc_length(-0.3, 0.25, 1.1, model, hyperbola)) == pytest.approx(expected,
                                                                                 rel=1e-5)


def test_model_defaults_and_errors():
    model = LocomotionModel(pelvis_height=1.0)
    assert model.speeds[1] == pytest.approx(1.566, abs=5e-4)
    assert model.rate == model.mass
    assert model.radii.shape == (5,)
    with pytest.raises(InvalidQueryError, match="mass"):
        LocomotionModel(mass=-1.0)
    with pytest.raises(InvalidQueryError, match="ordered"):
        LocomotionModel(step_duration=(0.6, 0.5, 0.8))
    with pytest.raises(InvalidQueryError, match="lowest, preferred, highest"):
        LocomotionModel(stride=0.7)
    with pytest.raises(InvalidQueryError, match="foot_turn"):
        LocomotionModel(foot_turn=4.0)
    with pytest.raises(InvalidQueryError, match="curve"):
        curve_kind("spline")


def test_pendulum_errors():
    with pytest.raises(InvalidQueryError, match="leg_length"):
        pendulum((0, 0), (1, 0), 0.1, leg_length=0.0)
    with pytest.raises(InvalidQueryError, match="must match"):
        pendulum([(0, 0), (1, 1)], (1, 0), 0.1, leg_length=1.0)
    with pytest.raises(InvalidQueryError, match="t "):
        pendulum((0, 0), (1, 0), [[0.1]], leg_length=1.0)
    with pytest.raises(InvalidQueryError, match="t "):
        pendulum((0, 0), (1, 0), float("nan"), leg_length=1.0)
    with pytest.raises(InvalidQueryError, match="pelvis_height"):
        froude_speed(-1.0)
