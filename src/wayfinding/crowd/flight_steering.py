"""Steering behaviours for flying agents, on plain arrays in 3D.

Each function takes the agents' ``(n, 3)`` float64 positions and velocities (world units,
world units per second) and returns every agent's steering, ``(n, 3)``: the change of
velocity it asks for (a desired velocity minus the current one), as the 2D behaviours of
:mod:`wayfinding.crowd.steering` do.  ``velocity + steering`` is the desired velocity;
:class:`~wayfinding.crowd.flight.FlightCrowd` hands it to ORCA as the preferred one.

>>> pos, vel = np.zeros((1, 3)), np.zeros((1, 3))
>>> arrive3(pos, vel, [(0.0, 0.0, 4.0)], np.array([2.0]), slowing=1.0).tolist()
[[0.0, 0.0, 2.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels import _orca3d
from .._validate import count, finite_point, positive_float
from ..errors import InvalidQueryError


def _array(value: Any, n: int, name: str) -> np.ndarray:
    """``value`` as a finite ``(n, 3)`` float64 array (one ``(3,)`` point is repeated)."""
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.empty(0)
    if a.shape == (3,):
        a = np.broadcast_to(a, (n, 3))
    if a.shape != (n, 3) or not np.isfinite(a).all():
        raise InvalidQueryError(f"{name} must be a finite (x, y, z) point or an ({n}, 3) "
                                "array")
    return a


def _speeds(value: Any, n: int, name: str = "max_speed", *, top: float = math.inf
            ) -> np.ndarray:
    """A number or one per agent, each >= 0 and finite (at most ``top``), as ``(n,)``
    float64."""
    try:
        v = np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)))
    except (TypeError, ValueError):
        v = np.empty(0)
    if v.shape != (n,) or not (np.isfinite(v).all() and (v >= 0).all() and (v <= top).all()):
        within = "" if top == math.inf else f" and at most {top:g}"
        raise InvalidQueryError(f"{name} must be >= 0 and finite{within}: a number or one "
                                f"per agent ({n})")
    return v


def _points(position: Any) -> np.ndarray:
    """``position`` as a finite, C-contiguous ``(n, 3)`` float64 array."""
    try:
        p = np.ascontiguousarray(position, dtype=np.float64)
    except (TypeError, ValueError):
        p = np.empty(0)
    if p.ndim != 2 or p.shape[1] != 3 or not np.isfinite(p).all():
        raise InvalidQueryError(f"position must be a finite (n, 3) array, got shape "
                                f"{p.shape}")
    return p


def _state(position: Any, velocity: Any) -> tuple[np.ndarray, np.ndarray]:
    p = _points(position)
    return p, _array(velocity, len(p), "velocity")


def _lengths(vectors: np.ndarray) -> np.ndarray:
    """The lengths of ``vectors`` (``(n, 3)``), taken in units of each one's largest
    component: no square overflows or underflows."""
    big = np.abs(vectors).max(1, initial=0.0)
    unit = np.divide(vectors, big[:, None], out=np.zeros_like(vectors),
                     where=big[:, None] > 0)
    return big * np.sqrt((unit * unit).sum(1))


def _towards(vectors: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """``vectors`` (``(n, 3)``) scaled to lengths ``speed`` (``(n,)``); zero vectors stay
    zero."""
    length = _lengths(vectors)
    scale = np.divide(speed, length, out=np.zeros_like(length), where=length > 0)
    return vectors * scale[:, None]


def seek3(position: Any, velocity: Any, target: Any, max_speed: Any) -> np.ndarray:
    """Top speed straight at ``target`` (one point or one per agent)."""
    p, v = _state(position, velocity)
    t = _array(target, len(p), "target")
    return _towards(t - p, _speeds(max_speed, len(p))) - v


def arrive3(position: Any, velocity: Any, target: Any, max_speed: Any, *,
           slowing: float = 1.0, dt: float | None = None) -> np.ndarray:
    """Towards ``target``, slowing linearly within ``slowing`` (world units, > 0) of it so
    as to stop on it; with ``dt`` (s), never faster than reaches it in one step of ``dt``
    (so a step lands on the target instead of overshooting)."""
    slowing = positive_float("slowing", slowing)
    p, v = _state(position, velocity)
    t = _array(target, len(p), "target")
    top = _speeds(max_speed, len(p))
    to = t - p
    dist = _lengths(to)
    with np.errstate(over="ignore"):        # beyond any float: no slowing, no cap
        speed = np.minimum(top, top * dist / slowing)
        if dt is not None:
            speed = np.minimum(speed, dist / positive_float("dt", dt))
    return _towards(to, speed) - v


def separation3(position: Any, velocity: Any, max_speed: Any, *, distance: float = 3.0,
               max_neighbours: int = 10) -> np.ndarray:
    """Away from the neighbours within ``distance`` (centre to centre, the
    ``max_neighbours`` nearest), each pushing in proportion to 1 / its distance (at most
    1e300), at top speed at most; agents with no neighbour (or all exactly on them) ask for
    nothing."""
    distance = positive_float("distance", distance)
    k = count("max_neighbours", max_neighbours, min=0)
    p, v = _state(position, velocity)
    top = _speeds(max_speed, len(p))
    rows, _ = neighbours3(p, distance=distance, max_neighbours=k)
    ok = rows >= 0
    d = p[:, None, :] - p[np.where(ok, rows, 0)]
    gap = _lengths(d.reshape(-1, 3)).reshape(d.shape[:2])
    live = ok & (gap > 0)
    gap = np.where(live, gap, 1.0)
    with np.errstate(over="ignore"):
        # Unit vector over distance (each at most 1e300: no square under- or overflows).
        push = np.where(live[..., None],
                        d / gap[..., None] * np.minimum(1.0 / gap, 1e300)[..., None], 0)
        total = push.sum(1)
        length = _lengths(total)
        speed = np.minimum(top, length * top)
    return _towards(total, speed) - np.where((length > 0)[:, None], v, 0)


def neighbours3(position: Any, *, distance: Any, max_neighbours: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each point's nearest other points closer than ``distance`` (a number or one per
    point, > 0; strictly closer, RVO2-3D's rule), at most ``max_neighbours``: ``(rows,
    counts)``, ``rows`` ``(n, max_neighbours)`` int32, nearest first (ties to the lower
    row), -1 past ``counts`` (``(n,)`` int32).  Compiled, through uniform buckets: about
    linear in n for a bounded density."""
    p = _points(position)
    k = count("max_neighbours", max_neighbours, min=0)
    n = len(p)
    try:
        ranges = np.array(np.broadcast_to(np.asarray(distance, dtype=np.float64), (n,)))
    except (TypeError, ValueError):
        ranges = np.empty(0)
    if ranges.shape != (n,) or not (np.isfinite(ranges).all() and (ranges > 0).all()):
        raise InvalidQueryError(f"distance must be > 0 and finite: a number or one per "
                                f"point ({n})")
    rows = np.empty((n, k), dtype=np.int32)
    counts = _orca3d.nearest(p, ranges, k, rows, np.empty((n, k)))
    return rows, counts


