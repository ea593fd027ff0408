"""Motion models fitted to a character controller, and the speed caps steering takes from them.

A :class:`MotionModel` says what a character's animations really do, measured offline by
:func:`~wayfinding.planning.motion_simulation.simulate` rather than assumed:

* the **speed range** ``[min_speed, max_speed]``: the largest run of goal speeds met within a
  relative error (:func:`speed_range`);
* the **stopping function**: the distance the stop needs from each speed, a piecewise-linear
  table (``stop_distances`` against ``stop_speeds``);
* the **deceleration function** ``dv(d) = a d² + b d + c √d``: the speed the character can
  surely lose within ``d`` metres, fitted by least squares (the model is linear in
  ``a, b, c``) to the worst case over the starting speeds, optionally never above it
  (:func:`fit_deceleration`), with the fit's residuals summarised;
* the **overshoot**: how far the character ends beside the ideal path after turning by an
  angle at a speed, one row per angle uniformly spaced over 0°–180°;
* the **rotation radius**: the radius of the tightest circle at each speed.

:func:`~wayfinding.planning.motion_fitting.fit_motion_model` builds one from a controller
(or reports why it cannot); :meth:`MotionModel.scaled` adapts it to a size scale and playback
rate; :meth:`MotionModel.save`/:meth:`MotionModel.load` keep it in a file;
:func:`~wayfinding.planning.motion_fitting.compare_models` and
:func:`~wayfinding.planning.motion_fitting.regenerate` flag what changed between two fits
beyond tolerances.  Units: metres, m/s, radians.

At run time (the ``*_cap``/``*_limit`` methods): to be at 2 m/s in 3 m with a model whose
``dv(3) = 2``, the current speed is capped at 4 m/s; a stop triggers when the physical speed
exceeds what the remaining distance allows, and the control speed otherwise stays within 95%
of that limit:

>>> model = MotionModel(min_speed=0.5, max_speed=6.0, stop_distances=[0.2, 2.0],
...     stop_speeds=[0.5, 6.0], deceleration=[0.0, 2 / 3, 0.0],
...     overshoot_angles=[0.0, math.pi], overshoot_speeds=[0.5, 6.0],
...     overshoot=[[0.0, 0.0], [0.2, 3.0]], radius_speeds=[0.5, 6.0], radii=[0.2, 3.0])
>>> round(model.future_speed_cap(2.0, 3.0), 9)
4.0
>>> model.stop_control_speed(5.0, desired_speed=6.0, distance=1.0)
0.0
>>> round(model.stop_control_speed(1.0, desired_speed=6.0, distance=2.0), 9)
5.7
"""

from __future__ import annotations

import bisect
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _saved
from .._io import read_npz, write_npz
from .._validate import flag, number, positive_float, reals
from ..errors import FileFormatError, InvalidQueryError, WayfindingError
from ..geometry.angles import wrap_angle
from ..results import _fields_equal

FORMAT = "wayfinding-motion-model"
VERSION = 1
#: The arrays of a saved model, in :class:`MotionModel`'s field order.
_TABLES = ("stop_distances", "stop_speeds", "deceleration", "overshoot_angles",
           "overshoot_speeds", "overshoot", "radius_speeds", "radii")
#: The deceleration fit's residual summary, in the header when known.
_RESIDUALS = ("deceleration_rms", "deceleration_max_error")


def _vector(name: str, value: Any, n: int | None = None) -> np.ndarray:
    arr = reals(name, value)
    if arr.ndim != 1 or len(arr) < 1 or (n is not None and len(arr) != n) \
            or not np.isfinite(arr).all():
        size = f"{n}" if n is not None else "n >= 1"
        raise InvalidQueryError(f"{name} {arr.tolist()!r:.80} must be a ({size},) array of "
                                "finite numbers")
    return np.array(arr, dtype=np.float64)


def _increasing(name: str, arr: np.ndarray, *, strict: bool = True) -> None:
    steps = np.diff(arr)
    if not ((steps > 0).all() if strict else (steps >= 0).all()) or (arr < 0).any():
        raise InvalidQueryError(f"{name} {arr.tolist()!r:.80} must be >= 0 and "
                                f"{'increasing' if strict else 'non-decreasing'}")


