"""The locomotion model of footstep planning (Singh et al.): the linear inverted pendulum
that carries the centre of mass (COM) over the stance foot, one step's COM curve in its
canonical local frame, the user's locomotion parameters and the energy of a step.

Lengths are in metres, times in seconds, speeds in m/s, masses in kg, energies in J and
angles in radians (counter-clockwise from +x).

The pendulum pivots on the foot: the COM, relative to the foot, obeys ``r'' = k² r`` with
``k = √(g/l)``.  Its exact solution is hyperbolic; the second-order Taylor expansion is the
parabola ``r0 + v0 t + k² r0 t² / 2``, whose error grows as ``t³``:

>>> p, v = pendulum((0.1, 0.0), (0.0, 1.0), 0.2, leg_length=1.0)
>>> p.round(4).tolist(), v.round(4).tolist()
([0.1203, 0.2133], [0.2093, 1.2027])
>>> round(froude_speed(1.0), 3)         # default walking speed of a 1 m pelvis
1.566
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .._validate import choice, finite_points, flag, number, positive_float
from ..errors import InvalidQueryError

#: Standard gravity, m/s².
GRAVITY = 9.81

#: The two curves a step's COM may follow: the exact hyperbola or its parabola.
MODELS = ("parabola", "hyperbola")


def pendulum(position: Any, velocity: Any, t: Any, *, leg_length: float,
             gravity: float = GRAVITY, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The COM of a linear inverted pendulum pivoting on the origin after time ``t``.

    ``position`` and ``velocity``: the COM's ``(x, y)`` relative to the foot and its
    velocity at ``t = 0`` (one point each, or ``(n, 2)`` arrays).  ``t``: a time or an
    ``(m,)`` array of times (s, any sign).  ``exact``: the hyperbolic solution
    ``x(t) = [(k x0 + v0) e^{kt} + (k x0 − v0) e^{−kt}] / (2k)`` (and its derivative), else
    the Taylor parabola ``x0 + v0 t + k² x0 t² / 2`` (and ``v0 + k² x0 t``), ``k = √(g/l)``.

    Returns the positions and velocities, each ``(m, 2)`` (``(2,)`` for one point and one
    time; ``(m, n, 2)`` for ``n`` points and ``m`` times).
    """
    exact = flag("exact", exact)
    leg_length = positive_float("leg_length", leg_length)
    gravity = positive_float("gravity", gravity)
    p, one_p = finite_points("position", position)
    v, one_v = finite_points("velocity", velocity)
    if len(p) != len(v):
        raise InvalidQueryError(f"position and velocity hold {len(p)} and {len(v)} points; "
                                "they must match")
    times = np.asarray(t, dtype=np.float64) if not isinstance(t, bool) else np.array(np.nan)
    if times.ndim > 1 or not np.isfinite(times).all():
        raise InvalidQueryError(f"t {t!r} must be a finite time or a 1-d array of them")
    k = math.sqrt(gravity / leg_length)
    tt = times.reshape(-1, 1, 1)
    if exact:
        c, s = np.cosh(k * tt), np.sinh(k * tt)
        pos, vel = p * c + v * (s / k), p * (k * s) + v * c
    else:
        pos, vel = p + v * tt + 0.5 * k * k * p * tt * tt, v + k * k * p * tt
    if one_p and one_v:
        pos, vel = pos[:, 0], vel[:, 0]
    if times.ndim == 0:
        pos, vel = pos[0], vel[0]
    return pos, vel


def froude_speed(pelvis_height: float, *, froude: float = 0.25,
                 gravity: float = GRAVITY) -> float:
    """The walking speed ``√(g l Fr)`` of a pelvis ``pelvis_height`` high at Froude number
    ``froude`` (0.25 walks)."""
    height = positive_float("pelvis_height", pelvis_height)
    froude = positive_float("froude", froude)
    return math.sqrt(positive_float("gravity", gravity) * height * froude)


def _range(name: str, value: Any, *, min: float = 0.0) -> tuple[float, float, float]:
    """A ``(lowest, preferred, highest)`` triple, in order."""
    try:
        lo, mid, hi = value
    except (TypeError, ValueError):
        raise InvalidQueryError(f"{name} {value!r} must be (lowest, preferred, highest)") \
            from None
    lo, mid, hi = (number(name, x, min=min, min_open=True) for x in (lo, mid, hi))
    if not lo <= mid <= hi:
        raise InvalidQueryError(f"{name} {value!r} must be ordered lowest <= preferred "
                                "<= highest")
    return lo, mid, hi


