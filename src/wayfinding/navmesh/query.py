"""Queries on a :class:`~wayfinding.navmesh.NavMesh` (after Detour's ``dtNavMeshQuery``):
:class:`NavMeshQuery`, which owns the per-query scratch and answers path queries (A* over the
ways into polygons, a check of the best corridors, then the funnel; one at a time or in
batches; or the exact Polyanya search), point location, nearest points and the surface
queries of :mod:`.surface`."""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _navmesh
from .._scratch import SingleThread, busy_error, exclusive
from .._validate import finite_points, flag, generator, positive_float, xy
from ..constraints import ConstraintSet
from ..errors import InvalidQueryError, brief
from ..graph.constrained import ConstrainedPath
from ..results import SearchStats, Status
from . import surface as _surface
from .constraint_domains import constrained_query
from .polyanya import PolyanyaSearch, wall_corners
from .records import DEFAULT_FILTER, LazyNavPath, NavPath, QueryFilter, set_unset

if TYPE_CHECKING:
    from .mesh import NavMesh

# Read once: attribute access on an Enum class is slow.
_STATUS = (Status.FAILED, Status.FOUND, Status.PARTIAL)
# Results are filled field by field (a NavPath's generated __init__ costs more than its
# search on small meshes).
_new = object.__new__


class _QueryPath(LazyNavPath):
    """The :class:`NavPath` of :meth:`NavMeshQuery.find_path`: the path, cost, found and
    status are set at once, the other fields made from the kernel's answer (``_got``, see
    ``MeshQuery.find``) when first read: making them all costs more than the search on a
    small mesh."""

    __slots__ = ()

    def _unpack(self) -> None:
        """Set every field still unset from the kernel's answer."""
        got = self._got
        (code, corners, _, _, expanded, generated, snap_s, snap_g, packed, m, seconds) = got[:11]
        stats = _new(SearchStats)
        stats.expanded, stats.generated, stats.elapsed = expanded, generated, seconds
        stats.reopened = stats.updated = stats.max_open = 0
        k = len(corners)
        ids = np.frombuffer(packed, dtype=np.int32)
        if code == 1:
            start, goal = corners[0].copy(), corners[k - 1].copy()
        else:
            start, goal = np.array(got[11:13]), np.array(got[13:15])
        values = {"start": start, "goal": goal, "flags": ids[k:2 * k].astype(np.uint8),
                  "corner_polygons": ids[:k].copy(), "corridor": ids[2 * k:2 * k + m].copy(),
                  "links": ids[2 * k + m:].copy(), "stats": stats, "algorithm": "navmesh",
                  "expanded_nodes": None, "open_nodes": None, "snapped_start": snap_s,
                  "snapped_goal": snap_g}
        set_unset(self, values)


#: What a filter means on one mesh: allowed polygons ``(P,)`` uint8, polygon costs ``(P,)``
#: float64, usable directed off-mesh links uint8, the A* heuristic's scale, whether
#: every usable polygon costs the same (the search then checks its route both ways), and
#: the corners of the usable region ``(V,)`` uint8 where routes that bend elsewhere are
#: answered exactly (every usable polygon costs 1, no off-mesh links, and a usable
#: polygon has a vertex that is no corner), else None.
_FilterArrays = tuple[np.ndarray, np.ndarray, np.ndarray, float, bool, np.ndarray | None]