def _inverse_table(distances: np.ndarray, speeds: np.ndarray) -> tuple[list[float], list[float]]:
    """A distance-over-speed table from ``(0, 0)``, its distances made non-decreasing, as
    lists for :func:`_speed_within`."""
    return ([0.0, *np.maximum.accumulate(distances).tolist()], [0.0, *speeds.tolist()])


def _speed_within(table: tuple[list[float], list[float]], d: float) -> float:
    """The largest speed whose distance in ``table`` (from :func:`_inverse_table`, linear
    between rows) is at most ``d``; the last speed beyond the table."""
    xs, vs = table
    j = bisect.bisect_right(xs, d) - 1
    if j >= len(xs) - 1:
        return vs[-1]
    return vs[j] + (vs[j + 1] - vs[j]) * (d - xs[j]) / (xs[j + 1] - xs[j])


@dataclass(frozen=True, eq=False)
class DecelerationFit:
    """A least-squares fit of ``dv(d) = a d² + b d + c √d``: the ``coefficients``
    ``(a, b, c)`` (a ``(3,)`` float64 array), the ``residuals`` (fitted minus measured speed
    loss, ``(n,)`` m/s, in the order of the data), their root mean square ``rms`` and largest
    magnitude ``max_error``."""

    coefficients: np.ndarray
    residuals: np.ndarray
    rms: float
    max_error: float

    __eq__ = _fields_equal