@dataclass(frozen=True, slots=True, kw_only=True)
class LocomotionModel:
    """A character's locomotion parameters (defaults: an adult walking).

    ``leg_length``: pendulum length ``l`` from foot to COM (0.9).  ``pelvis_height``: for
    the Froude speed (None: ``leg_length``).  ``mass`` (70).  ``foot_offset``: the lateral
    distance ``d`` from the COM to the stance foot at mid-stance (0.1).
    ``step_duration``: ``(lowest, preferred, highest)`` seconds (0.35, 0.5, 0.8).
    ``stride``: foot-to-foot and COM distance per step, ``(lowest, preferred, highest)``
    metres (0.1, 0.7, 1.0).  ``speed``: COM speed at a step's start
    ``(lowest, preferred, highest)``; None: ``(0.3, 1, 1.3)`` times the Froude speed.
    ``foot_turn``: how far a foot may point from the previous foot (π/2; lower for a
    character that cannot turn sharply).  ``max_leg_angle``: the stance leg's largest angle
    from vertical (π/6, where the pendulum's small-angle model holds): the COM stays within
    ``l sin`` of it from the foot.  ``metabolic_rate``: ``P`` in W (None: 1 W/kg).
    ``curvature_weight``: ``w`` of the bending work (0.3; 0.2–0.5 recommended).
    ``torso_radius``, ``shoulder_radius``, ``shoulder_offset``, ``foot_radius``: the five
    collision circles (torso on the COM, two shoulders beside it across the velocity, two
    feet) in metres (0.15, 0.1, 0.15, 0.08).  ``gravity`` (9.81).
    """

    leg_length: float = 0.9
    pelvis_height: float | None = None
    mass: float = 70.0
    foot_offset: float = 0.1
    step_duration: tuple[float, float, float] = (0.35, 0.5, 0.8)
    stride: tuple[float, float, float] = (0.1, 0.7, 1.0)
    speed: tuple[float, float, float] | None = None
    foot_turn: float = math.pi / 2
    max_leg_angle: float = math.pi / 6
    metabolic_rate: float | None = None
    curvature_weight: float = 0.3
    torso_radius: float = 0.15
    shoulder_radius: float = 0.1
    shoulder_offset: float = 0.15
    foot_radius: float = 0.08
    gravity: float = GRAVITY

    def __post_init__(self) -> None:
        put = object.__setattr__
        for name in ("leg_length", "mass", "foot_offset", "gravity", "torso_radius",
                     "shoulder_radius", "foot_radius"):
            put(self, name, positive_float(name, getattr(self, name)))
        put(self, "shoulder_offset",
            positive_float("shoulder_offset", self.shoulder_offset, allow_zero=True))
        put(self, "foot_turn", number("foot_turn", self.foot_turn, min=0.0, max=math.pi))
        put(self, "max_leg_angle", number("max_leg_angle", self.max_leg_angle, min=0.0,
                                          max=math.pi / 2, min_open=True, max_open=True))
        put(self, "curvature_weight",
            positive_float("curvature_weight", self.curvature_weight, allow_zero=True))
        if self.pelvis_height is None:
            put(self, "pelvis_height", self.leg_length)
        put(self, "pelvis_height", positive_float("pelvis_height", self.pelvis_height))
        if self.metabolic_rate is None:
            put(self, "metabolic_rate", self.mass)
        put(self, "metabolic_rate",
            positive_float("metabolic_rate", self.metabolic_rate, allow_zero=True))
        put(self, "step_duration", _range("step_duration", self.step_duration))
        put(self, "stride", _range("stride", self.stride))
        if self.speed is None:
            v = froude_speed(cast(float, self.pelvis_height), gravity=self.gravity)
            put(self, "speed", (0.3 * v, v, 1.3 * v))
        put(self, "speed", _range("speed", self.speed))

    @property
    def speeds(self) -> tuple[float, float, float]:
        """The ``speed`` range in force (the Froude default filled in)."""
        return cast(tuple[float, float, float], self.speed)

    @property
    def rate(self) -> float:
        """The metabolic rate ``P`` in force, W."""
        return cast(float, self.metabolic_rate)

    @property
    def reach(self) -> float:
        """The farthest the COM may be from the stance foot, horizontally: ``l sin``
        ``max_leg_angle``."""
        return self.leg_length * math.sin(self.max_leg_angle)

    @property
    def k(self) -> float:
        """The pendulum's rate ``√(g/l)`` in 1/s."""
        return math.sqrt(self.gravity / self.leg_length)

    @property
    def alpha(self) -> float:
        """The canonical parabola's ``α = k² d / 2`` (m/s²): half the sideways acceleration
        the foot gives the COM at mid-stance."""
        return 0.5 * self.k * self.k * self.foot_offset

    @property
    def radii(self) -> np.ndarray:
        """The five collision radii: torso, left and right shoulder, stance and other foot."""
        return np.array([self.torso_radius, self.shoulder_radius, self.shoulder_radius,
                         self.foot_radius, self.foot_radius])