@dataclass(frozen=True, eq=False)
class NavPaths:
    """The paths of :meth:`NavMeshQuery.find_paths`, packed: per query its ``codes`` (0
    failed, 1 found, 2 partial: see :meth:`status`), ``lengths`` (the :attr:`NavPath.cost`,
    inf when failed) and ``expanded`` (search nodes expanded); path i's corridor is
    ``corridors[corridor_ptr[i]:corridor_ptr[i + 1]]`` and its corners ``corners[
    corner_ptr[i]:corner_ptr[i + 1]]``, ``(k, 2)``, with their ``flags`` (:data:`START`,
    :data:`END`, :data:`OFFMESH`)."""

    codes: np.ndarray
    lengths: np.ndarray
    expanded: np.ndarray
    corridor_ptr: np.ndarray
    corridors: np.ndarray
    corner_ptr: np.ndarray
    corners: np.ndarray
    flags: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    def status(self, i: int) -> Status:
        """Path i's :class:`~wayfinding.results.Status`."""
        return _STATUS[int(self.codes[_row(i, len(self))])]

    def path(self, i: int) -> np.ndarray:
        """Path i's corners, ``(k, 2)`` (empty when it failed)."""
        i = _row(i, len(self))
        return self.corners[self.corner_ptr[i]:self.corner_ptr[i + 1]]

    def corridor(self, i: int) -> np.ndarray:
        """Path i's polygons, in order."""
        i = _row(i, len(self))
        return self.corridors[self.corridor_ptr[i]:self.corridor_ptr[i + 1]]


def _row(i: Any, n: int) -> int:
    """Row ``i`` of ``n`` (negative from the end, as a sequence's), or IndexError."""
    k = operator.index(i)
    if not -n <= k < n:
        raise IndexError(f"row {k} is out of range for {n} queries")
    return k + n if k < 0 else k


