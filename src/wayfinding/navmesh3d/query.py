"""Queries on a voxel navmesh (:class:`~wayfinding.navmesh3d.NavMesh3D`), answered as
Detour answers them on the same mesh: the nearest polygon to a point (``nearest``), A* over
polygons and the funnel (``find_path``), with the same polygons, corridors and corners; and
along the surface: ``raycast``, ``move_along_surface``, ``distance_to_wall``,
``polygons_in_box``, ``wall_segments``, ``height`` (the ground on a polygon) and
``random_point`` (this library's own draws, uniform by area); ``nearest_many``,
``find_paths`` and ``raycast_many`` answer arrays of queries in one compiled loop, and
``start`` runs a path search in slices (:mod:`wayfinding.sliced`); the polygons round a
point as Detour finds them (``polygons_around_circle``, ``polygons_around_shape``,
``local_neighbourhood``).

Off-mesh links (:meth:`NavMesh3D.with_links`) are nodes after the polygons, numbered
``num_polygons + link`` (as Detour's off-mesh connection polygons): A* crosses one from
the polygon at its start to the one at its end (both ways when bidirectional), at its own
``cost`` or its length times its area's cost; filters treat it as a polygon with the link's
flags and area.  A path through one has a corner at its start flagged :data:`OFFMESH`
(with the link's node as its polygon) and the next at its end; as in Detour, when the
path's start is the link's start that corner is the path's first (flagged :data:`START`
only), so tell the links' corners by their polygons (``corner_polygons >= num_polygons``).

The mesh is laid out for queries once (world-space polygons, links within and across
tiles, a bounding-volume tree per tile) and shared by every :class:`NavMesh3DQuery` made on
it; each query object owns its search scratch.  A tile cache's next mesh is laid out from
the previous layout, in time that grows with the tiles rebuilt (:func:`compile_mesh`).
Filters are the 2D meshes' :class:`~wayfinding.navmesh.records.QueryFilter` (polygon flags to
include and exclude, cost per area) and results are :class:`NavPath3D`, the 2D
:class:`NavPath` with 3D points.

Polygons built by :func:`~wayfinding.navmesh3d.build` have flags 0, which no filter
includes: give them flags first (:func:`with_flags`, as Recast's demo flags its walkable
ground).  Unlike Detour's, the search has no node or corridor limit (the demo's: 2048 nodes,
256 polygons), every off-mesh link is joined however many end in one tile (Detour's tiles
hold links for their edges, twice their border edges and twice the link ends inside them,
and drop those past it), and an area of infinite cost is closed, as on the 2D meshes.
"""

from __future__ import annotations

import math
import operator
import time
import weakref
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _detour
from .._scratch import SingleThread, exclusive
from .._validate import count, flag, generator, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..graph.constrained import ConstrainedPath
from ..navmesh.records import DEFAULT_FILTER, END, OFFMESH, START, NavPath, QueryFilter
from ..results import SearchStats, Status, _fields_equal
from ..sliced import SlicedSearch
from .constrained import Mesh3DConstraintDomain
from .navmesh import MeshTile, NavMesh3D

__all__ = ["END", "OFFMESH", "START", "NavMesh3DQuery", "NavPath3D", "NavPaths3D",
           "NearbyPolygons3D", "RayHit3D", "RayHits3D", "SurfaceMove3D", "WallDistance3D",
           "with_flags"]

#: The half extents (x, y, z) of the box searched round a point for its polygon: the
#: reference demo's.
HALF_EXTENTS = (2.0, 4.0, 2.0)

#: The polygon flag the reference demo gives walkable ground, and its area ids.
WALK = 1

_compiled: weakref.WeakKeyDictionary[NavMesh3D, _detour.DetourMesh] = \
    weakref.WeakKeyDictionary()


@dataclass(slots=True, repr=False, kw_only=True)
class NavPath3D(NavPath):
    """A path on a voxel navmesh: ``path`` the straight path, ``(k, 3)`` float64 corners
    from start to goal; ``cost`` its length (3D, the sum of its segments); ``corridor``
    the polygons walked through, off-mesh links among them as nodes ``num_polygons +
    link``; ``flags`` :data:`START` / :data:`END` / :data:`OFFMESH` (the corner where a
    link starts) per corner; ``corner_polygons`` the polygon (or link node) each corner
    leads into, -1 at the end, as Detour's straight-path refs; ``links`` the links taken
    (0-based, in order); ``start`` and ``goal`` the nearest points on the mesh to the
    points given.  A partial path (:attr:`~wayfinding.results.Status.PARTIAL`) ends on the
    polygon whose search node came nearest the goal; as Detour's, that may be an off-mesh
    link's node (the path then ends on the link's segment)."""

    __eq__ = _fields_equal


@dataclass(frozen=True)
class RayHit3D:
    """Outcome of :meth:`NavMesh3DQuery.raycast`: ``t`` the fraction of the segment walked
    (in xz) before the wall it meets (``inf`` when its end lies on a polygon reached);
    ``point`` the start plus ``t`` times the segment (the end when nothing is hit);
    ``normal`` the wall's unit normal, horizontal, pointing back into the polygon it
    bounds (zeros when nothing is hit); ``polygons`` the polygons crossed, in order."""

    t: float
    point: tuple[float, float, float]
    normal: tuple[float, float, float]
    polygons: np.ndarray

    __eq__ = _fields_equal

    @property
    def hit(self) -> bool:
        return math.isfinite(self.t)


