"""Potential fields for hill-climbing agents.

A potential says how desirable a place is (high: go there).  Each entity contributes a
*potential function* of position: radial ones, :class:`Linear` (falling off linearly from
its centre: leads to a target) and :class:`Ring` (rising then falling: keeps a ranged unit
at a safe distance), or non-radial ones like a :class:`Cone` (a wedge ahead of the player,
usually negative, to keep enemies out of view).  A layer combines its functions by ``"sum"``
or ``"max"`` (the max does not invent a desirable spot where two rings overlap).  A
:class:`PotentialField` adds a *static* layer, computed once, and a *dynamic* layer
recomputed at most every ``period`` seconds; walls are never desirable.  Agents climb: each
step to the legal neighbouring cell of highest potential, stopping at a local maximum.
A :class:`PheromoneTrail` drops negative potential where agents have been, decaying over
time, which pushes them on and out of some local maxima (not all: for mazes use an
integration field, which has none).

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> field = PotentialField(Grid(np.ones((10, 10), dtype=bool)))
>>> field.set_static([Linear((7, 2), peak=10.0, radius=20.0)])
>>> field.climb((0, 9), steps=20)[-1].tolist()
[7, 2]
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._validate import allocation, choice, count, finite_point, number, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS

COMBINE = ("sum", "max")


class Potential(ABC):
    """A potential function: ``values(xs, ys)`` for cell coordinates (a cell's centre at its
    (x, y)) returns an array of the same shape."""

    @abstractmethod
    def values(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """The potential at every point of ``xs``, ``ys``."""


@dataclass(frozen=True)
class Radial(Potential):
    """``profile(distance)`` around ``center`` (vectorised over a numpy array)."""

    center: tuple[float, float]
    profile: Callable[[np.ndarray], np.ndarray]

    def __post_init__(self) -> None:
        finite_point("center", self.center)
        if not callable(self.profile):
            raise InvalidQueryError(f"profile {brief(self.profile)} must be a function of "
                                    "distance")

    def values(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        out = self.profile(np.hypot(xs - self.center[0], ys - self.center[1]))
        try:
            return np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidQueryError(f"the profile of {self!r} must give numbers, got "
                                    f"{brief(out)}") from None


@dataclass(frozen=True)
class Linear(Potential):
    """``peak`` at ``center``, falling linearly to 0 at ``radius`` (0 beyond)."""

    center: tuple[float, float]
    peak: float
    radius: float

    def __post_init__(self) -> None:
        finite_point("center", self.center)
        _check(self.radius, "radius", positive=True)
        _check(self.peak, "peak")

    def values(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        d = np.hypot(xs - self.center[0], ys - self.center[1])
        return self.peak * np.clip(1.0 - d / self.radius, 0.0, None)


@dataclass(frozen=True)
class Ring(Potential):
    """0 at ``center``, rising linearly to ``peak`` at distance ``best``, falling back to
    0 at ``radius``: where a ranged unit wants to stand."""

    center: tuple[float, float]
    peak: float
    best: float
    radius: float

    def __post_init__(self) -> None:
        finite_point("center", self.center)
        _check(self.peak, "peak")
        _check(self.best, "best", positive=True)
        _check(self.radius, "radius", positive=True)
        if self.radius <= self.best:
            raise InvalidQueryError(f"radius {self.radius} must exceed best {self.best}")

    def values(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        d = np.hypot(xs - self.center[0], ys - self.center[1])
        rise = d / self.best
        fall = (self.radius - d) / (self.radius - self.best)
        return self.peak * np.clip(np.minimum(rise, fall), 0.0, None)


@dataclass(frozen=True)
class Cone(Potential):
    """``value`` inside the wedge from ``apex`` along ``direction`` (any length) within
    ``half_angle`` radians, out to ``length``, fading linearly with distance."""

    apex: tuple[float, float]
    direction: tuple[float, float]
    half_angle: float
    length: float
    value: float

    def __post_init__(self) -> None:
        _check(self.length, "length", positive=True)
        _check(self.value, "value")
        finite_point("apex", self.apex)
        if not 0 < self.half_angle < math.pi:
            raise InvalidQueryError(f"half_angle {self.half_angle!r} must be in (0, pi)")
        if not np.abs(finite_point("direction", self.direction)).max() > 0:
            raise InvalidQueryError("direction must be a non-zero vector")

    def values(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        dx, dy = xs - self.apex[0], ys - self.apex[1]
        d = np.hypot(dx, dy)
        u = np.asarray(self.direction, dtype=float)
        u /= np.abs(u).max()                      # no overflow in the length
        ux, uy = u / np.hypot(*u)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(d > 0, (dx * ux + dy * uy) / d, 1.0)
        inside = (cos >= math.cos(self.half_angle)) & (d <= self.length)
        return np.where(inside, self.value * (1.0 - d / self.length), 0.0)


class PheromoneTrail:
    """Negative potential dropped where agents stand: each :meth:`deposit` adds ``-amount``
    at the agents' cells; each :meth:`decay` multiplies the trail by ``keep``."""

    def __init__(self, shape: tuple[int, int], *, amount: float = 1.0, keep: float = 0.95):
        self.amount = positive_float("amount", amount)
        self.keep = number("keep", keep, min=0, max=1, max_open=True)
        if not isinstance(shape, (tuple, list)) or len(shape) != 2:
            raise InvalidQueryError(f"shape {brief(shape)} must be a (rows, columns) pair")
        h, w = (count(name, v) for name, v in zip(("rows", "columns"), shape, strict=True))
        allocation(f"a trail of shape {(h, w)}", h * w)
        self.values = np.zeros((h, w))

    def deposit(self, cells: Any) -> None:
        """Drop ``amount`` at each of ``cells`` (``(n, 2)`` x, y inside the trail)."""
        c = _cell_array("cells", cells, self.values.shape)
        np.add.at(self.values, (c[:, 1], c[:, 0]), -self.amount)

    def decay(self) -> None:
        self.values *= self.keep


