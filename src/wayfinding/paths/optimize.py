"""Smooth paths through a corridor of clearance disks by convex optimisation (after Langerak):
minimise

    E(v) = 1/2 || w * ds(v) ||^2  +  || d+(v) ||  +  [every v_i inside its disk]

over the waypoints v (norms over all waypoints: the first is the squared 2-norm of the
kinks, the second the 2-norm of the steps), with the Chambolle–Pock preconditioned
primal–dual algorithm, every update a numpy expression over all waypoints.

``ds(v)_i = (2 v_i - v_{i-1} - v_{i+1}) / h`` is the kink at waypoint i (the deviation from
the line through its neighbours), ``d+(v)_i = (v_{i+1} - v_i) / h`` the step, ``h`` the mean
distance between the disk centres.  Dummy waypoints before the start (``start - facing``)
and after the goal (``goal + facing``) sit in zero-radius disks, like the start and the goal,
so the path leaves and arrives along the facing directions.  Weights ``w`` trade smoothness
(high) for length (low): with ``w = 0`` the result is the shortest path through the disks,
its waypoints evenly spaced.

The constraint holds the waypoints only: the segments between them may still cut across
whatever the disks steer around (a wall corner between two disks).  Given ``clear``, a test
of segments, the result is made legal afterwards: the ends of each segment that fails are
pulled halfway back towards their disk centres until every segment passes
(:func:`grid_clear` tests against a grid's blocked cells).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, count, flag, number, positive_float, reals
from ..errors import InvalidQueryError
from ..geometry.obstacles import Obstacles
from ..results import _fields_equal

if TYPE_CHECKING:
    from ..grid.grid import Grid

#: Rounds of halving the way back to the disk centres before the waypoints of failing
#: segments are put on the centres themselves.
_PULLBACK_ROUNDS = 30


@dataclass(frozen=True)
class SmoothPath:
    """``points``: ``(n, 2)`` waypoints from the start to the goal (dummies dropped);
    ``energy``: E after each iteration (when asked for); ``history``: the waypoints after
    each iteration (when asked for)."""

    points: np.ndarray
    energy: np.ndarray
    history: np.ndarray | None

    __eq__ = _fields_equal

    @property
    def length(self) -> float:
        return float(np.hypot(*np.diff(self.points, axis=0).T).sum())


def bathtub_weights(n: int, start: float, end: float, middle: float) -> np.ndarray:
    """Per-waypoint weights for ``n`` waypoints (dummies included): ``start`` and ``end`` at
    the start and the goal, falling to ``middle`` by a fourth power, 0 on the dummies."""
    n = count("n", n, min=4)
    allocation(f"{n} waypoint weights", n)
    i = np.arange(1, n + 1, dtype=np.float64)
    w = np.zeros(n)
    span = max(n - 3, 1)
    first = (i >= 2) & (i <= n / 2)
    second = (i > n / 2) & (i <= n - 1)
    w[first] = middle + (start - middle) * (-2 * (i[first] - 2) / span + 1) ** 4
    w[second] = middle + (end - middle) * (2 * (i[second] - 2) / span - 1) ** 4
    return w


def step_forward(v: np.ndarray, h: float) -> np.ndarray:
    """``d+``: ``(v_{i+1} - v_i) / h``, 0 at the last waypoint."""
    out = np.zeros_like(v)
    out[:-1] = (v[1:] - v[:-1]) / h
    return out


def step_backward(v: np.ndarray, h: float) -> np.ndarray:
    """``d-``, the negative adjoint of ``d+``: ``v_1 / h``, ``(v_i - v_{i-1}) / h``,
    ``-v_{n-1} / h``."""
    out = np.empty_like(v)
    out[0] = v[0] / h
    out[1:-1] = (v[1:-1] - v[:-2]) / h
    out[-1] = -v[-2] / h
    return out


def kink(v: np.ndarray, h: float) -> np.ndarray:
    """``ds = d- - d+`` (symmetric): ``(2 v_i - v_{i-1} - v_{i+1}) / h`` inside."""
    return step_backward(v, h) - step_forward(v, h)


def project(v: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Each point moved to the nearest point of its disk."""
    d = v - centres
    norm = np.linalg.norm(d, axis=1)
    scale = np.divide(radii, norm, out=np.ones_like(norm), where=norm > radii)
    return centres + d * scale[:, None]


