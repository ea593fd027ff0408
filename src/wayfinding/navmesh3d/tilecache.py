"""A tiled voxel navmesh with temporary obstacles, rebuilt tile by tile under a frame
budget, as Detour's tile cache (``dtTileCache``) does.

:class:`TileCache` builds every tile of a level as :func:`~wayfinding.navmesh3d.build`
does and keeps each tile's compact heightfield from before erosion.  Obstacles
(:mod:`~wayfinding.navmesh3d.obstacles`) are added, moved and removed at any time; each
change only queues the tiles it touches (those whose box, with the border, meets the
obstacle's bounds).  :meth:`TileCache.update` rebuilds queued tiles within a budget: the
tile's kept spans, those under an obstacle made unwalkable, then erosion (so obstacles keep
the agent's radius away, as walls do), the level's volumes, regions, contours, polygons and
detail; a tile whose blocked spans have not changed since its last build (the obstacle
covers none of its walkable ground) is left as it is.  After an update that rebuilt tiles,
:attr:`TileCache.mesh` is a new :class:`~wayfinding.navmesh3d.NavMesh3D` sharing every
tile not rebuilt with the one before, and :attr:`TileCache.changed` names the tiles
rebuilt.

Obstacles may lie partly or wholly outside the level: they block what they cover, and one
that touches no tile queues nothing.

A tile is rebuilt in about 0.5 to 1 ms (RecastDemo's settings, tiles of 32 or 48 cells).
Queries need a new :class:`~wayfinding.navmesh3d.NavMesh3DQuery` on each new mesh.  Each
new mesh notes the one it was made from, so laying it out for queries
(:func:`~wayfinding.navmesh3d.query.compile_mesh`) copies the previous layout of every
tile kept and lays out only the tiles rebuilt, joining again only them, their neighbours
and the tiles at the ends of off-mesh links that moved: the same layout a whole new one
would be, at a cost that grows with the tiles rebuilt rather than the mesh (see
``benchmarks/tilecache.py``).  A mesh is laid out once, so make a new query only when
:attr:`TileCache.changed` names tiles.  Tiles of a heightfield kept compressed take about 1 KiB.

>>> from wayfinding.navmesh3d import generate
>>> from wayfinding.navmesh3d.obstacles import Cylinder
>>> cache = TileCache(generate.floor(size=20), tile_size=32)
>>> before = cache.mesh
>>> oid = cache.add(Cylinder((10, 0, 10), radius=1, height=2))
>>> cache.pending, cache.update(max_tiles=1), cache.pending
(4, False, 3)
>>> cache.update(), cache.pending, cache.mesh is before
(True, 0, False)
>>> cache.remove(oid); cache.update()
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import time
import weakref
import zlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validate import allocation, count, flag, seconds
from ..errors import InvalidQueryError, brief
from ..navmesh.mesh import OffMeshLink
from .build import _built_tiles, _Clock, _finish, _settings, _TileGrid
from .compact import CompactHeightfield, _with_area
from .heightfield import _grid_size
from .level import Level
from .meshes import DetailMesh, PolyMesh
from .navmesh import BuildReport, MeshTile, NavMesh3D
from .obstacles import Obstacle, as_obstacle, block_spans
from .query import _made_from
from .settings import BuildSettings

__all__ = ["TileCache"]

#: The counts of a tile that come from its voxelization, kept when it is rebuilt.
_VOXEL_COUNTS = ("columns", "heightfield_bytes", "spans", "compact_spans")

Place = tuple[int, int]

#: The arrays of a compact heightfield, one per column (``first``) or per span.
_ARRAYS = ("first", "y", "h", "area", "con")

_NONE = np.zeros(0, np.int32)

#: A tile built again: its blocked spans, polygons and detail (None both when unchanged)
#: and the report of the work.
_Built = tuple[NDArray[np.int32], PolyMesh | None, DetailMesh | None, BuildReport]


@dataclass(frozen=True)
class _Packed:
    """A compact heightfield kept compressed (zlib, fastest level, as Detour keeps its
    layers compressed): the spans of each column (uint8; at most 63), then every span's
    ``con``, ``y``, ``h`` and ``area``, wider values first so each array starts aligned;
    ``shape`` the heightfield's other fields."""

    blob: bytes
    spans: int
    shape: dict[str, Any]

    @classmethod
    def pack(cls, chf: CompactHeightfield) -> _Packed:
        counts = np.diff(chf.first).astype(np.uint8)
        raw = b"".join(a.tobytes() for a in (chf.con, chf.y, chf.h, chf.area, counts))
        shape = {f.name: getattr(chf, f.name) for f in dataclasses.fields(chf)
                 if f.name not in _ARRAYS}
        return cls(zlib.compress(raw, 1), chf.num_spans, shape)

    def unpack(self) -> CompactHeightfield:
        """The heightfield (read-only arrays)."""
        raw = zlib.decompress(self.blob)
        n = self.spans
        con = np.frombuffer(raw, np.uint32, n)
        y = np.frombuffer(raw, np.uint16, n, 4 * n)
        h = np.frombuffer(raw, np.uint8, n, 6 * n)
        area = np.frombuffer(raw, np.uint8, n, 7 * n)
        counts = np.frombuffer(raw, np.uint8, offset=8 * n)
        first = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=first[1:])
        return CompactHeightfield(first=first, y=y, h=h, area=area, con=con, **self.shape)


