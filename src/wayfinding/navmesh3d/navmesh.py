"""The voxel navmesh a build makes (:func:`~wayfinding.navmesh3d.build`): tiles of convex
polygons with their height detail, the settings they were built with and the build's
report, and off-mesh links (:meth:`NavMesh3D.with_links`); polygon flags and areas change
in place (:meth:`NavMesh3D.set_flags`, :meth:`NavMesh3D.set_areas`); saved and loaded as
``.npz`` (versioned, every array checked on load), exported as OBJ or glTF for any 3D
tool."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _saved
from .._io import NpzFile, atomic_write_text, write_npz
from ..errors import (
    FileFormatError,
    InvalidGeometryError,
    NavMeshFormatError,
    WayfindingError,
    brief,
)
from ..navmesh.mesh import OffMeshLink, checked_links
from .meshes import MESH_NULL_IDX, DetailMesh, PolyMesh
from .settings import BuildSettings

FORMAT = "wayfinding.navmesh3d"
#: Version 2 adds off-mesh links; version 1 files (no links) still load.
VERSION = 2

#: The stages of a build in the order they run, as the report names them.
STAGES = ("rasterize", "filter", "compact", "erode", "volumes", "regions", "contours",
          "polymesh", "detail")

_MEMBERS = ("tiles", "verts", "vert_ptr", "polys", "poly_ptr", "regs", "areas", "flags",
            "meshes", "dverts", "dvert_ptr", "tris", "tri_ptr", "origins", "link_ends")


@dataclass
class BuildReport:
    """What every stage made (``counts``) and how long it took (``ms``, summed over the
    tiles).  Counts, as Recast names its figures: ``grid_width`` x ``grid_depth`` columns of
    the level, ``spans`` (solid), ``compact_spans``, ``regions`` (Recast's ``maxRegions``,
    summed over tiles), ``contours``, ``poly_verts`` and ``polygons``, ``detail_verts`` and
    ``detail_tris``; ``columns`` and ``heightfield_bytes``: the columns voxelized (tiles
    with their borders) and the memory their heightfields took."""

    counts: dict[str, int] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def add(self, other: BuildReport) -> None:
        for k, v in other.counts.items():
            self.counts[k] = self.counts.get(k, 0) + v
        for k, ms in other.ms.items():
            self.ms[k] = self.ms.get(k, 0.0) + ms

    @property
    def total_ms(self) -> float:
        return sum(self.ms.values())

    @property
    def bytes_per_column(self) -> float:
        return self.counts.get("heightfield_bytes", 0) / max(self.counts.get("columns", 0), 1)


@dataclass(frozen=True, eq=False)
class MeshTile:
    """One tile of a navmesh: its place in the tile grid, polygons and height detail."""

    x: int
    z: int
    polymesh: PolyMesh
    detail: DetailMesh


@dataclass(frozen=True, eq=False)
class NavMesh3D:
    """A voxel navmesh: its tiles (one for a mesh built whole, ``tile_size`` 0), the
    settings it was built with, the build's report, ``origin``, the corner of the level's
    bounds the tile grid starts from, and its off-mesh ``links``
    (:class:`~wayfinding.navmesh.OffMeshLink` with (x, y, z) ends; see :meth:`with_links`).

    Polygons are numbered across tiles, tile after tile, as the queries number them.
    :meth:`set_flags` and :meth:`set_areas` change the tiles' arrays in place; every
    query on the mesh (or on a mesh sharing its tiles) sees the change on its next call
    (a sliced search under way keeps the flags it started with).  Changes are not
    synchronised with queries running on other threads: make them between queries."""

    tiles: tuple[MeshTile, ...]
    settings: BuildSettings
    tile_size: int
    report: BuildReport
    origin: NDArray[np.float32] = field(default_factory=lambda: np.zeros(3, np.float32))
    links: tuple[OffMeshLink, ...] = ()

    def __post_init__(self) -> None:
        # changes of flags and areas so far, shared by the meshes sharing these tiles
        object.__setattr__(self, "revision", [0])

    revision: list[int] = field(init=False, repr=False, compare=False)

    @property
    def num_tiles(self) -> int:
        return len(self.tiles)

    @property
    def num_polygons(self) -> int:
        return sum(t.polymesh.num_polys for t in self.tiles)

    def __repr__(self) -> str:
        links = f", {len(self.links)} links" if self.links else ""
        return (f"NavMesh3D({self.num_tiles} tiles, {self.num_polygons} polygons{links}, "
                f"built in {self.report.total_ms:.1f} ms)")

    # ---------------------------------------------------------------- links
    def with_links(self, links: Any) -> NavMesh3D:
        """A mesh with the same tiles (shared, not copied) and these off-mesh ``links``
        (an iterable of :class:`~wayfinding.navmesh.OffMeshLink`, replacing any it had):
        ends finite (x, y, z) points, ``radius`` None or > 0 (world units; None: the
        agent's radius), ``cost`` None or >= 0, ``area`` 0..255, ``flags`` 0..0xFFFF,
        ``user_id`` a 64-bit int, ``kind`` a str; kept normalised (plain floats and ints,
        numpy numbers converted), anything else an
        :class:`~wayfinding.errors.InvalidGeometryError`.  Each end joins the polygon
        nearest it within ``radius`` (xz) and the agent's climb (y), anywhere in the mesh;
        a link with an end that finds none joins nothing (see
        :attr:`~wayfinding.navmesh3d.NavMesh3DQuery.unconnected_links`)."""
        checked = checked_links(links, dims=3)
        mesh = dataclasses.replace(self, links=checked)
        object.__setattr__(mesh, "revision", self.revision)
        return mesh

    def link_arrays(self) -> tuple[NDArray[np.float32], NDArray[np.float32],
                                   NDArray[np.uint8], NDArray[np.uint8], NDArray[np.float32]]:
        """The links as arrays: ends ``(L, 2, 3)`` float32, radius ``(L,)`` float32 (the
        agent's where None), bidirectional and area ``(L,)`` uint8, cost ``(L,)`` float32
        (-1 where None)."""
        links = self.links
        ends = np.array([[x.start, x.end] for x in links], np.float32).reshape(-1, 2, 3)
        radius = np.array([self.settings.agent_radius if x.radius is None else x.radius
                           for x in links], np.float32)
        two = np.array([x.bidirectional for x in links], np.uint8)
        areas = np.array([x.area for x in links], np.uint8)
        costs = np.array([-1.0 if x.cost is None else x.cost for x in links], np.float32)
        return ends, radius, two, areas, costs

    # ---------------------------------------------------------------- flags and areas
    def set_flags(self, polygons: Any, flags: Any) -> None:
        """Give ``polygons`` (global ids, an int or an array) the ability ``flags`` (one
        16-bit mask for all, or one per polygon), in place in the tiles' arrays."""
        self._set("flags", polygons, flags, 0xFFFF, np.uint16)

    def set_areas(self, polygons: Any, areas: Any) -> None:
        """Give ``polygons`` (global ids, an int or an array) the area ids ``areas``
        (0..63, one for all or one per polygon), in place in the tiles' arrays."""
        self._set("areas", polygons, areas, 63, np.uint8)

    def _set(self, name: str, polygons: Any, values: Any, top: int, dtype: Any) -> None:
        n = self.num_polygons
        ids = np.asarray(polygons)
        if ids.size == 0 and ids.ndim == 1:
            ids = ids.astype(np.int64)          # [] reads as float64: no polygons
        if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer) or ids.ndim > 1 \
                or (ids.size and (ids.min() < 0 or ids.max() >= n)):
            raise InvalidGeometryError(f"polygons {brief(polygons)} must be polygon ids "
                                       f"(integers in [0, {n}))")
        ids = ids.reshape(-1).astype(np.int64)
        vals = np.asarray(values)
        if vals.dtype == bool or not np.issubdtype(vals.dtype, np.integer) or \
                vals.ndim > 1 or (vals.ndim == 1 and len(vals) != len(ids)) or \
                (vals.size and (vals.min() < 0 or vals.max() > top)):
            raise InvalidGeometryError(f"{name} {brief(values)} must be one integer or one "
                                       f"per polygon ({len(ids)}), in [0, {top}]")
        if not ids.size:
            return
        vals = np.broadcast_to(vals.astype(dtype), ids.shape)
        bases = np.cumsum([0] + [t.polymesh.num_polys for t in self.tiles])
        which = np.searchsorted(bases, ids, side="right") - 1
        targets = [getattr(t.polymesh, name) for t in self.tiles]
        for k in np.unique(which).tolist():
            if not targets[k].flags.writeable:
                raise InvalidGeometryError(f"tile {k}'s {name} array is read-only")
        for k in np.unique(which).tolist():
            sel = which == k
            targets[k][ids[sel] - bases[k]] = vals[sel]
        self.revision[0] += 1

    # ---------------------------------------------------------------- geometry
    def polygons(self) -> list[NDArray[np.float64]]:
        """Every polygon's corners in world units, (k, 3) each, tile after tile."""
        out = []
        for t in self.tiles:
            pm = t.polymesh
            world = _voxels_to_world(pm)
            nvp = pm.nvp
            for row in pm.polys:
                ids = row[:nvp][row[:nvp] != MESH_NULL_IDX]
                out.append(world[ids])
        return out

    def triangles(self) -> tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.int64]]:
        """The detail triangles of the whole mesh: vertices (n, 3) in world units, triangles
        (m, 3) into them, and the polygon (numbered across tiles) each triangle covers."""
        verts, tris, owner = [], [], []
        base = poly_base = 0
        for t in self.tiles:
            d = t.detail
            for p, (vb, _, tb, nt) in enumerate(d.meshes.tolist()):
                tris.append(d.tris[tb:tb + nt, :3].astype(np.int64) + base + vb)
                owner.append(np.full(nt, poly_base + p))
            verts.append(d.verts)
            base += d.num_verts
            poly_base += t.polymesh.num_polys
        if not verts:
            return (np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int64),
                    np.zeros(0, np.int64))
        return (np.concatenate(verts), np.concatenate(tris) if tris else
                np.zeros((0, 3), np.int64), np.concatenate(owner) if owner else
                np.zeros(0, np.int64))

    # ---------------------------------------------------------------- files
    def save(self, path: str | os.PathLike) -> None:
        """Write the mesh to ``path`` (``.npz`` with a JSON header), atomically."""
        settings = {f.name: getattr(self.settings, f.name)
                    for f in dataclasses.fields(BuildSettings)}
        first = self.tiles[0].polymesh if self.tiles else None
        header = {"format": FORMAT, "version": VERSION, "settings": settings,
                  "tile_size": self.tile_size, "nvp": self.settings.verts_per_poly,
                  "cell_size": None if first is None else first.cell_size,
                  "cell_height": None if first is None else first.cell_height,
                  "borders": [t.polymesh.border for t in self.tiles],
                  "max_edge_error": None if first is None else first.max_edge_error,
                  "counts": self.report.counts, "ms": self.report.ms,
                  "origin": [float(v) for v in self.origin],
                  "links": [{"bidirectional": bool(x.bidirectional),
                             "cost": None if x.cost is None else float(x.cost),
                             "area": int(x.area), "flags": int(x.flags), "kind": str(x.kind),
                             "user_id": int(x.user_id),
                             "radius": None if x.radius is None else float(x.radius)}
                            for x in self.links]}
        pms = [t.polymesh for t in self.tiles]
        dms = [t.detail for t in self.tiles]
        write_npz(path, header,
                  tiles=np.array([(t.x, t.z) for t in self.tiles], np.int32).reshape(-1, 2),
                  origins=np.array([np.concatenate([p.bmin, p.bmax]) for p in pms],
                                   np.float32).reshape(-1, 6),
                  verts=_stack([p.verts for p in pms], (0, 3), np.uint16),
                  vert_ptr=_ptr([p.num_verts for p in pms]),
                  polys=_stack([p.polys for p in pms], (0, 2 * self.settings.verts_per_poly),
                               np.uint16),
                  poly_ptr=_ptr([p.num_polys for p in pms]),
                  regs=_stack([p.regs for p in pms], (0,), np.uint16),
                  areas=_stack([p.areas for p in pms], (0,), np.uint8),
                  flags=_stack([p.flags for p in pms], (0,), np.uint16),
                  meshes=_stack([d.meshes for d in dms], (0, 4), np.uint32),
                  dverts=_stack([d.verts for d in dms], (0, 3), np.float32),
                  dvert_ptr=_ptr([d.num_verts for d in dms]),
                  tris=_stack([d.tris for d in dms], (0, 4), np.uint8),
                  tri_ptr=_ptr([d.num_tris for d in dms]),
                  link_ends=np.array([[*x.start, *x.end] for x in self.links],
                                     np.float64).reshape(-1, 6))

    @classmethod
    def load(cls, path: str | os.PathLike) -> NavMesh3D:
        """Read a mesh written by :meth:`save` (this version's files, or version 1's, which
        hold no links); a malformed file raises
        :class:`~wayfinding.errors.NavMeshFormatError` naming it."""
        what = "3D navigation mesh"
        with NpzFile(path, NavMeshFormatError, f"saved {what}") as f:
            header = f.header()
            if header.get("format") != FORMAT:
                raise NavMeshFormatError(f"not a saved {what} (no {what} header)", path)
            v = header.get("version")
            if isinstance(v, bool) or v not in (1, VERSION):
                raise NavMeshFormatError(f"{what} format version {v!r} cannot be read (this "
                                         f"version reads 1 and {VERSION})", path)
            arrays = f.arrays(dict.fromkeys(_MEMBERS))
        try:
            return cls._restore(header, arrays)
        except FileFormatError as exc:
            raise NavMeshFormatError(f"malformed 3D navigation mesh: {exc.reason}",
                                     path) from None
        except (TypeError, ValueError, KeyError, WayfindingError) as exc:
            raise NavMeshFormatError(f"malformed 3D navigation mesh ({exc})", path) from None

    @classmethod
    def _restore(cls, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> NavMesh3D:
        settings = BuildSettings(**header["settings"])
        nvp = settings.verts_per_poly
        places = _saved.array(arrays, "tiles", np.int32, (None, 2))
        n = len(places)
        origins = _saved.array(arrays, "origins", np.float32, (n, 6))
        if not np.isfinite(origins).all():
            raise FileFormatError("array 'origins' holds NaN or infinity")
        borders = header["borders"]
        if not isinstance(borders, list) or len(borders) != n:
            raise FileFormatError(f"header borders must list {n} tiles' borders")
        vptr = _saved.pointers(_saved.array(arrays, "vert_ptr", np.int64, (n + 1,)),
                               "vert_ptr", len(arrays.get("verts", ())))
        verts = _saved.array(arrays, "verts", np.uint16, (int(vptr[-1]), 3))
        pptr = _saved.array(arrays, "poly_ptr", np.int64, (n + 1,))
        polys = _saved.array(arrays, "polys", np.uint16, (None, 2 * nvp))
        _saved.pointers(pptr, "poly_ptr", len(polys))
        count = len(polys)
        regs = _saved.array(arrays, "regs", np.uint16, (count,))
        areas = _saved.values_in(_saved.array(arrays, "areas", np.uint8, (count,)), "areas",
                                 0, 63)
        flags = _saved.array(arrays, "flags", np.uint16, (count,))
        meshes = _saved.array(arrays, "meshes", np.uint32, (count, 4))
        dptr = _saved.array(arrays, "dvert_ptr", np.int64, (n + 1,))
        dverts = _saved.array(arrays, "dverts", np.float32, (None, 3))
        _saved.pointers(dptr, "dvert_ptr", len(dverts))
        if not np.isfinite(dverts).all():
            raise FileFormatError("array 'dverts' holds NaN or infinity")
        tptr = _saved.array(arrays, "tri_ptr", np.int64, (n + 1,))
        tris = _saved.array(arrays, "tris", np.uint8, (None, 4))
        _saved.pointers(tptr, "tri_ptr", len(tris))
        tiles = []
        for k, (tx, tz) in enumerate(places.tolist()):
            tv = verts[vptr[k]:vptr[k + 1]]
            tp = polys[pptr[k]:pptr[k + 1]]
            corners = tp[:, :nvp]
            used = corners != MESH_NULL_IDX
            _saved.values_in(corners[used], "polys (corners)", 0, len(tv) - 1)
            tm = meshes[pptr[k]:pptr[k + 1]]
            nd, nt = int(dptr[k + 1] - dptr[k]), int(tptr[k + 1] - tptr[k])
            _saved.values_in(tm[:, 0].astype(np.int64) + tm[:, 1], "meshes (vertices)", 0, nd)
            _saved.values_in(tm[:, 2].astype(np.int64) + tm[:, 3], "meshes (triangles)", 0, nt)
            tt = tris[tptr[k]:tptr[k + 1]]
            for (_, nv, tb, ntri) in tm.tolist():
                _saved.values_in(tt[tb:tb + ntri, :3], "tris", 0, max(nv - 1, 0))
            poly = PolyMesh(verts=tv, polys=tp, regs=regs[pptr[k]:pptr[k + 1]],
                            areas=areas[pptr[k]:pptr[k + 1]],
                            flags=flags[pptr[k]:pptr[k + 1]], nvp=nvp,
                            bmin=origins[k, :3].copy(), bmax=origins[k, 3:].copy(),
                            cell_size=float(header["cell_size"]),
                            cell_height=float(header["cell_height"]),
                            border=_saved.integer(borders[k], "borders", 0),
                            max_edge_error=float(header["max_edge_error"]))
            detail = DetailMesh(meshes=tm, verts=dverts[dptr[k]:dptr[k + 1]], tris=tt)
            tiles.append(MeshTile(int(tx), int(tz), poly, detail))
        report = BuildReport(counts={str(k): int(v) for k, v in header["counts"].items()},
                             ms={str(k): float(v) for k, v in header["ms"].items()})
        origin = np.array(header["origin"], np.float32)
        if origin.shape != (3,) or not np.isfinite(origin).all():
            raise FileFormatError("header origin must be three finite numbers")
        links: tuple[OffMeshLink, ...] = ()
        if header["version"] >= 2:
            ends = _saved.array(arrays, "link_ends", np.float64, (None, 6))
            specs = header["links"]
            if not isinstance(specs, list) or len(specs) != len(ends) or \
                    not all(isinstance(x, dict) for x in specs):
                raise FileFormatError(f"header links must list {len(ends)} link descriptions")
            try:
                links = checked_links((OffMeshLink(tuple(e[:3]), tuple(e[3:]), **spec)
                                       for e, spec in zip(ends.tolist(), specs, strict=True)),
                                      dims=3)
            except InvalidGeometryError as exc:
                raise FileFormatError(str(exc)) from None
        return cls(tiles=tuple(tiles), settings=settings,
                   tile_size=_saved.integer(header["tile_size"], "tile_size", 0),
                   report=report, origin=origin, links=links)

    def to_obj(self, path: str | os.PathLike) -> None:
        """Write the detail triangles as an OBJ file (world units, y up), one group per
        tile."""
        verts, tris, _ = self.triangles()
        lines = ["# wayfinding navmesh3d: detail triangles, world units, y up"]
        lines += [f"v {x:.6g} {y:.6g} {z:.6g}" for x, y, z in verts.tolist()]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in tris.tolist()]
        atomic_write_text(path, "\n".join(lines) + "\n")

    def to_gltf(self, path: str | os.PathLike) -> None:
        """Write the detail triangles as glTF (``.gltf``) or GLB (``.glb``), coloured by
        region; needs the ``mesh`` extra (trimesh)."""
        try:
            import trimesh
        except ImportError:
            raise WayfindingError("writing glTF needs trimesh: "
                                  "pip install 'wayfinding[mesh]'") from None
        verts, tris, owner = self.triangles()
        regs = np.concatenate([t.polymesh.regs for t in self.tiles]) if self.tiles else \
            np.zeros(0, np.uint16)
        colours = region_colours(regs[owner] if len(owner) else regs)
        mesh = trimesh.Trimesh(verts, tris, face_colors=colours, process=False)
        mesh.export(os.fspath(path))