class NavMeshQuery(SingleThread):
    """Queries on one :class:`~wayfinding.navmesh.NavMesh` with their own search scratch.

    The mesh stays read-only; the query owns the A* state over the mesh's polygons
    (allocated here, reset by generation stamps in O(1) per search) and the arrays of the
    filters it has seen.  One thread at a time: :meth:`find_path` called while another
    thread's call is under way raises :class:`~wayfinding.errors.ConcurrentUseError`.  Make
    one per thread; many may share a mesh.  The mesh's own query methods use one made for
    each thread that calls them.

    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build("MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)),"
    ...                      " ((6 0, 10 0, 10 10, 6 10, 6 0)))")       # two islands
    >>> query = NavMeshQuery(mesh)
    >>> query.locate((1, 5)), query.locate_many([(1, 5), (5, 5), (9, 5)]).tolist()
    (0, [0, -1, 1])
    >>> r = query.find_path((1, 5), (9, 5))
    >>> r.found, r.status, len(r.path)
    (False, Status.FAILED, 0)
    >>> r = query.find_path((1, 5), (9, 5), partial=True)
    >>> r.found, r.status, r.path.tolist()
    (False, Status.PARTIAL, [[1.0, 5.0], [4.0, 5.0]])
    """

    def __init__(self, mesh: NavMesh):
        if not hasattr(mesh, "_directed_links"):   # the mesh module builds on this one
            raise InvalidQueryError(f"NavMeshQuery needs a NavMesh, got {type(mesh).__name__}")
        self.mesh = mesh
        self._kernel = _navmesh.MeshQuery(mesh.vertices, mesh.polygons, mesh.sizes,
                                          mesh.neighbours, *mesh._buckets,
                                          *mesh._directed_links)
        self._kernel.bind(self._busy, _QueryPath, _STATUS)
        self._filters: dict[Any, _FilterArrays] = {}
        self._last: QueryFilter | None = None        # the filter the kernel holds
        self._polyanya: PolyanyaSearch | None = None  # made by the first exact query

    def __repr__(self) -> str:
        return f"NavMeshQuery({self.mesh!r})"

    # ------------------------------------------------------------------ filters
    def _filter(self, f: QueryFilter) -> _FilterArrays:
        """The filter's ``_FilterArrays`` on this mesh, computed once per filter."""
        if not isinstance(f, QueryFilter):
            raise InvalidQueryError(f"filter must be a QueryFilter, got {type(f).__name__}")
        key = f.key
        got = self._filters.get(key)
        if got is None:
            mesh = self.mesh
            costs = f.area_costs()
            allowed = f.usable(mesh.flags, mesh.areas).astype(np.uint8)
            link = mesh._directed_links
            lf = np.array([x.flags for x in mesh.links], dtype=np.uint16)
            la = np.array([x.area for x in mesh.links], dtype=np.uint8)
            link_ok = f.usable(lf, la)[link[4]].astype(np.uint8)
            poly_cost = costs[mesh.areas]
            usable_cost = poly_cost[allowed.astype(bool)]
            # A* heuristic scale: the cheapest usable area's cost (slightly under: admissible).
            h_scale = 0.999 * float(usable_cost.min()) if len(usable_cost) else 0.0
            # Corridors are compared by their straight paths' lengths only where every
            # usable polygon costs the same (else that length is not what the search weighs).
            uniform = not len(usable_cost) or bool((usable_cost == usable_cost[0]).all())
            corner = None
            if len(usable_cost) and not len(mesh.links) and bool((usable_cost == 1.0).all()):
                use = allowed.astype(bool)
                corner = wall_corners(mesh, use)
                inside = mesh.polygons[use][np.arange(mesh.polygons.shape[1])[None, :]
                                            < mesh.sizes[use][:, None]]
                if corner[inside].all():
                    corner = None
            got = self._filters[key] = (allowed, poly_cost, link_ok, h_scale, uniform, corner)
        return got

    def _use(self, f: QueryFilter) -> None:
        """Give the kernel the arrays of filter ``f`` (unless it has them already)."""
        if f is not self._last:
            allowed, cost, link_ok, h_scale, uniform, corner = self._filter(f)
            exact = None if corner is None else functools.partial(self._exact_path, f)
            self._kernel.use_filter(allowed, cost, link_ok, h_scale, uniform, corner, exact)
            self._last = f

    def _exact_path(self, f: QueryFilter, start: tuple[float, float],
                    goal: tuple[float, float], partial: bool) -> NavPath:
        """The exact search's path, for the kernel (which holds the guard) where the
        default route bends at a vertex inside the usable region."""
        return self._polyanya_search()._find_path(start, goal, f, partial)

    def _polyanya_search(self) -> PolyanyaSearch:
        """The exact search on this query's mesh, made on first use, under the query's
        guard."""
        search = self._polyanya
        if search is None:
            search = self._polyanya = PolyanyaSearch(self.mesh)
            search._busy = self._busy
        return search

    # ------------------------------------------------------------------ points
    def locate(self, point: ArrayLike) -> int:
        """The polygon containing ``point`` (boundary included; lowest id when several), -1
        off the mesh.  For an ``(n, 2)`` array use :meth:`locate_many`."""
        return self._locate_one(_one(point, "locate"))

    def _locate_one(self, pts: np.ndarray) -> int:
        return int(self._kernel.locate_one(pts[0, 0], pts[0, 1]))

    def locate_many(self, points: ArrayLike) -> np.ndarray:
        """:meth:`locate` for each row of an ``(n, 2)`` array: ``(n,)`` int32."""
        pts = _many(points)
        return self.mesh._locate(pts)

    def nearest(self, point: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> tuple[int, tuple[float, float]]:
        """The usable polygon nearest ``point`` and the nearest point on it: ``(polygon,
        (x, y))``; polygon -1 when no polygon is usable.  For an ``(n, 2)`` array use
        :meth:`nearest_many`."""
        return self._nearest_one(_one(point, "nearest"), filter)

    def _nearest_one(self, pts: np.ndarray, f: QueryFilter) -> tuple[int, tuple[float, float]]:
        poly, snapped = self.mesh._nearest(pts, self._filter(f)[0])
        return int(poly[0]), (float(snapped[0, 0]), float(snapped[0, 1]))

    def nearest_many(self, points: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`nearest` for each row of an ``(n, 2)`` array: polygons ``(n,)`` int32 and
        points ``(n, 2)`` float64."""
        pts = _many(points)
        return self.mesh._nearest(pts, self._filter(filter)[0])

    # ------------------------------------------------------------------ paths
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
        """The straight path from ``start`` to ``goal`` (world points), in one compiled call:
        point location, A* over the ways into the usable polygons, then the funnel through
        the corridor's portals.  A portal is the whole boundary two polygons share (several
        edges where a vertex lies on it, as in merged or subtractive meshes).  A search
        node is a polygon entered through one of its portals (or by an off-mesh link), at
        the point of that portal on the shortest way from the previous node's point to the
        goal (kept off its ends; Detour takes the portal's midpoint, which picks worse
        corridors); where every usable polygon costs the same, that point and the node's
        cost are measured from the last point where the way bent, straight through the
        portals passed since while they leave the line clear (a zigzag through each
        portal's point would overrate a corridor of many portals and lose it to a longer
        one of few); of two ways into one node the search keeps the one whose estimate
        through its own point is smaller.  Where every usable polygon costs the same and
        the mesh has no off-mesh links, a route that is not a straight line is searched
        for again from the goal to the start, and the corridor whose straight path is
        shorter is kept: the search's
        estimate (a polyline through portal points chosen toward its goal) can rank two
        corridors of nearly equal length wrongly, and the two searches seldom err on the
        same query.  A shortest path bends only at corners of the usable region (where a
        wall ends); where every usable polygon costs 1 and the mesh has no off-mesh links,
        a route that bends at another vertex (meshes cut from grids or grown by wavefronts
        have vertices inside the region) is answered by the exact search instead
        (``method="polyanya"``, whose path it returns, ``algorithm`` ``"polyanya"``).

        What it guarantees: a path inside the usable polygons, the shortest through the
        corridor it returns, never shorter than the exact shortest.  The corridor is not
        always the shortest one: on random worlds and ``dao/arena2`` the default mesh's
        paths are within 3% of the exact shortest, and meshes of every builder
        (``delaunay``, ``subtractive``, ``wavefront`` with and without its merge) within
        5% (see BENCHMARKS.md, "Navigation meshes" and "Navigation-mesh builders").  Where
        the shortest is needed, use ``method="polyanya"``.

        A point off the mesh, or on an unusable polygon, is moved to the nearest usable
        polygon (``snapped_start``/``snapped_goal``).  No route gives ``found=False`` and
        an empty path (``status`` FAILED); with ``partial=True`` it gives instead the path to
        the nearest point to the goal on the polygons the start reaches (the polygon of least
        distance to the goal, lowest id on ties), with ``status``
        :attr:`~wayfinding.results.Status.PARTIAL` (as Detour's ``DT_PARTIAL_RESULT``).

        ``method``: ``"astar"`` (the above) or ``"polyanya"``, the exact shortest path in the
        usable polygons (:class:`~wayfinding.navmesh.polyanya.PolyanyaSearch`: lengths only,
        so a filter with area costs other than 1 raises, and off-mesh links are not taken),
        1.1–1.7× the default's time (``benchmarks/navmesh_routes.py``, worlds of 5–708
        polygons).

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet`: the search runs
        on one of the mesh's constraint domains (``domain``: ``"tri"``, ``"dense"``,
        ``"hybrid"`` or ``"adaptive"``; ``spacing``, world units, for the dense ones; see
        :mod:`wayfinding.navmesh.constraint_domains`) under the multiplier field at time
        ``t`` (seconds) and returns a
        :class:`~wayfinding.graph.constrained.ConstrainedPath` (``method`` ``"astar"`` or
        ``"dijkstra"``; no filter, no partial paths).
        """
        if constraints is not None or domain != "tri" or spacing is not None:
            return constrained_query(self.mesh, start, goal, filter=filter, partial=partial,
                                     method=method, constraints=constraints, domain=domain,
                                     spacing=spacing, t=t)
        # The common case (plain points, the filter of the last query) in one compiled
        # call that takes the guard itself: a call layer costs a tenth of a small mesh's
        # query.
        if method == "astar" and filter is self._last:
            p = self._kernel.find_path(start, goal, partial)
            if p is not None:
                return p
        busy = self._busy
        if not busy.acquire():
            raise busy_error(self, "find_path")
        try:
            return self._find_path(start, goal, filter, partial, method)
        finally:
            busy.release()

    def _find_path(self, start: ArrayLike, goal: ArrayLike, filter: QueryFilter,
                   partial: bool, method: str = "astar") -> NavPath:
        """:meth:`find_path` without the guard on the scratch: for the mesh's own queries,
        one per thread, which no other thread can reach."""
        if method != "astar":
            search = self._polyanya
            if search is None or method != "polyanya":
                search = self._exact(method)
            return search._find_path(start, goal, filter, partial)
        if partial is not False and partial is not True:
            partial = flag("partial", partial)
        if filter is not self._last:
            self._use(filter)
        p = self._kernel.find_path(start, goal, partial)
        if p is None:                     # not plain points: check them the slow way
            p = self._kernel.find_path(xy("start", start), xy("goal", goal), partial)
            assert p is not None                        # plain floats now
        return p

    @exclusive
    def _exact(self, method: str) -> PolyanyaSearch:
        """:meth:`_polyanya_search` for ``method``, taking the query's guard."""
        if method != "polyanya":
            raise InvalidQueryError(f"method {method!r} must be 'astar' or 'polyanya'")
        return self._polyanya_search()

    @exclusive
    def find_paths(self, starts: ArrayLike, goals: ArrayLike, *,
                   filter: QueryFilter = DEFAULT_FILTER, partial: bool = False) -> NavPaths:
        """:meth:`find_path` for each row of ``starts`` and ``goals`` (``(n, 2)`` arrays),
        in one compiled loop without the GIL (taken back for a row the exact search answers,
        see :meth:`find_path`); the same paths, packed in one
        :class:`NavPaths`."""
        if partial is not False and partial is not True:
            partial = flag("partial", partial)
        if filter is not self._last:
            self._use(filter)
        got = self._kernel.find_many(starts, goals, partial)
        if got is None:                 # not float64 (n, 2) arrays: check them the slow way
            s, g = _many(starts, "starts"), _many(goals, "goals")
            if len(s) != len(g):
                raise InvalidQueryError(f"starts ({len(s)}) and goals ({len(g)}) must be as "
                                        "many")
            got = self._kernel.find_many(s, g, partial)
            assert got is not None                      # plain arrays now
        return NavPaths(*got)

    # ------------------------------------------------------------------ surface queries
    def _on_mesh(self, point: ArrayLike, name: str, f: QueryFilter
                 ) -> tuple[int, np.ndarray, np.ndarray]:
        allowed = self._filter(f)[0]
        pts, single = finite_points(name, point)
        poly = self._kernel.locate_one(pts[0, 0], pts[0, 1]) if single else -1
        if not single or poly < 0 or not allowed[poly]:
            raise InvalidQueryError(f"{name} {point!r} must be one point on a usable polygon "
                                    "of the mesh (see nearest())")
        return int(poly), pts[0], allowed

    def raycast(self, start: ArrayLike, end: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> _surface.RayHit:
        """Walk the segment from ``start`` (on the mesh) toward ``end`` across polygons until
        a wall: the fraction walked (``inf`` when ``end`` is reached), the hit point, the
        wall's normal and the polygons crossed.  The walkable area is closed: a ray along a
        wall or through a corner goes on (through a vertex, into the polygon round it that
        holds the ray's direction); only where two walls touch at one point (a pinch of no
        width) does a ray through that point stop."""
        poly, s, allowed = self._on_mesh(start, "start", filter)
        e = finite_points("end", end)[0]
        return _surface.raycast(self.mesh, poly, s, e[0], allowed)

    def move_along_surface(self, start: ArrayLike, target: ArrayLike, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[tuple[float, float], np.ndarray]:
        """Slide from ``start`` toward ``target`` along the walls, for small moves (one
        frame): the polygons searched are those reached through portals within half the
        move's length of its midpoint (as Detour's ``moveAlongSurface``); the result is the
        target when one of them holds it, else the nearest point on their walls.  Returns
        that point and the polygons searched.

        A target farther from ``start`` than :attr:`NavMesh.reach` (the mesh's bounding-box
        diagonal) is first brought to that distance along the same line: far beyond the
        mesh, distances to its walls would differ by less than their rounding."""
        poly, s, allowed = self._on_mesh(start, "start", filter)
        t = finite_points("target", target)[0]
        p, visited = _surface.move_along_surface(self.mesh, poly, s, t[0], allowed)
        return (float(p[0]), float(p[1])), visited

    def distance_to_wall(self, centre: ArrayLike, radius: float, *,
                         filter: QueryFilter = DEFAULT_FILTER) -> _surface.WallDistance:
        """The nearest wall within ``radius`` of ``centre`` (on the mesh), searching the
        polygons connected to it."""
        radius = positive_float("radius", radius, allow_zero=True)
        poly, c, allowed = self._on_mesh(centre, "centre", filter)
        return _surface.distance_to_wall(self.mesh, poly, c, radius, allowed)

    def polygons_in_circle(self, centre: ArrayLike, radius: float, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The polygons reached from ``centre``'s polygon through portals within ``radius``
        of it: ids, parents (-1 for the first) and path costs, in order of cost."""
        radius = positive_float("radius", radius, allow_zero=True)
        poly, c, allowed = self._on_mesh(centre, "centre", filter)
        return _surface.polygons_in_circle(self.mesh, poly, c, radius, allowed)

    def random_point(self, *, rng: Any = None, centre: ArrayLike | None = None,
                     radius: float | None = None, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[int, tuple[float, float]]:
        """A random point of the usable mesh, uniform by area: ``(polygon, (x, y))``.  With
        ``centre`` and ``radius``: uniform over the part of the disc reachable from the
        centre's polygon (rejection sampling, at most 1000 tries).  ``rng``: a numpy
        Generator or a seed."""
        gen = generator("rng", rng)
        if centre is None:
            allowed = self._filter(filter)[0]
            polys = np.flatnonzero(allowed)
            if not len(polys):
                raise InvalidQueryError("no polygon is usable under this filter")
            p, pt = _surface.random_point_in(self.mesh, polys, gen)
            return p, (float(pt[0]), float(pt[1]))
        if radius is None:
            raise InvalidQueryError("give a radius with the centre")
        radius = positive_float("radius", radius, allow_zero=True)
        polys, _, _ = self.polygons_in_circle(centre, radius, filter=filter)
        c = finite_points("centre", centre)[0][0]
        for _ in range(1000):
            p, pt = _surface.random_point_in(self.mesh, polys, gen)
            if math.hypot(*(pt - c)) <= radius:
                return p, (float(pt[0]), float(pt[1]))
        raise InvalidQueryError(f"no random point found within radius {radius} of "
                                f"{tuple(c)} in 1000 tries")


def _one(point: ArrayLike, query: str) -> np.ndarray:
    """A ``(1, 2)`` float64 array of one finite point given to ``query``."""
    pts, single = finite_points("point", point)
    if not single:
        raise InvalidQueryError(f"point {brief(point)} must be one (x, y) point; for an "
                                f"(n, 2) array use {query}_many()")
    return pts


def _many(points: Any, name: str = "points") -> np.ndarray:
    """An ``(n, 2)`` array of finite points as float64, C-ordered."""
    pts, single = finite_points(name, points)
    if single:
        raise InvalidQueryError(f"{name} {brief(points)} must be an (n, 2) array (for one "
                                "point use the one-point query)")
    return pts
