"""Voxel grids from triangle meshes.

The mesh is cut into voxels by the rasterizer of the 3D navigation-mesh build
(:mod:`wayfinding.navmesh3d`): each triangle is clipped column by column and gives the range of
voxels it spans in every column it crosses, i.e. exactly the voxels it touches.

Axes: voxel axes are world axes, ``(x, y, z)`` -> voxel ``(x, y, z)`` with no swap, so a mesh
in the y-up convention of :mod:`wayfinding.navmesh3d` gives a grid whose y is up too.  Voxel
``(i, j, k)`` covers the box ``origin + voxel_size * [i, i + 1] x [j, j + 1] x [k, k + 1]``.
Where a triangle only touches a voxel's boundary the rasterizer decides, as in the navmesh
build: a triangle lying on a plane between two layers of voxels marks the layer above it, but a
voxel met only along an edge or at a corner of the triangle's extent may stay free.  The
clipping runs in single precision, relative to the grid's corner: a triangle passing within
about 1e-6 voxel of a voxel may or may not mark it.

>>> import numpy as np
>>> v = [[0.5, 0.5, 0.5], [4.2, 0.5, 0.5], [0.5, 0.5, 4.2]]    # a flat triangle at y = 0.5
>>> g = voxelize(v, [[0, 1, 2]], voxel_size=1.0, bounds=([0, 0, 0], [5, 2, 5]))
>>> g.size, int(g.blocked.sum()), bool(g.blocked[0, 0, 4]), bool(g.blocked[1, 0, 4])
((5, 2, 5), 15, True, False)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels import _heightfield, _voxels
from .._validate import allocation, finite_point, flag, positive_float
from ..errors import InvalidGeometryError
from . import grid as _grid  # a module import: the grid's from_mesh calls this one

#: Most voxels a mesh may be voxelized into along y (the rasterizer's span heights).
MAX_HEIGHT = (1 << 13) - 1


#: The largest float32: vertices and the grid's far corner, relative to its corner, stay
#: within it (the rasterizer runs in single precision).
_SINGLE_MAX = float(np.finfo(np.float32).max)


def voxelize(vertices: Any, triangles: Any, *, voxel_size: float, bounds: Any = None,
             origin: Any = None, solid: bool = False, connectivity: int = 26) -> _grid.VoxelGrid:
    """The voxel grid whose blocked voxels are those the triangles touch.

    Parameters
    ----------
    vertices : (n, 3) float array
        Vertex positions, world units, axes as the grid's (see the module).
    triangles : (m, 3) int array
        Vertex indices of each triangle (either winding).
    voxel_size : float
        The edge of a voxel, world units, > 0.
    bounds : ((3,), (3,)) floats, optional
        The world box ``(lo, hi)`` the grid covers, with whole voxels from the lattice point
        at or below ``lo`` to the one at or above ``hi``; triangles outside are clipped off.
        Default: the mesh's bounding box, covered up to the voxel *holding* its maximum, so
        that faces on the box's upper planes stay inside the grid.
    origin : (3,) floats, optional
        A point of the voxel lattice: the grid's corner is ``origin + k * voxel_size`` for
        whole ``k``, so grids voxelized with one origin line up.  Default: ``lo``.
    solid : bool
        Also block every voxel enclosed by the surface: the free voxels that no path of face
        steps joins to the outside of the grid (a flood fill from a free border all round).
        Closed meshes become solid; an open surface encloses nothing.
    connectivity : int
        The grid's connectivity, 6, 18 or 26.

    Raises
    ------
    InvalidGeometryError
        For malformed input, or a grid that would exceed
        :data:`~wayfinding._validate.MAX_CELLS` voxels or :data:`MAX_HEIGHT` along y, or
        whose far corner or vertices lie beyond single precision (3.4e38 world units) from
        its corner.
    """
    solid = flag("solid", solid, error=InvalidGeometryError)
    v, t = _mesh(vertices, triangles)
    size = positive_float("voxel_size", voxel_size, error=InvalidGeometryError)
    holding = bounds is None
    if holding:
        if not len(t):
            raise InvalidGeometryError("a mesh without triangles needs bounds")
        used = v[np.unique(t)]
        lo, hi = used.min(axis=0), used.max(axis=0)
    else:
        try:
            lo_, hi_ = bounds
        except (TypeError, ValueError):
            raise InvalidGeometryError(f"bounds must be two (x, y, z) points, got "
                                       f"{bounds!r:.80}") from None
        lo = finite_point("bounds[0]", lo_, 3, error=InvalidGeometryError)
        hi = finite_point("bounds[1]", hi_, 3, error=InvalidGeometryError)
        if (hi < lo).any():
            raise InvalidGeometryError(f"bounds {lo.tolist()}..{hi.tolist()} are reversed")
    base = lo if origin is None else finite_point("origin", origin, 3,
                                                  error=InvalidGeometryError)
    # Counted in floats before the cast: a corner beyond float range needs endless voxels.
    with np.errstate(over="ignore", invalid="ignore"):
        corner = base + np.floor((lo - base) / size) * size
        extent = (hi - corner) / size
        shape_xyz = np.floor(extent) + 1 if holding else np.maximum(np.ceil(extent), 1)
        cells = float(np.prod(shape_xyz)) if np.isfinite(corner).all() else math.inf
    allocation("the voxel grid", cells, error=InvalidGeometryError)
    with np.errstate(over="ignore"):
        reach = max(float(np.abs(v - corner).max(initial=0.0)), float((shape_xyz * size).max()))
    if not reach <= _SINGLE_MAX:
        raise InvalidGeometryError(f"the mesh and its grid reach {reach:.3g} world units from "
                                   f"the grid's corner, beyond the {_SINGLE_MAX:.3g} of the "
                                   "single-precision rasterizer")
    nx, ny, nz = (int(s) for s in shape_xyz)
    if ny > MAX_HEIGHT:
        raise InvalidGeometryError(f"the grid would be {ny} voxels tall, more than the "
                                   f"{MAX_HEIGHT} a mesh may be voxelized into")
    blocked = _surface(v - corner, t, size, nx, ny, nz)
    if solid:
        blocked = _fill(blocked)
    return _grid.VoxelGrid(blocked, origin=tuple(corner.tolist()), voxel_size=size,
                     connectivity=connectivity)


def _mesh(vertices: Any, triangles: Any) -> tuple[np.ndarray, np.ndarray]:
    """Checked copies: float64 (n, 3) vertices and int32 (m, 3) triangles."""
    try:
        v = np.asarray(vertices, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidGeometryError(f"vertices must be an (n, 3) array of numbers, got "
                                   f"{vertices!r:.80}") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise InvalidGeometryError(f"vertices must be an (n, 3) array, got shape {v.shape}")
    if not np.isfinite(v).all():
        i = int(np.argmax(~np.isfinite(v).all(axis=1)))
        raise InvalidGeometryError(f"vertex {i} = {v[i].tolist()} is not finite")
    t = np.asarray(triangles)
    if t.size == 0:
        t = np.zeros((0, 3), np.int64)
    if t.ndim != 2 or t.shape[1] != 3 or t.dtype.kind not in "iu":
        raise InvalidGeometryError(f"triangles must be an (m, 3) array of vertex indices, got "
                                   f"shape {t.shape} and dtype {t.dtype}")
    bad = ((t < 0) | (t >= len(v))).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidGeometryError(f"triangle {i} = {t[i].tolist()} names a vertex outside "
                                   f"0..{len(v) - 1}")
    return v, t.astype(np.int32)


def _surface(v: np.ndarray, t: np.ndarray, size: float, nx: int, ny: int,
             nz: int) -> np.ndarray:
    """The blocked array [z, y, x] of the voxels the triangles touch, ``v`` relative to the
    grid's corner."""
    blocked = np.zeros((nz, ny, nx), bool)
    if not len(t):
        return blocked
    bmin = np.zeros(3, np.float32)
    bmax = (np.array([nx, ny, nz], np.float64) * size).astype(np.float32)
    first, smin, smax, _ = _heightfield.rasterize(
        np.ascontiguousarray(v, np.float32), np.ascontiguousarray(t), np.ones(len(t), np.uint8),
        bmin, bmax, size, size, nx, nz, 0)
    col = np.repeat(np.arange(nx * nz, dtype=np.int64), np.diff(first))
    lo = smin.astype(np.int64)
    hi = np.minimum(smax.astype(np.int64), ny)     # clipped at the top of the grid
    counts = np.maximum(hi - lo, 0)                # a face on the top plane is outside
    cols = np.repeat(col, counts)
    ys = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    blocked[cols // nx, ys, cols % nx] = True
    return blocked


def _fill(blocked: np.ndarray) -> np.ndarray:
    """``blocked`` with every free voxel not face-connected to the outside blocked too."""
    nz, ny, nx = blocked.shape
    padded = np.zeros((nz + 4, ny + 4, nx + 4), np.uint8)   # a free ring, then the border
    padded[2:-2, 2:-2, 2:-2] = ~blocked
    padded[1:-1, 1:-1, 1] = padded[1:-1, 1:-1, -2] = 1
    padded[1:-1, 1, 1:-1] = padded[1:-1, -2, 1:-1] = 1
    padded[1, 1:-1, 1:-1] = padded[-2, 1:-1, 1:-1] = 1
    labels = np.empty((nz + 2, ny + 2, nx + 2), np.int32)
    _voxels.components(padded, labels)
    return np.asarray(labels[1:-1, 1:-1, 1:-1] != labels[0, 0, 0])