def energy(v: np.ndarray, w: np.ndarray, h: float) -> float:
    """E(v) without the constraint term."""
    return 0.5 * float(np.sum((w[:, None] * kink(v, h)) ** 2)) + \
        float(np.sqrt(np.sum(step_forward(v, h) ** 2)))


def smooth_corridor(centres: ArrayLike, radii: ArrayLike, facing_start: ArrayLike,
                    facing_goal: ArrayLike, *, weights: ArrayLike = (10.0, 10.0, 2.0),
                    iterations: int = 100, alpha: float = 1.0, beta: float = 1.0,
                    trace: bool = False,
                    clear: Callable[[np.ndarray, np.ndarray], ArrayLike] | None = None
                    ) -> SmoothPath:
    """The smoothed path through disks ``centres`` (``(m, 2)``; the first is the start, the
    last the goal, both kept fixed) of ``radii``, leaving along ``facing_start`` and
    arriving along ``facing_goal`` (nonzero vectors; their length is the dummies' distance).
    ``weights``: ``(start, end, middle)`` for :func:`bathtub_weights`, or one weight per
    waypoint including the two dummies (``m + 2``).  ``alpha`` (0 < alpha < 2) and ``beta``
    (> 0) set the step sizes.  ``trace`` keeps the energy and the waypoints per iteration.

    The disks bound the waypoints, not the segments between them.  ``clear``: a function
    of segment starts and ends (two ``(k, 2)`` arrays) giving ``k`` bools, true where a
    segment is legal; the ends of every failing segment are then pulled halfway to their
    disk centres, round after round, and finally onto them, so every segment of
    ``points`` passes (``energy`` and ``history`` are the iterations' before that).  If
    a segment between two disk centres fails, :class:`InvalidQueryError` is raised."""
    trace = flag("trace", trace)
    c = reals("centres", centres)
    r = reals("radii", radii)
    if c.ndim != 2 or c.shape[1] != 2 or len(c) < 2 or not np.isfinite(c).all():
        raise InvalidQueryError("centres must be an (m, 2) array of finite points, m >= 2")
    if r.shape != (len(c),) or not np.isfinite(r).all() or (r < 0).any():
        raise InvalidQueryError("radii must be m finite numbers >= 0")
    fs, fg = reals("facing_start", facing_start), reals("facing_goal", facing_goal)
    for name, f in (("facing_start", fs), ("facing_goal", fg)):
        if f.shape != (2,) or not np.isfinite(f).all() or not np.any(f):
            raise InvalidQueryError(f"{name} must be a nonzero (x, y) vector")
    iterations = count("iterations", iterations, min=0)
    alpha = number("alpha", alpha, min=0, max=2, min_open=True, max_open=True)
    beta = positive_float("beta", beta)
    centres_all = np.concatenate([c[:1] - fs, c, c[-1:] + fg])
    n = len(centres_all)
    allocation(f"{iterations} iterations over {n} waypoints", iterations * n)
    radii_all = np.concatenate([[0.0], r, [0.0]])
    radii_all[1] = radii_all[-2] = 0.0                 # the start and the goal stay put
    w_in = reals("weights", weights)
    if w_in.shape == (3,):
        w = bathtub_weights(n, *w_in.tolist())
    elif w_in.shape == (n,):
        w = w_in.copy()
        w[0] = w[-1] = 0.0
    else:
        raise InvalidQueryError(f"weights must be (start, end, middle) or {n} numbers")
    if not np.isfinite(w).all() or (w < 0).any():
        raise InvalidQueryError("weights must be finite and >= 0")
    steps = np.linalg.norm(np.diff(centres_all[1:-1], axis=0), axis=1)
    h = float(steps.mean()) if len(steps) and steps.mean() > 0 else 1.0
    # Diagonal preconditioning (Pock and Chambolle 2011).
    wa = np.where(w > 0, w, 1.0) ** alpha
    sigma = np.where(w > 0, h ** alpha / ((2 + 2 ** alpha) * beta * wa), 0.0)
    mu = h ** alpha / (2 * beta)
    wp = np.pad(w, 1)
    tau = beta * h ** (2 - alpha) / (2 + wp[:-2] ** (2 - alpha) + (2 * wp[1:-1]) ** (2 - alpha)
                                     + wp[2:] ** (2 - alpha))
    v = centres_all.copy()
    v_bar = v.copy()
    p = np.zeros_like(v)
    q = np.zeros_like(v)
    energies, history = [], []
    for _ in range(iterations):
        p = (p + sigma[:, None] * (w[:, None] * kink(v_bar, h))) / (1 + sigma[:, None])
        q = q + mu * step_forward(v_bar, h)
        q[0] = q[-2] = q[-1] = 0.0                     # steps between fixed waypoints
        q /= max(1.0, float(np.sqrt(np.sum(q ** 2))))
        grad = kink(w[:, None] * p, h) - step_backward(q, h)
        v_new = project(v - tau[:, None] * grad, centres_all, radii_all)
        v_bar = 2 * v_new - v
        v = v_new
        if trace:
            energies.append(energy(v, w, h))
            history.append(v[1:-1].copy())
    points = v[1:-1].copy()
    if clear is not None:
        points = _legal(points, c, clear)
    return SmoothPath(points, np.array(energies),
                      np.array(history) if trace else None)


