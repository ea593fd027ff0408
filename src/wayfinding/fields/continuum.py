"""Continuum crowds and the hybrid vector field (Treuille et al.; Moersch and Hamilton).

:class:`ContinuumField` turns a group's units into a velocity field over a grid, every update:

1. *density and velocity*: each unit adds ``1 - distance / radius`` (at least 0) to the cells
   around it, and its velocity weighted the same way (then divided by the density);
2. *speed and cost* (anisotropic, per cell and direction +x, -x, +y, -y): looking ``offset``
   cells ahead, the flow speed is 1 below density ``rho_min``, the crowd's velocity along
   that direction (clamped to [0, 1]) above ``rho_max``, linear between; the step costs
   ``alpha + beta / speed`` (1 in free space; 4.6 at speed 0.2 with the defaults), and
   ``inf`` into walls;
3. *potential*: fast marching from the goal cells with the anisotropic update
   ``((P - Px) / Cx)^2 + ((P - Py) / Cy)^2 = 1`` (per axis the cheaper entry);
4. *velocities*: the unit negative gradient of the potential scaled, per axis, by the speed
   in the direction it points.

Units read their target velocity at their expected position ``lookahead`` seconds ahead,
interpolated bilinearly (:meth:`ContinuumField.sample`).  :class:`HybridPlanner` adds the
long range: a path over a navigation mesh picks where the group's region ends (the
*destination point*), and the field is built over that region only.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> field = ContinuumField(Grid(np.ones((8, 12), dtype=bool)))
>>> field.update(positions=[], velocities=[], goals=[(11, 4)])
>>> field.sample([(2.0, 4.0)]).round(3).tolist()         # free space: full speed to the goal
[[1.0, 0.0]]
>>> ContinuumParams().cost_at(0.2)                         # the paper's worked value
4.6
"""

from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._kernels import _continuum_fields, _continuum_potential
from .._scratch import SingleThread, exclusive
from .._validate import choice, count, finite_points, positive_float
from ..errors import InvalidQueryError
from ..grid.grid import Grid
from ..navmesh import NavMesh
from ..results import _fields_equal
from .flow import bilinear


@positional_options("alpha", "beta", "rho_min", "rho_max", "radius", "offset", "min_speed",
                    "lookahead")
@dataclass(frozen=True, kw_only=True)
class ContinuumParams:
    """Weights and thresholds of the continuum crowd (the paper's alpha 0.1, beta 0.9).

    ``radius``: a unit's density splat, in cells; ``offset``: cells ahead where speed looks;
    ``min_speed``: the floor of the flow speed (so costs stay finite); ``lookahead``: seconds
    ahead that units sample the field.
    """

    alpha: float = 0.1
    beta: float = 0.9
    rho_min: float = 0.5
    rho_max: float = 1.5
    radius: float = 1.5
    offset: int = 1
    min_speed: float = 0.05
    lookahead: float = 0.75

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "rho_min", "rho_max", "radius", "min_speed",
                     "lookahead"):
            positive_float(name, getattr(self, name), allow_zero=True)
        if self.alpha + self.beta <= 0 or self.radius <= 0 or not 0 < self.min_speed <= 1:
            raise InvalidQueryError("alpha + beta and radius must be > 0, min_speed in (0, 1]")
        if self.rho_max <= self.rho_min:
            raise InvalidQueryError(f"rho_max {self.rho_max} must exceed rho_min "
                                    f"{self.rho_min}")
        count("offset", self.offset, max=2**31 - 1)      # the kernel's C int

    def cost_at(self, speed: float) -> float:
        """The step cost at a flow speed: alpha + beta / speed."""
        return round(self.alpha + self.beta / max(speed, self.min_speed), 12)