@dataclass(frozen=True, eq=False)
class RayHits3D:
    """Outcome of :meth:`NavMesh3DQuery.raycast_many`, ray i at row i: ``start_polygons``
    ``(n,)`` int32 (-1: the start is off the mesh); ``t`` ``(n,)`` float64 as
    :attr:`RayHit3D.t` (``inf`` when the end is reached, NaN when the start is off the
    mesh); ``points`` and ``normals`` ``(n, 3)`` float64 (NaN off the mesh); ray i's
    polygons crossed are ``polygons[polygon_ptr[i]:polygon_ptr[i + 1]]``."""

    start_polygons: np.ndarray
    t: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    polygon_ptr: np.ndarray
    polygons: np.ndarray

    def __len__(self) -> int:
        return len(self.t)

    @property
    def hit(self) -> np.ndarray:
        """``(n,)`` bool: whether each ray met a wall."""
        return np.isfinite(self.t)

    def __getitem__(self, i: int) -> RayHit3D | None:
        """Ray i as :meth:`NavMesh3DQuery.raycast` gives it; None when its start is off the
        mesh."""
        i = _row(i, len(self))
        if self.start_polygons[i] < 0:
            return None
        p, n = self.points[i], self.normals[i]
        return RayHit3D(float(self.t[i]), (float(p[0]), float(p[1]), float(p[2])),
                        (float(n[0]), float(n[1]), float(n[2])),
                        self.polygons[self.polygon_ptr[i]:self.polygon_ptr[i + 1]])


@dataclass(frozen=True)
class SurfaceMove3D:
    """Outcome of :meth:`NavMesh3DQuery.move_along_surface`: the ``point`` reached (on the
    ground of the last polygon) and the ``polygons`` from the start's to the one it lies
    on."""

    point: tuple[float, float, float]
    polygons: np.ndarray

    __eq__ = _fields_equal


@dataclass(frozen=True, eq=False)
class NearbyPolygons3D:
    """Outcome of :meth:`NavMesh3DQuery.polygons_around_circle`,
    :meth:`~NavMesh3DQuery.polygons_around_shape` and
    :meth:`~NavMesh3DQuery.local_neighbourhood`: ``polygons`` ``(n,)`` int32 in the order
    found (off-mesh links as nodes ``num_polygons + link``), the ``parents`` they were
    reached from (``(n,)`` int32, -1 for the first) and, for the Dijkstra searches, the
    ``costs`` of reaching them (``(n,)`` float32, in order; None for the neighbourhood)."""

    polygons: np.ndarray
    parents: np.ndarray
    costs: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.polygons)


@dataclass(frozen=True)
class WallDistance3D:
    """Outcome of :meth:`NavMesh3DQuery.distance_to_wall`: ``distance`` (xz; ``inf`` when
    no wall lies within the radius), the nearest wall ``point`` and the unit ``normal``
    from it toward the centre (``None`` both when no wall)."""

    distance: float
    point: tuple[float, float, float] | None
    normal: tuple[float, float, float] | None


def with_flags(mesh: NavMesh3D, *, flags: int = WALK) -> NavMesh3D:
    """``mesh`` with every polygon's flags set to ``flags`` (default :data:`WALK`), as
    the reference demo flags its walkable ground before it queries (its flags and areas
    its own: :meth:`~NavMesh3D.set_flags` and :meth:`~NavMesh3D.set_areas` on one mesh
    leave the other's alone)."""
    flags = count("flags", flags, min=0, max=0xFFFF)
    tiles = tuple(MeshTile(t.x, t.z, replace(t.polymesh, flags=np.full(
        t.polymesh.num_polys, flags, np.uint16), areas=t.polymesh.areas.copy()), t.detail)
        for t in mesh.tiles)
    return replace(mesh, tiles=tiles)


def compile_mesh(mesh: NavMesh3D, *, previous: NavMesh3D | None = None
                 ) -> _detour.DetourMesh:
    """The mesh laid out for queries (once per mesh, shared).

    A mesh made from another by replacing, adding or dropping tiles, with the same
    settings (a :class:`~wayfinding.navmesh3d.tilecache.TileCache`'s meshes note the mesh
    each came from), is laid out from that mesh's layout: only its new tiles are laid out
    and only the tiles whose links may change are joined again (the compiled
    ``DetourMesh.with_tiles``), in time proportional to them, the layout the same as a
    new one (polygons numbered the same, tile after tile).  ``previous``: the mesh
    ``mesh`` came from (its layout, or that of the mesh it came from in turn, is used
    when it has one), if not noted."""
    if not isinstance(mesh, NavMesh3D):
        raise InvalidQueryError(f"NavMesh3DQuery needs a NavMesh3D, got {type(mesh).__name__}")
    got = _compiled.get(mesh)
    if got is not None:
        return got
    if previous is not None:
        if not isinstance(previous, NavMesh3D):
            raise InvalidQueryError(f"previous must be a NavMesh3D, got "
                                    f"{type(previous).__name__}")
        origin = _origin_of(previous)
    else:
        origin = _origins.get(mesh)
    taken = mesh.revision[0]
    if origin is not None and _same_grid(origin[0], mesh):
        got = _relaid(mesh, origin[0], origin[1])
        # the kept tiles' flags and areas are as the previous layout took them
        if got is not None and not (origin[0].revision is mesh.revision
                                    and origin[2] == taken):
            taken = -1
    if got is None:
        got = _laid_out(mesh)
    _compiled[mesh] = got
    _taken[mesh] = taken
    _origins.pop(mesh, None)
    return got


#: The meshes not laid out yet that were made from another by changing tiles: that mesh
#: (or the nearest one before it with a layout), its layout and when it took its flags.
_origins: weakref.WeakKeyDictionary[NavMesh3D, tuple[NavMesh3D, _detour.DetourMesh, int]] \
    = weakref.WeakKeyDictionary()

#: Per laid-out mesh, the count of its flag and area changes (``mesh.revision``) when its
#: layout took the polygons' flags and areas from the tiles (-1: not all at one time).
_taken: weakref.WeakKeyDictionary[NavMesh3D, int] = weakref.WeakKeyDictionary()


def _made_from(mesh: NavMesh3D, before: NavMesh3D) -> None:
    """Note that ``mesh`` was made from ``before`` by replacing, adding or dropping tiles,
    for :func:`compile_mesh` (holding ``before``'s layout until ``mesh`` is laid out)."""
    origin = _origin_of(before)
    if origin is not None:
        _origins[mesh] = origin


