"""Stage 6 of a voxel navmesh build: the polygon mesh.  Each region's contour is cut into
triangles by ear clipping (each step clips the ear with the shortest diagonal), the
triangles are joined into convex polygons of at most ``verts_per_poly`` vertices (always
across the longest shared edge that keeps the join convex), vertices shared by contours
are welded (same x and z, heights within 2 cell heights), the vertices a tile border added
are removed again where the polygons round them allow it (the hole left refilled the same
way), and every polygon side is linked to the polygon across it.  All as Recast's
``rcBuildPolyMesh`` does, element for element.

>>> import numpy as np
>>> from wayfinding.navmesh3d import BuildSettings
>>> from wayfinding.navmesh3d.meshes import Contour, ContourSet
>>> square = np.array([[0, 0, 0, 0], [0, 0, 4, 0], [4, 0, 4, 0], [4, 0, 0, 0]], np.int32)
>>> cset = ContourSet(contours=(Contour(square, square, reg=1, area=63),),
...                   bmin=np.zeros(3, np.float32), bmax=np.full(3, 4, np.float32),
...                   cell_size=1.0, cell_height=1.0, width=4, depth=4, border=0,
...                   max_error=1.3)
>>> mesh = build_polymesh(cset, BuildSettings())
>>> mesh
PolyMesh(4 vertices, 1 polygons)
>>> mesh.polys[0].tolist()
[0, 1, 2, 3, 65535, 65535, 65535, 65535, 65535, 65535, 65535, 65535]
"""

from __future__ import annotations

import numpy as np

from .._kernels import _polymesh
from ..errors import InvalidGeometryError
from .meshes import Contour, ContourSet, PolyMesh
from .settings import BuildSettings, expect


def build_polymesh(contours: ContourSet, settings: BuildSettings) -> PolyMesh:
    """The polygon mesh of ``contours`` with polygons of at most
    ``settings.verts_per_poly`` vertices.  Polygons come contour by contour, in the
    contours' order, with the contour's region and area (a polygon refilled after a
    border vertex's removal across several regions has region 0); flags are all 0, for
    the caller to fill.  The box, cell sizes, border and edge error are the contours'.

    Contours of fewer than 3 vertices are skipped.  Raises
    :class:`~wayfinding.errors.InvalidGeometryError` for a contour whose vertices are not
    an (n, 4) integer array with x, y, z in 0..65535, a region or area out of range, or
    contours with 65534 vertices or more in all (a mesh indexes them in 16 bits);
    :class:`~wayfinding.errors.InvalidQueryError` for arguments of the wrong type."""
    expect("contours", contours, ContourSet)
    expect("settings", settings, BuildSettings)
    nvp = settings.verts_per_poly
    conts = contours.contours
    verts = [_shaped(i, c) for i, c in enumerate(conts)]
    first = np.zeros(len(verts) + 1, np.int64)
    np.cumsum([len(v) for v in verts], out=first[1:])
    every = np.concatenate(verts) if verts else np.zeros((0, 4), np.int32)
    if len(every):
        xyz = every[:, :3]
        out = (xyz < 0).any(axis=1) | (xyz > 0xFFFF).any(axis=1)
        if out.any():
            row = int(np.argmax(out))
            i = int(np.searchsorted(first, row, side="right")) - 1
            raise InvalidGeometryError(
                f"contour {i}: vertex {row - int(first[i])} at {xyz[row].tolist()} is "
                f"outside 0..65535 voxels")
    regs = np.array([c.reg for c in conts], np.int64)
    areas = np.array([c.area for c in conts], np.int64)
    bad = np.flatnonzero((regs < 0) | (regs > 0xFFFF) | (areas < 0) | (areas > 0xFF))
    if len(bad):
        i = int(bad[0])
        raise InvalidGeometryError(
            f"contour {i}: region {conts[i].reg} or area {conts[i].area} out of range "
            f"(0..65535, 0..255)")
    flat = np.ascontiguousarray(every, dtype=np.int32)
    try:
        mverts, polys, pregs, pareas = _polymesh.build_polymesh(
            flat, first, regs.astype(np.uint16), areas.astype(np.uint8), nvp,
            contours.width, contours.depth, contours.border)
    except ValueError as e:
        raise InvalidGeometryError(str(e)) from None
    return PolyMesh(verts=mverts, polys=polys, regs=pregs, areas=pareas,
                    flags=np.zeros(len(polys), np.uint16), nvp=nvp,
                    bmin=np.array(contours.bmin, np.float32, copy=True),
                    bmax=np.array(contours.bmax, np.float32, copy=True),
                    cell_size=contours.cell_size, cell_height=contours.cell_height,
                    border=contours.border, max_edge_error=contours.max_error)


def _shaped(i: int, contour: Contour) -> np.ndarray:
    v = np.asarray(contour.verts)
    if v.ndim != 2 or v.shape[1] != 4 or v.dtype.kind not in "iu":
        raise InvalidGeometryError(
            f"contour {i}: verts must be an (n, 4) integer array, not {v.dtype} {v.shape}")
    return v
