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

from .._validate import allocation, count, flag
from ..errors import InvalidQueryError
from ..progress import progress as progress_bar
from .compact import CompactHeightfield, compact, erode, mark_volumes
from .contours import build_contours
from .detail import _detail_mesh
from .heightfield import _grid_size, _rasterize, filter_spans
from .level import ConvexVolume, Level
from .meshes import DetailMesh, PolyMesh
from .navmesh import BuildReport, MeshTile, NavMesh3D
from .polymesh import build_polymesh
from .regions import build_regions
from .settings import BuildSettings, expect

T = TypeVar("T")

class _Clock:
    def __init__(self, report: BuildReport):
        self.report = report

    def run(self, stage: str, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        start = time.perf_counter()
        out = func(*args, **kwargs)
        self.report.ms[stage] += (time.perf_counter() - start) * 1e3
        return out


def _voxelize(level: Level, which: NDArray[np.integer], settings: BuildSettings,
              bmin: NDArray[np.float32], bmax: NDArray[np.float32], size: tuple[int, int],
              clock: _Clock) -> CompactHeightfield:
    """The first stages over one box: the triangles ``which``, ``size`` columns from
    ``bmin``, rasterized, filtered and compacted (their counts into the clock's report)."""
    hf = clock.run("rasterize", _rasterize, level, which, settings, bmin, bmax, *size)
    hf = clock.run("filter", filter_spans, hf, settings)
    chf = clock.run("compact", compact, hf, settings)
    memory = (hf.first.nbytes + hf.smin.nbytes + hf.smax.nbytes + hf.area.nbytes
              + chf.first.nbytes + chf.y.nbytes + chf.h.nbytes + chf.area.nbytes
              + chf.con.nbytes)
    clock.report.counts.update(columns=hf.width * hf.depth, heightfield_bytes=memory,
                               spans=hf.num_spans, compact_spans=chf.num_spans)
    return chf


def _finish(chf: CompactHeightfield, volumes: tuple[ConvexVolume, ...],
            settings: BuildSettings, border: int, clock: _Clock
            ) -> tuple[PolyMesh, DetailMesh]:
    """The stages after compaction, from erosion to the detail mesh (their counts into the
    clock's report, the regions' bytes added to ``heightfield_bytes``)."""
    chf = clock.run("erode", erode, chf, settings)
    chf = clock.run("volumes", mark_volumes, chf, volumes)
    regions = clock.run("regions", build_regions, chf, settings, border=border)
    contours = clock.run("contours", build_contours, regions, settings)
    poly = clock.run("polymesh", build_polymesh, contours, settings)
    detail = clock.run("detail", _detail_mesh, poly, regions, settings)
    counts = clock.report.counts
    counts["heightfield_bytes"] = counts.get("heightfield_bytes", 0) + regions.reg.nbytes \
        + (0 if regions.dist is None else regions.dist.nbytes)
    counts.update(regions=regions.max_regions, contours=len(contours),
                  poly_verts=poly.num_verts, polygons=poly.num_polys,
                  detail_verts=detail.num_verts, detail_tris=detail.num_tris)
    return poly, detail


def _build_one(level: Level, which: NDArray[np.integer], settings: BuildSettings,
               bmin: NDArray[np.float32], bmax: NDArray[np.float32], size: tuple[int, int],
               border: int) -> tuple[PolyMesh, DetailMesh, BuildReport, CompactHeightfield]:
    """Every stage over one box, and its compact heightfield before erosion."""
    clock = _Clock(BuildReport())
    chf = _voxelize(level, which, settings, bmin, bmax, size, clock)
    poly, detail = _finish(chf, level.volumes, settings, border, clock)
    return poly, detail, clock.report, chf


class _TileGrid:
    """The tiles of a level: ``tile_size`` columns square over its grid of ``width x
    depth`` columns from ``bmin``, each built with a border of the agent's radius and 3
    cells."""

    def __init__(self, level: Level, settings: BuildSettings, tile_size: int,
                 bounds: tuple[NDArray[np.float32], NDArray[np.float32]], width: int,
                 depth: int):
        self.level, self.settings, self.tile_size = level, settings, tile_size
        self.bmin, self.bmax = bounds
        self.border = settings.voxels().walkable_radius + 3
        self.tiles_x, self.tiles_z = -(-width // tile_size), -(-depth // tile_size)
        allocation("the tiles", float(self.tiles_x) * self.tiles_z)
        corners = level.vertices[level.triangles]
        self._tri_lo, self._tri_hi = corners.min(axis=1), corners.max(axis=1)

    def places(self) -> list[tuple[int, int]]:
        """Every tile's (x, z), row after row (z outer)."""
        return [(tx, tz) for tz in range(self.tiles_z) for tx in range(self.tiles_x)]

    def box(self, tx: int, tz: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The corners of tile (tx, tz) with its border, in single precision as built (y:
        the level's)."""
        cs = np.float32(self.settings.cell_size)
        tcs = np.float32(self.tile_size) * cs
        border = np.float32(self.border) * cs
        lo, hi = self.bmin.copy(), self.bmax.copy()
        lo[0] = self.bmin[0] + np.float32(tx) * tcs - border
        lo[2] = self.bmin[2] + np.float32(tz) * tcs - border
        hi[0] = self.bmin[0] + np.float32(tx + 1) * tcs + border
        hi[2] = self.bmin[2] + np.float32(tz + 1) * tcs + border
        return lo, hi

    def build(self, place: tuple[int, int]
              ) -> tuple[int, int, PolyMesh, DetailMesh, BuildReport, CompactHeightfield]:
        """Every stage of one tile, and its compact heightfield before erosion."""
        tx, tz = place
        lo, hi = self.box(tx, tz)
        size = (self.tile_size + 2 * self.border, self.tile_size + 2 * self.border)
        which = np.flatnonzero((self._tri_lo[:, 0] <= hi[0]) & (self._tri_hi[:, 0] >= lo[0])
                               & (self._tri_lo[:, 2] <= hi[2]) & (self._tri_hi[:, 2] >= lo[2]))
        return (tx, tz, *_build_one(self.level, which, self.settings, lo, hi, size,
                                    self.border))


def build(level: Level, *, settings: BuildSettings | None = None, tile_size: int = 0,
          workers: int = 1, progress: bool = False) -> NavMesh3D:
    """The navmesh of ``level`` (default settings: RecastDemo's).  With ``tile_size`` (in
    cells) the level is built tile by tile, each with a border of the agent's radius and 3
    cells, over ``workers`` threads (the stages release the GIL), with a progress bar on a
    terminal when ``progress``; else whole, as one tile."""
    progress = flag("progress", progress)
    expect("level", level, Level)
    settings = _settings(settings)
    tile_size = count("tile_size", tile_size, min=0)
    workers = count("workers", workers, max=os.cpu_count() or 1)
    bmin, bmax = level.bounds
    width, depth = _grid_size(bmin, bmax, settings)
    allocation("the heightfield", float(width) * depth)
    report = BuildReport(counts={"grid_width": width, "grid_depth": depth})
    if tile_size == 0:
        poly, detail, whole, _ = _build_one(level, np.arange(level.num_triangles), settings,
                                            bmin, bmax, (width, depth), 0)
        report.add(whole)
        return NavMesh3D(tiles=(MeshTile(0, 0, poly, detail),), settings=settings,
                         tile_size=0, report=report, origin=bmin)
    built: list[MeshTile] = []
    grid = _TileGrid(level, settings, tile_size, (bmin, bmax), width, depth)
    for tx, tz, poly, detail, part, _ in _built_tiles(grid, workers, progress):
        report.add(part)
        if poly.num_polys:
            built.append(MeshTile(tx, tz, poly, detail))
    return NavMesh3D(tiles=tuple(built), settings=settings, tile_size=tile_size,
                     report=report, origin=bmin)


def _settings(settings: BuildSettings | None) -> BuildSettings:
    settings = BuildSettings() if settings is None else settings
    if not isinstance(settings, BuildSettings):
        raise InvalidQueryError(f"settings must be BuildSettings, not {type(settings).__name__}")
    return settings


def _built_tiles(grid: _TileGrid, workers: int, progress: bool
                 ) -> Iterator[tuple[int, int, PolyMesh, DetailMesh, BuildReport,
                                     CompactHeightfield]]:
    """Every tile of ``grid`` built (:meth:`_TileGrid.build`), in the order of its places,
    over ``workers`` threads, with a progress bar when ``progress``."""
    places = grid.places()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from progress_bar(pool.map(grid.build, places), len(places), label="tiles",
                                enabled=progress)