def _origin_of(mesh: NavMesh3D) -> tuple[NavMesh3D, _detour.DetourMesh, int] | None:
    got = _compiled.get(mesh)
    return (mesh, got, _taken.get(mesh, -1)) if got is not None else _origins.get(mesh)


def _same_grid(a: NavMesh3D, b: NavMesh3D) -> bool:
    """Whether the two meshes' tiles lie on one grid of tiles, built with the same
    settings."""
    return bool(a.tile_size) and a.tile_size == b.tile_size and a.settings == b.settings \
        and bool(np.array_equal(a.origin, b.origin))


def _relaid(mesh: NavMesh3D, before: NavMesh3D, layout: _detour.DetourMesh
            ) -> _detour.DetourMesh | None:
    """``mesh`` laid out from ``before``'s ``layout``, sharing its tiles (by identity);
    None when they share none or not in the same order."""
    old = _tile_ids(before)
    ids = _tile_ids(mesh)
    order = np.argsort(old, kind="stable")
    at = np.minimum(np.searchsorted(old[order], ids), max(len(old) - 1, 0))
    reuse = np.full(len(ids), -1, np.int32)
    if len(old):
        same = old[order[at]] == ids
        reuse[same] = order[at[same]]
    kept = reuse[reuse >= 0]
    if not kept.size or (np.diff(kept) <= 0).any():
        return None
    parts = [_part(mesh.tiles[k]) for k in np.flatnonzero(reuse < 0).tolist()]
    return layout.with_tiles(reuse, parts, mesh.link_arrays() if mesh.links else None)


#: The identities of each laid-out mesh's tiles, in order, kept for the next mesh made
#: from it.
_ids: weakref.WeakKeyDictionary[NavMesh3D, np.ndarray] = weakref.WeakKeyDictionary()


def _tile_ids(mesh: NavMesh3D) -> np.ndarray:
    got = _ids.get(mesh)
    if got is None:
        got = _ids[mesh] = np.fromiter(map(id, mesh.tiles), np.int64, len(mesh.tiles))
    return got


def _part(t: MeshTile) -> tuple[Any, ...]:
    pm, d = t.polymesh, t.detail
    return (t.x, t.z, pm.bmin.astype(np.float32), pm.bmax.astype(np.float32), pm.verts,
            pm.polys, pm.flags, pm.areas, d.meshes, d.verts, d.tris)


def _laid_out(mesh: NavMesh3D) -> _detour.DetourMesh:
    """``mesh`` laid out whole."""
    s = mesh.settings
    cs, ch = np.float32(s.cell_size), np.float32(s.cell_height)
    parts = [_part(t) for t in mesh.tiles]
    if mesh.tile_size and mesh.tiles:
        width = np.float32(mesh.tile_size) * cs
        orig = tuple(mesh.origin.astype(np.float32))     # where the tile grid starts
        depth = width
    elif mesh.tiles:
        pm = mesh.tiles[0].polymesh
        orig = tuple(pm.bmin)
        width = np.float32(pm.bmax[0] - pm.bmin[0])
        depth = np.float32(pm.bmax[2] - pm.bmin[2])
    else:
        orig, width, depth = (0.0, 0.0, 0.0), np.float32(1), np.float32(1)
    return _detour.DetourMesh(parts, s.verts_per_poly, float(cs), float(ch),
                              float(np.float32(s.agent_max_climb)), orig, float(width),
                              float(depth), mesh.link_arrays() if mesh.links else None)