class ContinuumField(SingleThread):
    """A group's continuum-crowd fields over ``grid`` (cells; its walls stay walls).
    :meth:`update` recomputes them all; the arrays are ``(H, W)``-shaped views indexed
    ``[y, x]`` (``speed`` and ``cost``: ``(4, H, W)``, directions +x, -x, +y, -y).

    ``threads``: 1 (default) keeps the update on the calling thread; 2 lets a helper thread
    share the set-up and write the velocity field behind the march on machines with more
    than one core.  The update never waits for the helper to come, but it helps only when
    it is awake and its core idle: updates run back to back (a simulation stepping as fast
    as it can) gain about 15% from 128² cells up, while one update per frame with the core
    asleep in between can lose.  Results are identical.

    The field keeps its update's working arrays: one thread at a time may update it (an
    update while another thread's runs raises :class:`~wayfinding.errors.ConcurrentUseError`).
    """

    @positional_options("params")
    def __init__(self, grid: Grid, *, params: ContinuumParams | None = None,
                 threads: int = 1):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        choice("threads", threads, (1, 2))
        self.threads = threads
        self.grid = grid
        self.params = params or ContinuumParams()
        h, w = grid.shape
        self._shape = (h + 2, w + 2)
        walls = np.ones(self._shape, dtype=np.uint8)
        walls[1:-1, 1:-1] = ~grid.passable
        self._walls = walls.ravel()
        n = walls.size
        # Per padded cell: potential, best entries (4), density, velocity sums (x, y).
        self._cells = _cache_aligned(n, 8)
        self._cells[:, 0] = np.inf
        prm = self.params
        ring = _continuum_potential.ring_size(prm.alpha, prm.beta, prm.min_speed)
        self._link = np.zeros((n + ring + 1, 2), dtype=np.int32)   # the march's queue, empty
        self._link[n:n + ring, 0] = n + ring
        self._bits = np.zeros(ring // 64, dtype=np.uint64)
        self._order = np.zeros(n, dtype=np.int32)
        self._shared = np.zeros(_continuum_potential.shared_words(), dtype=np.uint64)
        self._epoch = 0
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self.vectors = np.zeros((h, w, 2))

    def _view(self, flat: np.ndarray) -> np.ndarray:
        return flat.reshape(self._shape)[1:-1, 1:-1]

    @property
    def density(self) -> np.ndarray:
        return self._view(self._cells[:, 5])

    @property
    def velocity(self) -> np.ndarray:
        """``(H, W, 2)`` density-weighted mean velocity of the units over each cell."""
        rho = self.density[..., None]
        sums = np.stack([self._view(self._cells[:, 6]), self._view(self._cells[:, 7])],
                        axis=-1)
        return np.divide(sums, rho, out=np.zeros_like(sums), where=rho > 0)

    @property
    def speed(self) -> np.ndarray:
        return self._speed_and_cost()[0]

    @property
    def cost(self) -> np.ndarray:
        return self._speed_and_cost()[1]

    @property
    def potential(self) -> np.ndarray:
        return self._view(self._cells[:, 0])

    def _speed_and_cost(self) -> tuple[np.ndarray, np.ndarray]:
        """The full speed and cost maps, computed on first use after an update (the update
        itself computes each step cost only where the march needs it)."""
        if self._maps is None:
            n = self._cells.shape[0]
            speed, cost = np.zeros((n, 4)), np.zeros((n, 4))
            h, w = self.grid.shape
            prm = self.params
            _continuum_fields.speed_and_cost(self._cells, self._walls, w, h, prm.offset,
                                             prm.rho_min, prm.rho_max, prm.alpha, prm.beta,
                                             prm.min_speed, speed, cost)
            speed_map, cost_map = (np.moveaxis(a.reshape(self._shape + (4,))[1:-1, 1:-1], -1, 0)
                                   for a in (speed, cost))
            self._maps = speed_map, cost_map
        return self._maps

    @exclusive
    def update(self, positions: ArrayLike, velocities: ArrayLike, goals: ArrayLike) -> None:
        """Recompute every field from the units' ``positions`` and ``velocities`` (``(n,
        2)``, cells; a cell's centre is at its (x, y)) towards ``goals`` (``(x, y)`` cells,
        potential 0)."""
        p, v = _units(positions, velocities)
        h, w = self.grid.shape
        flat = np.array([(y + 1) * (w + 2) + x + 1 for x, y in _goal_cells(self.grid, goals)],
                        dtype=np.int32)
        prm = self.params
        self._maps = None
        # The arguments update() and assist() share, in the kernels' order.
        common = (self._walls, p, v)
        grid = (w, h, prm.radius, prm.offset, prm.rho_min, prm.rho_max, prm.alpha, prm.beta,
                prm.min_speed, self.vectors)
        epoch = 0
        if self.threads == 2 and _HELPER.available:
            self._epoch += 1
            epoch = self._epoch
            _HELPER.post((self._cells, self._order, self._shared, *common, *grid, epoch))
        _continuum_potential.update(*(self._cells, self._link, self._bits, self._order,
                                      self._shared, *common, flat, *grid, epoch))

    def sample(self, points: ArrayLike) -> np.ndarray:
        """Velocities at ``points`` (``(k, 2)``), interpolated bilinearly from the four
        cells around each; walls and unreachable cells are left out (weights renormalised);
        zero where none is usable."""
        return bilinear(self.vectors, np.isfinite(self.potential), points)[0]

    def targets(self, positions: ArrayLike, velocities: ArrayLike) -> np.ndarray:
        """Each unit's target velocity (in units of its top speed): the field sampled at
        where it will be ``lookahead`` seconds ahead on its current course."""
        p, v = _units(positions, velocities)
        return self.sample(p + self.params.lookahead * v)


class _Helper:
    """One daemon thread that helps continuum updates
    (:func:`_continuum_potential.assist`): an update posts its arrays and goes on at once;
    the helper joins in when it wakes, or finds the update over and skips it.  Nothing ever
    waits for it to come, so a busy or sleeping second core costs nothing but its help.
    (Restarted in a forked child.)"""

    def __init__(self) -> None:
        self.available = (os.cpu_count() or 1) > 1
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def post(self, job: tuple) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._run, args=(self._jobs,),
                                                name="wayfinding-continuum", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    @staticmethod
    def _run(jobs: queue.SimpleQueue) -> None:
        while True:
            _continuum_potential.assist(*jobs.get())


_HELPER = _Helper()


def _cache_aligned(rows: int, cols: int) -> np.ndarray:
    """A zeroed float64 ``(rows, cols)`` array starting on a 64-byte boundary (so that each
    64-byte row of cells lies in one cache line)."""
    buf = np.zeros(rows * cols + 8)
    skip = (-buf.ctypes.data % 64) // 8
    return buf[skip:skip + rows * cols].reshape(rows, cols)


def _units(positions: Any, velocities: Any) -> tuple[np.ndarray, np.ndarray]:
    """Units' ``positions`` and ``velocities`` as two ``(n, 2)`` float64 arrays, checked to
    be finite numbers of one length (an empty sequence is no units)."""
    p, v = (_unit_array(name, value) for name, value in
            (("positions", positions), ("velocities", velocities)))
    if p.shape != v.shape:
        raise InvalidQueryError(f"positions and velocities must be finite (n, 2) arrays of "
                                f"one length, got {len(p)} positions and {len(v)} velocities")
    return p, v


def _unit_array(name: str, value: Any) -> np.ndarray:
    if type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == 2 \
            and value.shape[1] == 2 and np.isfinite(value).all():     # the common case
        return np.ascontiguousarray(value)
    if isinstance(value, (list, tuple)) and len(value) == 0:
        return np.empty((0, 2))
    if isinstance(value, np.ndarray) and value.size == 0 and value.dtype.kind in "iuf":
        return np.empty((0, 2))
    return finite_points(name, value)[0]


def _goal_cells(grid: Grid, goals: Any) -> list[tuple[int, int]]:
    cells = grid.cells(goals, name="goal", passable=True)
    if not cells:
        raise InvalidQueryError("give at least one goal cell")
    return cells


@dataclass
class HybridPlan:
    """One group's plan: the long-range ``path`` (``(n, 2)`` points, cells' centres at their
    (x, y)), the ``region`` ``(x0, y0, x1, y1)`` (cells, inclusive) the field covers, the
    ``destination`` cell the field leads to, and the ``field`` over the region."""

    path: np.ndarray
    region: tuple[int, int, int, int]
    destination: tuple[int, int]
    field: ContinuumField

    __eq__ = _fields_equal

    def targets(self, positions: ArrayLike, velocities: ArrayLike) -> np.ndarray:
        """Each unit's target velocity (see :meth:`ContinuumField.targets`), in map
        coordinates."""
        p, v = _units(positions, velocities)
        return self.field.targets(p - self.region[:2], v)


class HybridPlanner:
    """Hybrid vector-field pathfinding over ``grid``: a navigation mesh of the grid for the
    long range (built once with the subtractive method; needs the ``[geometry]`` extra) and
    a :class:`ContinuumField` over each group's region (its units' bounds grown by ``margin``
    cells, on the grid's cells).
    """

    @positional_options("params")
    def __init__(self, grid: Grid, *, params: ContinuumParams | None = None,
                 margin: int = 8):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        margin = count("margin", margin)
        self.grid = grid
        self.params = params or ContinuumParams()
        self.margin = margin
        self.mesh = NavMesh.build(grid, method="subtractive")

    def plan(self, positions: ArrayLike, velocities: ArrayLike, goal: ArrayLike) -> HybridPlan:
        """The plan of a group (``(n, 2)`` positions and velocities, n >= 1) for ``goal``
        (a cell): long-range path from the unit nearest the group's mean position, region,
        destination point (where the path leaves the region, or the goal inside it) and the
        field towards it."""
        p, v = _units(positions, velocities)
        if not len(p):
            raise InvalidQueryError("a group needs at least one unit")
        h, w = self.grid.shape
        off = (p[:, 0] < -0.5) | (p[:, 0] > w - 0.5) | (p[:, 1] < -0.5) | (p[:, 1] > h - 0.5)
        if off.any():
            raise InvalidQueryError(f"unit at {tuple(p[np.argmax(off)].tolist())} is off the "
                                    f"{w}x{h} grid")
        gx, gy = self.grid.cell(goal, name="goal", passable=True)
        lead = p[np.argmin(np.hypot(*(p - p.mean(axis=0)).T))]
        found = self.mesh.find_path(lead + 0.5, (gx + 0.5, gy + 0.5))
        path = found.path - 0.5 if found.found else np.array([lead, (gx, gy)], dtype=float)
        lo = np.floor(p.min(axis=0)).astype(int) - self.margin
        hi = np.ceil(p.max(axis=0)).astype(int) + self.margin
        x0, y0 = max(int(lo[0]), 0), max(int(lo[1]), 0)
        x1, y1 = min(int(hi[0]), w - 1), min(int(hi[1]), h - 1)
        region = (x0, y0, x1, y1)
        sub = Grid(self.grid.costs[y0:y1 + 1, x0:x1 + 1], diagonal=self.grid.diagonal)
        dest = _destination(path, region, sub, lead)
        field = ContinuumField(sub, params=self.params)
        field.update(p - (x0, y0), v, [(dest[0] - x0, dest[1] - y0)])
        return HybridPlan(path, region, dest, field)


def _destination(path: np.ndarray, region: tuple[int, int, int, int], sub: Grid,
                 lead: np.ndarray) -> tuple[int, int]:
    """Walk ``path`` in half-cell steps until it leaves ``region``; the destination is the
    last point passed that lies on a cell the leading unit can reach inside the region (a
    path hugging a corner may cut through cells the region cannot connect)."""
    x0, y0, x1, y1 = region
    comp = sub.components
    lx, ly = np.clip(np.round(lead).astype(int) - (x0, y0), 0, (x1 - x0, y1 - y0))
    home = comp[ly, lx]
    if home < 0:  # the leader stands on a wall cell's edge: take its nearest free cell
        ys, xs = np.nonzero(comp >= 0)
        k = int(np.argmin(np.hypot(xs - lx, ys - ly)))
        lx, ly, home = int(xs[k]), int(ys[k]), comp[ys[k], xs[k]]
    # The path in half-cell steps, up to its first point outside the region.
    pts = [path[:1]]
    for a, b in zip(path[:-1], path[1:]):
        n = max(int(np.ceil(np.hypot(*(b - a)) * 2)), 1)
        pts.append(a + np.linspace(0, 1, n + 1)[1:, None] * (b - a))
    q = np.concatenate(pts)
    inside = (q[:, 0] >= x0 - 0.5) & (q[:, 0] <= x1 + 0.5) & (q[:, 1] >= y0 - 0.5) \
        & (q[:, 1] <= y1 + 0.5)
    leave = int(np.argmin(inside)) if not inside.all() else len(q)
    q = q[:leave]
    cx = np.clip(np.floor(q[:, 0] + 0.5).astype(int), x0, x1)
    cy = np.clip(np.floor(q[:, 1] + 0.5).astype(int), y0, y1)
    ok = np.flatnonzero(comp[cy - y0, cx - x0] == home)
    if not len(ok):
        return int(lx) + x0, int(ly) + y0
    return int(cx[ok[-1]]), int(cy[ok[-1]])