def _bounded_lstsq(design: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The ``x`` minimising ``|design x - y|²`` subject to ``design x <= y`` (``design`` of
    three columns, full rank, its rows of positive distances: ``x = (0, -t, 0)`` for a large
    ``t`` keeps every row, so the problem always has a solution).

    A primal active-set method for this strictly convex quadratic programme: from that
    feasible start, each step solves the least-squares problem with the working rows held
    as equalities (its KKT system), moves towards its solution as far as the other rows
    allow (the row that stops it joins the working set), and once there drops the working
    row of most negative multiplier, until none is negative: the optimum.  One constraint
    per distance (the least loss measured there); rows count as kept within ``1e-9`` times
    the largest loss.  A few steps of ``O(n)`` each."""
    gram2 = 2.0 * design.T @ design
    rhs2 = 2.0 * design.T @ y
    rows, where = np.unique(design, axis=0, return_inverse=True)
    bound = np.full(len(rows), np.inf)
    np.minimum.at(bound, where.reshape(-1), y)
    n = len(rows)
    tol = 1e-9 * max(1.0, float(np.abs(y).max()))
    norms = np.sqrt((rows * rows).sum(axis=1))
    x = np.array([0.0, -(max(0.0, float(np.max(-bound / rows[:, 1]))) + 1.0), 0.0])
    work: list[int] = []
    for _ in range(100 + 20 * n):
        c = rows[work]
        k = len(work)
        kkt = np.block([[gram2, c.T], [c, np.zeros((k, k))]])
        solved = np.linalg.solve(kkt, np.concatenate((rhs2, bound[work])))
        target, multipliers = solved[:3], solved[3:]
        p = target - x
        size = float(np.sqrt(p @ p))
        if k < 3 and size > 1e-13 * max(1.0, float(np.sqrt(x @ x))):
            along = rows @ p
            blocking = along > 1e-12 * norms * size
            blocking[work] = False
            ratio = np.full(n, np.inf)
            ratio[blocking] = (np.maximum(bound - rows @ x, 0.0) + tol)[blocking] \
                / along[blocking]
            j = int(np.argmin(ratio))
            if ratio[j] < 1.0:
                x = x + ratio[j] * p
                work.append(j)
                continue
        x = target
        if k == 0 or multipliers.min() >= 0.0:
            return x
        del work[int(np.argmin(multipliers))]
    raise WayfindingError(f"the bounded fit of {len(y)} points did not converge")


def fit_deceleration(distances: ArrayLike, speed_losses: ArrayLike, *, bound: bool = False
                     ) -> DecelerationFit:
    """Fit ``dv(d) = a d² + b d + c √d`` to measured pairs: ``distances`` (``(n,)``, metres,
    >= 0) and the ``speed_losses`` over them (``(n,)``, m/s), by linear least squares.  At
    least three distinct positive distances are needed.

    With ``bound``, the fit is the least-squares one among those never above a measured
    loss (every residual <= 0): a worst case, whose loss within ``d`` the character surely
    achieves at the measured distances, so that caps built on it are safe there.  It solves
    a small quadratic programme by an active-set method (a few steps of ``O(n)`` each);
    a negative loss at distance 0, which no such fit stays under, is refused.

    >>> d = np.array([0.5, 1.0, 2.0, 4.0])
    >>> fit = fit_deceleration(d, 0.1 * d**2 + 0.5 * d + 0.3 * np.sqrt(d))
    >>> fit.coefficients.round(9).tolist(), fit.max_error < 1e-12
    ([0.1, 0.5, 0.3], True)
    >>> below = fit_deceleration(d, [0.4, 1.1, 1.2, 2.9], bound=True)
    >>> bool((below.residuals <= 1e-9).all())
    True
    """
    d = _vector("distances", distances)
    dv = _vector("speed_losses", speed_losses, len(d))
    if (d < 0).any():
        raise InvalidQueryError(f"distances {d.tolist()!r:.80} must be >= 0")
    if len(np.unique(d[d > 0])) < 3:
        raise InvalidQueryError(f"distances {d.tolist()!r:.80} must hold at least 3 distinct "
                                "positive values to fit three coefficients")
    bound = flag("bound", bound)
    design = np.column_stack((d * d, d, np.sqrt(d)))
    if not bound:
        coefficients = np.linalg.lstsq(design, dv, rcond=None)[0]
    else:
        if (dv[d == 0] < 0).any():
            raise InvalidQueryError(f"speed_losses {dv.tolist()!r:.80} at distance 0 must be "
                                    ">= 0 for a fit bounded by them")
        moving = d > 0
        coefficients = _bounded_lstsq(design[moving], dv[moving])
    residuals = design @ coefficients - dv
    return DecelerationFit(coefficients, residuals, float(np.sqrt(np.mean(residuals**2))),
                           float(np.abs(residuals).max()))


def speed_range(goal_speeds: ArrayLike, measured_speeds: ArrayLike, *, max_error: float = 0.05
                ) -> tuple[float, float] | None:
    """The ends of the largest contiguous run of ``goal_speeds`` (``(n,)`` m/s, increasing)
    whose relative error ``|goal - measured| / measured`` is at most ``max_error``; ``None``
    when no goal speed qualifies.  Runs are compared by their span in m/s, the slower one
    winning a tie.

    >>> speed_range([1, 2, 3, 4, 5], [1.5, 2.0, 3.05, 3.0, 3.0])
    (2.0, 3.0)
    """
    goals = _vector("goal_speeds", goal_speeds)
    measured = _vector("measured_speeds", measured_speeds, len(goals))
    _increasing("goal_speeds", goals)
    bound = positive_float("max_error", max_error)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = np.abs(goals - measured) <= bound * measured
    best: tuple[float, float] | None = None
    i = 0
    while i < len(goals):
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(goals) and ok[j + 1]:
            j += 1
        if best is None or goals[j] - goals[i] > best[1] - best[0]:
            best = (float(goals[i]), float(goals[j]))
        i = j + 1
    return best


@dataclass(frozen=True, eq=False, kw_only=True)
class MotionModel:
    """A fitted motion model (see the module); arrays are float64.

    ``min_speed``/``max_speed``: the speed range (m/s, ``0 < min <= max``).
    ``stop_distances``/``stop_speeds``: ``(s,)`` each, the distance (m, non-decreasing) the
    stop needs from each speed (m/s, increasing).  ``deceleration``: ``(3,)``, ``(a, b, c)``
    of ``dv(d)``.  ``overshoot_angles``: ``(k,)`` turn angles (radians, increasing from 0 to
    pi); ``overshoot_speeds``: ``(m,)`` m/s, increasing; ``overshoot``: ``(k, m)`` metres.
    ``radius_speeds``/``radii``: ``(r,)`` each, m/s increasing and metres.  Tables are
    linear between their rows.  ``deceleration_rms``/``deceleration_max_error``: the
    root mean square and largest magnitude of the deceleration fit's residuals (m/s, >= 0;
    ``None`` when unknown), kept so that a regenerated fit can be compared with it.
    """

    min_speed: float
    max_speed: float
    stop_distances: np.ndarray
    stop_speeds: np.ndarray
    deceleration: np.ndarray
    overshoot_angles: np.ndarray
    overshoot_speeds: np.ndarray
    overshoot: np.ndarray
    radius_speeds: np.ndarray
    radii: np.ndarray
    deceleration_rms: float | None = None
    deceleration_max_error: float | None = None
    _stop_table: tuple[list[float], list[float]] = field(init=False, repr=False,
                                                          compare=False)
    _turn_tables: list[tuple[list[float], list[float]]] = field(init=False, repr=False,
                                                                compare=False)

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        lo = positive_float("min_speed", self.min_speed)
        object.__setattr__(self, "min_speed", lo)
        object.__setattr__(self, "max_speed", number("max_speed", self.max_speed, min=lo))
        put = object.__setattr__
        put(self, "stop_distances", _vector("stop_distances", self.stop_distances))
        put(self, "stop_speeds", _vector("stop_speeds", self.stop_speeds,
                                         len(self.stop_distances)))
        put(self, "deceleration", _vector("deceleration", self.deceleration, 3))
        put(self, "overshoot_angles", _vector("overshoot_angles", self.overshoot_angles))
        put(self, "overshoot_speeds", _vector("overshoot_speeds", self.overshoot_speeds))
        put(self, "radius_speeds", _vector("radius_speeds", self.radius_speeds))
        put(self, "radii", _vector("radii", self.radii, len(self.radius_speeds)))
        table = reals("overshoot", self.overshoot)
        if table.shape != (len(self.overshoot_angles), len(self.overshoot_speeds)) \
                or not np.isfinite(table).all() or (table < 0).any():
            raise InvalidQueryError(
                f"overshoot of shape {table.shape} must be a (k, m) array of finite distances "
                f">= 0, k = {len(self.overshoot_angles)} angles by m = "
                f"{len(self.overshoot_speeds)} speeds")
        put(self, "overshoot", np.array(table, dtype=np.float64))
        _increasing("stop_distances", self.stop_distances, strict=False)
        for name in ("stop_speeds", "overshoot_angles", "overshoot_speeds", "radius_speeds"):
            _increasing(name, getattr(self, name))
        for name in ("deceleration_rms", "deceleration_max_error"):
            if getattr(self, name) is not None:
                put(self, name, positive_float(name, getattr(self, name), allow_zero=True))
        if (self.radii < 0).any():
            raise InvalidQueryError(f"radii {self.radii.tolist()!r:.80} must be >= 0")
        if self.overshoot_angles[0] != 0.0 or abs(self.overshoot_angles[-1] - math.pi) > 1e-9:
            raise InvalidQueryError(f"overshoot_angles {self.overshoot_angles.tolist()!r:.80} "
                                    "must run from 0 to pi")
        # the tables read backwards, once
        put(self, "_stop_table", _inverse_table(self.stop_distances, self.stop_speeds))
        put(self, "_turn_tables", [_inverse_table(row, self.overshoot_speeds)
                                   for row in self.overshoot])

    # -- the model's functions -------------------------------------------------------------

    def speed_loss(self, distance: float) -> float:
        """``dv(d) = a d² + b d + c √d``: the speed (m/s) surely lost within ``distance``
        metres (>= 0)."""
        d = positive_float("distance", distance, allow_zero=True)
        a, b, c = self.deceleration.tolist()
        return a * d * d + b * d + c * math.sqrt(d)

    def stop_speed_limit(self, distance: float) -> float:
        """The highest speed (m/s) from which the stop needs at most ``distance`` metres
        (>= 0): the table read backwards from ``(0 m, 0 m/s)``, the top speed beyond it."""
        d = positive_float("distance", distance, allow_zero=True)
        return _speed_within(self._stop_table, d)

    def overshoot_at(self, angle: float, speed: float) -> float:
        """The overshoot (m) of a turn by ``angle`` (radians; its magnitude, wrapped into
        [0, pi], is looked up) at ``speed`` (m/s, >= 0; 0 m at 0 m/s, clamped beyond the
        table), bilinear in the table."""
        theta = abs(wrap_angle(number("angle", angle)))
        v = positive_float("speed", speed, allow_zero=True)
        xs = np.concatenate(([0.0], self.overshoot_speeds))
        rows = [np.interp(v, xs, np.concatenate(([0.0], row))) for row in self.overshoot]
        return float(np.interp(theta, self.overshoot_angles, rows))

    def rotation_radius(self, speed: float) -> float:
        """The radius (m) of the tightest circle at ``speed`` (m/s, >= 0): linear in the
        table from ``(0, 0)``, clamped beyond it."""
        v = positive_float("speed", speed, allow_zero=True)
        return float(np.interp(v, np.concatenate(([0.0], self.radius_speeds)),
                               np.concatenate(([0.0], self.radii))))

    # -- run-time caps ---------------------------------------------------------------------

    def clamp_speed(self, speed: float) -> float:
        """A selectable speed: ``speed`` (m/s, >= 0) clamped into the speed range (0 stays
        0, the stop)."""
        v = positive_float("speed", speed, allow_zero=True)
        return 0.0 if v == 0.0 else min(max(v, self.min_speed), self.max_speed)

    def future_speed_cap(self, future_speed: float, distance: float) -> float:
        """The highest current control speed (m/s) that can still be down to
        ``future_speed`` (m/s, >= 0) in ``distance`` metres: ``future_speed + dv(distance)``
        (a negative ``dv`` counted as 0), at most ``max_speed``."""
        v = positive_float("future_speed", future_speed, allow_zero=True)
        return min(v + max(self.speed_loss(distance), 0.0), max(self.max_speed, v))

    def stop_control_speed(self, physical_speed: float, *, desired_speed: float,
                           distance: float, margin: float = 0.95) -> float:
        """The control speed (m/s) for a character that must stop within ``distance``
        metres: 0 (the stop) when its ``physical_speed`` (m/s) exceeds the stopping
        function's limit for ``distance``; else ``desired_speed`` capped at ``margin``
        (in (0, 1]) times that limit, so a noisy speed does not trigger stops by accident."""
        v = positive_float("physical_speed", physical_speed, allow_zero=True)
        want = positive_float("desired_speed", desired_speed, allow_zero=True)
        share = number("margin", margin, min=0.0, max=1.0, min_open=True)
        limit = self.stop_speed_limit(distance)
        return 0.0 if v > limit else min(want, share * limit)

    def turn_speed_limit(self, angle: float, free_distance: float) -> float:
        """The highest speed (m/s) at which a turn by ``angle`` (radians) overshoots at most
        ``free_distance`` metres (>= 0, the room beside the new path, as collision sampling
        reports it): the lower of the limits of the two tabulated angles round ``angle``
        (each read backwards from ``(0 m/s, 0 m)``), ``max_speed``'s row end beyond them."""
        theta = abs(wrap_angle(number("angle", angle)))
        d = positive_float("free_distance", free_distance, allow_zero=True)
        angles = self.overshoot_angles
        hi = min(int(np.searchsorted(angles, theta)), len(angles) - 1)
        rows = {max(hi - 1, 0), hi} if angles[hi] != theta else {hi}
        return min(_speed_within(self._turn_tables[i], d) for i in rows)

    def turn_cap(self, angle: float, free_distance: float, distance: float) -> float:
        """The current speed cap (m/s) for a turn by ``angle`` ahead at ``distance`` metres
        with ``free_distance`` metres of room beside the new path: the turn's speed limit
        fed to :meth:`future_speed_cap`.  For a wall ``D`` metres straight ahead past the
        corner, the point it blocks lies ``D |sin(angle)|`` from the new path: pass that."""
        return self.future_speed_cap(self.turn_speed_limit(angle, free_distance), distance)

    def arrival_radius(self, speed: float, bearing: float, *, radius: float) -> float:
        """The arrival radius (m) that keeps a character from orbiting its target: a target
        at ``bearing`` (radians off the heading) closer than ``2 r |sin(bearing)|``, ``r`` the
        rotation radius at ``speed`` (m/s), lies inside the turning circle and cannot be
        reached, so the radius grows from ``radius`` (m, >= 0) to that."""
        base = positive_float("radius", radius, allow_zero=True)
        phi = number("bearing", bearing)
        return max(base, 2.0 * self.rotation_radius(speed) * abs(math.sin(phi)))

    def turn_side(self, speed: float, angle: float, *, free_left: float,
                  free_right: float) -> str:
        """``"left"`` or ``"right"``: the way a character that cannot turn in place turns
        to face ``angle`` (radians, positive to the left) at ``speed`` (m/s), given the room
        on each side (``free_left``/``free_right``, metres, >= 0).  The side whose overshoot
        (a turn beyond pi read at pi, the largest tabulated) leaves the larger margin wins;
        on a tie, the shorter turn (left for a half turn)."""
        left_room = positive_float("free_left", free_left, allow_zero=True, allow_inf=True)
        right_room = positive_float("free_right", free_right, allow_zero=True, allow_inf=True)
        turn = wrap_angle(number("angle", angle))
        left = turn if turn >= 0.0 else turn + 2 * math.pi
        right = -turn if turn <= 0.0 else 2 * math.pi - turn
        margin_left = left_room - self.overshoot_at(min(left, math.pi), speed)
        margin_right = right_room - self.overshoot_at(min(right, math.pi), speed)
        if margin_left != margin_right:
            return "left" if margin_left > margin_right else "right"
        return "left" if left <= right else "right"

    # -- files -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the model to ``path`` (``.npz`` with a JSON header), atomically."""
        header = {"format": FORMAT, "version": VERSION, "min_speed": self.min_speed,
                  "max_speed": self.max_speed}
        header.update({name: getattr(self, name) for name in _RESIDUALS
                       if getattr(self, name) is not None})
        write_npz(path, header, **{name: getattr(self, name) for name in _TABLES})

    @classmethod
    def load(cls, path: str | os.PathLike) -> MotionModel:
        """Read a model written by :meth:`save`; a malformed file raises
        :class:`~wayfinding.errors.FileFormatError` naming it and the reason."""
        header, arrays = read_npz(path, FORMAT, VERSION, "motion model", FileFormatError,
                                  _TABLES)
        shapes = {"deceleration": (3,), "overshoot": (None, None)}
        try:
            tables = {name: _saved.array(arrays, name, np.float64, shapes.get(name, (None,)))
                      for name in _TABLES}
            speeds = [_saved.number(_saved.option(header, name), name, positive=True)
                      for name in ("min_speed", "max_speed")]
            rms, worst = (None if name not in header else _saved.number(header[name], name)
                          for name in _RESIDUALS)
            return cls(min_speed=speeds[0], max_speed=speeds[1], deceleration_rms=rms,
                       deceleration_max_error=worst, **tables)
        except FileFormatError as exc:
            raise FileFormatError(exc.reason, path) from None
        except InvalidQueryError as exc:
            raise FileFormatError(f"malformed motion model: {exc}", path) from None

    # -- adaptation ------------------------------------------------------------------------

    def scaled(self, *, scale: float = 1.0, rate: float = 1.0) -> MotionModel:
        """The model of the same character at size ``scale`` ``u`` and playback ``rate`` ``p``
        (both > 0): lengths times ``u``, speeds times ``u p``, so that
        ``dv(d, u, p) = p (a d²/u + b d + c √(u d)) = p u dv(d/u)`` (its residuals times
        ``u p``)."""
        u = positive_float("scale", scale)
        p = positive_float("rate", rate)
        a, b, c = self.deceleration.tolist()
        return MotionModel(
            min_speed=self.min_speed * u * p, max_speed=self.max_speed * u * p,
            stop_distances=self.stop_distances * u, stop_speeds=self.stop_speeds * u * p,
            deceleration=np.array([p * a / u, p * b, p * c * math.sqrt(u)]),
            overshoot_angles=self.overshoot_angles,
            overshoot_speeds=self.overshoot_speeds * u * p, overshoot=self.overshoot * u,
            radius_speeds=self.radius_speeds * u * p, radii=self.radii * u,
            deceleration_rms=None if self.deceleration_rms is None
            else self.deceleration_rms * u * p,
            deceleration_max_error=None if self.deceleration_max_error is None
            else self.deceleration_max_error * u * p)