class NavMesh3DQuery(SingleThread):
    """Queries on one :class:`~wayfinding.navmesh3d.NavMesh3D` with their own search
    scratch (one thread at a time; make one per thread, many may share a mesh).

    >>> from wayfinding.navmesh3d import build, generate
    >>> mesh = with_flags(build(generate.floor()))
    >>> q = NavMesh3DQuery(mesh)
    >>> r = q.find_path((2, 0, 2), (8, 0, 8))
    >>> r.status, r.path.shape[1]
    (Status.FOUND, 3)
    """

    def __init__(self, mesh: NavMesh3D):
        self.mesh = mesh
        self._data = compile_mesh(mesh)
        self._search = _detour.PathSearch(self._data)
        self._link_flags = np.array([x.flags for x in mesh.links], np.uint16)
        self._link_areas = np.array([x.area for x in mesh.links], np.uint8)
        self._revision = mesh.revision
        self._filters: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
        self._domains: dict[Any, Mesh3DConstraintDomain] = {}
        self._fan_cache: tuple[list[np.ndarray], np.ndarray] | None = None
        if _taken.get(mesh) == self._revision[0]:   # no change since the layout took them
            self._seen = self._revision[0]
            self._flags, self._areas = self._data.polygon_flags_areas()
        else:
            self._refresh()

    def __repr__(self) -> str:
        return f"NavMesh3DQuery({self.mesh!r})"

    @property
    def unconnected_links(self) -> np.ndarray:
        """The off-mesh links (indices into ``mesh.links``) with an end that found no
        polygon within its radius: they join nothing."""
        return self._data.unconnected_links()

    @property
    def link_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Per off-mesh link the polygons its start and end joined (``(L, 2)`` int32, -1
        where none was found) and its ends snapped onto them (``(L, 2, 3)`` float64, the
        points given where none)."""
        polys, pts = self._data.link_ends()
        return polys, pts.astype(np.float64)

    def _refresh(self) -> None:
        """Read the mesh's flags and areas again (after :meth:`NavMesh3D.set_flags` or
        :meth:`NavMesh3D.set_areas`): the polygons' own, the compiled layout's areas, and
        no filter cached."""
        tiles = self.mesh.tiles
        self._seen = self._revision[0]
        self._flags = np.concatenate([t.polymesh.flags for t in tiles]) \
            if tiles else np.zeros(0, np.uint16)
        self._areas = np.concatenate([t.polymesh.areas for t in tiles]) \
            if tiles else np.zeros(0, np.uint8)
        self._filters.clear()
        self._domains.clear()
        if self._seen:
            self._data.set_areas(np.arange(len(self._areas), dtype=np.int32),
                                 np.ascontiguousarray(self._areas, np.uint8))

    def _filter(self, f: QueryFilter) -> tuple[np.ndarray, np.ndarray]:
        """(usable polygons and links (P + L,) uint8, cost per area (256,) float32), once
        per filter."""
        if not isinstance(f, QueryFilter):
            raise InvalidQueryError(f"filter must be a QueryFilter, got {type(f).__name__}")
        if self._seen != self._revision[0]:
            self._refresh()
        got = self._filters.get(f.key)
        if got is None:
            costs = f.area_costs()
            flags = np.concatenate([self._flags, self._link_flags])
            areas = np.concatenate([self._areas, self._link_areas])
            usable = f.usable(flags, areas)
            got = self._filters[f.key] = (np.ascontiguousarray(usable, np.uint8),
                                          costs.astype(np.float32))
        return got

    @exclusive
    def nearest(self, point: ArrayLike, *, half_extents: ArrayLike = HALF_EXTENTS,
                filter: QueryFilter = DEFAULT_FILTER) -> tuple[int, tuple[float, float, float]]:
        """The usable polygon nearest ``point`` among those whose bounds meet the box of
        ``half_extents`` round it, and the nearest point on it (on the ground's detail
        height): ``(polygon, (x, y, z))``, polygon -1 when none.  A point over a polygon
        within the agent's climb of its ground counts as on it; ties go to the polygon met
        first in the tile's bounding-volume tree."""
        p = _point(point, "point")
        e = _extents(half_extents)
        poly, x, y, z = self._search.nearest(*p, *e, self._filter(filter)[0])
        return int(poly), (float(x), float(y), float(z))

    @exclusive
    def nearest_many(self, points: ArrayLike, *, half_extents: ArrayLike = HALF_EXTENTS,
                     filter: QueryFilter = DEFAULT_FILTER) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`nearest` for each row of ``points`` (``(n, 3)``), in one compiled loop
        without the GIL: ``(polygons (n,) int32, points (n, 3) float64)``, polygon -1 and
        the point NaN where no polygon is near."""
        pts = _points(points, "points")
        return self._search.nearest_many(pts, _extents(half_extents),
                                         self._filter(filter)[0])

    @exclusive
    def find_path(self, start: ArrayLike, goal: ArrayLike, *,
                  filter: QueryFilter = DEFAULT_FILTER,
                  half_extents: ArrayLike = HALF_EXTENTS, partial: bool = False,
                  crossings: str | None = None, constraints: Any = None, t: float = 0.0,
                  method: str = "astar") -> NavPath3D | ConstrainedPath:
        """The straight path from ``start`` to ``goal`` (world points): each end's nearest
        polygon (:meth:`nearest`), A* over the usable polygons from the start point (node
        positions at the midpoints of the edges entered by, step cost its length times the
        area's cost, heuristic 0.999 times the distance on), then the funnel through the
        corridor's portals from the start to the goal, each clamped onto its end polygon.

        No polygon near an end, or (without ``partial``) no route, gives ``found=False``,
        an empty path and ``status`` FAILED; with ``partial=True`` an unreachable goal
        gives the path to the polygon whose node came nearest it (``status`` PARTIAL).

        ``crossings``: ``"area"`` adds a corner (flags 0) where the path crosses from one
        area to another, ``"all"`` where it crosses any polygon edge (Detour's straight-path
        options), e.g. to change speed or animation there; None (default): turns only.

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet` on the ground
        plane (x, z) (Recast's axes: y is up) whose multiplier field at time ``t`` (seconds)
        multiplies the costs, hard constraints forbidding what crosses them: the search
        (compiled A* or Dijkstra, ``method``) runs on the usable polygons' edge midpoints
        (:class:`~wayfinding.navmesh3d.constrained.Mesh3DConstraintDomain`, built once per
        filter; off-mesh links left out), each end joining the edges of its nearest
        polygon, and gives a :class:`~wayfinding.graph.constrained.ConstrainedPath` of
        ``(m, 3)`` world points.  ``partial`` and ``crossings`` do not apply to it."""
        if type(partial) is not bool:
            partial = flag("partial", partial)
        if constraints is not None:
            if partial or crossings is not None:
                raise InvalidQueryError("constraints cannot be combined with partial or "
                                        "crossings")
            return self._constrained_path(start, goal, filter, half_extents, constraints, t,
                                          method)
        if method != "astar":
            raise InvalidQueryError(f"method {method!r} needs constraints; the polygon "
                                    "search is A*")
        t0 = time.perf_counter()
        s, g = _point(start, "start"), _point(goal, "goal")
        if self._seen != self._revision[0]:
            self._refresh()
        got = self._filters.get(filter.key) if type(filter) is QueryFilter else None
        allowed, costs = got or self._filter(filter)
        search = self._search
        outcome = search.find_path(
            s, g, half_extents if half_extents is HALF_EXTENTS else _extents(half_extents),
            allowed, costs, partial, 0 if crossings is None else _crossings(crossings))
        stats = SearchStats(expanded=search.expanded, generated=search.generated)
        path = _navpath(outcome, stats)
        stats.elapsed = time.perf_counter() - t0
        return path

    def _constrained_path(self, start: ArrayLike, goal: ArrayLike, filter: QueryFilter,
                          half_extents: ArrayLike, constraints: Any, t: float,
                          method: str) -> ConstrainedPath:
        """:meth:`find_path` under ``constraints``: each end's nearest usable polygon, then
        the route through the filter's constraint domain."""
        s, g = _point(start, "start"), _point(goal, "goal")
        allowed = self._filter(filter)[0]
        e = _extents(half_extents)
        ends = [self._search.nearest(*p, *e, allowed) for p in (s, g)]
        return self.constraint_domain(filter=filter).find_route(
            int(ends[0][0]), ends[0][1:], int(ends[1][0]), ends[1][1:],
            constraints=constraints, t=t, method=method)

    def constraint_domain(self, *, filter: QueryFilter = DEFAULT_FILTER
                          ) -> Mesh3DConstraintDomain:
        """The mesh's constraint domain for ``filter`` (its usable polygons and area
        costs), built once per filter and again after the mesh's flags or areas change."""
        _, costs = self._filter(filter)
        got = self._domains.get(filter.key)
        if got is None:
            usable = np.asarray(filter.usable(self._flags, self._areas), dtype=bool)
            got = self._domains[filter.key] = Mesh3DConstraintDomain(
                self.mesh, usable, costs[self._areas].astype(np.float64))
        return got

    @exclusive
    def start(self, start: ArrayLike, goal: ArrayLike, *,
              filter: QueryFilter = DEFAULT_FILTER, half_extents: ArrayLike = HALF_EXTENTS,
              partial: bool = False, crossings: str | None = None) -> SlicedSearch:
        """Begin :meth:`find_path` to run in slices (see :mod:`wayfinding.sliced`):
        ``step(max_expansions=..., max_seconds=...)`` runs the A* on, ``result()`` gives the
        :class:`NavPath3D`, the same as :meth:`find_path`'s however it is sliced (corridor,
        path, length and counters).  ``step`` returns the result's status: PARTIAL
        for a search that ended short of the goal with ``partial``.  While it runs the
        search keeps this query's scratch: a path search (``find_path``, ``find_paths``,
        another ``start``) or ``polygons_around_*`` on this object before it ends makes it
        refuse to step on.

        >>> from wayfinding.navmesh3d import build, generate
        >>> q = NavMesh3DQuery(with_flags(build(generate.floor())))
        >>> search = q.start((2, 0, 2), (8, 0, 8))
        >>> while search.step(max_expansions=1) is Status.RUNNING:
        ...     pass
        >>> search.result().cost == q.find_path((2, 0, 2), (8, 0, 8)).cost
        True
        """
        if type(partial) is not bool:
            partial = flag("partial", partial)
        t0 = time.perf_counter()
        s, g = _point(start, "start"), _point(goal, "goal")
        allowed, costs = self._filter(filter)
        run = self._search.start_path(s, g, _extents(half_extents), allowed, costs, partial,
                                      _crossings(crossings))
        if run.status != _detour.RUN_RUNNING:
            return SlicedSearch.done(_navpath(run.result(), SearchStats(
                elapsed=time.perf_counter() - t0)))

        def finish(found: bool, stats: SearchStats) -> NavPath3D:
            outcome = run.result()
            if outcome is None:     # still running
                return NavPath3D(np.empty((0, 3)), math.inf, False, stats, "navmesh3d",
                                 flags=_NO_FLAGS, corner_polygons=_NO_LINKS,
                                 corridor=_NO_LINKS, links=_NO_LINKS, start=s, goal=g,
                                 status=Status.FAILED)
            return _navpath(outcome, stats)

        return SlicedSearch(run, finish, "navmesh3d", _COUNTERS,
                            setup=time.perf_counter() - t0, owner=self)

    @exclusive
    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *,
                   filter: QueryFilter = DEFAULT_FILTER, half_extents: ArrayLike = HALF_EXTENTS,
                   partial: bool = False, crossings: str | None = None) -> NavPaths3D:
        """:meth:`find_path` for each row of ``starts`` and ``goals`` (``(n, 3)`` arrays),
        in one compiled loop."""
        if type(partial) is not bool:
            partial = flag("partial", partial)
        s, g = _points(starts, "starts"), _points(goals, "goals")
        if len(s) != len(g):
            raise InvalidQueryError(f"starts ({len(s)}) and goals ({len(g)}) must be as many")
        allowed, costs = self._filter(filter)
        (codes, lengths, pptr, polys, cptr, corners, flags) = self._search.find_paths(
            s, g, _extents(half_extents), allowed, costs, partial, _crossings(crossings))
        return NavPaths3D(codes.astype(np.int8), lengths, pptr, polys, cptr, corners, flags)


    # ------------------------------------------------------------------ surface queries
    def _start(self, point: ArrayLike, name: str, half_extents: ArrayLike,
               allowed: np.ndarray) -> tuple[int, tuple[float, float, float]]:
        """The usable polygon under a query's start point (:meth:`nearest`), or an error."""
        p = _point(point, name)
        poly, _, _, _ = self._search.nearest(*p, *_extents(half_extents), allowed)
        if poly < 0:
            raise InvalidQueryError(f"{name} {brief(point)} is off the mesh: no usable "
                                    "polygon within half_extents of it")
        return int(poly), p

    @exclusive
    def raycast(self, start: ArrayLike, end: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER,
                half_extents: ArrayLike = HALF_EXTENTS) -> RayHit3D:
        """Walk the segment from ``start`` toward ``end`` in xz, from the start's polygon
        (:meth:`nearest`) across the edges it leaves by into usable polygons, until it meets
        a wall or a polygon holds its end: as Detour's ``raycast``, meant for short checks
        of line of sight (heights are not compared: a ray under a balcony walks on under
        it).  A start off the mesh raises :class:`~wayfinding.errors.InvalidQueryError`."""
        allowed = self._filter(filter)[0]
        poly, s = self._start(start, "start", half_extents, allowed)
        e = _point(end, "end")
        t, point, normal, _, polys = self._search.raycast(poly, *s, *e, allowed)
        if t >= _FLT_BIG:
            return RayHit3D(math.inf, e, (0.0, 0.0, 0.0), polys)
        return RayHit3D(t, point, normal, polys)

    @exclusive
    def raycast_many(self, starts: ArrayLike, ends: ArrayLike, *,
                     filter: QueryFilter = DEFAULT_FILTER,
                     half_extents: ArrayLike = HALF_EXTENTS) -> RayHits3D:
        """:meth:`raycast` for each row of ``starts`` and ``ends`` (``(n, 3)`` arrays), in
        one compiled loop without the GIL; a start off the mesh gives start polygon -1 and
        ``t`` NaN rather than an error (see :class:`RayHits3D`).  Points reached are the
        end itself where the ray reaches it (float32 arithmetic, as :meth:`raycast`)."""
        s, e = _points(starts, "starts"), _points(ends, "ends")
        if len(s) != len(e):
            raise InvalidQueryError(f"starts ({len(s)}) and ends ({len(e)}) must be as many")
        polys, t, points, normals, ptr, visited = self._search.raycast_many(
            s, e, _extents(half_extents), self._filter(filter)[0])
        reached = np.isinf(t)
        points[reached] = e[reached]
        return RayHits3D(polys, t, points, normals, ptr, visited)

    @exclusive
    def move_along_surface(self, start: ArrayLike, end: ArrayLike, *,
                           filter: QueryFilter = DEFAULT_FILTER,
                           half_extents: ArrayLike = HALF_EXTENTS) -> SurfaceMove3D:
        """Slide from ``start`` toward ``end`` along the walls, for small moves (one frame):
        as Detour's ``moveAlongSurface``, the polygons searched are those reached through
        edges within half the move's length of its midpoint; the point reached is ``end``
        when one of them holds it (xz), else the nearest point of their walls, then put on
        the ground of the last polygon (:meth:`height`)."""
        allowed = self._filter(filter)[0]
        poly, s = self._start(start, "start", half_extents, allowed)
        e = _point(end, "end")
        x, y, z, polys = self._search.move_along_surface(poly, *s, *e, allowed)
        if len(polys):
            h = self._search.height(int(polys[-1]), x, y, z)
            if h is not None:
                y = h
        return SurfaceMove3D((float(x), float(y), float(z)), polys)

    def height(self, polygon: int, point: ArrayLike) -> float | None:
        """The ground's height on ``polygon`` at ``point`` (its x and z) from the detail
        mesh, as Detour's ``getPolyHeight``; ``None`` when the point is not over it."""
        p = _point(point, "point")
        return self._search.height(self._polygon(polygon), *p)

    @exclusive
    def distance_to_wall(self, centre: ArrayLike, radius: float, *,
                         filter: QueryFilter = DEFAULT_FILTER,
                         half_extents: ArrayLike = HALF_EXTENTS) -> WallDistance3D:
        """The nearest wall (xz) within ``radius`` of ``centre``, searched outward from its
        polygon over the polygons connected to it, as Detour's ``findDistanceToWall``."""
        radius = positive_float("radius", radius, allow_zero=True)
        allowed = self._filter(filter)[0]
        poly, c = self._start(centre, "centre", half_extents, allowed)
        found, d, hx, hy, hz, nx, ny, nz = self._search.distance_to_wall(poly, *c, radius,
                                                                         allowed)
        if not found:
            return WallDistance3D(math.inf, None, None)
        return WallDistance3D(float(d), (float(hx), float(hy), float(hz)),
                              (float(nx), float(ny), float(nz)))

    @exclusive
    def polygons_around_circle(self, centre: ArrayLike, radius: float, *,
                               filter: QueryFilter = DEFAULT_FILTER,
                               half_extents: ArrayLike = HALF_EXTENTS) -> NearbyPolygons3D:
        """The usable polygons reached from ``centre``'s (:meth:`nearest`) through portals
        within ``radius`` (xz) of it, by Dijkstra in order of cost (a step: the distance
        between portal middles times the area cost of the polygon left, from the centre),
        as Detour's ``findPolysAroundCircle`` (without its node limit); off-mesh links are
        crossed when their ends are in the circle."""
        radius = positive_float("radius", radius, allow_zero=True)
        allowed, costs = self._filter(filter)
        poly, c = self._start(centre, "centre", half_extents, allowed)
        polys, parents, cost = self._search.polygons_around(poly, _NO_SHAPE, *c, radius,
                                                            allowed, costs)
        return NearbyPolygons3D(polys, parents, cost)

    @exclusive
    def polygons_around_shape(self, start: ArrayLike, shape: ArrayLike, *,
                              filter: QueryFilter = DEFAULT_FILTER,
                              half_extents: ArrayLike = HALF_EXTENTS) -> NearbyPolygons3D:
        """As :meth:`polygons_around_circle` through the portals that meet ``shape``, a
        convex polygon given as ``(k, 3)`` points (k >= 3, in order either way round, xz;
        the costs start from its centroid), from ``start``'s polygon (:meth:`nearest`), as Detour's
        ``findPolysAroundShape``."""
        pts = _points(shape, "shape")
        if len(pts) < 3 or not _convex_xz(pts):
            raise InvalidQueryError(f"shape {brief(shape)} must be a convex polygon of at "
                                    "least 3 points (in order, in xz)")
        x, z = pts[:, 0], pts[:, 2]
        if float(x @ np.roll(z, -1) - np.roll(x, -1) @ z) > 0:
            pts = pts[::-1]         # the mesh's winding, which the crossing test assumes
        allowed, costs = self._filter(filter)
        poly, _ = self._start(start, "start", half_extents, allowed)
        polys, parents, cost = self._search.polygons_around(
            poly, np.ascontiguousarray(pts, np.float32), 0.0, 0.0, 0.0, 0.0, allowed, costs)
        return NearbyPolygons3D(polys, parents, cost)

    @exclusive
    def local_neighbourhood(self, centre: ArrayLike, radius: float, *,
                            filter: QueryFilter = DEFAULT_FILTER,
                            half_extents: ArrayLike = HALF_EXTENTS) -> NearbyPolygons3D:
        """The polygons round ``centre``'s (:meth:`nearest`) that do not overlap each
        other in xz, as Detour's ``findLocalNeighbourhood`` (for local steering on
        multi-storey meshes): breadth first through portals within ``radius`` (xz),
        skipping off-mesh links and each polygon that overlaps one already kept (but for
        those the polygon it is reached from links to), within Detour's limits of 64
        polygons met and a queue of 48."""
        radius = positive_float("radius", radius, allow_zero=True)
        allowed = self._filter(filter)[0]
        poly, c = self._start(centre, "centre", half_extents, allowed)
        polys, parents = self._search.local_neighbourhood(poly, *c, radius, allowed)
        return NearbyPolygons3D(polys, parents)

    def polygons_in_box(self, centre: ArrayLike, half_extents: ArrayLike, *,
                        filter: QueryFilter = DEFAULT_FILTER) -> np.ndarray:
        """The usable polygons whose bounds meet the box ``centre`` +- ``half_extents``, in
        Detour's order (``queryPolygons``, without its limit of results)."""
        c = _point(centre, "centre")
        return self._search.polygons_in_box(*c, *_extents(half_extents),
                                            self._filter(filter)[0])

    def wall_segments(self, polygon: int, *, filter: QueryFilter = DEFAULT_FILTER
                      ) -> np.ndarray:
        """The walls of ``polygon`` as ``(k, 2, 3)`` float32 segments: its edges with no
        usable polygon across, and the parts of tile-side edges no usable link spans (as
        Detour's ``getPolyWallSegments``)."""
        return self._search.wall_segments(self._polygon(polygon), self._filter(filter)[0])

    def random_point(self, *, rng: Any = None, centre: ArrayLike | None = None,
                     radius: float | None = None, filter: QueryFilter = DEFAULT_FILTER,
                     half_extents: ArrayLike = HALF_EXTENTS
                     ) -> tuple[int, tuple[float, float, float]]:
        """A random point on the ground of the usable mesh, uniform by (xz) area:
        ``(polygon, (x, y, z))``.  With ``centre`` and ``radius``: uniform over the part of
        the disc (xz) on polygons reachable from the centre's through edges within the
        disc (rejection sampling, at most 1000 tries).  ``rng``: a numpy Generator or a
        seed.  The draws are this library's own (Detour's depend on its random stream)."""
        gen = generator("rng", rng)
        allowed = self._filter(filter)[0]
        if centre is None:
            if radius is not None:
                raise InvalidQueryError("give a centre with the radius")
            polys = np.flatnonzero(allowed[:self._data.num_polys])
            if not len(polys):
                raise InvalidQueryError("no polygon is usable under this filter")
            return self._draw(polys, gen)
        if radius is None:
            raise InvalidQueryError("give a radius with the centre")
        radius = positive_float("radius", radius, allow_zero=True)
        poly, c = self._start(centre, "centre", half_extents, allowed)
        polys = self._search.reachable(poly, c[0], c[2], radius, allowed)
        for _ in range(1000):
            p, pt = self._draw(polys, gen)
            if math.hypot(pt[0] - c[0], pt[2] - c[2]) <= radius:
                return p, pt
        raise InvalidQueryError(f"no random point found within radius {radius} of "
                                f"{c} in 1000 tries")

    def _draw(self, polys: np.ndarray, gen: np.random.Generator
              ) -> tuple[int, tuple[float, float, float]]:
        """A polygon of ``polys`` by area, a point uniform on it (a fan triangle by area,
        then uniform in the triangle), on its ground."""
        outlines, areas = self._fans()
        cum = np.cumsum(areas[polys])
        k = int(np.searchsorted(cum, gen.random() * cum[-1], side="right")) \
            if cum[-1] > 0 else int(gen.integers(len(polys)))
        p = int(polys[min(k, len(polys) - 1)])
        v = outlines[p].tolist()
        (x0, z0), tri, total = v[0], [], 0.0
        for (x1, z1), (x2, z2) in zip(v[1:-1], v[2:]):
            total += abs((x1 - x0) * (z2 - z0) - (x2 - x0) * (z1 - z0))
            tri.append(total)
        u, a, b = gen.random(3)
        k = next((i for i, c in enumerate(tri) if u * total < c), len(tri) - 1)
        if a + b > 1:
            a, b = 1 - a, 1 - b
        (x1, z1), (x2, z2) = v[k + 1], v[k + 2]
        x = x0 + a * (x1 - x0) + b * (x2 - x0)
        z = z0 + a * (z1 - z0) + b * (z2 - z0)
        # A point on the triangle's edge may fall just outside the polygon by the rounding
        # of its vertices: moved a little towards the triangle's centre, it lies inside.
        cx, cz = (x0 + x1 + x2) / 3, (z0 + z1 + z2) / 3
        for t in (0.0, 1e-6, 1e-3, 1.0):
            px, pz = x + t * (cx - x), z + t * (cz - z)
            y = self._search.height(p, px, 0.0, pz)
            if y is not None:
                return p, (px, float(y), pz)
        _, (px, y, pz) = self.nearest((cx, 0.0, cz), half_extents=(0.0, FAR, 0.0))
        return p, (px, float(y), pz)

    def _fans(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Per polygon its xz outline ``(n, 2)`` float64 and its area, once per query."""
        got = self._fan_cache
        if got is None:
            verts = self._data.vertices().astype(np.float64)[:, [0, 2]]
            nvp, base = self._data.nvp, 0
            outlines, areas = [], []
            for t in self.mesh.tiles:
                for row in t.polymesh.polys:
                    ids = row[:nvp][row[:nvp] != 0xFFFF].astype(np.int64) + base
                    v = verts[ids]
                    outlines.append(v)
                    x, z = v[:, 0], v[:, 1]
                    areas.append(abs(float(x @ np.roll(z, -1) - np.roll(x, -1) @ z)) / 2)
                base += len(t.polymesh.verts)
            got = self._fan_cache = (outlines, np.array(areas))
        return got

    def _polygon(self, polygon: Any) -> int:
        if self._seen != self._revision[0]:
            self._refresh()
        if isinstance(polygon, bool) or not isinstance(polygon, (int, np.integer)) or \
                not 0 <= polygon < self._data.num_polys:
            raise InvalidQueryError(f"polygon {brief(polygon)} must be a polygon id in "
                                    f"[0, {self._data.num_polys})")
        return int(polygon)


@dataclass(frozen=True, eq=False)
class NavPaths3D:
    """The paths of :meth:`NavMesh3DQuery.find_paths`: per query its ``codes`` (0 failed,
    1 found, 2 partial: see :meth:`status`) and ``lengths`` (inf when failed); path i's
    corridor is ``corridors[corridor_ptr[i]:corridor_ptr[i + 1]]`` (off-mesh links as
    nodes ``num_polygons + link``) and its corners ``corners[corner_ptr[i]:corner_ptr[i +
    1]]`` (with their ``flags``, :data:`OFFMESH` where a link starts)."""

    codes: np.ndarray
    lengths: np.ndarray
    corridor_ptr: np.ndarray
    corridors: np.ndarray
    corner_ptr: np.ndarray
    corners: np.ndarray
    flags: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    def status(self, i: int) -> Status:
        return (Status.FAILED, Status.FOUND, Status.PARTIAL)[int(self.codes[i])]

    def path(self, i: int) -> np.ndarray:
        """Path i's corners, ``(k, 3)``."""
        i = _row(i, len(self))
        return self.corners[self.corner_ptr[i]:self.corner_ptr[i + 1]]

    def corridor(self, i: int) -> np.ndarray:
        i = _row(i, len(self))
        return self.corridors[self.corridor_ptr[i]:self.corridor_ptr[i + 1]]


#: ``crossings`` option -> the kernel's mode.
_CROSSINGS = {None: 0, "area": 1, "all": 2}


def _crossings(value: Any) -> int:
    """The kernel's code for a ``crossings`` option, or an error naming the choices."""
    try:
        return _CROSSINGS[value]
    except (KeyError, TypeError):
        raise InvalidQueryError(f"crossings {brief(value)} must be None, 'area' or "
                                "'all'") from None


def _row(i: Any, n: int) -> int:
    """Row ``i`` of ``n`` (negative from the end, as a sequence's), or IndexError."""
    k = operator.index(i)
    if not -n <= k < n:
        raise IndexError(f"row {k} is out of range for {n} queries")
    return k + n if k < 0 else k


_FAILED, _FOUND_CODE = _detour.FAILED, _detour.FOUND
_STATUS_FOUND = Status.FOUND
_NO_LINKS = np.empty(0, np.int32)
_NO_FLAGS = np.empty(0, np.uint8)
_FLT_BIG = 3.4e38
_COUNTERS = ("expanded", "generated")
_NO_SHAPE = np.empty((0, 3), np.float32)


def _convex_xz(pts: np.ndarray) -> bool:
    """Whether the points, in order, bound a convex polygon in xz (either winding;
    collinear corners allowed, not all)."""
    x, z = pts[:, 0], pts[:, 2]
    cross = (np.roll(x, -1) - x) * (np.roll(z, -2) - np.roll(z, -1)) - \
        (np.roll(z, -1) - z) * (np.roll(x, -2) - np.roll(x, -1))
    return bool((cross >= 0).all() or (cross <= 0).all()) and bool((cross != 0).any())


def _navpath(outcome: Any, stats: SearchStats) -> NavPath3D:
    """The kernel's answer to a path query as a :class:`NavPath3D`."""
    (status, _, ns, _, ng, corridor, path, flags, owners, length, links) = outcome
    if status == _FAILED:
        return NavPath3D(np.empty((0, 3)), math.inf, False, stats, "navmesh3d",
                         flags=flags, corner_polygons=owners, corridor=corridor,
                         links=links, start=ns, goal=ng, status=Status.FAILED)
    found = status == _FOUND_CODE
    return NavPath3D(path, length, found, stats, "navmesh3d",
                     status=_STATUS_FOUND if found else Status.PARTIAL, flags=flags,
                     corner_polygons=owners, corridor=corridor, links=links,
                     start=ns, goal=ng)


#: The largest coordinate a query takes: the kernels work in float32, where larger ones
#: overflow.
FAR = 1e30
_PLAIN = frozenset((float, int, np.float64, np.float32, np.int64, np.int32))


def _points(value: Any, name: str) -> np.ndarray:
    try:
        arr = np.ascontiguousarray(reals(name, value))
    except InvalidQueryError:
        arr = None
    if arr is None or arr.ndim != 2 or arr.shape[1] != 3 or not (np.abs(arr) <= FAR).all():
        raise InvalidQueryError(f"{name} {brief(value)} must be an (n, 3) array of finite "
                                "points (within 1e30 of the origin)")
    return arr


def _point(value: Any, name: str) -> tuple[float, float, float]:
    """One finite (x, y, z) point as floats (no bools among them)."""
    if type(value) is tuple and len(value) == 3 and type(value[0]) in _PLAIN \
            and type(value[1]) in _PLAIN and type(value[2]) in _PLAIN:
        x, y, z = float(value[0]), float(value[1]), float(value[2])   # without numpy
        if abs(x) <= FAR and abs(y) <= FAR and abs(z) <= FAR:
            return x, y, z
    try:
        arr = reals(name, value)
    except InvalidQueryError:
        arr = None
    if arr is None or arr.shape != (3,) or not (np.abs(arr) <= FAR).all():
        raise InvalidQueryError(f"{name} {brief(value)} must be one finite (x, y, z) point "
                                "(within 1e30 of the origin)")
    return float(arr[0]), float(arr[1]), float(arr[2])


def _extents(value: Any) -> tuple[float, float, float]:
    e = _point(value, "half_extents")
    if min(e) < 0:
        raise InvalidQueryError(f"half_extents {brief(value)} must not be negative")
    return e
