"""Smoothing voxel paths for flight: line-of-sight shortcuts in 3D, then a centripetal
Catmull–Rom spline through the corners kept, checked to stay in free space.

Points are in voxel units (voxel ``(x, y, z)`` is the cube ``[x, x + 1] x ...``, its centre
``(x + 0.5, ...)``) inside the functions and in world units (``grid.origin + p *
grid.voxel_size``) where a function says so.

>>> import numpy as np
>>> from wayfinding.voxel.grid import VoxelGrid
>>> g = VoxelGrid(np.zeros((1, 3, 3), bool))
>>> shortcut_voxels(g, [(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (2, 2, 0)]).tolist()
[[0, 0, 0], [2, 2, 0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels import _svo
from ..errors import InvalidQueryError
from .grid import VoxelGrid


def shortcut_voxels(grid: VoxelGrid, cells: Any) -> np.ndarray:
    """The corners kept by greedy string pulling of a voxel path (``(n, 3)`` cells, free):
    from each kept cell, the furthest later cell before the first one out of its sight
    (:func:`wayfinding.voxel.sight.line_of_sight`, exact).  ``int64[k, 3]``; the first and
    last cells are kept, and each pair of consecutive corners sees each other, so the
    polyline through their centres can be flown."""
    c = np.ascontiguousarray(grid.cells(cells, name="cells", free=True))
    if len(c) < 3:
        return c.copy()
    keep = _svo.shortcut(grid.padded, c)
    return c[keep]


def catmull_rom(points: Any, *, spacing: float = 0.25, alpha: float = 0.5) -> np.ndarray:
    """Points on the Catmull–Rom spline through ``points`` (``(n, 3)`` floats), passing
    through each, about ``spacing`` apart along each chord; ``alpha`` 0.5 is the centripetal
    form (no cusps or self-intersections within a span), 0 uniform, 1 chordal.  The end spans
    use mirrored end points.  Returns ``float64[m, 3]`` starting and ending at the ends of
    ``points``."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 3 or not np.isfinite(p).all():
        raise InvalidQueryError(f"points must be an (n, 3) array of finite numbers, got shape "
                                f"{p.shape}")
    if not spacing > 0:
        raise InvalidQueryError(f"spacing must be > 0, got {spacing!r}")
    if len(p) < 3:
        return p.copy()
    ext = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    out = [p[:1]]
    for i in range(1, len(p)):
        p0, p1, p2, p3 = ext[i - 1], ext[i], ext[i + 1], ext[i + 2]
        out.append(_span(p0, p1, p2, p3, spacing, alpha))
    return np.vstack(out)


def _span(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, spacing: float,
          alpha: float) -> np.ndarray:
    """Samples of the span from p1 to p2 (p1 excluded, p2 included), Barry–Goldman form."""
    def knot(a: np.ndarray, b: np.ndarray) -> float:
        return max(float(np.linalg.norm(b - a)) ** alpha, 1e-9)

    t0, t1 = 0.0, knot(p0, p1)
    t2 = t1 + knot(p1, p2)
    t3 = t2 + knot(p2, p3)
    n = max(1, int(np.ceil(np.linalg.norm(p2 - p1) / spacing)))
    t = (t1 + (t2 - t1) * np.arange(1, n + 1) / n)[:, None]
    a1 = ((t1 - t) * p0 + (t - t0) * p1) / (t1 - t0)
    a2 = ((t2 - t) * p1 + (t - t1) * p2) / (t2 - t1)
    a3 = ((t3 - t) * p2 + (t - t2) * p3) / (t3 - t2)
    b1 = ((t2 - t) * a1 + (t - t0) * a2) / (t2 - t0)
    b2 = ((t3 - t) * a2 + (t - t1) * a3) / (t3 - t1)
    c = ((t2 - t) * b1 + (t - t1) * b2) / (t2 - t1)
    c[-1] = p2
    return c


def segments_clear(grid: VoxelGrid, points: Any, *, margin: float = 1e-6) -> np.ndarray:
    """For each segment between consecutive ``points`` (``(n, 3)``, voxel units), whether
    every voxel meeting its bounding box grown by ``margin`` is inside the grid and free:
    ``bool[n - 1]``.  Conservative (a clear segment may be refused near a blocked voxel, a
    refused one is never passed), exact for segments shorter than a voxel."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(p) < 2:
        return np.ones(0, bool)
    lo = np.floor(np.minimum(p[:-1], p[1:]) - margin).astype(np.int64)
    hi = np.floor(np.maximum(p[:-1], p[1:]) + margin).astype(np.int64)
    nx, ny, nz = grid.size
    span = hi - lo
    ok = (lo >= 0).all(axis=1) & (hi < (nx, ny, nz)).all(axis=1)
    free = grid.padded
    big = span.max(axis=1, initial=0) > 1
    out = ok.copy()
    small = ok & ~big
    for dx in (0, 1):
        for dy in (0, 1):
            for dz in (0, 1):
                c = lo[small] + np.minimum((dx, dy, dz), span[small])
                out[small] &= free[c[:, 2] + 1, c[:, 1] + 1, c[:, 0] + 1].astype(bool)
    for i in np.flatnonzero(ok & big):
        out[i] = bool(free[lo[i, 2] + 1:hi[i, 2] + 2, lo[i, 1] + 1:hi[i, 1] + 2,
                           lo[i, 0] + 1:hi[i, 0] + 2].all())
    return out


def smooth_flight_path(grid: VoxelGrid, cells: Any, *, spacing: float = 0.25,
                       curve: bool = True) -> np.ndarray:
    """A smooth world-space polyline along a voxel path (``(n, 3)`` free cells, each step a
    move): line-of-sight shortcuts (:func:`shortcut_voxels`), then, with ``curve``, the
    centripetal Catmull–Rom spline through the corners kept, sampled about ``spacing`` voxels
    apart.  Each span of the spline whose samples are not all clear by
    :func:`segments_clear` is replaced by its straight chord, which is in sight and so in free
    space.  Returns ``float64[m, 3]`` world points from the start voxel's centre to the
    goal's."""
    corners = shortcut_voxels(grid, cells)
    pts = corners + 0.5
    if curve and len(pts) >= 3:
        ext = np.vstack([2 * pts[0] - pts[1], pts, 2 * pts[-1] - pts[-2]])
        out = [pts[:1]]
        for i in range(1, len(pts)):
            span = _span(ext[i - 1], ext[i], ext[i + 1], ext[i + 2], spacing, 0.5)
            if segments_clear(grid, np.vstack([pts[i - 1], span])).all():
                out.append(span)
            else:
                out.append(pts[i:i + 1])
        pts = np.vstack(out)
    return np.asarray(grid.origin) + pts * grid.voxel_size