def avoid_voxels(position: Any, free: np.ndarray, origin: Any, voxel_size: float,
                 half: Any, margin: Any, *, speed: Any = 1.0,
                 normal_speed: Any = None) -> np.ndarray:
    """A velocity away from the blocked voxels near each agent, found by sampling the 27
    voxels around its own (compiled): ``(n, 3)``, at most ``speed`` long.  Each blocked
    voxel (outside the grid counts as blocked) that the agent's box grown by ``margin``
    overlaps adds w * (``normal_speed`` * a_n + ``speed`` * a_t): a is the unit vector
    from the voxel's centre to the agent's, a_n its part along the axis of least overlap
    (the contact normal), a_t the rest (along the wall, round its edges), w how deep the
    grown box reaches into the voxel along that axis over ``margin``, at most 1 (the box
    itself touches it).  ``normal_speed`` (default ``speed``) at most the margin over the
    time step keeps a push off one wall from throwing the agent at the opposite one.

    ``free``: a voxel grid's padded array (``VoxelGrid.padded``, voxel (x, y, z) at ``[z +
    1, y + 1, x + 1]``, 1 = free); ``origin`` and ``voxel_size`` its world transform;
    ``half`` (the box's half-edge), ``margin`` (> 0), ``speed`` and ``normal_speed`` (>=
    0): a number or one per agent, with ``half + margin`` below one voxel (so that the 27
    voxels hold every one the grown box can overlap)."""
    p = _points(position)
    n = len(p)
    s = positive_float("voxel_size", voxel_size)
    h, m = _speeds(half, n, "half"), _speeds(margin, n, "margin")
    if not ((m > 0).all() and (h + m < s).all()):
        raise InvalidQueryError("margin must be > 0, and half + margin below one voxel")
    top = _speeds(speed, n, "speed")
    across = top if normal_speed is None else _speeds(normal_speed, n, "normal_speed")
    o = finite_point("origin", origin, 3)
    f = np.ascontiguousarray(free, dtype=np.uint8)
    if f.ndim != 3 or min(f.shape) < 2:
        raise InvalidQueryError(f"free must be a padded voxel array [z, y, x], got shape "
                                f"{f.shape}")
    out = np.empty((n, 3))
    _orca3d.voxel_push(f, o[0], o[1], o[2], s, p, h, m, across, top, out)
    return out
