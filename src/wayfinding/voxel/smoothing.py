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
from .._validate import allocation, finite_points, flag, number, positive_float
from .grid import VoxelGrid, _require_grid


def shortcut_voxels(grid: VoxelGrid, cells: Any) -> np.ndarray:
    """The corners kept by string pulling of a voxel path (``(n, 3)`` cells, free): from each
    kept cell, a later cell in its sight (:func:`wayfinding.voxel.sight.line_of_sight`,
    exact) found by galloping: 1, 2, 4... cells ahead while in sight, then a binary search
    between the last in sight and the first not (O(log n) sight tests a corner, where
    advancing one cell at a time takes O(n)).  ``int64[k, 3]``, in path order; the first and
    last cells are kept, and each pair of consecutive corners sees each other, so the
    polyline through their centres can be flown."""
    _require_grid(grid, "shortcut_voxels")
    return _shortcut(grid, np.ascontiguousarray(grid.cells(cells, name="cells", free=True)))


def _shortcut(grid: VoxelGrid, c: np.ndarray) -> np.ndarray:
    """:func:`shortcut_voxels` of a checked ``int64[n, 3]`` C-ordered path."""
    if len(c) < 3:
        return c.copy()
    return c[_svo.shortcut(grid.padded, c)]


def catmull_rom(points: Any, *, spacing: float = 0.25, alpha: float = 0.5) -> np.ndarray:
    """Points on the Catmull–Rom spline through ``points`` (``(n, 3)`` floats), passing
    through each, about ``spacing`` apart along each chord; ``alpha`` 0.5 is the centripetal
    form (no cusps or self-intersections within a span), 0 uniform, 1 chordal.  The end spans
    use mirrored end points; ``alpha`` in [0, 1].  Returns ``float64[m, 3]`` starting and
    ending at the ends of ``points``; refuses spans that would take more than
    :data:`~wayfinding._validate.MAX_CELLS` samples before sampling them."""
    p = finite_points("points", points, 3)[0]
    spacing = positive_float("spacing", spacing, allow_inf=True)
    alpha = number("alpha", alpha, min=0.0, max=1.0)
    if len(p) < 3:
        return p.copy()
    return np.vstack([p[:1], _spans(p, spacing, alpha)[0]])


def _spans(p: np.ndarray, spacing: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's spline samples and their spans through checked points ``p``, refused
    beyond :data:`~wayfinding._validate.MAX_CELLS` samples (as the kernel counts them)."""
    with np.errstate(over="ignore"):
        d = np.diff(p, axis=0)
        chords = np.hypot(np.hypot(d[:, 0], d[:, 1]), d[:, 2])
        samples = float(np.maximum(np.ceil(chords / spacing), 1).sum())
    allocation(f"a spline {spacing:g} apart", samples)
    return _svo.catmull_rom_spans(p, spacing, alpha)


def segments_clear(grid: VoxelGrid, points: Any, *, margin: float = 1e-6) -> np.ndarray:
    """For each segment between consecutive ``points`` (``(n, 3)``, voxel units), whether
    every voxel meeting its bounding box grown by ``margin`` is inside the grid and free:
    ``bool[n - 1]``.  Conservative (a clear segment may be refused near a blocked voxel, a
    refused one is never passed); ``margin`` >= 0."""
    _require_grid(grid, "segments_clear")
    p = finite_points("points", points, 3)[0]
    margin = number("margin", margin, min=0.0)
    out = np.zeros(max(len(p) - 1, 0), np.uint8)
    _svo.segments_clear(grid.padded, p, float(margin), out)
    return out.astype(bool)


def smooth_flight_path(grid: VoxelGrid, cells: Any, *, spacing: float = 0.5,
                       curve: bool = True) -> np.ndarray:
    """A smooth world-space polyline along a voxel path (``(n, 3)`` free cells, each step a
    move): line-of-sight shortcuts (:func:`shortcut_voxels`), then, with ``curve``, the
    centripetal Catmull–Rom spline through the corners kept, sampled about ``spacing`` voxels
    apart.  Each span of the spline whose samples are not all clear by
    :func:`segments_clear` is replaced by its straight chord, which is in sight and so in free
    space.  Returns ``float64[m, 3]`` world points from the start voxel's centre to the
    goal's."""
    _require_grid(grid, "smooth_flight_path")
    return smooth_checked(grid, np.ascontiguousarray(grid.cells(cells, name="cells", free=True)),
                          spacing=spacing, curve=curve)


def smooth_checked(grid: VoxelGrid, cells: np.ndarray, *, spacing: float = 0.5,
                   curve: bool = True) -> np.ndarray:
    """:func:`smooth_flight_path` of a path already known to be free voxels of ``grid``
    (``int64[n, 3]``, C order), without checking it again: what the searches call on the
    paths they make (the check would unpack the whole grid)."""
    spacing = positive_float("spacing", spacing, allow_inf=True)
    curve = flag("curve", curve)
    corners = _shortcut(grid, cells)
    pts = corners + 0.5
    if curve and len(pts) >= 3:
        samples, span = _spans(np.ascontiguousarray(pts, np.float64), spacing, 0.5)
        ok = segments_clear(grid, np.vstack([pts[:1], samples]))
        bad = np.zeros(len(pts) - 1, bool)
        bad[span[~ok]] = True
        if bad.any():
            last = np.zeros(len(span), bool)
            last[np.cumsum(np.bincount(span, minlength=len(pts) - 1)) - 1] = True
            samples = samples[~bad[span] | last]
        pts = np.vstack([pts[:1], samples])
    return np.asarray(grid.origin) + pts * grid.voxel_size
