"""Fitting a :class:`~wayfinding.planning.motion_models.MotionModel` to a character
controller by offline simulation, and the regression report between two fits.

:func:`fit_motion_model` runs deterministic command sets through
:func:`~wayfinding.planning.motion_simulation.simulate`:

1. straight runs from rest to goal speeds spread over half the rough minimum to one and a
   half times the rough maximum: the worst stable speed over the samples gives the speed
   range (:func:`~wayfinding.planning.motion_models.speed_range`); no range
   (:attr:`FitFailure.NO_SPEED_RANGE`), or a single speed or one spanning less than
   ``min_range_share`` of the rough range (:attr:`FitFailure.NARROW_SPEED_RANGE`), fails the
   fit (step ``"speed_range"``);
2. stops from speeds across the range: the longest distance over the samples;
3. slow-downs from speeds across the range to ``min_speed``: for each speed loss, the longest
   distance any run needed to lose it (the worst case over the starting speeds), fitted by
   :func:`~wayfinding.planning.motion_models.fit_deceleration` never above it
   (``bound=True``); fewer than three distinct distances fail the fit (step
   ``"deceleration"``, :attr:`FitFailure.TOO_FEW_DISTANCES`);
4. turns by angles uniformly spaced over 0°–180° at speeds across the range: the distance
   from the character's settled straight line to the ideal line (the switch point along the
   new heading), the largest over the samples;
5. circles at speeds across the range: speed over rotational speed.

A command that does not settle fails the fit with its reason (:attr:`FitFailure.UNSTABLE`,
:attr:`FitFailure.NON_FINITE`), as a normal outcome: :class:`MotionModelFit` then holds no
model.

>>> from wayfinding.planning.motion_simulation import SimulatedController
>>> fit = fit_motion_model(SimulatedController(), rough_min_speed=1.0, rough_max_speed=4.0)
>>> fit.failures, fit.model.min_speed, fit.model.max_speed
((), 0.5, 6.0)
>>> regenerate(SimulatedController(), fit.model, rough_min_speed=1.0,
...            rough_max_speed=4.0).ok
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from .._validate import count, number, positive_float
from ..errors import InvalidQueryError
from .motion_models import DecelerationFit, MotionModel, fit_deceleration, speed_range
from .motion_simulation import (
    CharacterController,
    CommandRun,
    MotionCommand,
    SimulationSettings,
    simulate,
)


class FitFailure(str, Enum):
    """Why a fit failed; each member equals its lower-case name as a string.

    ``NO_SPEED_RANGE``: no goal speed was met within ``max_error``; ``NARROW_SPEED_RANGE``:
    the range found is a single speed or spans less than ``min_range_share`` of the rough
    range; ``TOO_FEW_DISTANCES``: the slow-downs gave fewer than three distinct distances to
    fit the deceleration to; ``UNSTABLE``/``NON_FINITE``: a command's run failed
    (:class:`~wayfinding.planning.motion_simulation.RunFailure`).

    >>> FitFailure.UNSTABLE == "unstable", str(FitFailure.NO_SPEED_RANGE)
    (True, 'no_speed_range')
    """

    NO_SPEED_RANGE = "no_speed_range"
    NARROW_SPEED_RANGE = "narrow_speed_range"
    TOO_FEW_DISTANCES = "too_few_distances"
    UNSTABLE = "unstable"
    NON_FINITE = "non_finite"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"FitFailure.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True)
class MotionModelFit:
    """The outcome of :func:`fit_motion_model`: the ``model`` (``None`` on failure), the
    ``deceleration`` fit with its residuals (``None`` when the fit stopped before it), the
    ``failures`` as ``(what, reason)`` pairs (``what`` a step of the module's list or a
    command, ``reason`` a :class:`FitFailure`; empty on success) and every command ``runs``
    made, in order."""

    model: MotionModel | None
    deceleration: DecelerationFit | None
    failures: tuple[tuple[str, FitFailure], ...]
    runs: tuple[CommandRun, ...]


class _Failed(Exception):
    def __init__(self, what: str, reason: FitFailure) -> None:
        self.what, self.reason = what, reason


def _run(controller: CharacterController, command: MotionCommand,
         settings: SimulationSettings, runs: list[CommandRun]) -> CommandRun:
    run = simulate(controller, command, settings=settings)
    runs.append(run)
    if run.failure is not None:
        raise _Failed(f"{command} (seed {run.seed})", FitFailure(run.failure.value))
    return run


def _loss_distances(run: CommandRun, losses: np.ndarray) -> np.ndarray:
    """The longest distance over the samples to lose each of ``losses`` (m/s) from the
    speed at the switch (inf where a sample never lost that much)."""
    out = np.zeros(len(losses))
    for t in run.trajectories:
        lost = np.maximum.accumulate(t.speed[0] - t.speed)
        along = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(t.position, axis=0).T))))
        at = np.searchsorted(lost, losses - 1e-12)
        out = np.maximum(out, np.where(at < len(lost), along[np.minimum(at, len(lost) - 1)],
                                       np.inf))
    return out


def fit_motion_model(controller: CharacterController, *, rough_min_speed: float,
                     rough_max_speed: float, settings: SimulationSettings | None = None,
                     max_error: float = 0.05, min_range_share: float = 0.5,
                     speed_steps: int = 12, steps: int = 5, angle_steps: int = 7
                     ) -> MotionModelFit:
    """Fit a motion model to ``controller`` (see the module).

    ``rough_min_speed``/``rough_max_speed`` (m/s, ``0 < min < max``): the game's estimate of
    the speed range, which sets where the speeds are explored.  ``settings``: how each
    command runs (:class:`~wayfinding.planning.motion_simulation.SimulationSettings`).
    ``max_error`` (> 0): the relative speed error of the speed range.  ``min_range_share``
    (in [0, 1]): the smallest share of the rough range the found range may span.
    ``speed_steps`` (>= 2): goal speeds tried for the range; ``steps`` (>= 2): speeds for the
    stops, slow-downs, turns and circles; ``angle_steps`` (>= 2): turn angles from 0 to pi.
    """
    lo = positive_float("rough_min_speed", rough_min_speed)
    hi = number("rough_max_speed", rough_max_speed, min=lo, min_open=True)
    settings = SimulationSettings() if settings is None else settings
    bound = positive_float("max_error", max_error)
    share = number("min_range_share", min_range_share, min=0.0, max=1.0)
    n_range = count("speed_steps", speed_steps, min=2)
    n = count("steps", steps, min=2)
    n_angles = count("angle_steps", angle_steps, min=2)
    runs: list[CommandRun] = []
    decel: DecelerationFit | None = None
    try:
        goals = np.linspace(0.5 * lo, 1.5 * hi, n_range)
        worst = []
        for g in goals.tolist():
            run = _run(controller, MotionCommand(start_speed=0.0, goal_speed=g), settings, runs)
            stable = np.array([t.stable_speed(settings.window) for t in run.trajectories])
            worst.append(float(stable[np.argmax(np.abs(g - stable) / stable)]) if stable.all()
                         else 0.0)
        found = speed_range(goals, np.array(worst), max_error=bound)
        if found is None:
            raise _Failed("speed_range", FitFailure.NO_SPEED_RANGE)
        v_min, v_max = found
        if v_max <= v_min or v_max - v_min < share * (hi - lo):
            raise _Failed("speed_range", FitFailure.NARROW_SPEED_RANGE)
        speeds = np.linspace(v_min, v_max, n)

        stops = [max(t.distance for t in _run(
            controller, MotionCommand(start_speed=v, goal_speed=0.0), settings,
            runs).trajectories) for v in speeds.tolist()]

        losses = np.linspace(0.0, v_max - v_min, 8 * n + 1)[1:]
        needed = np.zeros(len(losses))
        for v in speeds[1:].tolist():
            run = _run(controller, MotionCommand(start_speed=v, goal_speed=v_min), settings,
                       runs)
            reach = _loss_distances(run, losses)
            # a run counts for the losses it reached (the last may fall short by the noise)
            needed = np.maximum(needed, np.where(np.isfinite(reach), reach, 0.0))
        usable = needed > 0
        if len(np.unique(needed[usable])) < 3:
            raise _Failed("deceleration", FitFailure.TOO_FEW_DISTANCES)
        decel = fit_deceleration(needed[usable], losses[usable], bound=True)

        angles = np.linspace(0.0, math.pi, n_angles)
        overshoot = np.zeros((n_angles, n))
        for i, theta in enumerate(angles.tolist()):
            for j, v in enumerate(speeds.tolist()):
                run = _run(controller, MotionCommand(start_speed=v, goal_speed=v, turn=theta),
                           settings, runs)
                for t in run.trajectories:
                    h = t.heading[0] + theta
                    x, y = t.position[-1].tolist()
                    overshoot[i, j] = max(overshoot[i, j], abs(math.cos(h) * y - math.sin(h) * x))

        radii = []
        for v in speeds.tolist():
            run = _run(controller, MotionCommand(start_speed=v, goal_speed=v, circle=True),
                       settings, runs)
            radii.append(max(t.stable_speed(settings.window)
                             / max(abs(t.stable_turn_rate(settings.window)), 1e-300)
                             for t in run.trajectories))
    except _Failed as exc:
        return MotionModelFit(None, decel, ((exc.what, exc.reason),), tuple(runs))
    model = MotionModel(
        min_speed=v_min, max_speed=v_max, stop_distances=np.maximum.accumulate(stops),
        stop_speeds=speeds, deceleration=decel.coefficients, overshoot_angles=angles,
        overshoot_speeds=speeds, overshoot=overshoot, radius_speeds=speeds,
        radii=np.array(radii), deceleration_rms=decel.rms,
        deceleration_max_error=decel.max_error)
    return MotionModelFit(model, decel, (), tuple(runs))


@dataclass(frozen=True)
class ModelChange:
    """One quantity that changed between two models beyond its tolerance: ``quantity``
    (``"min_speed"``, ``"max_speed"``, ``"speed_loss"``, ``"stop_speed_limit"``,
    ``"overshoot"``, ``"rotation_radius"``, ``"deceleration_rms"``,
    ``"deceleration_max_error"``), the point it was read at (``at``: metres, m/s, or
    ``(angle, speed)`` for the overshoot; ``None`` for a speed-range end or a residual
    summary), the ``old`` and ``new`` values and the relative change."""

    quantity: str
    at: float | tuple[float, float] | None
    old: float
    new: float
    relative: float


@dataclass(frozen=True)
class ModelRegression:
    """A regression report: the ``changes`` beyond tolerance, and from :func:`regenerate`
    the new fit's ``failures`` and ``deceleration`` fit with its residuals (empty and
    ``None`` from :func:`compare_models`).  ``ok`` when there are no changes and no
    failures."""

    changes: tuple[ModelChange, ...]
    failures: tuple[tuple[str, FitFailure], ...] = field(default=(), kw_only=True)
    deceleration: DecelerationFit | None = field(default=None, kw_only=True)

    @property
    def ok(self) -> bool:
        """Whether nothing changed beyond tolerance and the fit did not fail."""
        return not self.changes and not self.failures


def compare_models(old: MotionModel, new: MotionModel, *, tolerance: float = 0.05,
                   floor: float = 0.05) -> ModelRegression:
    """The changes from ``old`` to ``new`` beyond ``tolerance`` (> 0), each as
    ``|new - old| / max(|old|, floor)`` (``floor`` > 0, m or m/s, keeps values near 0 from
    flagging noise): the speed range's ends, the speed loss and stop speed limit at the old
    stopping table's distances, the overshoot at the old table's angles and speeds, the
    rotation radius at the old table's speeds, and the deceleration fit's residual
    summary (``deceleration_rms``, ``deceleration_max_error``) where both models know it.

    >>> from wayfinding.planning.motion_simulation import ControllerParams, SimulatedController
    >>> from wayfinding.planning.motion_fitting import fit_motion_model
    >>> base = fit_motion_model(SimulatedController(), rough_min_speed=1.0,
    ...                         rough_max_speed=4.0).model
    >>> faster = base.scaled(rate=1.2)
    >>> [c.quantity for c in compare_models(base, faster).changes][:2]
    ['min_speed', 'max_speed']
    """
    for name, value in (("old", old), ("new", new)):
        if not isinstance(value, MotionModel):
            raise InvalidQueryError(f"{name} {value!r:.80} must be a MotionModel")
    tol = positive_float("tolerance", tolerance)
    low = positive_float("floor", floor)
    points: list[tuple[str, float | tuple[float, float] | None, float, float]] = [
        ("min_speed", None, old.min_speed, new.min_speed),
        ("max_speed", None, old.max_speed, new.max_speed)]
    for name in ("deceleration_rms", "deceleration_max_error"):
        a, b = getattr(old, name), getattr(new, name)
        if a is not None and b is not None:
            points.append((name, None, a, b))
    for d in old.stop_distances.tolist():
        points.append(("speed_loss", d, old.speed_loss(d), new.speed_loss(d)))
        points.append(("stop_speed_limit", d, old.stop_speed_limit(d), new.stop_speed_limit(d)))
    for theta in old.overshoot_angles.tolist():
        for v in old.overshoot_speeds.tolist():
            points.append(("overshoot", (theta, v), old.overshoot_at(theta, v),
                           new.overshoot_at(theta, v)))
    for v in old.radius_speeds.tolist():
        points.append(("rotation_radius", v, old.rotation_radius(v), new.rotation_radius(v)))
    changes = []
    for quantity, at, a, b in points:
        relative = abs(b - a) / max(abs(a), low)
        if relative > tol:
            changes.append(ModelChange(quantity, at, a, b, relative))
    return ModelRegression(tuple(changes))


def regenerate(controller: CharacterController, previous: MotionModel, *,
               rough_min_speed: float, rough_max_speed: float,
               settings: SimulationSettings | None = None, max_error: float = 0.05,
               min_range_share: float = 0.5, speed_steps: int = 12, steps: int = 5,
               angle_steps: int = 7, tolerance: float = 0.05, floor: float = 0.05
               ) -> ModelRegression:
    """Fit ``controller`` again (:func:`fit_motion_model` with the fit options given, which
    should be those the ``previous`` model was fitted with) and report against
    ``previous`` (:func:`compare_models` with ``tolerance`` and ``floor``), with the new
    fit's ``deceleration``; a failed fit is reported by its ``failures``, with no
    changes."""
    if not isinstance(previous, MotionModel):
        raise InvalidQueryError(f"previous {previous!r:.80} must be a MotionModel")
    fit = fit_motion_model(controller, rough_min_speed=rough_min_speed,
                           rough_max_speed=rough_max_speed, settings=settings,
                           max_error=max_error, min_range_share=min_range_share,
                           speed_steps=speed_steps, steps=steps, angle_steps=angle_steps)
    if fit.model is None:
        return ModelRegression((), failures=fit.failures, deceleration=fit.deceleration)
    report = compare_models(previous, fit.model, tolerance=tolerance, floor=floor)
    return ModelRegression(report.changes, deceleration=fit.deceleration)