def heel_strike_energy(model: LocomotionModel, desired_speed: float, speed: float,
                       theta: float) -> float:
    """``ΔE2 = m/2 |v_desired² − (v0 cos 2θ)²|``: the work to regain ``desired_speed`` after
    the heel strike cuts ``speed`` to ``speed cos 2θ`` (``theta``: the leg's angle from
    vertical at contact)."""
    return 0.5 * model.mass * abs(desired_speed ** 2 - (speed * math.cos(2 * theta)) ** 2)


def bending_energy(model: LocomotionModel, alpha: float, length: float) -> float:
    """``ΔE3 = w m α L``: the work to bend the COM along a curve of ``alpha`` over
    ``length`` metres."""
    return model.curvature_weight * model.mass * alpha * length


def canonical(t: Any, vx: Any, model: LocomotionModel, hyperbola: bool
              ) -> tuple[Any, Any, Any, Any]:
    """A step's COM in its canonical frame at local times ``t`` (arrays broadcast):
    ``x, y, x', y'`` of ``x = vx t, y = α t²`` (parabola) or ``x = (vx/k) sinh kt,
    y = d (cosh kt − 1)`` (hyperbola), the stance foot at ``(0, −d)``."""
    if hyperbola:
        k, d = model.k, model.foot_offset
        c, s = np.cosh(k * t), np.sinh(k * t)
        return vx / k * s, d * (c - 1.0), vx * c, d * k * s
    a = model.alpha
    return vx * t, a * t * t, vx + 0.0 * t, 2.0 * a * t


def step_to_world(origin_x: Any, origin_y: Any, phi: Any, side: Any, x: Any, y: Any, dx: Any,
             dy: Any) -> tuple[Any, Any, Any, Any]:
    """Canonical position and velocity to world: ``origin + x e1 + side y e2`` with
    ``e1 = (cos φ, sin φ)``, ``e2 = (−sin φ, cos φ)``; returns ``px, py, vx, vy``."""
    c, s = np.cos(phi), np.sin(phi)
    y, dy = side * y, side * dy
    return origin_x + c * x - s * y, origin_y + s * x + c * y, c * dx - s * dy, s * dx + c * dy


def solve_start(vx: Any, vy: Any, model: LocomotionModel, hyperbola: bool
                ) -> tuple[Any, Any]:
    """Where a step whose canonical start velocity is ``(vx, vy)`` (``vx > 0``) begins on
    its curve: the local start time ``t0`` and the curve's apex speed.  The foot at
    ``(0, −d)`` fixes ``α = k² d / 2``; then ``t0 = vy / 2α`` on the parabola (apex speed
    ``vx``), ``sinh(k t0) = vy / (d k)`` on the hyperbola (apex speed ``vx / cosh k t0``)."""
    if hyperbola:
        k = model.k
        t0 = np.arcsinh(vy / (model.foot_offset * k)) / k
        return t0, vx / np.cosh(k * t0)
    return vy / (2.0 * model.alpha), vx


def arc_length(t0: Any, t1: Any, vx: Any, model: LocomotionModel, hyperbola: bool) -> Any:
    """The COM's path length from local time ``t0`` to ``t1`` (closed form on the
    parabola, Simpson's rule on 64 intervals on the
    hyperbola)."""
    if hyperbola:
        u = np.linspace(0.0, 1.0, 65)
        t = np.asarray(t0)[..., None] + (np.asarray(t1) - np.asarray(t0))[..., None] * u
        _, _, dx, dy = canonical(t, np.asarray(vx)[..., None], model, True)
        weights = np.ones(65)
        weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
        h = (np.asarray(t1) - np.asarray(t0)) / 64.0
        return np.sum(np.hypot(dx, dy) * weights, axis=-1) * h / 3.0
    b = 2.0 * model.alpha

    def prim(t: Any) -> Any:
        return 0.5 * t * np.hypot(vx, b * t) + vx * vx / (2.0 * b) * np.arcsinh(b * t / vx)
    return prim(t1) - prim(t0)


