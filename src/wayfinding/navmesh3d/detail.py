"""The last stage of a voxel navmesh build: the detail mesh, triangles under each polygon
of the polygon mesh that follow the ground, so that a point on the navmesh has its height
to within ``detail_sample_max_error`` cell heights.

Each polygon's edges are sampled every ``detail_sample_dist`` cells and keep the samples
that stray from a straight edge by more than the error; then samples on a grid inside it
are added, the worst first, re-triangulating (Delaunay) after each, until every sample is
within the error.  Heights come from the spans of the polygon's own region, which is why
the stage takes the :class:`~wayfinding.navmesh3d.regions.Regions` the polygons were
traced from.  As Recast builds it (``rcBuildPolyMeshDetail``), with its limits: at most
127 vertices and 255 triangles per polygon.

>>> from wayfinding.navmesh3d import BuildSettings, build_regions, compact, erode
>>> from wayfinding.navmesh3d import filter_spans, generate, rasterize
>>> from wayfinding.navmesh3d.contours import build_contours
>>> from wayfinding.navmesh3d.polymesh import build_polymesh
>>> s = BuildSettings()
>>> chf = erode(compact(filter_spans(rasterize(generate.ramp(30), s), s), s), s)
>>> regions = build_regions(chf, s)
>>> polymesh = build_polymesh(build_contours(regions, s), s)
>>> polymesh, build_detail(polymesh, regions, s)   # one quad, bent over the ramp's ends
(PolyMesh(4 vertices, 1 polygons), DetailMesh(10 vertices, 8 triangles))
"""

from __future__ import annotations

import numpy as np

from .._kernels import _detail
from ..errors import InvalidGeometryError
from .meshes import DetailMesh, PolyMesh
from .regions import Regions
from .settings import BuildSettings


def build_detail(polymesh: PolyMesh, regions: Regions, settings: BuildSettings
                 ) -> DetailMesh:
    """The detail mesh of ``polymesh``, built over the compact heightfield and regions
    (``regions``) it was made from, with the sample distance and error of ``settings``.

    Vertices are in world units (each a cell height above the voxel floor, as Recast
    places them); triangles index their polygon's own vertices (``meshes[i, 0]`` on) and
    flag in bits 0, 2 and 4 their sides on the polygon's outline.  A sample distance of
    0 (``detail_sample_dist`` below 0.9) samples nothing: each polygon is fanned from its
    own vertices (Recast cannot triangulate it then).  A malformed polygon mesh, or one
    with vertices beyond the heightfield's grid, raises
    :class:`~wayfinding.errors.InvalidGeometryError`."""
    _check(polymesh, regions, settings)
    return _detail_mesh(polymesh, regions, settings)


def _detail_mesh(polymesh: PolyMesh, regions: Regions, settings: BuildSettings
                 ) -> DetailMesh:
    """:func:`build_detail` without checking its arguments: for a polygon mesh built from
    ``regions`` with ``settings``."""
    chf = regions.chf
    v = settings.voxels()
    meshes, verts, tris = _detail.build(
        chf.first, chf.con, chf.y, regions.reg, chf.width, chf.depth, chf.cell_size,
        chf.cell_height, np.ascontiguousarray(polymesh.verts, dtype=np.uint16),
        np.ascontiguousarray(polymesh.polys, dtype=np.uint16),
        np.ascontiguousarray(polymesh.regs, dtype=np.uint16),
        np.ascontiguousarray(polymesh.bmin, dtype=np.float32), polymesh.border,
        polymesh.max_edge_error, v.detail_sample_dist, v.detail_sample_max_error)
    return DetailMesh(meshes=meshes, verts=verts, tris=tris)


def _check(polymesh: PolyMesh, regions: Regions, settings: BuildSettings) -> None:
    for name, value, kind in (("polymesh", polymesh, PolyMesh), ("regions", regions, Regions),
                              ("settings", settings, BuildSettings)):
        if not isinstance(value, kind):
            raise InvalidGeometryError(f"{name} must be a {kind.__name__}, not "
                                       f"{type(value).__name__}")
    chf = regions.chf
    if len(regions.reg) != chf.num_spans:
        raise InvalidGeometryError(f"regions has {len(regions.reg)} region ids for "
                                   f"{chf.num_spans} spans")
    nvp = polymesh.nvp
    if not 3 <= nvp <= 6 or polymesh.polys.ndim != 2 or polymesh.polys.shape[1] != 2 * nvp:
        raise InvalidGeometryError(
            f"polygons of shape {polymesh.polys.shape} do not hold {nvp} vertices and "
            f"{nvp} neighbours each (3 to 6 vertices)")
    if polymesh.verts.ndim != 2 or polymesh.verts.shape[1] != 3:
        raise InvalidGeometryError(f"mesh vertices of shape {polymesh.verts.shape}: "
                                   "expected (n, 3)")
    if len(polymesh.regs) != polymesh.num_polys:
        raise InvalidGeometryError(f"{len(polymesh.regs)} polygon regions for "
                                   f"{polymesh.num_polys} polygons")
    b = polymesh.border
    if b < 0:
        raise InvalidGeometryError(f"a border of {b} cells: must be 0 or more")
    if not polymesh.num_polys:
        return
    idx = polymesh.polys[:, :nvp].astype(np.int64)
    used = idx != 0xFFFF
    counts = used.sum(axis=1)
    if (counts < 3).any() or (used[:, 1:] & ~used[:, :-1]).any():
        bad = int(np.flatnonzero((counts < 3) | (used[:, 1:] & ~used[:, :-1]).any(axis=1))[0])
        raise InvalidGeometryError(f"polygon {bad} has fewer than 3 vertices or a gap "
                                   "among them")
    if (idx[used] >= polymesh.num_verts).any():
        raise InvalidGeometryError(f"a polygon names a vertex beyond the mesh's "
                                   f"{polymesh.num_verts}")
    vx = polymesh.verts[:, 0].astype(np.int64) + b
    vz = polymesh.verts[:, 2].astype(np.int64) + b
    if (vx > chf.width).any() or (vz > chf.depth).any():
        raise InvalidGeometryError(f"mesh vertices reach beyond the {chf.width} x "
                                   f"{chf.depth} heightfield: not the mesh of these "
                                   "regions")