class PotentialField:
    """Static and dynamic potential layers over ``grid``; layers combine their functions
    by ``combine`` (``"sum"`` or ``"max"``) and are added together with the trail."""

    def __init__(self, grid: Grid, *, combine: str = "sum", period: float = 0.2,
                 trail: PheromoneTrail | None = None):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        self.grid = grid
        self.combine = choice("combine", combine, COMBINE)
        self.period = positive_float("period", period)
        self.trail = trail
        if trail is not None and trail.values.shape != grid.shape:
            raise InvalidQueryError("the trail must have the grid's shape")
        h, w = grid.shape
        self._ys, self._xs = np.mgrid[0:h, 0:w].astype(np.float64)
        self.static = np.zeros(grid.shape)
        self.dynamic = np.zeros(grid.shape)
        self._last_dynamic = -math.inf
        self.dynamic_updates = 0

    def layer(self, potentials: Iterable[Potential]) -> np.ndarray:
        """The combination of ``potentials`` over the grid (zeros when there are none)."""
        items = list(potentials)
        for p in items:
            if not isinstance(p, Potential):
                raise InvalidQueryError(f"{p!r} is not a Potential")
        if not items:
            return np.zeros(self.grid.shape)
        stack = [self._values(p) for p in items]
        return np.sum(stack, axis=0) if self.combine == "sum" else np.max(stack, axis=0)

    def _values(self, potential: Potential) -> np.ndarray:
        """``potential`` over the grid, checked to be numbers (not NaN) of the grid's shape
        (or one number for all of it)."""
        try:
            v = reals("potential values", potential.values(self._xs, self._ys))
        except InvalidQueryError:
            v = np.full(1, np.nan)
        if v.shape not in ((), self.grid.shape) or np.isnan(v).any():
            raise InvalidQueryError(f"{potential!r} must give a number (not NaN) for every "
                                    f"cell: an array of shape {self.grid.shape}")
        return np.broadcast_to(v, self.grid.shape)

    def set_static(self, potentials: Iterable[Potential]) -> None:
        """Compute the static layer (once, at start-up)."""
        self.static = self.layer(potentials)

    def update_dynamic(self, time: float, potentials: Callable[[], Iterable[Potential]]
                       ) -> bool:
        """Recompute the dynamic layer from ``potentials()`` if ``period`` seconds have
        passed since the last time; returns whether it did."""
        time = number("time", time)
        if time - self._last_dynamic < self.period:
            return False
        self.dynamic = self.layer(potentials())
        self._last_dynamic = float(time)
        self.dynamic_updates += 1
        return True

    @property
    def values(self) -> np.ndarray:
        """The total potential: static + dynamic (+ trail); ``-inf`` on walls."""
        total = self.static + self.dynamic
        if self.trail is not None:
            total = total + self.trail.values
        return np.where(self.grid.passable, total, -np.inf)

    @positional_options("values")
    def step(self, cells: Any, *, values: np.ndarray | None = None) -> np.ndarray:
        """Each agent's next cell: its legal neighbour of highest potential if higher than
        its own cell, else where it is (a local maximum).  ``(n, 2)`` in and out."""
        h, w = self.grid.shape
        c = _cell_array("cells", cells, (h, w))
        v = self.values if values is None else reals("values", values)
        if v.shape != (h, w):
            raise InvalidQueryError(f"values has shape {v.shape}, the grid {(h, w)}")
        moves = self.grid.moves.reshape(h + 2, w + 2)[c[:, 1] + 1, c[:, 0] + 1]
        best = v[c[:, 1], c[:, 0]].copy()
        out = c.copy()
        for d, (dx, dy) in enumerate(DIRECTIONS):
            legal = (moves >> d) & 1 == 1
            nx, ny = np.clip(c[:, 0] + dx, 0, w - 1), np.clip(c[:, 1] + dy, 0, h - 1)
            cand = np.where(legal, v[ny, nx], -np.inf)
            better = cand > best
            best = np.where(better, cand, best)
            out[better] = np.stack([nx, ny], axis=1)[better]
        return out

    def climb(self, cell: Any, *, steps: int = 1000) -> np.ndarray:
        """Hill-climb from ``cell`` (depositing on the trail, if any, and letting it decay
        each step) until a local maximum or ``steps``; the ``(n, 2)`` cells visited."""
        steps = count("steps", steps, min=0)
        allocation(f"a climb of {steps} steps", steps)
        x, y = self.grid.cell(cell, name="cell", passable=True)
        path = [(x, y)]
        here = np.array([[x, y]])
        for _ in range(steps):
            if self.trail is not None:
                self.trail.deposit(here)
            nxt = self.step(here)
            if self.trail is not None:
                self.trail.decay()
            if (nxt == here).all():
                break
            here = nxt
            path.append((int(here[0, 0]), int(here[0, 1])))
        return np.array(path, dtype=np.int64)


def _cell_array(name: str, cells: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``cells`` (one ``(x, y)`` or ``(n, 2)``) as ``(n, 2)`` int64 after checking that they
    are whole numbers inside an ``(H, W)`` ``shape``."""
    try:
        arr = reals(name, cells)
    except InvalidQueryError:
        arr = np.empty(1)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim not in (1, 2) or arr.shape[-1:] != (2,) or not np.isfinite(arr).all() \
            or (arr != np.floor(arr)).any():
        raise InvalidQueryError(f"{name} {brief(cells)} must be an (x, y) cell or an (n, 2) "
                                "array of them (whole numbers)")
    c = arr.reshape(-1, 2)
    h, w = shape
    outside = (c[:, 0] < 0) | (c[:, 0] >= w) | (c[:, 1] < 0) | (c[:, 1] >= h)
    if outside.any():
        x, y = c[np.argmax(outside)].astype(np.int64).tolist()
        raise InvalidQueryError(f"{name}: cell {(x, y)} is outside the {w}x{h} grid")
    return c.astype(np.int64)


def _check(value: Any, name: str, *, positive: bool = False) -> None:
    number(name, value, min=0 if positive else -math.inf, min_open=positive)
