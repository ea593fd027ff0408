"""Predicted trajectories of cars queryable by time, and the time-dependent potential field
their predicted positions make.

A :class:`Trajectory` is a polyline driven at a speed given at each vertex, the speed
changing at a constant rate along each segment (so a segment of length ``d`` between speeds
``v0`` and ``v1`` takes ``2·d / (v0 + v1)``).  Before its start time the car stands at the
first point, after its end at the last.

>>> car = Trajectory([[0, 0], [10, 0], [10, 10]], [10, 10, 10])
>>> car.duration, car.position_at([0.5, 1.5, 9.0]).tolist()
(2.0, [[5.0, 0.0], [10.0, 5.0], [10.0, 10.0]])
>>> field = CarField([car], radius=2.0)
>>> round(float(field.distance([6, 0], 0.5)[0]), 6), float(field.potential([5, 0], 0.5)[0])
(1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError, brief


class Trajectory:
    """A car's predicted path: ``points`` ``(n, 2)`` float64 (x, y), world units;
    ``speeds`` ``(n,)`` the speed at each point (>= 0, world units per second; a segment of
    positive length needs a positive speed at one of its ends, and the times must stay
    finite floats); ``start_time`` the time at the first point, seconds."""

    __slots__ = ("points", "speeds", "start_time", "times", "_lengths")

    def __init__(self, points: Any, speeds: Any, *, start_time: float = 0.0) -> None:
        pts, _ = _validate.finite_points("points", points)
        spd = _validate.reals("speeds", speeds)
        if pts.shape[0] < 1 or spd.shape != (pts.shape[0],):
            raise InvalidQueryError(f"speeds of shape {spd.shape} must give one speed for each "
                                    f"of the {pts.shape[0]} points (at least one)")
        if not (np.isfinite(spd).all() and (spd >= 0).all()):
            raise InvalidQueryError("speeds must be finite and >= 0")
        with np.errstate(over="ignore"):
            lengths = np.hypot(*np.diff(pts, axis=0).T)
        stalled = (lengths > 0) & (spd[:-1] == 0) & (spd[1:] == 0)
        if stalled.any():
            i = int(np.flatnonzero(stalled)[0])
            raise InvalidQueryError(f"segment {i} of length {lengths[i]:g} has speed 0 at both "
                                    "ends: the car would never cover it")
        self.points = pts
        self.speeds = spd
        self.start_time = _validate.finite_float("start_time", start_time)
        dt = np.zeros_like(lengths)
        moving = lengths > 0
        with np.errstate(over="ignore", invalid="ignore"):
            dt[moving] = lengths[moving] / (spd[:-1] / 2.0 + spd[1:] / 2.0)[moving]
            #: ``(n,)`` float64, the time at each point, seconds.
            self.times = self.start_time + np.concatenate(([0.0], np.cumsum(dt)))
        if not np.isfinite(self.times).all():
            i = int(np.argmin(np.isfinite(self.times))) - 1
            raise InvalidQueryError(f"segment {i} of length {lengths[i]:g} ends past the "
                                    "largest float of time: its points are too far apart "
                                    "for its speeds")
        self._lengths = lengths

    @property
    def duration(self) -> float:
        """Seconds from the first point to the last."""
        return float(self.times[-1] - self.start_time)

    def position_at(self, t: Any) -> np.ndarray:
        """The predicted position at each time of ``t`` (a number or an array, seconds):
        ``(m, 2)`` float64, one row per time (clamped to the first and last points outside
        the trajectory's times)."""
        ts = _validate.reals("t", t).reshape(-1)
        if not np.isfinite(ts).all():
            raise InvalidQueryError("t must be finite times (it holds NaN or infinity)")
        if self.points.shape[0] == 1:
            return np.repeat(self.points, ts.size, axis=0)
        seg = np.clip(np.searchsorted(self.times, ts, side="right") - 1, 0,
                      self._lengths.size - 1)
        span = self.times[seg + 1] - self.times[seg]
        tau = np.clip(ts - self.times[seg], 0.0, span)
        v0, v1 = self.speeds[seg], self.speeds[seg + 1]
        # The share u of the segment's time gone covers u (v0 (1 - u/2) + v1 u/2) / (v0/2 +
        # v1/2) of its length (the speed changing at a constant rate): bounded by 1, so no
        # product of speeds or lengths overflows however fast or long the segment is.
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(span > 0, tau / span, 0.0)
            frac = np.where(span > 0, u * (v0 * (1.0 - u / 2.0) + v1 * (u / 2.0))
                            / (v0 / 2.0 + v1 / 2.0), 0.0)
        frac = np.clip(frac, 0.0, 1.0)
        a, b = self.points[seg], self.points[seg + 1]
        return a + (b - a) * frac[:, None]


class CarField:
    """The dynamic potential of other cars: high near where they are predicted to be.

    ``trajectories``: the cars' :class:`Trajectory` objects.  ``radius``: the distance
    (world units, > 0) over which a car repels: a car adds ``exp(-(r / radius)²)`` at
    distance ``r`` from its predicted position."""

    __slots__ = ("trajectories", "radius")

    def __init__(self, trajectories: Sequence[Trajectory], *, radius: float) -> None:
        if not isinstance(trajectories, Iterable):
            raise InvalidQueryError(f"trajectories {brief(trajectories)} must be a sequence "
                                    "of Trajectory")
        cars = list(trajectories)
        for i, car in enumerate(cars):
            if not isinstance(car, Trajectory):
                raise InvalidQueryError(f"trajectories[{i}] {car!r} must be a Trajectory")
        self.trajectories = cars
        self.radius = _validate.positive_float("radius", radius)

    def _offsets(self, points: Any, t: Any) -> np.ndarray:
        """``(cars, m, 2)``: each point's offset from each car at its time."""
        pts, _ = _validate.finite_points("points", points)
        ts = _validate.reals("t", t).reshape(-1)
        if ts.size not in (1, pts.shape[0]):
            raise InvalidQueryError(f"t holds {ts.size} times for {pts.shape[0]} points: give "
                                    "one time or one per point")
        ts = np.broadcast_to(ts, (pts.shape[0],))
        if not self.trajectories:
            return np.empty((0, pts.shape[0], 2))
        return pts[None] - np.stack([car.position_at(ts) for car in self.trajectories])

    def distance(self, points: Any, t: Any) -> np.ndarray:
        """``(m,)`` float64: each point's distance to the nearest car at time ``t`` (one
        time, or one per point); inf without cars."""
        off = self._offsets(points, t)
        if off.shape[0] == 0:
            return np.full(off.shape[1], np.inf)
        return np.hypot(off[..., 0], off[..., 1]).min(axis=0)

    def potential(self, points: Any, t: Any) -> np.ndarray:
        """``(m,)`` float64: the summed potential of the cars at each point at time ``t``."""
        off = self._offsets(points, t)
        return np.exp(-(off ** 2).sum(axis=2) / self.radius ** 2).sum(axis=0)

    def gradient(self, points: Any, t: Any) -> np.ndarray:
        """``(m, 2)`` float64: the potential's gradient at each point at time ``t``; it
        points uphill, towards the cars: moving along ``-gradient`` moves away from them."""
        off = self._offsets(points, t)
        weight = np.exp(-(off ** 2).sum(axis=2) / self.radius ** 2)
        return (-2.0 / self.radius ** 2 * weight[..., None] * off).sum(axis=0)
