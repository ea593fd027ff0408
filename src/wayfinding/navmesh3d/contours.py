"""Stage 5 of a voxel navmesh build: the outline of every region traced along the edges
of its spans, then simplified to the vertices the polygon mesh needs, as Recast builds them
(with long wall edges split).

A contour keeps every vertex where the region beyond its edge changes (so that two regions
share the same vertices along their common edge), and along walls and area edges adds the
raw vertex farthest from the simplified edge while it lies more than ``edge_max_error``
cells off; wall edges longer than ``edge_max_len`` are then split at their middle.  A region
with holes (its outline wound clockwise) has each hole joined into its outline by a
diagonal, leaving the hole's own contour empty.

>>> from wayfinding.navmesh3d import BuildSettings, build_regions, compact, erode
>>> from wayfinding.navmesh3d import filter_spans, generate, rasterize
>>> s = BuildSettings()
>>> chf = erode(compact(filter_spans(rasterize(generate.floor(), s), s), s), s)
>>> cs = build_contours(build_regions(chf, s), s)
>>> len(cs), cs.contours[0].verts.shape[1]
(1, 4)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._kernels import _contours
from ..errors import InvalidQueryError
from .meshes import Contour, ContourSet
from .regions import Regions
from .settings import BuildSettings, expect


def build_contours(regions: Regions, settings: BuildSettings) -> ContourSet:
    """The contours of ``regions`` with ``settings.edge_max_error`` (cells) and
    ``settings.edge_max_len`` (as voxels); contours come in the order of each region's
    first span met in a scan by rows (z), then columns (x), then spans.  With a tile border,
    coordinates and the box are those of the tile without it (Recast's ``rcContourSet``)."""
    expect("regions", regions, Regions)
    expect("settings", settings, BuildSettings)
    chf = regions.chf
    if len(regions.reg) != chf.num_spans:
        raise InvalidQueryError(
            f"regions has {len(regions.reg)} region ids for {chf.num_spans} spans")
    border = regions.border
    verts, nverts, raw, nraw, regs, areas, _ = _contours.build(
        chf.first, chf.con, chf.area, regions.reg, chf.y, chf.width, chf.depth, border,
        regions.max_regions, settings.edge_max_error, settings.voxels().max_edge_len)
    conts = tuple(Contour(verts=v, raw=r, reg=g, area=a)
                  for v, r, g, a in zip(_pieces(verts, nverts), _pieces(raw, nraw),
                                        regs.tolist(), areas.tolist()))
    bmin = chf.bmin.copy()
    bmax = chf.bmax.copy()
    if border > 0:
        pad = np.float32(border) * np.float32(chf.cell_size)
        bmin[[0, 2]] += pad
        bmax[[0, 2]] -= pad
    return ContourSet(contours=conts, bmin=bmin, bmax=bmax, cell_size=chf.cell_size,
                      cell_height=chf.cell_height, width=chf.width - 2 * border,
                      depth=chf.depth - 2 * border, border=border,
                      max_error=settings.edge_max_error)


def _pieces(rows: NDArray[np.int32], counts: NDArray[np.integer]) -> list[NDArray[np.int32]]:
    """``rows`` cut into consecutive pieces of ``counts`` rows (views)."""
    ends = np.cumsum(counts).tolist()
    return [rows[a:b] for a, b in zip([0, *ends], ends)]