def _legal(points: np.ndarray, centres: np.ndarray,
           clear: Callable[[np.ndarray, np.ndarray], ArrayLike]) -> np.ndarray:
    """``points`` with the ends of each segment failing ``clear`` pulled halfway back to
    their ``centres`` until every segment passes (onto the centres after
    :data:`_PULLBACK_ROUNDS` rounds)."""
    for round_ in range(_PULLBACK_ROUNDS + 2):
        ok = np.asarray(clear(points[:-1], points[1:]), dtype=bool)
        if ok.shape != (len(points) - 1,):
            raise InvalidQueryError(f"clear must give {len(points) - 1} bools, got shape "
                                    f"{ok.shape}")
        if ok.all():
            return points
        if round_ > _PULLBACK_ROUNDS:
            i = int(np.flatnonzero(~ok)[0])
            raise InvalidQueryError(f"the segment between disk centres {i} and {i + 1} is "
                                    "not clear")
        move = np.zeros(len(points), dtype=bool)
        move[:-1] |= ~ok
        move[1:] |= ~ok
        if round_ < _PULLBACK_ROUNDS:
            points[move] = (points[move] + centres[move]) / 2
        else:
            points[move] = centres[move]
    raise AssertionError("unreachable")  # pragma: no cover


def grid_clear(grid: Grid) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A ``clear`` test for :func:`smooth_corridor` in :func:`grid_corridor`'s cell units:
    a segment passes unless it enters the inside of a blocked cell (touching one is fine)."""
    walls = Obstacles.from_grid(grid)
    origin, size = np.asarray(grid.origin, dtype=np.float64), float(grid.cell_size)

    def clear(p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return walls.segments_clear(origin + p * size, origin + q * size)

    return clear


def grid_corridor(grid: Grid, cells: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Clearance disks along a grid path: the cells' centres (cell units) and, as radii,
    the distance from each centre to the nearest blocked cell (or the map's edge) less
    half a diagonal, so every disk lies in free space."""
    p = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
    if len(p) < 2:
        raise InvalidQueryError("a corridor needs a path of 2 cells or more")
    d = grid.obstacle_distance[p[:, 1], p[:, 0]]
    return p + 0.5, np.maximum(d - math.sqrt(0.5), 0.0)