class TileCache:
    """A navmesh of ``level`` in tiles of ``tile_size`` cells (>= 1; default 48) with
    temporary obstacles.  ``settings``, ``workers`` and ``progress`` as for
    :func:`~wayfinding.navmesh3d.build`; :meth:`update` too rebuilds up to ``workers``
    tiles at once, on threads; ``flags`` the flags every polygon gets (``build`` gives 0,
    which no query filter includes: pass :data:`~wayfinding.navmesh3d.query.WALK` to
    query the meshes as they come).

    Not thread-safe: one thread changes obstacles and calls :meth:`update`; queries on
    :attr:`mesh` may run on other threads meanwhile, since an update makes a new mesh and
    changes no tile of the old one."""

    def __init__(self, level: Level, *, settings: BuildSettings | None = None,
                 tile_size: int = 48, workers: int = 1, progress: bool = False,
                 flags: int = 0):
        progress = flag("progress", progress)
        if not isinstance(level, Level):
            raise InvalidQueryError(f"TileCache needs a Level, not {type(level).__name__}")
        settings = _settings(settings)
        tile_size = count("tile_size", tile_size)
        workers = count("workers", workers, max=os.cpu_count() or 1)
        self._flags = count("flags", flags, min=0, max=0xFFFF)
        self._agent_height = float(np.float32(settings.agent_height))
        bounds = level.bounds
        width, depth = _grid_size(*bounds, settings)
        allocation("the heightfield", float(width) * depth)
        grid = _TileGrid(level, settings, tile_size, bounds, width, depth)
        self._settings, self._border = settings, grid.border
        self._tiles_x, self._tiles_z = grid.tiles_x, grid.tiles_z
        cs = float(np.float32(settings.cell_size))
        self._tile_width, self._border_width = tile_size * cs, grid.border * cs
        self._volumes = level.volumes
        report = BuildReport(counts={"grid_width": width, "grid_depth": depth})
        places = grid.places()
        self._index = {place: k for k, place in enumerate(places)}
        self._slots: list[MeshTile | None] = [None] * len(places)
        self._kept: dict[Place, _Packed] = {}
        self._counts: dict[Place, dict[str, int]] = {}
        for tx, tz, poly, detail, part, chf in _built_tiles(grid, workers, progress):
            report.add(part)
            if chf.num_walkable:
                self._kept[(tx, tz)] = _Packed.pack(chf)
                self._counts[(tx, tz)] = dict(part.counts)
            if poly.num_polys:
                self._slots[self._index[(tx, tz)]] = MeshTile(tx, tz, self._flagged(poly),
                                                              detail)
        self._totals = dict(report.counts)
        self._mesh = NavMesh3D(tiles=self._tiles(), settings=settings, tile_size=tile_size,
                               report=report, origin=bounds[0])
        self._obstacles: dict[int, Obstacle] = {}
        self._touched: dict[int, tuple[Place, ...]] = {}
        self._on_tile: dict[Place, dict[int, None]] = {}
        self._pending: dict[Place, None] = {}
        self._blocked: dict[Place, NDArray[np.int32]] = {}     # as each tile was last built
        self._changed: tuple[Place, ...] = ()
        self._workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._next_id = 1

    def __repr__(self) -> str:
        return (f"TileCache({len(self._slots)} tiles, {len(self._obstacles)} obstacles, "
                f"{len(self._pending)} pending)")

    # ---------------------------------------------------------------- state
    @property
    def mesh(self) -> NavMesh3D:
        """The current navmesh: a new object after each :meth:`update` that rebuilt tiles
        (its report: the counts of the whole mesh, the times of the tiles this update
        rebuilt, marking the obstacles under ``"obstacles"``), with the links of
        :meth:`set_links`.  Flags and areas changed in place
        (:meth:`~wayfinding.navmesh3d.NavMesh3D.set_flags`) stay on the tiles not rebuilt,
        which every mesh since shares; a rebuilt tile starts again from the build's."""
        return self._mesh

    def set_links(self, links: Iterable[OffMeshLink]) -> None:
        """Carry these off-mesh ``links`` on the current mesh and every one after (see
        :meth:`~wayfinding.navmesh3d.NavMesh3D.with_links`: each end joins a polygon when
        a mesh is laid out, so links follow the rebuilt tiles); the mesh becomes a new
        object sharing every tile."""
        old = self._mesh
        self._mesh = old.with_links(links)
        _made_from(self._mesh, old)

    @property
    def changed(self) -> tuple[Place, ...]:
        """The tiles (x, z) whose polygons the last :meth:`update` replaced, in the order
        it rebuilt them (paths through them may need finding again)."""
        return self._changed

    @property
    def pending(self) -> int:
        """The number of tiles queued for a rebuild."""
        return len(self._pending)

    @property
    def obstacles(self) -> dict[int, Obstacle]:
        """The obstacles by id (a copy)."""
        return dict(self._obstacles)

    def memory(self) -> dict[Place, int]:
        """The bytes kept per tile (x, z): its compact heightfield before erosion,
        compressed (tiles with no walkable span keep nothing)."""
        return {place: len(kept.blob) for place, kept in self._kept.items()}

    # ---------------------------------------------------------------- obstacles
    def add(self, obstacle: Obstacle) -> int:
        """Add ``obstacle`` (a :class:`~wayfinding.navmesh3d.obstacles.Cylinder`,
        ``Box``, ``OrientedBox`` or ``Prism``) and queue the tiles it touches; its id."""
        obstacle = as_obstacle(obstacle)
        oid = self._next_id
        self._next_id += 1
        self._place(oid, obstacle)
        return oid

    def move(self, oid: int, obstacle: Obstacle) -> None:
        """Replace obstacle ``oid`` with ``obstacle`` (any shape), queueing the tiles
        either touches."""
        obstacle = as_obstacle(obstacle)
        self._take(self._id(oid))
        self._place(oid, obstacle)

    def remove(self, oid: int) -> None:
        """Remove obstacle ``oid`` and queue the tiles it touched."""
        self._take(self._id(oid))

    def _id(self, oid: object) -> int:
        if isinstance(oid, bool) or not isinstance(oid, (int, np.integer)):
            raise InvalidQueryError(f"an obstacle id must be an integer, not {brief(oid)}")
        if oid not in self._obstacles:
            raise InvalidQueryError(f"no obstacle has id {oid}")
        return int(oid)

    def _place(self, oid: int, obstacle: Obstacle) -> None:
        touched = self._touching(obstacle)
        self._obstacles[oid] = obstacle
        self._touched[oid] = touched
        for place in touched:
            self._on_tile.setdefault(place, {})[oid] = None
            self._pending[place] = None

    def _take(self, oid: int) -> None:
        del self._obstacles[oid]
        for place in self._touched.pop(oid):
            ids = self._on_tile[place]
            del ids[oid]
            if not ids:
                del self._on_tile[place]
            self._pending[place] = None

    def _touching(self, obstacle: Obstacle) -> tuple[Place, ...]:
        """The kept tiles whose box with its border meets the obstacle's bounds (in x and
        z; a tile's box holds the level's whole height)."""
        (x0, _, z0), (x1, _, z1) = obstacle.bounds
        width, border = self._tile_width, self._border_width
        slack = 1e-6 * width        # the boxes are single precision: take any tile in doubt

        def span(lo: float, hi: float, origin: float, tiles: int) -> range:
            first = math.floor((lo - origin - border - slack) / width)
            last = math.floor((hi - origin + border + slack) / width)
            return range(max(first, 0), min(last, tiles - 1) + 1)

        ox, oz = float(self._mesh.origin[0]), float(self._mesh.origin[2])
        return tuple((tx, tz) for tz in span(z0, z1, oz, self._tiles_z)
                     for tx in span(x0, x1, ox, self._tiles_x) if (tx, tz) in self._kept)

    # ---------------------------------------------------------------- rebuilds
    def update(self, *, max_tiles: int | None = None, max_seconds: float | None = None
               ) -> bool:
        """Rebuild queued tiles, in the order they were queued, ``workers`` at a time,
        within the budget: at most ``max_tiles`` (>= 1) tiles, and no batch started that
        the mean time of this call's batches says would end past ``max_seconds``; always at
        least one tile when any is queued.  A queued tile whose blocked spans are those of
        its last build is taken off the queue unchanged (an obstacle over no walkable
        ground of it, or on another floor).  True when no tile is left queued."""
        if max_tiles is not None:
            max_tiles = count("max_tiles", max_tiles)
        max_seconds = seconds("max_seconds", max_seconds)
        start = time.perf_counter()
        report = BuildReport(ms={})
        done = batches = 0
        changed: list[Place] = []
        try:
            while self._pending:
                room = self._workers if max_tiles is None else min(self._workers,
                                                                   max_tiles - done)
                batch = list(itertools.islice(self._pending, room))
                if len(batch) > 1:      # all built before any is applied: no state shared
                    futures = [self._pool().submit(self._build_tile, p) for p in batch]
                    wait(futures)
                    built: Iterable[_Built] = (f.result() for f in futures)
                else:
                    built = map(self._build_tile, batch)
                for place, outcome in zip(batch, built):   # in order, to the first failure
                    if self._apply(place, *outcome, report):
                        changed.append(place)
                    del self._pending[place]
                    done += 1
                batches += 1
                if max_tiles is not None and done >= max_tiles:
                    break
                spent = time.perf_counter() - start
                if max_seconds is not None and spent + spent / batches > max_seconds:
                    break
        finally:        # the tiles rebuilt go into the mesh even if a later one failed
            self._changed = tuple(changed)
            if changed:
                report.counts = dict(self._totals)
                old = self._mesh
                self._mesh = dataclasses.replace(old, tiles=self._tiles(), report=report)
                # the meshes share tiles, so a change in place to one is a change to all
                object.__setattr__(self._mesh, "revision", old.revision)
                _made_from(self._mesh, old)
        return not self._pending

    def _build_tile(self, place: Place) -> _Built:
        """Tile ``place`` built again with the obstacles on it, changing nothing (threads
        may build several at once): its blocked spans, polygons and detail (None both when
        the blocked spans are those of its last build) and the report of the work."""
        chf = self._kept[place].unpack()
        old = self._counts[place]
        clock = _Clock(BuildReport(counts={k: old[k] for k in _VOXEL_COUNTS}))
        tick = time.perf_counter()
        area = chf.area.copy()
        for oid in self._on_tile.get(place, ()):
            block_spans(chf, area, self._obstacles[oid], self._agent_height)
        blocked = np.flatnonzero(area != chf.area).astype(np.int32)
        clock.report.ms["obstacles"] = (time.perf_counter() - tick) * 1e3
        if np.array_equal(blocked, self._blocked.get(place, _NONE)):
            return blocked, None, None, clock.report
        poly, detail = _finish(_with_area(chf, area), self._volumes, self._settings,
                               self._border, clock)
        clock.report.counts["heightfield_bytes"] = old["heightfield_bytes"]   # same sizes
        return blocked, poly, detail, clock.report

    def _apply(self, place: Place, blocked: NDArray[np.int32], poly: PolyMesh | None,
               detail: DetailMesh | None, part: BuildReport, report: BuildReport) -> bool:
        """Put a tile built by :meth:`_build_tile` in its place (its times into
        ``report``); whether it changed."""
        if poly is None or detail is None:
            report.add(BuildReport(counts={}, ms=part.ms))
            return False
        if blocked.size:
            self._blocked[place] = blocked
        else:
            self._blocked.pop(place, None)
        old = self._counts[place]
        for k, v in part.counts.items():
            self._totals[k] += v - old[k]
        self._counts[place] = part.counts
        report.add(part)
        self._slots[self._index[place]] = (MeshTile(place[0], place[1], self._flagged(poly),
                                                    detail) if poly.num_polys else None)
        return True

    def _pool(self) -> ThreadPoolExecutor:
        """The threads that rebuild tiles side by side, made on first use."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self._workers)
            weakref.finalize(self, self._executor.shutdown, wait=False)
        return self._executor

    def _flagged(self, poly: PolyMesh) -> PolyMesh:
        if not self._flags:
            return poly
        return replace(poly, flags=np.full(poly.num_polys, self._flags, np.uint16))

    def _tiles(self) -> tuple[MeshTile, ...]:
        return tuple(t for t in self._slots if t is not None)