def region_colours(regs: NDArray[Any]) -> NDArray[np.uint8]:
    """An RGBA colour per region id, the same id always the same colour (golden-ratio hues,
    light and saturated enough to tell neighbours apart)."""
    hue = (np.asarray(regs, np.float64) * 0.618033988749895) % 1.0
    h6 = hue * 6
    k = np.stack([(5 + h6) % 6, (3 + h6) % 6, (1 + h6) % 6], axis=-1)
    rgb = 0.85 - 0.55 * np.clip(np.minimum(k, 4 - k), 0, 1)
    out = np.empty((len(hue), 4), np.uint8)
    out[:, :3] = np.round(rgb * 255)
    out[:, 3] = 255
    return out


def _voxels_to_world(pm: PolyMesh) -> NDArray[np.float64]:
    v = pm.verts.astype(np.float64)
    return np.stack([pm.bmin[0] + v[:, 0] * pm.cell_size,
                     pm.bmin[1] + v[:, 1] * pm.cell_height,
                     pm.bmin[2] + v[:, 2] * pm.cell_size], axis=1)


def _stack(parts: list[NDArray[Any]], empty: tuple[int, ...], dtype: Any) -> NDArray[Any]:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(empty, dtype)


def _ptr(sizes: list[int]) -> NDArray[np.int64]:
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