@dataclass(frozen=True, slots=True)
class StepCurve:
    """One step's COM curve: the canonical curve (:func:`canonical`) with apex speed
    ``vx`` for local times ``t0 .. t1``, placed in the world by ``origin``, ``phi`` and
    ``side`` (:func:`step_to_world`; +1: a right foot, right of the axis; −1: a left one)."""

    origin: tuple[float, float]
    phi: float
    side: int
    t0: float
    t1: float
    vx: float
    hyperbola: bool

    def world(self, t: np.ndarray, model: LocomotionModel) -> tuple[np.ndarray, np.ndarray]:
        """COM positions and velocities ``(m, 2)`` at local times ``t`` ``(m,)``."""
        px, py, vx, vy = step_to_world(self.origin[0], self.origin[1], self.phi, self.side,
                                  *canonical(np.asarray(t, dtype=np.float64), self.vx,
                                             model, self.hyperbola))
        return np.stack([px, py], 1), np.stack([vx, vy], 1)

    def foot(self, model: LocomotionModel) -> tuple[float, float]:
        """The stance foot in world coordinates."""
        px, py, _, _ = step_to_world(self.origin[0], self.origin[1], self.phi, self.side, 0.0,
                                -model.foot_offset, 0.0, 0.0)
        return float(px), float(py)

    def length(self, model: LocomotionModel) -> float:
        """The COM's path length over the step."""
        return float(arc_length(self.t0, self.t1, self.vx, model, self.hyperbola))


def step_curve(model: LocomotionModel, start: tuple[float, float],
               velocity: tuple[float, float], phi: float, duration: float, side: int, *,
               hyperbola: bool = False) -> StepCurve | None:
    """The curve of a step that starts at ``start`` with ``velocity`` (world), its parabola
    axis at ``phi`` and its stance foot on ``side`` (+1 right, −1 left), lasting
    ``duration`` s (:func:`solve_start`); None when the velocity does not run forward
    along the axis."""
    hyperbola = flag("hyperbola", hyperbola)
    c, s = math.cos(phi), math.sin(phi)
    vx = c * velocity[0] + s * velocity[1]
    vy = side * (-s * velocity[0] + c * velocity[1])
    if not vx > 1e-9:
        return None
    t0, apex = solve_start(vx, vy, model, hyperbola)
    x0, y0, _, _ = canonical(t0, apex, model, hyperbola)
    px, py, _, _ = step_to_world(0.0, 0.0, phi, side, x0, y0, 0.0, 0.0)
    return StepCurve((start[0] - float(px), start[1] - float(py)), phi, side, float(t0),
                     float(t0) + duration, float(apex), hyperbola)


def curve_kind(model_name: Any) -> bool:
    """Whether ``model_name`` (one of :data:`MODELS`) is the hyperbola."""
    return choice("curve", model_name, MODELS) == "hyperbola"


def top_speed(model: LocomotionModel, speed: Any, hyperbola: bool) -> Any:
    """An upper bound on the COM's speed during any step that starts at ``speed`` and keeps
    the COM within ``reach`` of the foot at ``(0, −d)``.  Parabola: the apex speed is at
    most ``speed`` and ``α t² + d <= reach`` bounds ``(2 α t)²`` by ``4 α (reach − d)``.
    Hyperbola: ``d cosh kt <= reach`` bounds ``cosh`` by ``C = reach / d``, so the speed is
    at most ``√(speed² C² + d² k² (C² − 1))``."""
    v = np.asarray(speed, dtype=np.float64)
    d, reach = model.foot_offset, model.reach
    if hyperbola:
        c2 = max(1.0, reach / d) ** 2
        return np.sqrt(v * v * c2 + d * d * model.k ** 2 * (c2 - 1.0))
    return np.sqrt(v * v + 4.0 * model.alpha * max(0.0, reach - d))


def least_energy_per_metre(model: LocomotionModel, speeds: Any, durations: Any, *,
                           hyperbola: bool = False) -> float:
    """A lower bound on the energy per metre of COM advance of any footstep whose start
    speed is one of ``speeds`` and duration one of ``durations``: a step of ``T`` s
    advances at most ``min(stride_max, top_speed T)`` (:func:`top_speed`) and costs at
    least ``P T + w m α L`` with its path ``L`` no shorter than its advance (the heel strike's
    ``ΔE2 >= 0``), so the bound is ``w m α + min P T / min(stride_max, top_speed T)``."""
    v = np.asarray(speeds, dtype=np.float64)[:, None]
    t = np.asarray(durations, dtype=np.float64)[None, :]
    advance = np.minimum(model.stride[2], top_speed(model, v, hyperbola) * t)
    return bending_energy(model, model.alpha, 1.0) + float((model.rate * t / advance).min())
