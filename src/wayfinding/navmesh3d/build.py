"""The whole build of a voxel navmesh, stage after stage as Recast runs them, for one mesh
over the level or tile by tile; with each stage's counts and times.

>>> from wayfinding.navmesh3d import generate
>>> mesh = build(generate.stairs())
>>> mesh.report.counts["polygons"] > 0, mesh.num_tiles
(True, 1)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._validate import allocation, count
from ..errors import InvalidQueryError
from ..progress import progress as progress_bar
from .compact import compact, erode, mark_volumes
from .contours import build_contours
from .detail import build_detail
from .heightfield import _grid_size, _rasterize, filter_spans
from .level import Level
from .meshes import DetailMesh, PolyMesh
from .navmesh import BuildReport, MeshTile, NavMesh3D
from .polymesh import build_polymesh
from .regions import build_regions
from .settings import BuildSettings

T = TypeVar("T")

class _Clock:
    def __init__(self, report: BuildReport):
        self.report = report

    def run(self, stage: str, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        start = time.perf_counter()
        out = func(*args, **kwargs)
        self.report.ms[stage] += (time.perf_counter() - start) * 1e3
        return out


def _build_one(level: Level, which: NDArray[np.integer], settings: BuildSettings,
               bmin: NDArray[np.float32], bmax: NDArray[np.float32], size: tuple[int, int],
               border: int) -> tuple[PolyMesh, DetailMesh, BuildReport]:
    """Every stage over one box: the triangles ``which``, ``size`` columns from ``bmin``."""
    report = BuildReport()
    clock = _Clock(report)
    hf = clock.run("rasterize", _rasterize, level, which, settings, bmin, bmax, *size)
    hf = clock.run("filter", filter_spans, hf, settings)
    chf = clock.run("compact", compact, hf, settings)
    chf = clock.run("erode", erode, chf, settings)
    chf = clock.run("volumes", mark_volumes, chf, level.volumes)
    regions = clock.run("regions", build_regions, chf, settings, border=border)
    contours = clock.run("contours", build_contours, regions, settings)
    poly = clock.run("polymesh", build_polymesh, contours, settings)
    detail = clock.run("detail", build_detail, poly, regions, settings)
    columns = hf.width * hf.depth
    memory = (hf.first.nbytes + hf.smin.nbytes + hf.smax.nbytes + hf.area.nbytes
              + chf.first.nbytes + chf.y.nbytes + chf.h.nbytes + chf.area.nbytes
              + chf.con.nbytes + regions.reg.nbytes
              + (0 if regions.dist is None else regions.dist.nbytes))
    report.counts.update(columns=columns, heightfield_bytes=memory,
                         spans=hf.num_spans, compact_spans=chf.num_spans,
                         regions=regions.max_regions, contours=len(contours),
                         poly_verts=poly.num_verts, polygons=poly.num_polys,
                         detail_verts=detail.num_verts, detail_tris=detail.num_tris)
    return poly, detail, report


def build(level: Level, *, settings: BuildSettings | None = None, tile_size: int = 0,
          workers: int = 1, progress: bool = False) -> NavMesh3D:
    """The navmesh of ``level`` (default settings: RecastDemo's).  With ``tile_size`` (in
    cells) the level is built tile by tile, each with a border of the agent's radius and 3
    cells, over ``workers`` threads (the stages release the GIL), with a progress bar on a
    terminal when ``progress``; else whole, as one tile."""
    settings = BuildSettings() if settings is None else settings
    if not isinstance(settings, BuildSettings):
        raise InvalidQueryError(f"settings must be BuildSettings, not {type(settings).__name__}")
    tile_size = count("tile_size", tile_size, min=0)
    workers = count("workers", workers, max=os.cpu_count() or 1)
    bmin, bmax = level.bounds
    width, depth = _grid_size(bmin, bmax, settings)
    allocation("the heightfield", float(width) * depth)
    report = BuildReport(counts={"grid_width": width, "grid_depth": depth})
    if tile_size == 0:
        poly, detail, whole = _build_one(level, np.arange(level.num_triangles), settings, bmin,
                                         bmax, (width, depth), 0)
        report.add(whole)
        return NavMesh3D(tiles=(MeshTile(0, 0, poly, detail),), settings=settings,
                         tile_size=0, report=report, origin=bmin)
    border = settings.voxels().walkable_radius + 3
    cs = np.float32(settings.cell_size)
    tiles_x, tiles_z = -(-width // tile_size), -(-depth // tile_size)
    allocation("the tiles", float(tiles_x) * tiles_z)
    places = [(tx, tz) for tz in range(tiles_z) for tx in range(tiles_x)]
    corners = level.vertices[level.triangles]
    tri_lo, tri_hi = corners.min(axis=1), corners.max(axis=1)

    def one(place: tuple[int, int]) -> tuple[int, int, PolyMesh, DetailMesh, BuildReport]:
        tx, tz = place
        lo = bmin.copy()
        hi = bmax.copy()
        tcs = np.float32(tile_size) * cs
        lo[0] = bmin[0] + np.float32(tx) * tcs - np.float32(border) * cs
        lo[2] = bmin[2] + np.float32(tz) * tcs - np.float32(border) * cs
        hi[0] = bmin[0] + np.float32(tx + 1) * tcs + np.float32(border) * cs
        hi[2] = bmin[2] + np.float32(tz + 1) * tcs + np.float32(border) * cs
        size = (tile_size + 2 * border, tile_size + 2 * border)
        which = np.flatnonzero((tri_lo[:, 0] <= hi[0]) & (tri_hi[:, 0] >= lo[0])
                               & (tri_lo[:, 2] <= hi[2]) & (tri_hi[:, 2] >= lo[2]))
        return (tx, tz, *_build_one(level, which, settings, lo, hi, size, border))

    built: list[MeshTile] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results: Iterator[tuple[int, int, PolyMesh, DetailMesh, BuildReport]] = \
            pool.map(one, places)
        for tx, tz, poly, detail, part in progress_bar(results, len(places), label="tiles",
                                                       enabled=progress):
            report.add(part)
            if poly.num_polys:
                built.append(MeshTile(tx, tz, poly, detail))
    return NavMesh3D(tiles=tuple(built), settings=settings, tile_size=tile_size,
                     report=report, origin=bmin)
