"""The navigation mesh: convex polygons over the walkable area, with their adjacency, area
types and flags, and off-mesh links; how to build, save and load it.

The mesh is read-only data (as Detour's ``dtNavMesh``); queries and their scratch belong to
:class:`~wayfinding.navmesh.query.NavMeshQuery` (as ``dtNavMeshQuery``).  The mesh keeps its
query methods (:meth:`NavMesh.find_path`, :meth:`NavMesh.locate`, :meth:`NavMesh.nearest`,
the surface queries...) as conveniences, not deprecated: each runs on a
:class:`~wayfinding.navmesh.query.NavMeshQuery` the mesh makes for the calling thread on its
first call, so one mesh still serves many threads.  Make your own query objects to hold their
scratch yourself (one per thread, or one per agent group).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import KW_ONLY, dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from .. import _saved
from .._deprecated import positional_options, renamed_keywords, warn
from .._io import read_npz, write_npz
from .._kernels import _navmesh
from .._scratch import PerThread
from .._validate import INT64_MAX, allocation, choice, count, finite_points, flag, positive_float
from ..constraints import ConstraintSet
from ..errors import (
    FileFormatError,
    InvalidGeometryError,
    InvalidQueryError,
    NavMeshFormatError,
    WayfindingError,
    brief,
)
from ..geometry.buckets import Buckets, box_buckets
from ..graph.constrained import ConstrainedPath
from ..results import _fields_equal
from . import build as _build
from . import subtractive as _subtractive
from . import wavefront as _wavefront
from .constraint_domains import constrained_query
from .query import NavMeshQuery, NavPaths
from .records import DEFAULT_FILTER, NavPath, QueryFilter
from .surface import RayHit, WallDistance

#: Default cap on the vertices of one polygon (as Recast's default).
MAX_VERTS = 6

#: Format name and version of saved meshes.
FORMAT, VERSION = "wayfinding-navmesh", 1

#: The arrays of a saved mesh.
_MEMBERS = ("vertices", "polygons", "sizes", "areas", "flags", "link_points", "link_polygons")


@positional_options("bidirectional", "cost", "area", "flags", "kind", "user_id")
@dataclass(frozen=True)
class OffMeshLink:
    """A connection the mesh's surface does not show: a jump, a drop, a ladder, a door.

    ``start``/``end``: world points ((x, y) on a 2D mesh, (x, y, z) on a voxel mesh), each
    snapped to the nearest polygon within ``radius`` world units (Detour's per-link
    radius; default: the 2D build's ``snap``, or the voxel mesh's agent radius, where a
    polygon must also lie within the agent's climb of the end in height).  One-way unless
    ``bidirectional``.  ``cost``: what crossing it costs (default: the distance between the
    ends, times its area's cost on a voxel mesh).  ``area``/``flags``: filtered like a
    polygon's; ``kind`` and ``user_id`` are kept for the game.
    """

    start: Any
    end: Any
    _: KW_ONLY
    bidirectional: bool = False
    cost: float | None = None
    area: int = 0
    flags: int = 1
    kind: str = "jump"
    user_id: int = 0
    radius: float | None = None

    __eq__ = _fields_equal


def checked_links(links: Any, *, dims: int,
                  error: type[WayfindingError] = InvalidGeometryError
                  ) -> tuple[OffMeshLink, ...]:
    """``links`` (an iterable of :class:`OffMeshLink`) checked and normalised: ends as
    tuples of ``dims`` finite floats, ``cost`` and ``radius`` floats (or None), ``area``,
    ``flags`` and ``user_id`` ints, ``kind`` a str; anything else raises ``error`` naming
    the link, the field and the value."""
    try:
        given = tuple(links)
    except TypeError:
        raise error(f"links {brief(links)} must be an iterable of OffMeshLink") from None
    out = []
    for i, link in enumerate(given):
        if not isinstance(link, OffMeshLink):
            raise error(f"links[{i}] must be an OffMeshLink, got {type(link).__name__}")
        ends = []
        for name in ("start", "end"):
            value = getattr(link, name)
            try:
                p = np.asarray(value, np.float64)
            except (TypeError, ValueError):
                p = None
            if p is None or p.shape != (dims,) or not np.isfinite(p).all():
                point = "(x, y)" if dims == 2 else "(x, y, z)"
                raise error(f"links[{i}].{name} {brief(value)} must be one finite {point} "
                            "point")
            ends.append(tuple(float(v) for v in p))
        both = flag(f"links[{i}].bidirectional", link.bidirectional, error=error)
        if not isinstance(link.kind, str):
            raise error(f"links[{i}].kind {brief(link.kind)} must be a str")
        out.append(OffMeshLink(
            ends[0], ends[1], bidirectional=both,
            cost=None if link.cost is None else positive_float(
                f"links[{i}].cost", link.cost, allow_zero=True, error=error),
            area=count(f"links[{i}].area", link.area, min=0, max=255, error=error),
            flags=count(f"links[{i}].flags", link.flags, min=0, max=0xFFFF, error=error),
            kind=link.kind,
            user_id=count(f"links[{i}].user_id", link.user_id, min=-INT64_MAX - 1,
                          error=error),
            radius=None if link.radius is None else positive_float(
                f"links[{i}].radius", link.radius, error=error)))
    return tuple(out)


class NavMesh:
    """Convex polygons covering a walkable area, with their shared edges.

    Arrays (read-only):

    - ``vertices``: ``(V, 2)`` float64 world points;
    - ``polygons``: ``(P, max_verts)`` int32 vertex ids, counter-clockwise (y up), padded
      with -1; ``sizes``: ``(P,)`` vertex counts;
    - ``neighbours``: ``(P, max_verts)`` int32: the polygon across edge k (from vertex k to
      vertex k + 1), -1 for a wall or padding;
    - ``areas``: ``(P,)`` uint8 area type ids; ``flags``: ``(P,)`` uint16 ability flags;
    - ``links``: the :class:`OffMeshLink` list, with ``link_points`` ``(L, 4)`` (snapped
      start and end) and ``link_polygons`` ``(L, 2)``;
    - ``source_walls``: the walls of the area :meth:`build` was given, before erosion by
      the radius, as :meth:`boundary` gives the mesh's own (``None`` for a mesh made
      otherwise or loaded from a file: files keep the mesh only).

    Build with :meth:`build`; query with a :class:`~wayfinding.navmesh.query.NavMeshQuery`
    or with the mesh's own :meth:`find_path`, :meth:`locate`, :meth:`nearest` (and their
    ``*_many`` forms for arrays of points) and surface queries, which use one query per
    thread: one mesh serves many threads.

    >>> mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
    ...                      holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]])
    >>> mesh.num_polygons, round(float(mesh.polygon_areas().sum()), 6)
    (4, 96.0)
    >>> r = mesh.find_path((1, 5), (9, 5))
    >>> r.path.round(6).tolist(), round(r.cost, 6)
    ([[1.0, 5.0], [4.0, 6.0], [6.0, 6.0], [9.0, 5.0]], 8.324555)
    """

    def __init__(self, vertices: np.ndarray, polygons: np.ndarray, sizes: np.ndarray, *,
                 areas: Any = None, flags: Any = None, links: tuple[OffMeshLink, ...] = (),
                 link_points: Any = None, link_polygons: Any = None,
                 build_time: float = 0.0):
        self.vertices = _frozen(np.asarray(vertices, dtype=np.float64))
        self.polygons = _frozen(np.asarray(polygons, dtype=np.int32))
        self.sizes = _frozen(np.asarray(sizes, dtype=np.int32))
        p = len(self.sizes)
        self.neighbours = _frozen(_adjacency(self.polygons, self.sizes))
        self.areas = _frozen(np.zeros(p, np.uint8) if areas is None
                             else np.asarray(areas, dtype=np.uint8))
        self.flags = _frozen(np.ones(p, np.uint16) if flags is None
                             else np.asarray(flags, dtype=np.uint16))
        self.links = tuple(links)
        self.link_points = _frozen(np.zeros((0, 4)) if link_points is None
                                   else np.asarray(link_points, dtype=np.float64))
        self.link_polygons = _frozen(np.zeros((0, 2), np.int32) if link_polygons is None
                                     else np.asarray(link_polygons, dtype=np.int32))
        self.build_time = float(build_time)
        self.source_walls: tuple[np.ndarray, ...] | None = None
        self._local: PerThread[NavMeshQuery] = PerThread()

    # ------------------------------------------------------------------ building
    @classmethod
    @renamed_keywords(cell="cell_size")
    def build(cls, area: Any = None, *, outline: Any = None, holes: Any = (),
              radius: float = 0.0, max_verts: int = MAX_VERTS, quad_segs: int = 4,
              links: Any = (), snap: float = 1.0, method: str = "delaunay",
              cell_size: float | None = None, regions: Any = (), seed: int | None = None,
              merge: bool | None = None) -> NavMesh:
        """Build the mesh of a walkable area for an agent of ``radius`` (world units).

        ``area``/``outline``/``holes``: see :func:`~wayfinding.navmesh.build.walkable_area`
        (shapely, WKT, GeoJSON, a Grid, or rings).  Every boundary is moved inward by
        ``radius`` (round joins, ``quad_segs`` chords per quarter circle).  ``links``:
        :class:`OffMeshLink` objects whose ends must lie within ``snap`` of the mesh (or
        within the link's own ``radius``, when it has one).

        ``method``: ``"delaunay"`` (constrained Delaunay triangles merged into convex
        polygons of at most ``max_verts`` (>= 3) vertices; see :mod:`.build`) or
        ``"subtractive"`` (convex obstacles cut out of convex pieces of the outline, first
        cut by a square grid of side ``cell_size`` when given; see :mod:`.subtractive`; polygons
        keep every vertex their neighbours put on their edges, so ``max_verts`` does not
        apply), or ``"wavefront"`` (convex regions grown one at a time from seeds next to
        the walls, by jumps to events: axis-aligned between regions, flush with sloped walls;
        the first seed drawn with ``numpy.random.default_rng(seed)`` (an int >= 0, default
        0); adjacent regions whose union is convex merged when ``merge`` (default True); see
        :mod:`.wavefront`; polygons keep their neighbours' corners as the subtractive
        builder's, so ``max_verts`` does not apply).

        ``regions``: ``(shape, area_id, flags)`` triples (a shapely polygon, WKT or GeoJSON;
        0..255; a 16-bit mask) marking area types, later ones over earlier ones; the rest
        of the mesh is area 0 with flags 1.  The mesh is cut along the regions' borders, so
        each polygon lies wholly in one area (polygons may gain collinear corners where the
        pieces meet, beyond ``max_verts``).  Needs the ``[geometry]`` extra.
        """
        max_verts = count("max_verts", max_verts, min=3, error=InvalidGeometryError)
        radius = positive_float("radius", radius, allow_zero=True, error=InvalidGeometryError)
        snap = positive_float("snap", snap, allow_zero=True, error=InvalidGeometryError)
        quad_segs = count("quad_segs", quad_segs, error=InvalidGeometryError)
        choice("method", method, ("delaunay", "subtractive", "wavefront"),
               error=InvalidGeometryError)
        if (seed is not None or merge is not None) and method != "wavefront":
            raise InvalidGeometryError("seed= and merge= go with method='wavefront'")
        seed = count("seed", 0 if seed is None else seed, min=0, error=InvalidGeometryError)
        merge = flag("merge", True if merge is None else merge, error=InvalidGeometryError)
        if cell_size is not None:
            cell_size = positive_float("cell_size", cell_size, error=InvalidGeometryError)
            if method != "subtractive":
                raise InvalidGeometryError("cell_size > 0 goes with method='subtractive'")
        links = checked_links(links, dims=2)
        t0 = time.perf_counter()
        geom = _build.walkable_area(area, outline=outline, holes=holes)
        source_walls = _wall_loops(geom)
        geom = _build.eroded(geom, radius, quad_segs=quad_segs)
        pieces, piece_area, piece_flags = [], [], []
        parts = _build.split_regions(geom, regions)
        # Delaunay triangles of one part share exact vertices; cut pieces and the parts'
        # borders (rounded by the overlays) meet within a tolerance.
        tol = 0.0 if method == "delaunay" and len(parts) == 1 \
            else _subtractive.weld_tolerance(geom)
        for part, area_id, part_flags in parts:
            if method == "delaunay":
                verts, tris = _build.triangulate(part)
                found = [verts[p] for p in _build.merge_convex(verts, tris, max_verts)]
            elif method == "subtractive":
                found = _subtractive.subtractive_pieces(part, cell_size=cell_size)
            else:
                found = _wavefront.wavefront_regions(part, seed=seed, merge=merge)
            pieces += found
            piece_area += [area_id] * len(found)
            piece_flags += [part_flags] * len(found)
        # One Delaunay part has no T-junctions; cut pieces or several parts may have.
        verts, polys, kept = _subtractive.weld(pieces, tol,
                                               junctions=method != "delaunay" or len(parts) > 1) \
            if pieces else (np.empty((0, 2)), [], [])
        if not polys:
            raise InvalidGeometryError(f"the walkable area is nowhere wider than {tol:g}, the "
                                       f"tolerance its {method} pieces are welded at")
        max_verts = max(max(len(p) for p in polys), max_verts if method == "delaunay" else 3)
        allocation(f"a table of {len(polys)} polygons of max_verts {max_verts}",
                   len(polys) * max_verts, error=InvalidGeometryError)
        table = np.full((len(polys), max_verts), -1, dtype=np.int32)
        sizes = np.array([len(p) for p in polys], dtype=np.int32)
        for i, p in enumerate(polys):
            table[i, :len(p)] = p
        areas = np.array(piece_area, dtype=np.uint8)[kept]
        flags = np.array(piece_flags, dtype=np.uint16)[kept]
        mesh = cls(verts, table, sizes, areas=areas, flags=flags)
        if links:
            pts, owners = mesh._snap_links(links, snap)
            mesh = cls(verts, table, sizes, areas=areas, flags=flags, links=links,
                       link_points=pts, link_polygons=owners)
        mesh.build_time = time.perf_counter() - t0
        mesh.source_walls = source_walls
        return mesh

    def _snap_links(self, links: tuple[OffMeshLink, ...], snap: float
                    ) -> tuple[np.ndarray, np.ndarray]:
        ends = [end for link in links for end in (link.start, link.end)]
        pts = np.array(ends, np.float64).reshape(-1, 2)
        owners, snapped = self._nearest(pts, np.ones(self.num_polygons, np.uint8))
        limits = np.repeat([snap if x.radius is None else float(x.radius) for x in links], 2)
        far = np.hypot(*(snapped - pts).T) > limits
        if far.any():
            k = int(np.argmax(far))
            name = "snap" if links[k // 2].radius is None else f"links[{k // 2}].radius"
            raise InvalidGeometryError(
                f"links[{k // 2}].{('start', 'end')[k % 2]} {tuple(pts[k])} is farther than "
                f"{name}={limits[k]:g} from the mesh")
        return snapped.reshape(-1, 4), owners.reshape(-1, 2)

    @positional_options("areas", "flags")
    def with_areas(self, *, areas: Any = None, flags: Any = None) -> NavMesh:
        """A copy with new per-polygon area ids (``(P,)`` 0..255) and/or ability flags
        (``(P,)`` 16-bit masks); arrays not given are kept.  The mesh itself is unchanged."""
        new = []
        for name, values, top in (("areas", areas, 255), ("flags", flags, 0xFFFF)):
            if values is None:
                new.append(getattr(self, name))
                continue
            arr = np.asarray(values)
            if arr.shape != (self.num_polygons,) or not np.issubdtype(arr.dtype, np.integer) \
                    or arr.dtype == bool or (arr < 0).any() or (arr > top).any():
                raise InvalidQueryError(f"{name} must be ({self.num_polygons},) integers "
                                        f"0..{top}")
            new.append(arr)
        mesh = NavMesh(self.vertices, self.polygons, self.sizes, areas=new[0], flags=new[1],
                       links=self.links, link_points=self.link_points,
                       link_polygons=self.link_polygons, build_time=self.build_time)
        mesh.source_walls = self.source_walls
        return mesh

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> None:
        """Write the mesh to ``path`` (``.npz`` with a JSON header), atomically."""
        links = self.links
        header = {"format": FORMAT, "version": VERSION, "build_time": self.build_time,
                  "links": [{"bidirectional": bool(x.bidirectional),
                             "cost": None if x.cost is None else float(x.cost),
                             "area": int(x.area), "flags": int(x.flags), "kind": str(x.kind),
                             "user_id": int(x.user_id),
                             **({} if x.radius is None else {"radius": float(x.radius)})}
                            for x in links]}
        write_npz(path, header, vertices=self.vertices, polygons=self.polygons,
                  sizes=self.sizes, areas=self.areas, flags=self.flags,
                  link_points=self.link_points, link_polygons=self.link_polygons)

    @classmethod
    def load(cls, path: str | os.PathLike) -> NavMesh:
        """Read a mesh written by :meth:`save`; a malformed file raises
        :class:`NavMeshFormatError` naming it."""
        header, arrays = read_npz(path, FORMAT, VERSION, "navigation mesh",
                                  NavMeshFormatError, _MEMBERS)
        try:
            v = _saved.array(arrays, "vertices", np.float64, (None, 2))
            n = _saved.array(arrays, "sizes", np.int32, (None,))
            count = len(n)
            p = _saved.array(arrays, "polygons", np.int32, (count, None))
            if not np.isfinite(v).all():
                raise NavMeshFormatError("array 'vertices' holds NaN or infinity")
            _saved.values_in(n, "sizes", 3, p.shape[1])
            # Corners 0..size-1 of each polygon are vertex ids, the rest -1.
            used = np.arange(p.shape[1])[None, :] < n[:, None]
            _saved.values_in(p[used], "polygons (corners)", 0, len(v) - 1)
            _saved.values_in(p[~used], "polygons (padding)", -1, -1)
            areas = _saved.array(arrays, "areas", np.uint8, (count,))
            flags = _saved.array(arrays, "flags", np.uint16, (count,))
            points = _saved.array(arrays, "link_points", np.float64, (None, 4))
            owners = _saved.array(arrays, "link_polygons", np.int32, (len(points), 2))
            if not np.isfinite(points).all():
                raise NavMeshFormatError("array 'link_points' holds NaN or infinity")
            _saved.values_in(owners, "link_polygons", 0, count - 1)
            specs = header.get("links")
            if not isinstance(specs, list) or len(specs) != len(points) \
                    or not all(isinstance(x, dict) for x in specs):
                raise NavMeshFormatError(f"header links must be a list of {len(points)} link "
                                       "descriptions")
            links = checked_links((OffMeshLink(tuple(pt[:2]), tuple(pt[2:]), **spec)
                                   for pt, spec in zip(points.tolist(), specs, strict=True)),
                                  dims=2)
            build_time = _saved.number(header.get("build_time", 0.0), "build_time")
        except FileFormatError as exc:
            raise NavMeshFormatError(f"malformed navigation mesh: {exc.reason}", path) from None
        except (TypeError, ValueError, WayfindingError) as exc:
            raise NavMeshFormatError(f"malformed navigation mesh ({exc})", path) from None
        return cls(v, p, n, areas=areas, flags=flags, links=links, link_points=points,
                   link_polygons=owners, build_time=build_time)

    # ------------------------------------------------------------------ properties
    @property
    def num_polygons(self) -> int:
        return len(self.sizes)

    @property
    def max_verts(self) -> int:
        return self.polygons.shape[1]

    def polygon(self, i: int) -> np.ndarray:
        """``(k, 2)`` corners of polygon ``i``, counter-clockwise."""
        i = count("polygon", i, min=0, max=self.num_polygons - 1)
        return self.vertices[self.polygons[i, :self.sizes[i]]]

    def polygon_areas(self) -> np.ndarray:
        """``(P,)`` polygon areas (shoelace formula, from each polygon's first vertex, so
        as precise far from the origin as near it)."""
        idx = np.where(self.polygons >= 0, self.polygons, self.polygons[:, :1])
        p = self.vertices[idx]                        # padding repeats vertex 0: no area
        p = p - p[:, :1]
        nxt = np.roll(p, -1, axis=1)
        return 0.5 * (p[..., 0] * nxt[..., 1] - nxt[..., 0] * p[..., 1]).sum(axis=1)

    def centroids(self) -> np.ndarray:
        """``(P, 2)`` vertex means of the polygons (inside, as polygons are convex)."""
        idx = np.where(self.polygons >= 0, self.polygons, 0)
        pts = self.vertices[idx] * (self.polygons >= 0)[..., None]
        return pts.sum(axis=1) / self.sizes[:, None]

    def shared_boundary(self, a: int, b: int) -> np.ndarray | None:
        """The ends ``(2, 2)`` of the boundary polygons ``a`` and ``b`` share, in ``a``'s
        counter-clockwise order (a walker going from ``a`` to ``b`` has the first on its
        right), or None when they share none.  Two convex polygons share at most one
        segment, but vertices along it (a third polygon's corner, or a merge) may split it
        into several edges: the ends are those of the whole run.

        >>> square = NavMesh(np.array([(0, 0), (5, 0), (5, 5), (5, 10), (0, 10), (10, 0),
        ...                            (10, 10)], float),
        ...                  np.array([[0, 1, 2, 3, 4], [1, 5, 6, 3, 2]], np.int32),
        ...                  np.array([5, 5], np.int32))
        >>> square.shared_boundary(0, 1).tolist(), square.shared_boundary(1, 0).tolist()
        ([[5.0, 0.0], [5.0, 10.0]], [[5.0, 10.0], [5.0, 0.0]])
        """
        ends = self._query()._kernel.portal(int(a), int(b))
        return None if ends is None else self.vertices[list(ends)]

    def boundary(self) -> list[np.ndarray]:
        """The walls as closed loops of corners, ``(k, 2)`` each, with the walkable side on
        the right of every edge: clockwise around the mesh's outside, counter-clockwise
        around its holes (RVO2's obstacle orientation).  Where the walkable area touches
        itself at a corner, each loop keeps to its own side (the first wall
        counter-clockwise from where it came, sweeping through the walkable side)."""
        p, m = self.polygons.shape
        k = np.arange(m)
        wall = (k[None, :] < self.sizes[:, None]) & (self.neighbours < 0)
        pi, ki = np.nonzero(wall)
        nxt = np.take_along_axis(self.polygons, (k[None, :] + 1) % self.sizes[:, None], 1)
        start, end = nxt[pi, ki].tolist(), self.polygons[pi, ki].tolist()   # reversed edges
        leaving: dict[int, list[int]] = {}
        for e, a in enumerate(start):
            leaving.setdefault(a, []).append(e)
        v = self.vertices
        used = [False] * len(start)
        loops = []
        for first in range(len(start)):
            if used[first]:
                continue
            loop, e = [], first
            while not used[e]:
                used[e] = True
                loop.append(start[e])
                choices = [c for c in leaving[end[e]] if not used[c]]
                if not choices:
                    break
                back = v[start[e]] - v[end[e]]
                e = min(choices, key=lambda c: _ccw_angle(back, v[end[c]] - v[end[e]]))
            loops.append(v[loop].copy())
        return loops

    def __repr__(self) -> str:
        return (f"NavMesh({self.num_polygons} polygons, {len(self.vertices)} vertices, "
                f"max_verts {self.max_verts}, {len(self.links)} links)")

    # ------------------------------------------------------------------ spatial index
    @cached_property
    def _buckets(self) -> Buckets:
        return bucket_index(self.vertices, self.polygons)

    @cached_property
    def reach(self) -> float:
        """The diagonal of the vertices' bounding box: no move on the mesh is longer."""
        return float(np.hypot(*np.ptp(self.vertices, axis=0))) if len(self.vertices) else 0.0

    def _locate(self, pts: np.ndarray) -> np.ndarray:
        """``(n,)`` int32: the polygon holding each of the ``(n, 2)`` float64 points, or -1."""
        out = np.empty(len(pts), dtype=np.int32)
        _navmesh.locate(self.vertices, self.polygons, self.sizes, *self._buckets, pts, out)
        return out

    def _nearest(self, pts: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``allowed`` (``(P,)`` uint8) polygon nearest each point and the nearest point
        on it: ``(n,)`` int32 and ``(n, 2)`` float64."""
        out = np.empty(len(pts), dtype=np.int32)
        snapped = np.empty((len(pts), 2))
        _navmesh.nearest(self.vertices, self.polygons, self.sizes, *self._buckets, allowed,
                         np.ascontiguousarray(pts), out, snapped)
        return out, snapped

    @cached_property
    def _directed_links(self) -> tuple[np.ndarray, ...]:
        """Off-mesh links by source polygon: (ptr, target polygon, (from, to) points, cost,
        link id)."""
        src, dst, pts, cost, ref = [], [], [], [], []
        for i, link in enumerate(self.links):
            a, b = self.link_points[i, :2], self.link_points[i, 2:]
            pa, pb = self.link_polygons[i]
            c = float(np.hypot(*(b - a))) if link.cost is None else float(link.cost)
            ends = [(pa, pb, a, b)] + ([(pb, pa, b, a)] if link.bidirectional else [])
            for s, t, p, q in ends:
                src.append(s)
                dst.append(t)
                pts.append(np.concatenate([p, q]))
                cost.append(c)
                ref.append(i)
        order = np.argsort(np.array(src, dtype=np.int64), kind="stable")
        ptr = np.zeros(self.num_polygons + 1, dtype=np.int64)
        np.cumsum(np.bincount(np.array(src, dtype=np.int64), minlength=self.num_polygons),
                  out=ptr[1:])
        return (ptr, np.array(dst, dtype=np.int32)[order],
                np.array(pts, dtype=np.float64).reshape(-1, 4)[order],
                np.array(cost, dtype=np.float64)[order], np.array(ref, dtype=np.int32)[order])

    # ------------------------------------------------------------------ queries
    def _query(self) -> NavMeshQuery:
        """This thread's :class:`NavMeshQuery` on the mesh, made on first use."""
        return self._local.mine() or self._local.keep(NavMeshQuery(self))

    @overload
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, filter: QueryFilter = ...,
                  partial: bool = ..., method: str = ..., constraints: None = None,
                  domain: str = ..., spacing: float | None = ..., t: float = ...
                  ) -> NavPath: ...

    @overload
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, filter: QueryFilter = ...,
                  partial: bool = ..., method: str = ..., constraints: ConstraintSet,
                  domain: str = ..., spacing: float | None = ..., t: float = ...
                  ) -> ConstrainedPath: ...

    def find_path(self, start: ArrayLike, goal: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER,
                  partial: bool = False, method: str = "astar",
                  constraints: ConstraintSet | None = None, domain: str = "tri",
                  spacing: float | None = None, t: float = 0.0) -> NavPath | ConstrainedPath:
        """:meth:`NavMeshQuery.find_path` on this thread's query (with ``constraints``, a
        constrained search as there)."""
        if constraints is not None or domain != "tri" or spacing is not None:
            return constrained_query(self, start, goal, filter=filter, partial=partial,
                                     method=method, constraints=constraints, domain=domain,
                                     spacing=spacing, t=t)
        return self._query()._find_path(start, goal, filter, partial, method)

    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *,
                   filter: QueryFilter = DEFAULT_FILTER, partial: bool = False) -> NavPaths:
        """:meth:`NavMeshQuery.find_paths` on this thread's query."""
        return self._query().find_paths(starts, goals, filter=filter, partial=partial)

    @renamed_keywords(points="point")
    def locate(self, point: ArrayLike) -> int:
        """:meth:`NavMeshQuery.locate`: the polygon holding ``point``, -1 off the mesh.
        (An ``(n, 2)`` array is deprecated here: use :meth:`locate_many`.)"""
        pts, single = finite_points("point", point)
        if not single:
            warn("NavMesh.locate() of an (n, 2) array", "NavMesh.locate_many()")
            return self._query().locate_many(pts)  # type: ignore[return-value]
        return self._query()._locate_one(pts)

    def locate_many(self, points: ArrayLike) -> np.ndarray:
        """:meth:`NavMeshQuery.locate_many`: ``(n,)`` int32 polygons of ``(n, 2)`` points."""
        return self._query().locate_many(points)

    @renamed_keywords(points="point")
    def nearest(self, point: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> tuple[int, tuple[float, float]]:
        """:meth:`NavMeshQuery.nearest`: ``(polygon, (x, y))`` nearest ``point``.  (An
        ``(n, 2)`` array is deprecated here: use :meth:`nearest_many`.)"""
        pts, single = finite_points("point", point)
        if not single:
            warn("NavMesh.nearest() of an (n, 2) array", "NavMesh.nearest_many()")
            return self._query().nearest_many(pts, filter=filter)  # type: ignore[return-value]
        return self._query()._nearest_one(pts, filter)

    def nearest_many(self, points: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`NavMeshQuery.nearest_many`: ``(n,)`` int32 polygons and ``(n, 2)``
        nearest points."""
        return self._query().nearest_many(points, filter=filter)

    def raycast(self, start: ArrayLike, end: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> RayHit:
        """:meth:`NavMeshQuery.raycast` on this thread's query."""
        return self._query().raycast(start, end, filter=filter)

    def move_along_surface(self, start: ArrayLike, target: ArrayLike, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[tuple[float, float], np.ndarray]:
        """:meth:`NavMeshQuery.move_along_surface` on this thread's query."""
        return self._query().move_along_surface(start, target, filter=filter)

    def distance_to_wall(self, centre: ArrayLike, radius: float, *,
                         filter: QueryFilter = DEFAULT_FILTER) -> WallDistance:
        """:meth:`NavMeshQuery.distance_to_wall` on this thread's query."""
        return self._query().distance_to_wall(centre, radius, filter=filter)

    def polygons_in_circle(self, centre: ArrayLike, radius: float, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`NavMeshQuery.polygons_in_circle` on this thread's query."""
        return self._query().polygons_in_circle(centre, radius, filter=filter)

    @positional_options("rng")
    def random_point(self, *, rng: Any = None, centre: ArrayLike | None = None,
                     radius: float | None = None, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[int, tuple[float, float]]:
        """:meth:`NavMeshQuery.random_point` on this thread's query."""
        return self._query().random_point(rng=rng, centre=centre, radius=radius, filter=filter)


def _ccw_angle(a: np.ndarray, b: np.ndarray) -> float:
    """The counter-clockwise angle from direction ``a`` to ``b``, in [0, 2 pi)."""
    return math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]) % (2 * math.pi)


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


def _adjacency(polygons: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Polygon across each edge: edges u -> v and v -> u of two polygons are shared."""
    p, m = polygons.shape
    k = np.arange(m)
    valid = k[None, :] < sizes[:, None]
    nxt_k = (k[None, :] + 1) % np.maximum(sizes[:, None], 1)
    u = polygons
    v = np.take_along_axis(polygons, nxt_k, axis=1)
    out = np.full((p, m), -1, dtype=np.int32)
    pi, ki = np.nonzero(valid)
    if not len(pi):
        return out
    a, b = u[pi, ki].astype(np.int64), v[pi, ki].astype(np.int64)
    n = int(max(a.max(), b.max())) + 1
    key = a * n + b
    rev = b * n + a
    order = np.argsort(key)
    pos = np.minimum(np.searchsorted(key[order], rev), len(key) - 1)
    hit = key[order][pos] == rev
    out[pi[hit], ki[hit]] = pi[order[pos[hit]]]
    return out


def bucket_index(vertices: np.ndarray, polygons: np.ndarray) -> Buckets:
    """Uniform buckets over the polygons' bounding boxes (rows of vertex ids, -1 padded),
    about twice a typical polygon wide, for the compiled point queries: (cell_ptr,
    cell_polys, ox, oy, cell, nx, ny)."""
    idx = np.where(polygons >= 0, polygons, polygons[:, :1])
    pts = vertices[idx]
    lo, hi = pts.min(axis=1), pts.max(axis=1)
    span = (hi.max(axis=0) - lo.min(axis=0)) if len(lo) else np.ones(2)
    mean = np.sqrt(np.mean(np.prod(np.maximum(hi - lo, 1e-12), axis=1))) if len(lo) else 1.0
    return box_buckets(lo, hi, max(float(mean) * 2.0, float(span.max()) / 1024))


def _wall_loops(geom: Any) -> tuple[np.ndarray, ...]:
    """The walls of a shapely (Multi)Polygon as :meth:`NavMesh.boundary` gives a mesh's:
    closed loops of corners (read-only ``(k, 2)``), walkable side on the right."""
    from shapely.geometry.polygon import orient
    loops = []
    for poly in getattr(geom, "geoms", [geom]):
        poly = orient(poly, sign=-1.0)        # outside clockwise, holes counter-clockwise
        for ring in (poly.exterior, *poly.interiors):
            loops.append(_frozen(np.array(ring.coords, dtype=np.float64)[:-1, :2]))
    return tuple(loops)
